"""Digest schedules and chat time zones: pure functions, no database, no clock of their own.

A chat's digest fires at a local wall time, every day or on one weekday, in the chat's zone: an
IANA name (`Europe/Berlin`, from `zoneinfo` with the `tzdata` package behind it) or a fixed
offset (`UTC+08:00`, `UTC-03:30`). `next_digest_time` turns that into the next UTC instant.

Daylight saving neither skips nor doubles a digest. Each local day yields exactly one candidate
instant, the wall time read with `fold=0`: a wall time that does not exist (the hour skipped
when clocks spring forward) is read with the offset before the change, so it fires once, an
hour "late" by the new clock; a wall time that happens twice (clocks fall back) fires at its
first occurrence only.
"""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass
from datetime import UTC, datetime, time, timedelta, timezone, tzinfo
from functools import cache
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError, available_timezones

log = logging.getLogger(__name__)

DEFAULT_ZONE = "UTC"
WEEKDAYS = ("mon", "tue", "wed", "thu", "fri", "sat", "sun")
WEEKDAY_NAMES = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")
# The offsets in use on Earth: from UTC-12:00 (Baker Island) to UTC+14:00 (Line Islands).
MIN_OFFSET_MINUTES, MAX_OFFSET_MINUTES = -12 * 60, 14 * 60
ZONE_EXAMPLES = "an IANA name such as Europe/Berlin or Asia/Shanghai, or an offset such as UTC+8"

_OFFSET = re.compile(r"(?:UTC|GMT)\s*([+-])\s*(\d{1,2})(?::?(\d{2}))?", re.IGNORECASE)
_WALL_TIME = re.compile(r"(\d{1,2}):(\d{2})")


class BadSchedule(ValueError):
    """A zone, weekday or time of day that cannot be used; the message says what would be right."""


@dataclass(frozen=True, slots=True)
class DigestSchedule:
    """When a chat's digest goes out: `at` local time, every day or on `weekday` (0 is Monday)."""

    at: time
    weekday: int | None = None

    @property
    def minute_of_day(self) -> int:
        return self.at.hour * 60 + self.at.minute

    @classmethod
    def from_minute(cls, minute_of_day: int, weekday: int | None) -> DigestSchedule:
        return cls(time(minute_of_day // 60, minute_of_day % 60), weekday)

    def describe(self) -> str:
        """ "daily at 08:00" or "weekly on Monday at 08:00"."""
        if self.weekday is None:
            return f"daily at {self.at:%H:%M}"
        return f"weekly on {WEEKDAY_NAMES[self.weekday]} at {self.at:%H:%M}"

    def command(self) -> str:
        """The /digest arguments that set this schedule: "daily 08:00", "weekly mon 08:00"."""
        if self.weekday is None:
            return f"daily {self.at:%H:%M}"
        return f"weekly {WEEKDAYS[self.weekday]} {self.at:%H:%M}"


def parse_wall_time(text: str) -> time:
    """ "08:00" or "8:00" → 08:00; anything else (25:00, 8h, 08:60) is refused."""
    match = _WALL_TIME.fullmatch(text.strip())
    if match is None or int(match.group(1)) > 23 or int(match.group(2)) > 59:
        raise BadSchedule(f"{text[:20]!r} is not a time of day; use HH:MM from 00:00 to 23:59")
    return time(int(match.group(1)), int(match.group(2)))


def parse_weekday(text: str) -> int:
    """ "mon", "Monday", "MON" → 0; anything else is refused."""
    word = text.strip().casefold()
    for number, (short, name) in enumerate(zip(WEEKDAYS, WEEKDAY_NAMES, strict=True)):
        if word in (short, name.casefold()):
            return number
    raise BadSchedule(f"{text[:20]!r} is not a day of the week; use one of {', '.join(WEEKDAYS)}")


def canonical_zone(text: str) -> str:
    """The stored spelling of a zone the user typed: an IANA name in its own case
    ("asia/shanghai" → "Asia/Shanghai"), or a whole offset ("utc+8" → "UTC+08:00")."""
    text = text.strip()
    offset = _OFFSET.fullmatch(text)
    if offset is not None:
        sign, hours, minutes = offset.group(1), int(offset.group(2)), int(offset.group(3) or 0)
        total = (hours * 60 + minutes) * (-1 if sign == "-" else 1)
        if minutes > 59 or not MIN_OFFSET_MINUTES <= total <= MAX_OFFSET_MINUTES:
            raise BadSchedule(
                f"{text[:20]} is not an offset in use; offsets go from UTC-12:00 to UTC+14:00"
            )
        return _offset_name(total)
    name = _zone_names().get(text.casefold())
    if name is None:
        raise BadSchedule(f"{text[:40]!r} is not a time zone I know; use {ZONE_EXAMPLES}")
    return name


def zone_of(name: str) -> tzinfo:
    """The tzinfo of a stored zone name (see `canonical_zone`). A name this machine's zone
    database no longer knows is logged and read as UTC, rather than stopping the digests."""
    offset = _OFFSET.fullmatch(name)
    if offset is not None:
        sign, hours, minutes = offset.group(1), int(offset.group(2)), int(offset.group(3) or 0)
        total = (hours * 60 + minutes) * (-1 if sign == "-" else 1)
        return timezone(timedelta(minutes=total), _offset_name(total))
    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError):
        log.warning("time zone %r is unknown to this machine's zone database; using UTC", name)
        return UTC


def next_digest_time(schedule: DigestSchedule, zone: tzinfo, *, after: datetime) -> datetime:
    """The first instant (UTC) strictly after `after` at which the schedule fires in `zone`.

    One candidate per local day, its wall time read with fold=0 (see the module docstring),
    so a day never fires twice and a day with a daylight-saving change still fires once.
    """
    start = after.astimezone(zone).date()
    for days in range(9):  # a week and a bit: a weekly schedule fires within eight local days
        day = start + timedelta(days=days)
        if schedule.weekday is not None and day.weekday() != schedule.weekday:
            continue
        instant = datetime.combine(day, schedule.at, tzinfo=zone).astimezone(UTC)
        if instant > after:
            return instant
    raise AssertionError("a schedule fires at least once a week")  # pragma: no cover


def local_time_text(moment: datetime, zone: tzinfo) -> str:
    """ "Mon 30 Mar 2026, 08:00 CEST": a moment as the chat's clock shows it."""
    local = moment.astimezone(zone)
    label = local.tzname() or ""
    # A fixed offset's name is the offset itself; an IANA zone shows its abbreviation.
    return f"{local:%a %d %b %Y, %H:%M}" + (f" {label}" if label else "")


def _offset_name(total_minutes: int) -> str:
    if total_minutes == 0:
        return "UTC+00:00"
    sign = "-" if total_minutes < 0 else "+"
    hours, minutes = divmod(abs(total_minutes), 60)
    return f"UTC{sign}{hours:02d}:{minutes:02d}"


@cache
def _zone_names() -> dict[str, str]:
    """Every IANA zone name this machine knows, by its case-folded spelling."""
    return {name.casefold(): name for name in available_timezones()}
