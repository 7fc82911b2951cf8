"""The API source: followed people found by arXiv API queries, about 30 names OR-ed a request.

A group of authors is fetched whole before anything is stored, so the store only ever holds the
result of complete fetches.

A known group pages back until its results are older than its last successful poll minus a
safety window (`POLL_WINDOW_DAYS`): a paper that reaches the API late keeps its older `updated`
date, and is found all the same, while paging stays bounded however busy the query. That date
is the current version's: a metadata change without a new version (a journal reference, a DOI,
a title fixed, categories) keeps it, so once a week (`REFRESH_EVERY`) a known follow's poll
reads its whole list again, at most `BACKFILL_LIMIT` results (a topic's back to its creation),
and the store keeps what changed, silently.

An author's first poll stores its history silently, and is refused after one request when arXiv
lists more than `BACKFILL_LIMIT` results; it is always this source's, also in harvest mode. One
group's failure, whatever its cause (arXiv, a failed save, a bug), is recorded in its authors'
poll state with its real cause (and, for a shared query, how many other names were in it) and
a growing but capped delay before the next try, and never stops the other groups. A shared
query that keeps failing is split until the name it fails on stands alone
(`watcher.polling.failing_groups`); each cycle's split is logged with the requests it cost.
"""

from __future__ import annotations

import asyncio
import functools
import itertools
import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta

from watcher.aio import in_db_thread
from watcher.arxiv.fetch import ARXIV_PAGING_CAP, ArxivClient
from watcher.arxiv.parse import Page, parse_feed
from watcher.arxiv.queries import person_query, query_groups
from watcher.arxiv.records import Record
from watcher.calendars.poll_calendar import PollCalendar, next_api_poll
from watcher.errors import ArxivEmptyPage, ArxivTooManyResults
from watcher.follows.followed import Followed
from watcher.follows.homonyms import SURVEY_SAMPLE, NameSurvey, survey_of
from watcher.follows.match import FollowRules
from watcher.follows.topics import topic_from_stored
from watcher.kinds import FollowKind
from watcher.polling.failing_groups import SPLIT_BUDGET, plan_groups
from watcher.polling.sources import PollOutcome, Save, record_poll_failure
from watcher.store import MatchedRecord, Store

log = logging.getLogger(__name__)

# A first poll asks this many more times before it believes an empty first page.
EMPTY_FIRST_PAGE_RETRIES = 2
DEFAULT_WINDOW = timedelta(days=14)
DEFAULT_BACKFILL_LIMIT = 2000
# How often a known follow's whole list is read again, for the metadata changes that the
# window (by the date of the current version) cannot see. A group of about 30 names with a few
# thousand papers costs some 20 requests a week for it.
REFRESH_EVERY = timedelta(days=7)


