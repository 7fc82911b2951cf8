"""Digest schedules and chat time zones: pure functions, no database, no clock of their own.

A chat's (or forum topic's) digest fires at a local wall time, on some days of the week (every
day, Monday to Friday, or chosen weekdays), in its own zone: an IANA name (`Europe/Berlin`,
from `zoneinfo` with the `tzdata` package behind it; a city alone, "Berlin", when only one zone
is named after it) or a fixed offset (`UTC+08:00`, `UTC-03:30`, typed as "+8" too).
`next_digest_time` turns that into the next UTC instant. Times are typed "08:00", "8:00", "8am"
or "8:30 pm".

Daylight saving neither skips nor doubles a digest. Each local day yields exactly one candidate
instant, the wall time read with `fold=0`: a wall time that does not exist (the hour skipped
when clocks spring forward) is read with the offset before the change, so it fires once, an
hour "late" by the new clock; a wall time that happens twice (clocks fall back) fires at its
first occurrence only.
"""

from __future__ import annotations

import difflib
import logging
import re
from dataclasses import dataclass
from datetime import UTC, datetime, time, timedelta, timezone, tzinfo
from functools import cache
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError, available_timezones

from watcher.sentences import SaysSentence, sentence

log = logging.getLogger(__name__)

DEFAULT_ZONE = "UTC"
WEEKDAYS = ("mon", "tue", "wed", "thu", "fri", "sat", "sun")
WEEKDAY_NAMES = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")
EVERY_DAY = frozenset(range(7))
MONDAY_TO_FRIDAY = frozenset(range(5))
# The offsets in use on Earth: from UTC-12:00 (Baker Island) to UTC+14:00 (Line Islands).
MIN_OFFSET_MINUTES, MAX_OFFSET_MINUTES = -12 * 60, 14 * 60
# Cities people name for their clock whose zone the IANA database names after another city
# (the database names a zone after its most populous city when the zone was made).
_CITY_ZONES = {
    "beijing": "Asia/Shanghai",
    "shenzhen": "Asia/Shanghai",
    "guangzhou": "Asia/Shanghai",
    "hangzhou": "Asia/Shanghai",
    "wuhan": "Asia/Shanghai",
    "changsha": "Asia/Shanghai",
    "washington": "America/New_York",
    "boston": "America/New_York",
    "san francisco": "America/Los_Angeles",
    "seattle": "America/Los_Angeles",
    "delhi": "Asia/Kolkata",
    "new delhi": "Asia/Kolkata",
    "bangalore": "Asia/Kolkata",
    "mumbai": "Asia/Kolkata",
}

_OFFSET = re.compile(r"(?:UTC|GMT)?\s*([+-])\s*(\d{1,2})(?::?(\d{2}))?", re.IGNORECASE)
_WALL_TIME = re.compile(r"(\d{1,2})(?::(\d{2}))?\s*([ap]\.?m\.?)?", re.IGNORECASE)


class BadSchedule(SaysSentence, ValueError):
    """A zone, weekday or time of day that cannot be used; the message says what would be right
    (a `watcher.sentences.Sentence`, `error.sentence`)."""


