"""What the service's administrators are shown (/stats): the chats, papers and deliveries
counted, arXiv's last mailing, the sources that stopped parsing, the parked chats, the latest
failed deliveries and every follow's poll state, read in one call on the database thread.

The front end words and cuts it; the calendar comes along so it can say when the next mailing
is due (`watcher.core.mailing_report.describe_mailing`).
"""

from __future__ import annotations

from dataclasses import dataclass

from watcher.aio import in_db_thread
from watcher.calendars.announcements import AnnouncementCalendar
from watcher.follows.followed import Followed
from watcher.settings import Settings
from watcher.store import Store
from watcher.store.chats import Chats
from watcher.store.mailings import MailingNews
from watcher.store.outbox import Outbox, OutboxStats
from watcher.store.parking import ParkedInfo
from watcher.store.source_health import SourceHealth

PARKED_SHOWN = 5  # parked destinations listed (the total is always told)
FAILURES_SHOWN = 5  # latest failed deliveries listed


@dataclass(frozen=True, slots=True)
class ServiceStats:
    """The service at a glance. `followed`: failing follows first."""

    chats: int
    active_chats: int
    subscriptions: int
    papers: int
    deliveries: OutboxStats
    mailing: MailingNews
    calendar: AnnouncementCalendar
    sources: tuple[SourceHealth, ...]
    parked_total: int
    parked: tuple[ParkedInfo, ...]  # the first `PARKED_SHOWN`
    failures: tuple[tuple[int, str, str], ...]  # (chat id, arXiv id, reason), latest first
    followed: tuple[Followed, ...]


class Admin:
    """The administrators' reads."""

    def __init__(self, settings: Settings, store: Store, chats: Chats, outbox: Outbox) -> None:
        self._settings = settings
        self._store = store
        self._chats = chats
        self._outbox = outbox

    async def stats(self) -> ServiceStats:
        return await in_db_thread(self._stats)

    def _stats(self) -> ServiceStats:
        chats, active, subscriptions = self._chats.counts()
        parked_total, parked = self._chats.parking.parked(limit=PARKED_SHOWN)
        followed = sorted(self._store.followed(), key=lambda f: f.consecutive_failures == 0)
        return ServiceStats(
            chats=chats,
            active_chats=active,
            subscriptions=subscriptions,
            papers=self._store.count(),
            deliveries=self._outbox.stats(),
            mailing=self._store.last_mailing(),
            calendar=self._settings.announcement_calendar,
            sources=tuple(self._store.source_health()),
            parked_total=parked_total,
            parked=tuple(parked),
            failures=tuple(self._outbox.failures(limit=FAILURES_SHOWN)),
            followed=tuple(followed),
        )
