"""What the front end's delivery side asks of the core: the outbox to drain and confirm, the
digests and quiet hours that fall due, the chats' parking, the notices owed to the admin chats,
and whom a failing follow's notice goes to. One async call each, run on the database thread;
every instant the store stamps is the runtime's clock (`Core.clock`).

The outbox's meaning is in `watcher.store.outbox`, digests in `watcher.store.digests`, quiet
hours in `watcher.store.quiet`, parking in `watcher.store.parking`.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime

from watcher.aio import in_db_thread
from watcher.clock import Clock
from watcher.follows.followed import Followed
from watcher.settings import Settings
from watcher.store import Store, quiet
from watcher.store.chats import Chats
from watcher.store.digests import ClaimReport, DigestRenderer
from watcher.store.outbox import Outbox, PendingDelivery, PendingDigestPart
from watcher.store.parking import ParkedInfo
from watcher.store.source_health import PendingNotice
from watcher.store.speaking import Style


@dataclass(frozen=True, slots=True)
class Audience:
    """What sending to some chats needs to know of them, read at once: whom each topic follows
    (`topics`, by (chat id, thread id)), those follows (`followed`), which of them each paper
    about to go is linked to (`links`, (arXiv id, followed id)), the destinations' styles
    other than the default, and the language each chat was first spoken to in (`languages`,
    where a destination's style names none)."""

    topics: dict[tuple[int, int], frozenset[int]]
    followed: tuple[Followed, ...]
    links: frozenset[tuple[str, int]]
    styles: dict[tuple[int, int], Style]
    languages: dict[int, str] = field(default_factory=dict)


class Deliveries:
    """The delivery side's calls into the core."""

    def __init__(
        self, settings: Settings, store: Store, chats: Chats, outbox: Outbox, clock: Clock
    ) -> None:
        self._settings = settings
        self._store = store
        self._chats = chats
        self._outbox = outbox
        self._clock = clock

    # -- the outbox ------------------------------------------------------------------------

    async def due(self, *, limit: int) -> list[PendingDelivery]:
        """Deliveries due now, earliest first (`Outbox.due`)."""
        return await in_db_thread(self._outbox.due, limit=limit, now=self._clock())

    async def next_due(self) -> datetime | None:
        """When the earliest delivery not yet due falls due (None: none waits)."""
        return await in_db_thread(self._outbox.next_due, now=self._clock())

    async def audience(self, chat_ids: set[int], arxiv_ids: Iterable[str]) -> Audience:
        """Whom these chats' topics follow, how those follows found these papers, and how the
        chats are spoken to; read for them alone."""
        return await in_db_thread(self._audience, chat_ids, set(arxiv_ids))

    def _audience(self, chat_ids: set[int], arxiv_ids: set[str]) -> Audience:
        topics = self._chats.subscriptions_of(chat_ids)
        wanted = set().union(*topics.values())
        followed = self._store.followed(wanted) if wanted else []
        links = self._store.linked_versions(arxiv_ids, wanted) if wanted else {}
        styles = self._chats.speaking.styles(chat_ids)
        languages = self._chats.speaking.chat_languages(chat_ids)
        return Audience(topics, tuple(followed), frozenset(links), styles, languages)

    async def digest_part(self, chat_id: int, thread_id: int) -> PendingDigestPart | None:
        """The destination's earliest unsent digest message, if any."""
        return await in_db_thread(self._outbox.digest_part_for, chat_id, thread_id)

    async def summary(self, chat_id: int, thread_id: int) -> list[PendingDelivery]:
        """The destination's rows flagged for one "While you were away" message."""
        return await in_db_thread(self._outbox.summary_for, chat_id, thread_id)

    async def mark_sent(
        self, confirmed: Sequence[tuple[int, int | None]], *, versions: Mapping[int, int]
    ) -> None:
        """Confirmed sends, `(delivery id, message id)` each, marked sent in one transaction."""
        await in_db_thread(self._outbox.mark_sent_many, confirmed, versions=versions)

    async def retry_later(self, ids: Sequence[int], *, error: str, at: datetime) -> None:
        await in_db_thread(self._outbox.retry_later, ids, error=error, at=at)

    async def mark_failed(self, ids: Sequence[int], *, error: str) -> None:
        await in_db_thread(self._outbox.mark_failed, ids, error=error)

    # -- digests and quiet hours -------------------------------------------------------------

    async def claim_digests(self, *, render: DigestRenderer, limit: int) -> list[ClaimReport]:
        """Claim the digests due now, at most `limit` chats (`Digests.claim_due`)."""
        return await in_db_thread(
            self._chats.digests.claim_due, render=render, now=self._clock(), limit=limit
        )

    async def next_digest(self) -> datetime | None:
        return await in_db_thread(self._chats.digests.next_due)

    async def release_quiet(self) -> int:
        """End the quiet hours that are over now; how many destinations were released."""
        threshold = self._chats.summary_threshold
        return await in_db_thread(
            quiet.release_ended, self._chats.engine, threshold=threshold, now=self._clock()
        )

    async def next_quiet_end(self) -> datetime | None:
        return await in_db_thread(quiet.next_end, self._chats.engine)

    # -- chats that refuse or move -----------------------------------------------------------

    async def migrate(self, old_id: int, new_id: int) -> None:
        await in_db_thread(self._chats.migrate, old_id, new_id)

    async def deactivate(self, chat_id: int, *, reason: str) -> None:
        await in_db_thread(self._chats.deactivate, chat_id, reason=reason, now=self._clock())

    async def park(self, chat_id: int, thread_id: int, *, reason: str) -> ParkedInfo:
        """One more refusal of this destination: its deliveries wait, and it is probed later."""
        return await in_db_thread(
            self._chats.parking.park,
            chat_id,
            thread_id,
            reason=reason,
            first_retry=self._settings.parked_retry_first,
            now=self._clock(),
        )

    async def unpark(self, chat_id: int, thread_id: int) -> bool:
        """A probe got through: the destination takes messages again (True if it was parked)."""
        return await in_db_thread(self._chats.parking.release, chat_id, thread_id)

    # -- notices -----------------------------------------------------------------------------

    async def pending_admin_notices(self) -> list[PendingNotice]:
        return await in_db_thread(self._store.pending_admin_notices)

    async def admin_notice_sent(self, notice_id: int) -> None:
        await in_db_thread(self._store.admin_notice_sent, notice_id, now=self._clock())

    async def admin_notice_refused(self, notice_id: int, *, reason: str) -> None:
        await in_db_thread(self._store.admin_notice_refused, notice_id, reason=reason)

    async def failing_follows(self) -> list[Followed]:
        """The follows whose last poll failed (`Store.poll_health`)."""
        _, failing = await in_db_thread(self._store.poll_health)
        return failing

    async def any_polling_well(self, *, failures_below: int) -> bool:
        return await in_db_thread(self._store.any_polling_well, failures_below=failures_below)

    async def reachable_followers(
        self, followed_id: int, *, limit: int
    ) -> tuple[list[tuple[int, int]], int]:
        """The first `limit` destinations following it that may be written to now, and how
        many there are."""
        return await in_db_thread(self._chats.reachable_followers, followed_id, limit=limit)
