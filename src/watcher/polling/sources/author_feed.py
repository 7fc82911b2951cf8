"""The author-feed source: people followed by arXiv identity, read from their own feeds.

arXiv serves a person's papers at `<ARXIV_AUTHOR_FEED_URL><id>.atom`, for an arXiv author id
(`dong_d_1`) or an ORCID iD: Atom entries like the API's, the whole list at once, no paging. Every
record in it is the person's, so nothing is matched by name; the list holds only the papers the
person submitted or claimed on arXiv, so it is exact but can be incomplete. The feed is written
by arxiv-browse, not by the API: it lists no ACM or MSC classes, so those stored are kept.

One request a due identity a cycle, on the shared polite client (`ArxivClient.get`: its spacing
and single connection count every arXiv request). An identity's first poll stores the list
silently; later polls announce what the store reports as new, once. An empty list where papers
were stored is arXiv failing, not the papers going away. Failures (arXiv, the save, a bug) are
recorded in the identity's poll state with their real cause and a growing but capped delay, as
the API source does; an id arXiv stops knowing (400 or 404) is such a failure, `UnknownAuthorId`.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Sequence
from dataclasses import replace
from datetime import datetime, timedelta

from watcher.aio import in_db_thread
from watcher.arxiv.fetch import ArxivClient
from watcher.arxiv.parse import parse_feed
from watcher.arxiv.records import Record
from watcher.calendars.poll_calendar import PollCalendar, next_api_poll
from watcher.errors import ArxivEmptyPage, ArxivHTTPError, UnknownAuthorId
from watcher.follows.followed import Followed
from watcher.follows.identity import Identity
from watcher.polling.sources import PollOutcome, Save, record_poll_failure
from watcher.store import MatchedRecord, Store

log = logging.getLogger(__name__)

DEFAULT_AUTHOR_FEED_URL = "https://arxiv.org/a/"
# arXiv's answers for an author id it does not know: 400 today, 404 before.
_UNKNOWN_ID_STATUSES = frozenset({400, 404})
# A first poll asks this many more times before it believes an empty list.
EMPTY_FIRST_FEED_RETRIES = 2


class AuthorFeedSource:
    """Polls the author feeds of the followed identities, one request each."""

    def __init__(
        self,
        *,
        store: Store,
        client: ArxivClient,
        feed_url: str = DEFAULT_AUTHOR_FEED_URL,
        poll_interval: timedelta,
        retry_first: float,
        clock: Callable[[], datetime],
        schedule: PollCalendar | None = None,
    ) -> None:
        self.store = store
        self.client = client
        self.feed_url = feed_url if feed_url.endswith("/") else feed_url + "/"
        self.poll_interval = poll_interval
        self.retry_first = retry_first
        self.schedule = schedule  # None: every POLL_INTERVAL (`watcher.calendars.poll_calendar`)
        self.clock = clock

    def address(self, identity: Identity) -> str:
        return f"{self.feed_url}{identity.feed_id}.atom"

    async def papers(self, identity: Identity) -> list[Record]:
        """The whole list of the identity's papers: one request. `UnknownAuthorId` when arXiv
        has no such feed; any other `ArxivError` as the client raises it."""
        address = self.address(identity)
        try:
            body = await self.client.get(address, {}, source="author_feed")
        except ArxivHTTPError as error:
            if error.status in _UNKNOWN_ID_STATUSES:
                raise UnknownAuthorId(
                    identity.feed_id, url=address, attempt=error.attempt
                ) from None
            raise
        page = await asyncio.to_thread(parse_feed, body, url=address)
        return page.records

    async def poll(
        self, followed: Sequence[Followed], *, save: Save, force: bool = False
    ) -> PollOutcome:
        """Poll the identities that are due (all of them with `force`), one feed each."""
        now = self.clock()
        outcome = PollOutcome()
        for follow in followed:
            if force or follow.next_poll is None or follow.next_poll <= now:
                await self._poll_one(follow, save, outcome)
        return outcome

    async def _poll_one(self, follow: Followed, save: Save, outcome: PollOutcome) -> None:
        try:
            records = await in_db_thread(self._with_stored_classes, await self._fetch(follow))
            matched = [MatchedRecord(record, frozenset({follow.id})) for record in records]
            announce_for = frozenset({follow.id}) if follow.backfilled else frozenset()
            saved = await save(matched, announce_for)
            now = self.clock()
            await in_db_thread(
                self.store.record_poll_success,
                [follow.id],
                now=now,
                next_poll=next_api_poll(self.schedule, now, self.poll_interval),
            )
        except Exception as error:
            # The boundary of one identity: whatever went wrong is its failure, recorded and
            # retried later; the other identities are polled on.
            await record_poll_failure(
                self.store, [follow], error,
                first=self.retry_first, cap=self.poll_interval, now=self.clock(), outcome=outcome,
            )  # fmt: skip
            return
        log.info(
            "polled %s: %d new, %d revised, %d stored silently",
            follow.label, len(saved.new), len(saved.revisions), saved.silent,
            extra={"source": "author_feed"},
        )  # fmt: skip
        outcome.polled.append(follow.label)

    def _with_stored_classes(self, records: list[Record]) -> list[Record]:
        """The records with the ACM and MSC classes stored for them. arXiv's author feeds list
        neither (arxiv-browse 26f634fb, `browse/controllers/list_page/author.py`, writes only
        arXiv categories), so a paper the API stored with its classes would otherwise lose them
        to a re-read of the feed, as a metadata update announced to nobody."""
        stored = self.store.stored_classes(r.arxiv_id for r in records)
        return [
            replace(r, acm_class=stored[r.arxiv_id][0], msc_class=stored[r.arxiv_id][1])
            if r.arxiv_id in stored
            else r
            for r in records
        ]

    async def _fetch(self, follow: Followed) -> list[Record]:
        """The identity's list, with an empty one believed only where nothing can be lost."""
        if follow.identity is None:
            raise ValueError(f"follow {follow.label!r} has no identity")
        identity = Identity.from_key(follow.identity)
        records = await self.papers(identity)
        if records:
            return records
        if follow.record_count:
            raise ArxivEmptyPage("arXiv answered an empty author feed where papers are stored")
        if not follow.backfilled:
            # Believing "nothing" wrongly would make the whole list look new next time.
            for _ in range(EMPTY_FIRST_FEED_RETRIES):
                records = await self.papers(identity)
                if records:
                    return records
        return records