class ApiSource:
    """Polls the arXiv API for followed authors, in OR-groups."""

    def __init__(
        self,
        *,
        store: Store,
        client: ArxivClient,
        poll_interval: timedelta,
        page_size: int,
        window: timedelta,
        backfill_limit: int,
        retry_first: float,
        clock: Callable[[], datetime],
        schedule: PollCalendar | None = None,
    ) -> None:
        self.store = store
        self.client = client
        self.poll_interval = poll_interval
        self.page_size = page_size
        self.window = window
        # Past the API's paging cap a history cannot be read whole, whatever the setting.
        self.backfill_limit = min(backfill_limit, ARXIV_PAGING_CAP)
        self.retry_first = retry_first
        self.schedule = schedule  # None: every POLL_INTERVAL (`watcher.calendars.poll_calendar`)
        self.clock = clock

    def requests_per_cycle(self, followed: Sequence[Followed]) -> int:
        """At least one request a group: what a cycle of these follows costs at the least."""
        return len(self.groups(followed))

    def costs_more_than(self, followed: Sequence[Followed], requests: int) -> bool:
        """Whether a cycle of these follows costs more than `requests` requests at the least:
        `requests_per_cycle`, counted only as far as it takes to tell."""
        shared, alone = _shared_and_alone(followed)
        groups = query_groups([f.names for f in shared])
        return len(alone) + sum(1 for _ in itertools.islice(groups, requests + 1)) > requests

    def groups(self, followed: Sequence[Followed]) -> list[list[Followed]]:
        """Authors whose history is known share OR-queries, those whose polls keep failing
        apart and split (`watcher.polling.failing_groups`); a first poll, a person followed in some
        categories (a query narrowed to them) and a topic go alone."""
        return self._plan(followed)[0]

    def _plan(self, followed: Sequence[Followed]) -> tuple[list[list[Followed]], SplitShown]:
        shared, alone = _shared_and_alone(followed)
        plan = plan_groups([f.names for f in shared], [f.consecutive_failures for f in shared])
        groups = [[shared[i] for i in group] for group in plan.groups]
        split = [[shared[i] for i in group] for group in plan.split]
        return groups + [[f] for f in alone], SplitShown(split, plan.extra_requests)

    async def poll(
        self, followed: Sequence[Followed], *, save: Save, force: bool = False
    ) -> PollOutcome:
        """Poll the follows that are due (all of them with `force`), group by group."""
        now = self.clock()
        due = [f for f in followed if force or f.next_poll is None or f.next_poll <= now]
        outcome = PollOutcome()
        groups, split = self._plan(due)
        if split.groups:
            outcome.split_requests = split.extra_requests
            log.info(
                "splitting queries that keep failing, to find the name arXiv fails on: %s; "
                "%d request(s) more than unsplit (at most %d split queries a cycle)",
                "; ".join(_shown(group) for group in split.groups),
                split.extra_requests,
                SPLIT_BUDGET,
                extra={"source": "api"},
            )
        for group in groups:
            await self._poll_group(group, save, outcome)
        return outcome

    async def _poll_group(self, group: list[Followed], save: Save, outcome: PollOutcome) -> None:
        names = ", ".join(f.name or f.label for f in group)  # a whole category: "all of cs.DC"
        # A shared query's failure may be another name's: said with the cause, where shown.
        count = len(group) - 1
        others = f" (in one query with {count} other name{'s' * (count > 1)})" if count else ""
        # A whole list: a first poll's, or a known follow's weekly refresh.
        whole = any(f.refreshed is None or f.refreshed <= self.clock() - REFRESH_EVERY
                    for f in group)  # fmt: skip
        try:
            matched = await self._fetch_group(group, whole=whole)
            announce_for = frozenset(f.id for f in group if f.backfilled)
            saved = await save(matched, announce_for)
            now = self.clock()
            await in_db_thread(
                functools.partial(self.store.record_poll_success, whole_list=whole),
                [f.id for f in group],
                now=now,
                next_poll=next_api_poll(self.schedule, now, self.poll_interval),
            )
        except Exception as error:
            # The boundary of one group: whatever went wrong (arXiv, the save, a bug) is this
            # group's failure, recorded and retried later; the other groups are polled on.
            await record_poll_failure(
                self.store, group, error,
                first=self.retry_first, cap=self.poll_interval, now=self.clock(), outcome=outcome,
                note=others,
            )  # fmt: skip
            return
        log.info(
            "polled %s: %d new, %d revised, %d stored silently",
            names,
            len(saved.new),
            len(saved.revisions),
            saved.silent,
            extra={"source": "api"},
        )
        outcome.polled.extend(f.label for f in group)

    async def _fetch_group(self, group: list[Followed], *, whole: bool) -> list[MatchedRecord]:
        """Fetch, parse and match every page this group needs (`whole`: its whole list, or a
        topic's since its creation, at most `backfill_limit` results); nothing is stored here."""
        rules = FollowRules.of(group)
        ids = frozenset(f.id for f in group)
        topic = group[0].topic if group[0].kind == FollowKind.TOPIC else None
        if topic is not None:
            query = topic_from_stored(topic, group[0].categories).query
        else:
            categories = group[0].categories if len(group) == 1 else ()
            query = person_query([name for f in group for name in f.names], categories)
        backfill = not all(f.backfilled for f in group)
        # Results come newest `updated` first. A paper can reach the API days late with its
        # older date, so a known group pages back to a window before its last success, never
        # merely to "a page already stored". A person's first poll reads the whole history; a
        # topic's only the window before now: a topic has no history to show, only a present
        # whose papers must not be announced as new later.
        successes = [f.last_success for f in group if f.last_success is not None]
        if backfill:
            older_than: datetime | None = self.clock() - self.window if topic is not None else None
        elif not whole:
            older_than = min(successes) - self.window
        else:  # a refresh: a person's whole list, a topic's since it began
            created = group[0].created or min(successes)
            older_than = created - self.window if topic is not None else None
        matched: list[MatchedRecord] = []
        start, first_total = 0, None
        while True:
            page = await self._fetch_page(query, start)
            if start == 0:
                if not page.records:
                    page = await self._first_page_again(group, query, page)
                first_total = page.total_results
                if backfill and topic is None and (first_total or 0) > self.backfill_limit:
                    raise ArxivTooManyResults(first_total or 0, self.backfill_limit)
            if not page.records:
                if start > 0 and (first_total is None or start < first_total):
                    # The first page promised more: this empty one is the quirk, not the end.
                    raise ArxivEmptyPage(
                        f"arXiv answered an empty page at {start} of {first_total}; will retry"
                    )
                return matched
            for record in page.records:
                if topic is not None and older_than and record.updated < older_than:
                    # A topic keeps to its window, the last page's tail too: what is older was
                    # out before the topic's first poll, and must not be announced as new.
                    continue
                found = ids & rules.match(
                    record.author_names,
                    record.categories,
                    title=record.title,
                    abstract=record.abstract,
                )
                if found:
                    matched.append(MatchedRecord(record, found))
            if len(page.records) < self.page_size:
                return matched
            if not backfill and whole and start + len(page.records) >= self.backfill_limit:
                return matched  # a refresh reads the newest results only, as many as a backfill
            if older_than is not None and min(r.updated for r in page.records) < older_than:
                return matched
            start += len(page.records)

    async def count_results(self, names: Sequence[str], categories: Sequence[str] = ()) -> int:
        """How many results arXiv lists for these names: one small request, nothing stored.

        Asked before following a new name, so that a name too broad to be one person is refused
        for the price of one request. Waits its turn on the client like any request.
        """
        query = person_query(names, categories)
        body = await self.client.query(search_query=query, start=0, max_results=1)
        page = await asyncio.to_thread(parse_feed, body)
        return page.total_results if page.total_results is not None else len(page.records)

    async def survey(
        self, names: Sequence[str], categories: Sequence[str] = (), *, sample: int = SURVEY_SAMPLE
    ) -> NameSurvey:
        """How many results arXiv lists for these names (in these categories, if any), and the
        primary categories of the newest `sample` of them: one request, nothing stored.

        Asked before following a new name, so that a name too broad to be one person is refused,
        or its categories offered (`watcher.follows.homonyms`), for the price of one request. Waits
        its turn on the client like any request.
        """
        body = await self.client.query(
            search_query=person_query(names, categories), start=0, max_results=max(sample, 1)
        )
        page = await asyncio.to_thread(parse_feed, body)
        total = page.total_results if page.total_results is not None else len(page.records)
        return survey_of(total, page.records, names)

    async def papers(self, ids: Sequence[str]) -> list[Record]:
        """The papers arXiv lists under these ids (a versioned id: that version; else the
        current one): one request, nothing stored. A missing id is simply not among them."""
        body = await self.client.query(id_list=ids, max_results=len(ids))
        return (await asyncio.to_thread(parse_feed, body)).records

    async def _fetch_page(self, query: str, start: int) -> Page:
        body = await self.client.query(search_query=query, start=start, max_results=self.page_size)
        return await asyncio.to_thread(parse_feed, body)

    async def _first_page_again(self, group: list[Followed], query: str, empty: Page) -> Page:
        """An empty first page: arXiv's quirk, or truly nothing? Never guess in a way that loses.

        Authors with stored records have papers, so the answer is unknown: retry later. For a
        first poll, believing "nothing" wrongly would make the whole history look new at the
        next poll, so ask again (politely spaced) before believing it.
        """
        if any(f.record_count for f in group):
            raise ArxivEmptyPage(
                "arXiv answered an empty page for authors with stored records; will retry"
            )
        if all(f.backfilled for f in group):
            return empty  # known to have no records, and still none: nothing is lost
        for _ in range(EMPTY_FIRST_PAGE_RETRIES):
            page = await self._fetch_page(query, 0)
            if page.records:
                return page
        return empty


@dataclass(frozen=True, slots=True)
class SplitShown:
    """A cycle's split, as logged: the suspects' groups cut to size, and what they cost."""

    groups: list[list[Followed]]
    extra_requests: int


def _shown(group: Sequence[Followed], *, names: int = 3) -> str:
    """A group as a log names it: "Ann A, Bob B, Cy C and 13 more", or its one name."""
    shown = ", ".join(f.label for f in group[:names])
    return shown + (f" and {len(group) - names} more" if len(group) > names else "")


def _shared_and_alone(followed: Sequence[Followed]) -> tuple[list[Followed], list[Followed]]:
    """The follows that share OR-queries (persons whose history is known, in every category),
    and those that go alone: first polls and persons in some categories, then topics."""
    persons = [f for f in followed if f.kind != FollowKind.TOPIC]
    shared = [f for f in persons if f.backfilled and not f.categories]
    alone = [f for f in persons if not f.backfilled or f.categories]
    return shared, alone + [f for f in followed if f.kind == FollowKind.TOPIC]