@dataclass(frozen=True, slots=True)
class DigestSchedule:
    """When a chat's digest goes out: `at` local time, on `days` (0 is Monday)."""

    at: time
    days: frozenset[int] = EVERY_DAY

    @classmethod
    def weekly(cls, at: time, weekday: int) -> DigestSchedule:
        return cls(at, frozenset({weekday}))

    @property
    def minute_of_day(self) -> int:
        return self.at.hour * 60 + self.at.minute

    @property
    def day_mask(self) -> int:
        """The days as stored: bit 0 is Monday."""
        return sum(1 << day for day in self.days)

    @classmethod
    def from_stored(cls, minute_of_day: int, day_mask: int) -> DigestSchedule:
        days = frozenset(day for day in range(7) if day_mask >> day & 1)
        return cls(time(minute_of_day // 60, minute_of_day % 60), days or EVERY_DAY)

    def describe(self) -> str:
        """ "daily at 08:00", "on weekdays at 08:00" or "weekly on Monday at 08:00"."""
        if self.days == EVERY_DAY:
            return f"daily at {self.at:%H:%M}"
        if self.days == MONDAY_TO_FRIDAY:
            return f"on weekdays (Monday to Friday) at {self.at:%H:%M}"
        names = ", ".join(WEEKDAY_NAMES[day] for day in sorted(self.days))
        return f"weekly on {names} at {self.at:%H:%M}"

    def command(self) -> str:
        """The /digest arguments that set this schedule: "daily 08:00", "weekdays 08:00",
        "weekly mon 08:00" or "weekly mon,thu 08:00"."""
        if self.days == EVERY_DAY:
            return f"daily {self.at:%H:%M}"
        if self.days == MONDAY_TO_FRIDAY:
            return f"weekdays {self.at:%H:%M}"
        return f"weekly {','.join(WEEKDAYS[day] for day in sorted(self.days))} {self.at:%H:%M}"


def parse_wall_time(text: str) -> time:
    """ "08:00", "8:00", "8am", "8:30 pm", "12am" (midnight) → a time of day; anything else
    (25:00, 8h, 08:60, 13pm) is refused."""
    match = _WALL_TIME.fullmatch(text.strip())
    refusal = BadSchedule(
        sentence(
            "{text} is not a time of day; use HH:MM from 00:00 to 23:59, or 8am",
            text=repr(text[:20]),
        )
    )
    if match is None or (match.group(2) is None and match.group(3) is None):
        raise refusal  # a bare "8" may be a count or a day: ask for a time
    hour, minute = int(match.group(1)), int(match.group(2) or 0)
    if match.group(3) is not None:
        if not 1 <= hour <= 12:
            raise refusal
        hour = hour % 12 + (12 if match.group(3)[0].casefold() == "p" else 0)
    if hour > 23 or minute > 59:
        raise refusal
    return time(hour, minute)


def parse_weekdays(text: str) -> frozenset[int]:
    """ "mon" → {0}; "mon,thu" → {0, 3}; each as `parse_weekday` reads it."""
    words = [word for word in text.split(",") if word.strip()] or [text]
    return frozenset(parse_weekday(word) for word in words)


def parse_weekday(text: str) -> int:
    """ "mon", "Monday", "MON" → 0; anything else is refused."""
    word = text.strip().casefold()
    for number, (short, name) in enumerate(zip(WEEKDAYS, WEEKDAY_NAMES, strict=True)):
        if word in (short, name.casefold()):
            return number
    raise BadSchedule(
        sentence(
            "{text} is not a day of the week; use one of {days}",
            text=repr(text[:20]),
            days=", ".join(WEEKDAYS),
        )
    )


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
                sentence(
                    "{text} is not an offset in use; offsets go from UTC-12:00 to UTC+14:00",
                    text=text[:20],
                )
            )
        return _offset_name(total)
    name = _zone_names().get(text.casefold()) or _city_zones().get(_city_key(text))
    if name is None:
        near = _near_zone(text)
        raise BadSchedule(
            sentence(
                "{text} is not a time zone I know; did you mean {zone}? Or use an IANA name such "
                "as Europe/Berlin, a city such as Berlin, or an offset such as +8",
                text=repr(text[:40]),
                zone=near,
            )
            if near
            else sentence(
                "{text} is not a time zone I know; use an IANA name such as Europe/Berlin, a "
                "city such as Berlin, or an offset such as +8",
                text=repr(text[:40]),
            )
        )
    return name


def _near_zone(text: str) -> str | None:
    """The zone a wrong name most likely meant: that of its city part ("Asia/Beijing" →
    Asia/Shanghai), else the closest zone name or city by `difflib`'s ratio."""
    city = _city_key(text.rpartition("/")[2])
    if not city:
        return None
    if city in _city_zones():
        return _city_zones()[city]
    names = _zone_names()
    for near in difflib.get_close_matches(text.casefold(), names, n=1, cutoff=0.8):
        return names[near]
    for near in difflib.get_close_matches(city, _city_zones(), n=1, cutoff=0.8):
        return _city_zones()[near]
    return None


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
        if day.weekday() not in schedule.days:
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


def _city_key(text: str) -> str:
    return " ".join(text.replace("_", " ").split()).casefold()


@cache
def _city_zones() -> dict[str, str]:
    """A city alone ("berlin", "new york") → its zone, for the cities that name exactly one
    zone of this machine's database, and the few of `_CITY_ZONES`."""
    found: dict[str, set[str]] = {}
    for name in available_timezones():
        area, _, city = name.rpartition("/")
        if area and not area.startswith("Etc"):
            found.setdefault(_city_key(city), set()).add(name)
    unique = {city: zones.pop() for city, zones in found.items() if len(zones) == 1}
    return {**unique, **_CITY_ZONES}
