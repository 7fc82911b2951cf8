"""The harvest source: every followed person's new papers from one read of arXiv's daily records.

Instead of one API query per thirty names, a cycle reads arXiv's OAI-PMH feed once
(`verb=ListRecords&metadataPrefix=arXiv&from=<high-water mark minus a day>`, then each
`resumptionToken` until an empty one: one to three pages a day for all of arXiv) and matches
every record locally against all follows at once (`watcher.follows.match.FollowRules`: a dict lookup
per author, whatever the number of follows). The format has no version number, so the matched
papers whose datestamp moved are asked of the API by `id_list`, up to 100 a request; that answer
(version, links) is what gets stored. A new version is a revision; a moved datestamp at the
same version is a metadata update, stored without a word.

The protocol: `noRecordsMatch` is an empty window, not an error; an expired token
(`badResumptionToken`) restarts the window from `from` (saves are idempotent, so what was stored
stays stored and nothing doubles); 503 with `Retry-After` and the 3 s spacing are the shared
`ArxivClient`'s. Crash safety: each page's matches are stored (and their datestamps noted) before
the next page is asked for, and the high-water mark (`harvest_state`) moves only after the whole
window is stored, so a harvest that dies half-way is redone from the same day.

Follows whose history was never fetched are not harvested: the API source backfills them
silently first, as before, and they join the harvest at the next cycle.
"""

from __future__ import annotations

import asyncio
import gc
import logging
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, timedelta
from typing import TypeVar

from watcher.aio import in_db_thread
from watcher.arxiv.fetch import ArxivClient
from watcher.arxiv.oai import BAD_RESUMPTION_TOKEN, OaiPage, OaiRecord, parse_list_records
from watcher.arxiv.parse import parse_feed
from watcher.arxiv.records import Author, Record
from watcher.arxiv.taxonomy import is_paper_category
from watcher.calendars.poll_calendar import PollCalendar
from watcher.errors import ArxivEmptyPage, ArxivOAIError
from watcher.follows.followed import Followed
from watcher.follows.match import FollowRules
from watcher.kinds import FollowKind
from watcher.polling.failures import expected, failure_cause, is_parse_failure, next_try
from watcher.polling.sources import PollOutcome, Save
from watcher.store import MatchedRecord, Store

log = logging.getLogger(__name__)

DEFAULT_OAI_URL = "https://oaipmh.arxiv.org/oai"
# A day of all of arXiv is one to three pages of 2,500 records (field notes), and the window
# starts a day before the mark: three pages is what a harvest costs, whatever is followed.
OAI_PAGES_PER_CYCLE = 3
ID_LIST_SIZE = 100  # papers per API request for their versions
# An expired token restarts the window; a token expiring again and again is a fault, not luck.
MAX_TOKEN_RESTARTS = 2
HARVEST_NAME = "the OAI-PMH harvest"
FRESH = timedelta(days=7)  # a record first submitted this close to its datestamp is a new paper


