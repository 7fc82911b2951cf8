"""When the structured sources poll (POLL_SCHEDULE=calendar): arXiv's calendar, not a clock tick.

Pure, no clock of its own. Each evening (every day of the week) has one *usual time* per
source, the announcement's wall time of that evening (`watcher.calendars.announcements`) plus an
offset:

    harvest (OAI-PMH)       + CALENDAR_HARVEST_AFTER (default 9000 s: 22:30 US Eastern)
    API and author feeds    + CALENDAR_API_AFTER (default 14700 s: 00:05 US Eastern)

At its usual time a source polls once. On an announcement evening the harvest then checks again
every CALENDAR_HARVEST_EVERY seconds (default 600) until the evening's mailing date shows in its
datestamps, for at most LISTING_PROBE_HOURS; then the day is left to the next evening's poll,
which reads it anyway (the harvest window starts a day before its mark, the API's reaches back
POLL_WINDOW_DAYS). An evening without an announcement gets that one poll alone, in case arXiv
changed its calendar. Between the usual times nothing is polled but failures (retried as before,
capped by POLL_INTERVAL) and new follows' histories (fetched at once).

With POLL_SCHEDULE=interval there is no `PollCalendar`: every source polls every POLL_INTERVAL.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime, timedelta
from zoneinfo import ZoneInfo

from watcher.calendars.announcements import AnnouncementCalendar

DEFAULT_HARVEST_AFTER = 9000.0  # seconds after 20:00: 22:30, "typically around 10:30pm ET"
DEFAULT_API_AFTER = 14700.0  # seconds after 20:00: 00:05, the API shows the batch at midnight
DEFAULT_HARVEST_EVERY = 600.0  # seconds between two checks while the batch has not shown


@dataclass(frozen=True, slots=True)
class Evening:
    """One evening's poll of a source: from `start` (UTC) until `until`, looking for `mailing`;
    `announced` says whether arXiv announces that evening."""

    start: datetime
    until: datetime
    mailing: date
    announced: bool

    def check_number(self, now: datetime, every: timedelta) -> int:
        """Which check of the evening `now` is (0 the first): distinct for polls `every` apart."""
        return max(0, int((now - self.start) / every))


@dataclass(frozen=True, slots=True)
class PollCalendar:
    """The usual poll times of the structured sources, from the announcement calendar."""

    calendar: AnnouncementCalendar
    harvest_after: timedelta = timedelta(seconds=DEFAULT_HARVEST_AFTER)
    api_after: timedelta = timedelta(seconds=DEFAULT_API_AFTER)
    harvest_every: timedelta = timedelta(seconds=DEFAULT_HARVEST_EVERY)
    window: timedelta = timedelta(hours=6)

    def evening(self, day: date, after: timedelta) -> Evening:
        """The evening of the local date `day`, for a source polling `after` the wall time."""
        announcement = self.calendar.on(day)
        start = announcement.at + after
        return Evening(
            start, start + self.window, announcement.mailing, self.calendar.announces_on(day)
        )

    def current(self, now: datetime, after: timedelta) -> Evening | None:
        """The latest evening whose poll started at or before `now` (within three days)."""
        today = now.astimezone(ZoneInfo(self.calendar.zone)).date()
        for back in range(4):
            evening = self.evening(today - timedelta(days=back), after)
            if evening.start <= now:
                return evening
        return None

    def next_start(self, now: datetime, after: timedelta) -> datetime:
        """The first usual time strictly after `now`, whether arXiv announces then or not."""
        today = now.astimezone(ZoneInfo(self.calendar.zone)).date()
        for ahead in range(-1, 4):
            evening = self.evening(today + timedelta(days=ahead), after)
            if evening.start > now:
                return evening.start
        raise AssertionError("every day has an evening")  # pragma: no cover

    def expected_mailing(self, now: datetime) -> date | None:
        """The mailing date the harvest looks for at `now`: that of the evening whose poll
        window `now` is in (announced or not: arXiv may change its calendar); None after it."""
        evening = self.current(now, self.harvest_after)
        if evening is None or now >= evening.until:
            return None
        return evening.mailing

    def next_harvest(self, now: datetime, *, seen: date | None) -> datetime:
        """When the harvest polls next, having seen datestamps through `seen`: again in
        CALENDAR_HARVEST_EVERY while an announced batch has not shown (and its window is
        open), else at the next evening's usual time."""
        evening = self.current(now, self.harvest_after)
        if (
            evening is not None
            and evening.announced
            and (seen is None or seen < evening.mailing)
            and now + self.harvest_every < evening.until
        ):
            return now + self.harvest_every
        return self.next_start(now, self.harvest_after)

    def next_api(self, now: datetime) -> datetime:
        """When the API and the author feeds poll next: the next evening's usual time."""
        return self.next_start(now, self.api_after)

    def harvest_check(self, now: datetime) -> int:
        """Which check of its evening a harvest at `now` is (see `Evening.check_number`)."""
        evening = self.current(now, self.harvest_after)
        return 0 if evening is None else evening.check_number(now, self.harvest_every)


def next_api_poll(schedule: PollCalendar | None, now: datetime, interval: timedelta) -> datetime:
    """When an API or author-feed follow polled successfully at `now` polls next: at the next
    evening's usual time, or POLL_INTERVAL later without a calendar."""
    return now + interval if schedule is None else schedule.next_api(now)
