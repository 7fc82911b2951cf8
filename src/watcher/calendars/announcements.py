"""arXiv's announcement calendar: when a new batch goes out, and the mailing date it carries.

Pure functions over settings, no clock of their own. arXiv announces once a day at 20:00 US
Eastern, Sunday to Thursday, except on its holidays (the help page "Availability of
submissions"). An announcement is dated by its *mailing date*, the calendar day after the
evening it goes out: the listing's heading ("Showing new listings for Tuesday, 1 December
2026"), the RSS `pubDate` and the OAI datestamps of the batch all carry that date.

The holidays are a guess (`data/arxiv-holidays.tsv`, as arXiv lists them: days whose deadline
is skipped, so a listed Friday takes the Sunday announcement after it). `following` and
`next_after` give the evenings the calendar expects a batch on; `listing_reads` adds the
*guessed holidays* (announcement weekdays the list skips), on which the listing source probes
at a low rate in case arXiv announces after all: the listing's heading decides.

The wall time is read in the announcement zone with `zoneinfo`, so daylight saving moves the
UTC instant and never the local one: 20:00 New York is 00:00 UTC in summer and 01:00 UTC in
winter. A wall time that does not exist on a day (the hour skipped when clocks spring forward)
is read with the offset before the change (`fold=0`), as `watcher.calendars.schedule` does for
digests.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass, replace
from datetime import UTC, date, datetime, time, timedelta
from importlib.resources import files
from zoneinfo import ZoneInfo

WEEKDAYS = ("mon", "tue", "wed", "thu", "fri", "sat", "sun")
DEFAULT_TIME = time(20, 0)
DEFAULT_ZONE = "America/New_York"
DEFAULT_DAYS = ("sun", "mon", "tue", "wed", "thu")

SUNDAY = 6  # `date.weekday()` of Sunday
FRIDAY_TO_SUNDAY = timedelta(days=2)


def _read_holidays() -> frozenset[date]:
    """The dates of the packaged `data/arxiv-holidays.tsv` (its header says whence)."""
    text = files("watcher").joinpath("data/arxiv-holidays.tsv").read_text(encoding="utf-8")
    rows = (line.split("\t", 1)[0] for line in text.splitlines())
    return frozenset(date.fromisoformat(row) for row in rows if row[:1].isdigit())


# arXiv's holidays as arXiv lists them (arxiv-docs' availability page, arxiv-base's
# `freeze_skip_date`): days whose 14:00 deadline is skipped. A Monday to Thursday one has no
# announcement that evening; a Friday one, none on the Sunday after (the Friday deadline makes
# the Sunday batch). A guess: the listing is probed on those evenings all the same
# (`watcher.polling.sources.listing`). Add later ones, or an ad-hoc closure, with ARXIV_HOLIDAYS.
BUILT_IN_HOLIDAYS: frozenset[date] = _read_holidays()


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
    """One announcement: the instant it goes out (UTC) and the mailing date it carries.
    `holiday`: an evening the calendar guesses is skipped (`AnnouncementCalendar.listing_reads`),
    on which the listing is only probed at a low rate."""

    at: datetime
    mailing: date
    holiday: bool = False


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

    def usual_evening(self, evening: date) -> bool:
        """Whether `evening` (local date) is on one of the announcement weekdays."""
        return WEEKDAYS[evening.weekday()] in self.days

    def skipped(self, evening: date) -> bool:
        """Whether the holidays skip the announcement of `evening`: a holiday itself, or a
        Sunday whose Friday deadline is one."""
        return evening in self.holidays or (
            evening.weekday() == SUNDAY and evening - FRIDAY_TO_SUNDAY in self.holidays
        )

    def announces_on(self, evening: date) -> bool:
        """Whether an announcement goes out on the evening of `evening` (local date), as the
        calendar guesses."""
        return self.usual_evening(evening) and not self.skipped(evening)

    def guessed_holiday(self, evening: date) -> bool:
        """An announcement weekday the holidays skip: arXiv may announce all the same."""
        return self.usual_evening(evening) and self.skipped(evening)

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

    def listing_reads(self, after: datetime) -> Iterator[Announcement]:
        """The evenings after `after` whose listing is read: each announcement, and each
        guessed holiday (with `holiday` set), in order, for ever."""
        evening = after.astimezone(ZoneInfo(self.zone)).date() - timedelta(days=1)
        while True:
            if self.usual_evening(evening):
                announcement = self.on(evening)
                if announcement.at > after:
                    yield replace(announcement, holiday=self.skipped(evening))
            evening += timedelta(days=1)

    def next_listing_read(self, after: datetime) -> Announcement | None:
        """The first of `listing_reads` after `after`; None when none comes within a year."""
        for announcement in self.listing_reads(after):
            return None if announcement.at - after > timedelta(days=366) else announcement
        return None

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
