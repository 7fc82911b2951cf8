"""arXiv's announcement calendar: when a new batch goes out, and the mailing date it carries.

Pure functions over settings, no clock of their own. arXiv announces once a day at 20:00 US
Eastern, Sunday to Thursday, except on its holidays (the help page "Availability of
submissions"). An announcement is dated by its *mailing date*, the calendar day after the
evening it goes out: the listing's heading ("Showing new listings for Tuesday, 1 December
2026"), the RSS `pubDate` and the OAI datestamps of the batch all carry that date.

The wall time is read in the announcement zone with `zoneinfo`, so daylight saving moves the
UTC instant and never the local one: 20:00 New York is 00:00 UTC in summer and 01:00 UTC in
winter. A wall time that does not exist on a day (the hour skipped when clocks spring forward)
is read with the offset before the change (`fold=0`), as `watcher.schedule` does for digests.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta
from zoneinfo import ZoneInfo

WEEKDAYS = ("mon", "tue", "wed", "thu", "fri", "sat", "sun")
DEFAULT_TIME = time(20, 0)
DEFAULT_ZONE = "America/New_York"
DEFAULT_DAYS = ("sun", "mon", "tue", "wed", "thu")

# arXiv's holidays: evenings on which no announcement goes out. Taken on 2026-12-01 from the
# table of holidays in arXiv/arxiv-base (`arxiv/db/arxiv_holidays_seed.sql`, itself a copy of
# arXiv's scheduling code as of 2026-05), for the years this release may still run in; arXiv's
# help page "availability" (arXiv/arxiv-docs, `source/help/availability.md`) names the same
# kind of dates for 2023 as the announcement days that are skipped. Dates that fall on a Friday
# or Saturday change nothing here (no announcement that evening anyway). Add later ones, or an
# ad-hoc closure, with ARXIV_HOLIDAYS.
BUILT_IN_HOLIDAYS: frozenset[date] = frozenset(
    date.fromisoformat(day)
    for day in (
        # 2025
        "2025-01-01", "2025-01-20", "2025-06-19", "2025-07-04", "2025-07-06", "2025-09-01",
        "2025-11-27", "2025-12-25", "2025-12-30",
        # 2026
        "2026-01-01", "2026-01-19", "2026-06-19", "2026-07-03", "2026-09-07", "2026-11-26",
        "2026-12-25", "2026-12-29", "2026-12-31",
    )
)  # fmt: skip


def parse_days(text: str) -> tuple[str, ...]:
    """`sun,mon,tue` → ("sun", "mon", "tue"); ValueError naming what is wrong."""
    days = [part.strip().lower()[:3] for part in text.replace(";", ",").split(",") if part.strip()]
    wrong = [day for day in days if day not in WEEKDAYS]
    if wrong or not days:
        raise ValueError(
            f"{', '.join(wrong) or 'no day'} is not a weekday; "
            "give some of mon,tue,wed,thu,fri,sat,sun separated by commas"
        )
    return tuple(dict.fromkeys(days))


def parse_holidays(text: str) -> frozenset[date]:
    """`2026-12-24,2027-01-04` → those dates; ValueError naming the first that is not one."""
    days = set()
    for part in text.replace(";", ",").replace(" ", ",").split(","):
        if not part:
            continue
        try:
            days.add(date.fromisoformat(part))
        except ValueError:
            raise ValueError(f"{part[:20]!r} is not a date; write YYYY-MM-DD") from None
    return frozenset(days)


def parse_announce_time(text: str) -> time:
    """`20:00` → 20:00, and `20:00:30` to the second (tests announce seconds ahead); ValueError
    when it is neither."""
    parts = text.strip().split(":")
    digits = all(part.isdigit() for part in parts) and all(len(p) == 2 for p in parts[1:])
    if digits and len(parts) in (2, 3):
        hours, minutes, seconds = (int(part) for part in [*parts, "0"][:3])
        if hours < 24 and minutes < 60 and seconds < 60:
            return time(hours, minutes, seconds)
    raise ValueError(f"{text[:20]!r} is not a time of day; write HH:MM, e.g. 20:00")


@dataclass(frozen=True, slots=True)
class Announcement:
    """One announcement: the instant it goes out (UTC) and the mailing date it carries."""

    at: datetime
    mailing: date


@dataclass(frozen=True, slots=True)
class AnnouncementCalendar:
    """When arXiv announces: a wall time in a zone, on some weekdays, minus holidays."""

    wall_time: time = DEFAULT_TIME
    zone: str = DEFAULT_ZONE
    days: tuple[str, ...] = DEFAULT_DAYS
    holidays: frozenset[date] = BUILT_IN_HOLIDAYS

    @classmethod
    def of(
        cls, wall_time: time, zone: str, days: Iterable[str], extra_holidays: Iterable[date]
    ) -> AnnouncementCalendar:
        """The calendar of the settings: the built-in holidays plus `extra_holidays`."""
        ZoneInfo(zone)  # an unknown zone fails here, at start, not at the first announcement
        return cls(wall_time, zone, tuple(days), BUILT_IN_HOLIDAYS | frozenset(extra_holidays))

    def announces_on(self, evening: date) -> bool:
        """Whether an announcement goes out on the evening of `evening` (local date)."""
        return WEEKDAYS[evening.weekday()] in self.days and evening not in self.holidays

    def on(self, evening: date) -> Announcement:
        """The announcement of the local date `evening` (whether or not one goes out then)."""
        local = datetime.combine(evening, self.wall_time, tzinfo=ZoneInfo(self.zone))
        return Announcement(at=local.astimezone(UTC), mailing=evening + timedelta(days=1))

    def following(self, after: datetime) -> Iterator[Announcement]:
        """The announcements after the instant `after` (aware), in order, for ever."""
        evening = after.astimezone(ZoneInfo(self.zone)).date() - timedelta(days=1)
        while True:
            if self.announces_on(evening):
                announcement = self.on(evening)
                if announcement.at > after:
                    yield announcement
            evening += timedelta(days=1)

    def next_after(self, after: datetime) -> Announcement | None:
        """The first announcement after `after`; None when none comes within a year (a calendar
        with every day a holiday)."""
        for announcement in self.following(after):
            if announcement.at - after > timedelta(days=366):
                return None
            return announcement
        return None

    def latest_at_or_before(self, instant: datetime) -> Announcement | None:
        """The last announcement at or before `instant`, within the last two weeks."""
        evening = instant.astimezone(ZoneInfo(self.zone)).date()
        for back in range(15):
            day = evening - timedelta(days=back)
            if self.announces_on(day) and self.on(day).at <= instant:
                return self.on(day)
        return None
