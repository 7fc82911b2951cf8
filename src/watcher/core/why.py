"""`Why`: /why, "why did I get nothing today?", for one chat (forum topic), read in one call.

It gathers what the service knows, and the front end (`bot.handlers.why`) words it: arXiv's
last announcement and the next by the calendar (`watcher.calendars.announcements`), the newest
mailing a source showed and how many new papers the listing read of it (`mailing_seen`, stored
with the read: known after a restart and to every process on the database), the sources that
stopped parsing, what the destination was queued since that announcement by follow, and what
holds its messages: a pause, quiet hours, a digest. Every stored fact is read in one transaction
(`watcher.store.arrivals.why_reads`, keyed reads only).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime, timedelta
from zoneinfo import ZoneInfo

from watcher.aio import in_db_thread
from watcher.calendars.announcements import Announcement, AnnouncementCalendar
from watcher.clock import Clock
from watcher.follows.followed import Followed
from watcher.settings import Settings
from watcher.store import Store
from watcher.store.arrivals import why_reads
from watcher.store.digests import DigestSettings
from watcher.store.mailings import MailingNews
from watcher.store.speaking import SpeakingSettings


@dataclass(frozen=True, slots=True)
class WhyAnswer:
    """What /why words. `last`: the last announcement at or before `now` (two weeks back at
    most); `read`: whether a source showed its mailing; `listed`: the new papers the listing
    read of it, None when not known; `got`: (follow, new papers queued since `last`), those
    with some; `failing`: the sources that stopped parsing (`SOURCES` names); `harvest_after`
    and `api_after`: when the harvest and the API poll after an announcement; `listings`:
    whether the listing is read at all (EARLY_LISTINGS)."""

    now: datetime
    calendar: AnnouncementCalendar
    last: Announcement | None
    next: Announcement | None
    mailing: MailingNews
    listed: int | None
    failing: tuple[str, ...]
    follows: tuple[Followed, ...]
    got: tuple[tuple[Followed, int], ...]
    speaking: SpeakingSettings
    digest: DigestSettings
    harvest_after: timedelta
    api_after: timedelta
    listings: bool

    @property
    def read(self) -> bool:
        return (
            self.last is not None
            and self.mailing.mailing is not None
            and self.mailing.mailing >= self.last.mailing
        )

    @property
    def today(self) -> date:
        """Today's date in arXiv's zone: the evening whose announcement is tonight's."""
        return self.now.astimezone(ZoneInfo(self.calendar.zone)).date()


class Why:
    """/why of one core."""

    def __init__(self, settings: Settings, store: Store, clock: Clock) -> None:
        self._settings = settings
        self._store = store
        self._clock = clock

    async def why(self, chat_id: int, thread_id: int) -> WhyAnswer:
        return await in_db_thread(self._why, chat_id, thread_id)

    def _why(self, chat_id: int, thread_id: int) -> WhyAnswer:
        now = self._clock()
        calendar = self._settings.announcement_calendar
        last = calendar.latest_at_or_before(now)
        reads = why_reads(
            self._store.engine, chat_id, thread_id, since=None if last is None else last.at
        )
        got = tuple((f, reads.queued[f.id]) for f in reads.follows if reads.queued.get(f.id))
        return WhyAnswer(
            now=now,
            calendar=calendar,
            last=last,
            next=calendar.next_after(now),
            mailing=reads.mailing,
            listed=reads.mailing.listed,
            failing=reads.failing,
            follows=reads.follows,
            got=got,
            speaking=reads.speaking,
            digest=reads.digest,
            harvest_after=timedelta(seconds=self._settings.calendar_harvest_after),
            api_after=timedelta(seconds=self._settings.calendar_api_after),
            listings=self._settings.early_listings,
        )
