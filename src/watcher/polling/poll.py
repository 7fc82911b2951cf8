"""The poll cycle: the follows someone wants → their source → match → store, reported.

It reads top to bottom in `Poller.poll`. Each way of finding papers is a source
(`watcher.polling.sources`): the API queries (`polling.sources.api`), the OAI-PMH harvest
(`polling.sources.harvest`) and the author feeds (`polling.sources.author_feed`). A person followed
by arXiv identity is always read from their author feed, whatever `WATCH_SOURCE` says. Of the people
followed by name, one whose history was never fetched always goes to the API source, which stores
that history silently; the others go to the source `WATCH_SOURCE` names. `auto`
harvests once the API would need more requests a cycle (one per OR-group of about 30 names)
than a harvest does (`HARVEST_REQUESTS`: three OAI-PMH pages and an API request for versions),
that is from about 120 followed names on.

What a source found is saved through `_save`, in short transactions (about `SAVE_TARGET` each),
so the one database thread never stays busy long; saves are idempotent, so a poll redone after
a crash stores only what is missing. Each source records its own successes and failures (a
failure is retried later, with a growing but capped delay), and when it polls next: on arXiv's
calendar (`watcher.calendars.poll_calendar`, POLL_SCHEDULE=calendar) or every POLL_INTERVAL. Only
authors someone wants are polled: the operator's, and those some chat subscribes to. The service's
job ticks at least once a minute, and most ticks find nothing due: each first asks that in one short
query (`_anything_due`) and reads the follows only when something is. What each source showed
first of a mailing is noted for the operator (`watcher.store.mailings`).
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta
from typing import Literal

from watcher.aio import in_db_thread
from watcher.arxiv.fetch import ArxivClient
from watcher.arxiv.records import Record
from watcher.calendars.announcements import Announcement, AnnouncementCalendar
from watcher.calendars.poll_calendar import PollCalendar
from watcher.follows.followed import Followed
from watcher.follows.homonyms import NameSurvey
from watcher.follows.identity import Identity
from watcher.kinds import FollowKind
from watcher.metrics import count_found, count_poll
from watcher.polling.failures import RETRY_FIRST
from watcher.polling.source_alerts import Setup, SourceAlerts
from watcher.polling.sources import PollOutcome, Source
from watcher.polling.sources.api import DEFAULT_BACKFILL_LIMIT, DEFAULT_WINDOW, ApiSource
from watcher.polling.sources.author_feed import DEFAULT_AUTHOR_FEED_URL, AuthorFeedSource
from watcher.polling.sources.harvest import DEFAULT_OAI_URL, Harvester, harvest_requests_per_cycle
from watcher.polling.sources.listing import DEFAULT_LISTING_URL, ListingSource
from watcher.polling.suggested_batch import BatchSuggester, Suggester
from watcher.store import MatchedRecord, SaveResult, Store
from watcher.store.suggesting import SuggestionStore
from watcher.store.tables import utcnow

log = logging.getLogger(__name__)

WatchSource = Literal["api", "harvest", "auto"]
# What a harvest costs a cycle: its pages and one API request for the versions of a day's
# followed papers (at most 100 of them; 10,000 follows see a few a day).
HARVEST_REQUESTS = harvest_requests_per_cycle(matched_papers=1)

# A save transaction aims at this many seconds: every other database call (the bot's commands
# among them) waits for the one database thread meanwhile. Records per transaction adapt to the
# measured pace, within these bounds.
SAVE_TARGET = 0.1
SAVE_CHUNK_FIRST, SAVE_CHUNK_MIN, SAVE_CHUNK_MAX = 10, 5, 500


@dataclass(slots=True)
class PollReport:
    """What one poll cycle found: new papers, revisions, and which authors failed why."""

    new: list[Record] = field(default_factory=list)
    revisions: list[Record] = field(default_factory=list)
    polled: list[str] = field(default_factory=list)
    failures: dict[str, str] = field(default_factory=dict)
    backfilled: int = 0  # records stored silently by first polls
    retry_at: datetime | None = None  # the earliest next try of a failure of this cycle
    split_requests: int = 0  # requests spent splitting failing queries (`failing_groups`)

    def add(self, outcome: PollOutcome) -> None:
        """Take in what one source did: the follows it polled, those that failed, when the
        earliest failure is to be tried again, and the requests spent splitting queries."""
        self.polled.extend(outcome.polled)
        self.failures.update(outcome.failures)
        self.split_requests += outcome.split_requests
        if outcome.retry_at is not None and (
            self.retry_at is None or outcome.retry_at < self.retry_at
        ):
            self.retry_at = outcome.retry_at


class Poller:
    """Polls arXiv for the followed authors, through their sources. Two polls never run at once."""

    def __init__(
        self,
        *,
        store: Store,
        client: ArxivClient,
        poll_interval: float,
        page_size: int = 100,
        window: timedelta = DEFAULT_WINDOW,
        backfill_limit: int = DEFAULT_BACKFILL_LIMIT,
        retry_first: float = RETRY_FIRST,
        source: WatchSource = "api",
        oai_url: str = DEFAULT_OAI_URL,
        harvest_sets: Sequence[str] = (),
        author_feed_url: str = DEFAULT_AUTHOR_FEED_URL,
        listing_url: str = DEFAULT_LISTING_URL,
        listing_probe_interval: float = 60.0,
        listing_probe_hours: float = 6.0,
        schedule: PollCalendar | None = None,
        calendar: AnnouncementCalendar | None = None,
        clock: Callable[[], datetime] = utcnow,
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
        admin_chats: Sequence[int] = (),
        listings: bool = False,
        suggester: Suggester | None = None,
    ) -> None:
        self.store = store
        # When arXiv announces: the schedule's, else the given one, else arXiv's defaults.
        self.calendar = schedule.calendar if schedule else calendar or AnnouncementCalendar()
        self.client = client
        self.source = source
        self.clock = clock
        interval = timedelta(seconds=poll_interval)
        self.api = ApiSource(
            store=store,
            client=client,
            poll_interval=interval,
            page_size=page_size,
            window=window,
            backfill_limit=backfill_limit,
            retry_first=retry_first,
            clock=clock,
            schedule=schedule,
        )
        # "Suggested for you" of each batch read whole: ranked here unless given (the service
        # ranks in a process of its own, `watcher.polling.ranking_process`).
        self.suggester = suggester or BatchSuggester(SuggestionStore(store.engine), clock)
        # Suggestions being ranked (`_suggest`): the service cancels them when it stops.
        self.background: set[asyncio.Task[object]] = set()
        self.harvest = Harvester(
            store=store,
            client=client,
            oai_url=oai_url,
            sets=harvest_sets,
            poll_interval=interval,
            window=window,
            retry_first=retry_first,
            clock=clock,
            schedule=schedule,
            on_batch=lambda mailing, batch: self._suggest(mailing, batch, source="OAI"),
        )
        self.author_feeds = AuthorFeedSource(
            store=store,
            client=client,
            feed_url=author_feed_url,
            poll_interval=interval,
            retry_first=retry_first,
            clock=clock,
            schedule=schedule,
        )
        self.listing = ListingSource(
            store=store,
            client=client,
            listing_url=listing_url,
            sets=harvest_sets,
            probe_interval=listing_probe_interval,
            probe_hours=listing_probe_hours,
            clock=clock,
            sleep=sleep,
        )
        self._harvesting = source == "harvest"  # what the last full cycle did
        self.alerts = SourceAlerts(
            store,
            setup=Setup(
                listings=listings,
                calendar=self.calendar,
                schedule=schedule,
                poll_interval=poll_interval,
                oai_url=oai_url,
                author_feed_url=author_feed_url,
            ),
            admin_chats=admin_chats,
            harvesting=lambda: self._harvesting,
            clock=clock,
        )
        self._lock = asyncio.Lock()
        self._save_chunk = SAVE_CHUNK_FIRST

    @property
    def backfill_limit(self) -> int:
        return self.api.backfill_limit

    async def poll(self, *, only: Sequence[int] | None = None, force: bool = False) -> PollReport:
        """Poll the due authors (all of them with `force`, or just the ids in `only`)."""
        async with self._lock:
            if not force and only is None and not await in_db_thread(self._anything_due):
                return PollReport()
            followed = [f for f in await in_db_thread(self.store.followed, only) if f.polled]
            report = PollReport()
            identities = [f for f in followed if f.kind == FollowKind.IDENTITY]
            people = [f for f in followed if f.kind != FollowKind.IDENTITY]
            harvested = [] if only is not None else self.harvested(people)
            if only is None and people:
                self._harvesting = bool(harvested)
            harvested_ids = {f.id for f in harvested}
            queried = [f for f in people if f.id not in harvested_ids]

            async def save(
                matched: list[MatchedRecord], announce_for: frozenset[int]
            ) -> SaveResult:
                return await self._save(matched, announce_for=announce_for, report=report)

            # Each source knows when its follows are due; `force` and `only` mean now.
            now = force or only is not None
            sources: list[tuple[str, Source, list[Followed]]] = [
                ("api", self.api, queried),
                ("harvest", self.harvest, harvested),
                ("author_feed", self.author_feeds, identities),
            ]
            for name, source, follows in sources:
                found = len(report.new)
                outcome = await source.poll(follows, save=save, force=now)
                if outcome.polled or outcome.failures:
                    count_poll(name, failed=bool(outcome.failures))
                report.add(outcome)
                await self.alerts.observe(name, errors=outcome.unparsed, read=bool(outcome.polled))
                if source is not self.harvest and len(report.new) > found:
                    await self._api_showed_a_mailing()
            return report

    async def _api_showed_a_mailing(self) -> None:
        """The API (or an author feed) brought new papers: the newest mailing was shown, unless
        the listing or OAI-PMH showed it before (`watcher.store.mailings`)."""
        now = self.clock()
        latest = self.calendar.latest_at_or_before(now)
        if latest is not None:
            await in_db_thread(self.store.record_mailing_seen, latest.mailing, source="API", at=now)

    async def read_listing(self, announcement: Announcement) -> PollReport:
        """Read arXiv's listings for `announcement` (`watcher.polling.sources.listing`): probe until
        they flip, then match and save for every polled follow. Beside the polls, not under
        their lock: it may probe for hours, and its saves are atomic and idempotent like theirs.
        """
        followed = [f for f in await in_db_thread(self.store.followed, None) if f.polled]
        report = PollReport()

        async def save(matched: list[MatchedRecord], announce_for: frozenset[int]) -> SaveResult:
            return await self._save(matched, announce_for=announce_for, report=report)

        outcome = await self.listing.read(announcement, followed, save=save)
        # A guessed holiday that stayed one is no news of a mailing: `health` keeps the last.
        if outcome.probes and (outcome.flipped or not announcement.holiday):
            await in_db_thread(
                self.store.record_listing_probes, announcement.mailing, outcome.probes
            )
        if outcome.flipped_at is not None:
            # With how many new papers it read, when it read them all (/why says it, whichever
            # process asks and after a restart).
            await in_db_thread(
                self.store.record_mailing_seen,
                outcome.mailing,
                source="listing",
                at=outcome.flipped_at,
                listed=outcome.papers if outcome.failure is None else None,
            )
        if outcome.failure is not None:
            report.failures[f"the listings at {self.listing.listing_url}"] = outcome.failure
        elif outcome.flipped:
            await self._suggest(outcome.mailing, outcome.candidates, source="listing")
        outcome.candidates = []
        count_poll("listing", failed=outcome.failure is not None)
        unparsed = [outcome.unparsed] if outcome.unparsed is not None else []
        await self.alerts.observe("listing", errors=unparsed, read=outcome.parsed)
        return report

    async def _suggest(self, mailing: date, candidates: list[Record], *, source: str) -> None:
        """A batch was read whole: "Suggested for you" (`watcher.polling.suggested_batch`),
        ranked in a task of its own (`background`), so that the read's news goes out without
        waiting for the ranking (a minute for 10,000 chats). A failure is logged, and the next
        reader of the mailing finishes the ranking."""

        async def rank() -> None:
            try:
                await self.suggester.after_batch(mailing, candidates, source=source)
            except Exception:
                log.exception("ranking the suggestions of the mailing of %s failed", mailing)

        task: asyncio.Task[object] = asyncio.get_running_loop().create_task(
            rank(), name="suggestions"
        )
        self.background.add(task)
        task.add_done_callback(self.background.discard)

    async def suggestions_settled(self) -> None:
        """Wait for the suggestions being ranked, if any (the CLI's poll, the tests)."""
        while self.background:
            await asyncio.gather(*self.background, return_exceptions=True)

    def _anything_due(self) -> bool:
        """A tick's first question, before reading every follow: is a follow due, or (where a
        harvest may run) the harvest? Most ticks have nothing to do, and at 100,000 follows the
        read takes a second (bench/follows.py). A harvest never run, or due, says yes."""
        now = self.clock()
        if self.store.any_follow_due(now):
            return True
        if self.source == "api":
            return False
        state = self.store.harvest_state(self.harvest.scope)
        return state is None or state.next_attempt is None or state.next_attempt <= now

    def harvested(self, followed: Sequence[Followed]) -> list[Followed]:
        """The follows this cycle harvests: none in api mode, and never a first poll (its
        history comes from the API, silently); in auto mode only when that is cheaper."""
        known = [f for f in followed if f.backfilled]
        if self.source == "api" or not known:
            return []
        if self.source == "auto" and not self.api.costs_more_than(known, HARVEST_REQUESTS):
            return []
        return known

    async def survey(self, names: Sequence[str], categories: Sequence[str] = ()) -> NameSurvey:
        """How many results arXiv lists for these names (in these categories), and in which
        categories: one request, nothing stored. Asked before following a new name
        (`watcher.follows.homonyms`)."""
        return await self.api.survey(names, categories)

    async def papers(self, ids: Sequence[str]) -> list[Record]:
        """The papers arXiv lists under these ids (versioned or not): one request on the shared
        client, nothing stored. Asked by /paper for a paper the store lacks."""
        return await self.api.papers(ids)

    async def identity_papers(self, identity: Identity) -> list[Record]:
        """The papers arXiv lists for this identity: one request, nothing stored.
        `UnknownAuthorId` when arXiv knows no such id. Asked before following one."""
        return await self.author_feeds.papers(identity)

    async def _save(
        self, matched: list[MatchedRecord], *, announce_for: frozenset[int], report: PollReport
    ) -> SaveResult:
        """Store what a fetch found in short transactions, one database call each.

        Between two of them the database thread serves whoever else waits (a command, the
        sender), so a big backfill never makes them wait more than about `SAVE_TARGET`. Each
        part is idempotent: after a crash the poll is redone and stores only what is missing.
        What each stored part found goes into `report` at once: should a later part fail, the
        earlier ones' news is still reported (it is not new at the next poll).
        """
        total = SaveResult()
        done = 0
        while done < len(matched):
            chunk = matched[done : done + self._save_chunk]
            began = time.perf_counter()
            part = await in_db_thread(self.store.save_records, chunk, announce_for=announce_for)
            took = time.perf_counter() - began
            done += len(chunk)
            total.new.extend(part.new)
            total.revisions.extend(part.revisions)
            # A paper two follows found in one cycle (a person and a topic, polled apart in api
            # mode) is stored for both, and reported once.
            new, revisions = (
                _not_in(report.new, part.new),
                _not_in(report.revisions, part.revisions),
            )
            report.new.extend(new)
            report.revisions.extend(revisions)
            count_found(new=len(new), revisions=len(revisions))
            total.silent += part.silent
            report.backfilled += part.silent
            if len(chunk) == self._save_chunk:
                # At most double at a time: one quick transaction is no proof of the next.
                pace = len(chunk) * SAVE_TARGET / max(took, 1e-3)
                size = min(pace, 2 * len(chunk), SAVE_CHUNK_MAX)
                self._save_chunk = int(max(SAVE_CHUNK_MIN, size))
        return total


def _not_in(reported: Sequence[Record], found: Sequence[Record]) -> list[Record]:
    """Those of `found` whose version is not among `reported` already."""
    seen = {(r.arxiv_id, r.version) for r in reported}
    return [r for r in found if (r.arxiv_id, r.version) not in seen]