def harvest_requests_per_cycle(matched_papers: int = 0) -> int:
    """What a harvest costs in requests: its pages plus one API request per 100 changed papers."""
    return OAI_PAGES_PER_CYCLE + -(-matched_papers // ID_LIST_SIZE)


@dataclass(slots=True)
class HarvestOutcome:
    """What one harvest read and stored; for the log line and the benchmark."""

    pages: int = 0
    records: int = 0
    matched: int = 0
    looked_up: int = 0  # API requests for versions
    new: int = 0
    revisions: int = 0
    silent: int = 0
    through: date | None = None  # the newest datestamp of the window
    # The records first submitted within `FRESH` of their datestamp, as new papers (version 1,
    # `updated` the datestamp): the new day's are the batch "Suggested for you" ranks.
    fresh: list[Record] = field(default_factory=list)

    @property
    def requests(self) -> int:
        return self.pages + self.looked_up


class Harvester:
    """Harvests arXiv's OAI-PMH feed for the follows it is given; one scope (`sets`)."""

    def __init__(
        self,
        *,
        store: Store,
        client: ArxivClient,
        oai_url: str = DEFAULT_OAI_URL,
        sets: Sequence[str] = (),
        poll_interval: timedelta,
        window: timedelta,
        retry_first: float = 60.0,
        clock: Callable[[], datetime],
        schedule: PollCalendar | None = None,
        on_batch: Callable[[date, list[Record]], Awaitable[None]] | None = None,
    ) -> None:
        self.store = store
        # Told of each new day's batch, read whole (`watcher.polling.suggested_batch`).
        self.on_batch = on_batch
        self.client = client
        self.oai_url = oai_url
        self.sets = tuple(sets)
        self.poll_interval = poll_interval
        self.window = window
        self.retry_first = retry_first
        self.clock = clock
        self.schedule = schedule  # None: every POLL_INTERVAL (`watcher.calendars.poll_calendar`)
        self.last: HarvestOutcome | None = None
        self.checks = 0  # calendar checks that found the batch not shown yet (one request each)
        # The last harvest's rules and what they were built from (`FollowRules.fingerprint`).
        self._rules: tuple[tuple[tuple[object, ...], ...], FollowRules] | None = None

    @property
    def scope(self) -> str:
        """The key of this harvest's state: its sets as configured; "" is all of arXiv."""
        return ",".join(self.sets)

    async def poll(
        self, followed: Sequence[Followed], *, save: Save, force: bool = False
    ) -> PollOutcome:
        """Harvest once for `followed` (all backfilled), unless the harvest is not due yet: a
        failed one waits its turn, a good one POLL_INTERVAL or, on arXiv's calendar, the next
        check (`force` harvests anyway). On the calendar, a check while the awaited mailing has
        not shown costs one request and harvests nothing (`_batch_shown`)."""
        if not followed:
            return PollOutcome()
        state = await in_db_thread(self.store.harvest_state, self.scope)
        now = self.clock()
        if not force and state is not None and state.next_attempt and now < state.next_attempt:
            # A follow that joined the harvest since (its history just fetched) waits for it.
            waiting = [f.id for f in followed if f.next_poll is None or f.next_poll <= now]
            for ids in _chunks(waiting):
                await in_db_thread(self.store.put_off_polls, ids, until=state.next_attempt)
            return PollOutcome()
        mark = state.harvested_through if state else None
        try:
            if not force and mark is not None and not await self._batch_shown(mark, now):
                await self._record_success(followed, through=None, seen=mark)
                return PollOutcome(polled=[f.label for f in followed])
            outcome = await self.harvest(followed, save=save)
            seen = outcome.through or mark
            await self._record_success(followed, through=outcome.through, seen=seen)
            if mark is not None and outcome.through is not None and outcome.through > mark:
                await in_db_thread(
                    self.store.record_mailing_seen, outcome.through, source="OAI", at=self.clock()
                )
                if self.on_batch is not None:
                    fresh = [r for r in outcome.fresh if r.updated.date() == outcome.through]
                    await self.on_batch(outcome.through, fresh)
            outcome.fresh = []
        except Exception as error:
            # The boundary of the harvest: whatever failed (arXiv, a save, a bug) is recorded
            # and retried later; the mark did not move, so the next harvest redoes this window.
            cause, retry_at = await self._record_failure(followed, error)
            unparsed = [error] if is_parse_failure(error) else []
            return PollOutcome(failures={HARVEST_NAME: cause}, retry_at=retry_at, unparsed=unparsed)
        self.last = outcome
        log.info(
            "harvested %d records in %d page(s) through %s for %d follows: %d matched, "
            "%d API request(s) for versions; %d new, %d revised, %d stored silently",
            outcome.records, outcome.pages, outcome.through or "(nothing new)", len(followed),
            outcome.matched, outcome.looked_up, outcome.new, outcome.revisions, outcome.silent,
            extra={"source": "oai"},
        )  # fmt: skip
        return PollOutcome(polled=[f.label for f in followed])

    async def _batch_shown(self, mark: date, now: datetime) -> bool:
        """With a calendar, while an announced batch is awaited past the mark: has it shown?
        One request, `from` its mailing date: an empty answer is "not yet". Each check of an
        evening asks a distinct URL (`until` a day further per check: no datestamp lies in the
        future, so the answer is the same), as OAI answers may be cached for up to an hour.
        Without a calendar, or with nothing awaited, the harvest just runs."""
        if self.schedule is None:
            return True
        mailing = self.schedule.expected_mailing(now)
        if mailing is None or mark >= mailing:
            return True
        until = mailing + timedelta(days=self.schedule.harvest_check(now))
        params = {
            "verb": "ListRecords", "metadataPrefix": "arXiv",
            "from": mailing.isoformat(), "until": until.isoformat(),
        }  # fmt: skip
        if self.sets:
            params["set"] = self.sets[0]  # a batch shows in every set at once
        body = await self.client.get(self.oai_url, params)
        page = await asyncio.to_thread(parse_list_records, body, url=self.oai_url)
        if page.records:
            return True
        self.checks += 1
        log.info("OAI-PMH does not show the mailing of %s yet; checking again later", mailing)
        return False

    async def _record_success(
        self, followed: Sequence[Followed], *, through: date | None, seen: date | None
    ) -> None:
        """The harvest (or its check) went well: when it runs next is the calendar's (or
        POLL_INTERVAL later), for the harvest and its follows alike."""
        now = self.clock()
        if self.schedule is None:
            next_attempt = now + self.poll_interval
        else:
            next_attempt = self.schedule.next_harvest(now, seen=seen)
        await in_db_thread(
            self.store.record_harvest_success,
            self.scope,
            through=through,
            now=now,
            next_attempt=next_attempt,
        )
        for ids in _chunks([f.id for f in followed]):
            await in_db_thread(self.store.record_poll_success, ids, now=now, next_poll=next_attempt)

    async def harvest(self, followed: Sequence[Followed], *, save: Save) -> HarvestOutcome:
        """Read the window, store every page's matches; raises on any failure (mark unmoved)."""
        rules = self.rules_for(followed)
        announce_for = Announced(
            frozenset(f.id for f in followed if f.backfilled),
            {f.id: f.created.date() for f in followed if f.kind == FollowKind.TOPIC and f.created},
        )
        state = await in_db_thread(self.store.harvest_state, self.scope)
        start = self._from_day(state.harvested_through if state else None, followed)
        outcome = HarvestOutcome()
        with _collections_skip_the_follows():
            for set_spec in self.sets or (None,):
                restarts = 0
                while True:
                    try:
                        async for page in self._pages(start, set_spec, outcome):
                            await self._store_page(page, rules, announce_for, save, outcome)
                        break
                    except ArxivOAIError as error:
                        if error.code != BAD_RESUMPTION_TOKEN or restarts >= MAX_TOKEN_RESTARTS:
                            raise
                        restarts += 1
                        log.info("harvest token expired; the window restarts from %s", start)
        return outcome

    def rules_for(self, followed: Sequence[Followed]) -> FollowRules:
        """The follow rules of `followed`: the last harvest's while the follows are the same
        (names, aliases, kinds, categories, topics), else built anew."""
        fingerprint = FollowRules.fingerprint(followed)
        if self._rules is not None and self._rules[0] == fingerprint:
            rules = self._rules[1]
            rules.log_unreadable()
            return rules
        rules = FollowRules.of(followed)
        self._rules = (fingerprint, rules)
        return rules

    def _from_day(self, mark: date | None, followed: Sequence[Followed]) -> date:
        """A day before the mark: a record changed late on the mark's day is read again.

        Never harvested: from the oldest last success of the follows (their API polls covered
        what came before), at most the poll window back.
        """
        today = self.clock().date()
        if mark is None:
            successes = [f.last_success.date() for f in followed if f.last_success is not None]
            mark = max(min(successes, default=today), today - self.window)
        return mark - timedelta(days=1)

    async def _pages(
        self, start: date, set_spec: str | None, outcome: HarvestOutcome
    ) -> AsyncIterator[OaiPage]:
        params = {"verb": "ListRecords", "metadataPrefix": "arXiv", "from": start.isoformat()}
        if set_spec:
            params["set"] = set_spec
        while True:
            body = await self.client.get(self.oai_url, params)
            page = await asyncio.to_thread(parse_list_records, body, url=self.oai_url)
            outcome.pages += 1
            outcome.records += len(page.records)
            yield page
            if page.resumption_token is None:
                return
            params = {"verb": "ListRecords", "resumptionToken": page.resumption_token}

    async def _store_page(
        self,
        page: OaiPage,
        rules: FollowRules,
        announce_for: Announced,
        save: Save,
        outcome: HarvestOutcome,
    ) -> None:
        matched: dict[str, tuple[OaiRecord, frozenset[int]]] = {}
        for record in page.records:
            if outcome.through is None or record.datestamp > outcome.through:
                outcome.through = record.datestamp
            created = record.created
            if self.on_batch is not None and created and record.datestamp - created <= FRESH:
                outcome.fresh.append(fresh_record(record))
            ids = rules.match(
                record.authors, record.categories, title=record.title, abstract=record.abstract
            )
            if ids:
                matched[record.arxiv_id] = (record, ids)
        outcome.matched += len(matched)
        if not matched:
            return
        changed = await self._changed(matched)
        for start in range(0, len(changed), ID_LIST_SIZE):
            chunk = changed[start : start + ID_LIST_SIZE]
            body = await self.client.query(id_list=chunk, max_results=len(chunk))
            outcome.looked_up += 1
            current = {r.arxiv_id: r for r in (await asyncio.to_thread(parse_feed, body)).records}
            missing = [arxiv_id for arxiv_id in chunk if arxiv_id not in current]
            if missing:
                # Storing the rest and moving on would lose these: the window is redone later.
                raise ArxivEmptyPage(
                    f"the API did not list {len(missing)} harvested paper(s) "
                    f"({', '.join(missing[:3])}); will retry"
                )
            # Whom a record is announced to depends on its datestamp alone (`Announced`): one
            # save per datestamp, one or two a page, not one per set of follows.
            by_day: dict[date, list[MatchedRecord]] = {}
            for i in chunk:
                oai, found = matched[i]
                by_day.setdefault(oai.datestamp, []).append(MatchedRecord(current[i], found))
            for day, records in by_day.items():
                saved = await save(records, announce_for.on(day))
                outcome.new += len(saved.new)
                outcome.revisions += len(saved.revisions)
                outcome.silent += saved.silent
            stamps = {
                i: matched[i][0].datestamp for i in chunk if _is_current(current[i], matched[i][0])
            }
            await in_db_thread(self.store.mark_harvested, stamps)

    async def _changed(self, matched: dict[str, tuple[OaiRecord, frozenset[int]]]) -> list[str]:
        """The matched papers worth an API request: a datestamp not yet seen, or a follow not
        yet linked to the paper (an alias added since); the others are stored as they are."""
        stamps = await in_db_thread(self.store.harvested_datestamps, list(matched))
        moved = {
            arxiv_id
            for arxiv_id, (record, _) in matched.items()
            if arxiv_id not in stamps or record.datestamp > stamps[arxiv_id]
        }
        # A paper stored as it is now is asked for again only if a follow lacks its link: the
        # store is asked about those papers alone (none on a first harvest).
        unchanged = {a: found for a, (_, found) in matched.items() if a not in moved}
        unlinked: set[str] = set()
        if unchanged:
            follows = {f for found in unchanged.values() for f in found}
            linked = await in_db_thread(self.store.linked_versions, list(unchanged), follows)
            unlinked = {
                a for a, found in unchanged.items() if any((a, f) not in linked for f in found)
            }
        return [arxiv_id for arxiv_id in matched if arxiv_id in moved or arxiv_id in unlinked]

    async def _record_failure(
        self, followed: Sequence[Followed], error: Exception
    ) -> tuple[str, datetime]:
        """Log the cause, count it, put the next harvest off (doubling, capped); the mark stays.
        Returns the cause, in one line, and the time of the next try."""
        cause = failure_cause(error)
        now = self.clock()
        state = await _quietly(in_db_thread(self.store.harvest_state, self.scope))
        failures = (state.consecutive_failures if state else 0) + 1
        retry = next_try(error, failures, first=self.retry_first, cap=self.poll_interval)
        log.log(
            logging.WARNING if expected(error) else logging.ERROR,
            "harvest failed: %s; %d failure(s) in a row, next try in %d s",
            cause, failures, retry.total_seconds(),
            exc_info=not expected(error),  # a bug: say where
            extra={"source": "oai"},
        )  # fmt: skip
        await _quietly(
            in_db_thread(
                self.store.record_harvest_failure,
                self.scope,
                error=cause,
                now=now,
                next_attempt=now + retry,
            )
        )
        # The follows show it too (`authors`, /stats, health), as a failed API poll would.
        for ids in _chunks([f.id for f in followed]):
            await _quietly(
                in_db_thread(
                    self.store.record_poll_failure,
                    ids,
                    error=f"harvest failed: {cause}",
                    now=now,
                    next_poll=now + retry,
                )
            )
        return cause, now + retry


@contextmanager
def _collections_skip_the_follows() -> Iterator[None]:
    """Python's full garbage collections, while the harvest runs, skip every object that
    existed before it (`gc.freeze`; `gc.unfreeze` after, so nothing escapes collection for
    longer than a harvest): the follows, their rules and the imported modules. A page's parse
    trees are promoted to the oldest generation and start full collections; with 100,000
    follows those walked the follows for 0.2 s of a page's 1.8 s (bench/README.md)."""
    gc.freeze()
    try:
        yield
    finally:
        gc.unfreeze()


@dataclass(frozen=True)
class Announced:
    """Whose subscribers hear of a harvested record: the follows whose history was fetched,
    except a topic for a record whose datestamp is not after the day the topic was created.

    A topic never announces the papers that came before it. Its first poll (by the API) stores
    the recent ones silently, but the harvest re-reads a day before its mark, and the API's
    search may have missed a record the local matcher finds: the datestamp settles it. arXiv
    announces once a day, so a record stamped on the topic's creation day was out before it.
    """

    backfilled: frozenset[int]
    topic_created: dict[int, date]
    _by_day: dict[date, frozenset[int]] = field(default_factory=dict, compare=False)

    def on(self, datestamp: date) -> frozenset[int]:
        """The follows that announce a record stamped `datestamp` (the save keeps, of these,
        the ones that matched it). The same set for every record of a day, kept per day."""
        if datestamp not in self._by_day:
            too_late = {i for i, created in self.topic_created.items() if datestamp <= created}
            self._by_day[datestamp] = self.backfilled - too_late if too_late else self.backfilled
        return self._by_day[datestamp]


def fresh_record(record: OaiRecord) -> Record:
    """A new paper's OAI-PMH record as its version 1, dated by its submission (`published`) and
    its datestamp (`updated`): what a batch's suggestions rank and, when shown, store."""
    created = record.created or record.datestamp
    published = datetime(created.year, created.month, created.day, tzinfo=UTC)
    stamped = datetime(
        record.datestamp.year, record.datestamp.month, record.datestamp.day, tzinfo=UTC
    )
    categories = tuple(c for c in record.categories if is_paper_category(c)) or record.categories
    return Record(
        arxiv_id=record.arxiv_id,
        version=1,
        title=record.title,
        abstract=record.abstract,
        authors=tuple(Author(name) for name in record.authors),
        primary_category=categories[0] if categories else "",
        categories=categories,
        published=published,
        updated=stamped,
        abs_url=f"https://arxiv.org/abs/{record.arxiv_id}v1",
        pdf_url=f"https://arxiv.org/pdf/{record.arxiv_id}v1",
        comment=record.comments,
        journal_ref=record.journal_ref,
        doi=record.doi,
    )


def _is_current(api: Record, oai: OaiRecord) -> bool:
    """Whether the API already serves the version the harvest saw (it may lag behind)."""
    newest = oai.updated or oai.created
    return newest is None or api.updated.date() >= newest


_T = TypeVar("_T")
# Ids per poll-state update: a query may bind only so many values (SQLite 32,766, PostgreSQL
# 65,535), and 100,000 follows are harvested at once.
_IDS_PER_UPDATE = 1000


def _chunks(ids: list[int]) -> list[list[int]]:
    return [ids[start : start + _IDS_PER_UPDATE] for start in range(0, len(ids), _IDS_PER_UPDATE)]


async def _quietly(call: Awaitable[_T]) -> _T | None:
    """Recording a failure must not fail the cycle: the database may be what is failing."""
    try:
        return await call
    except Exception as error:
        log.error("could not record the harvest's failure: %s", failure_cause(error))
        return None
