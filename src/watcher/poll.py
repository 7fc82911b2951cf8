"""The poll cycle: for every followed author that is due, fetch → parse → match → store.

It reads top to bottom in `Poller.poll`. A group of authors is fetched whole before anything
is stored, so the store only ever holds the result of complete fetches. A known group pages back
until its results are older than its last successful poll minus a safety window
(`POLL_WINDOW_DAYS`): a paper that reaches the API late keeps its older `updated` date, and is
found all the same, while paging stays bounded however busy the query. An author's first poll
stores its history silently, and is refused after one request when arXiv lists more than
`BACKFILL_LIMIT` results. What a fetch found is saved in short transactions (about
`SAVE_TARGET` each), so the one database thread never stays busy long; the poll counts as a
success only once every part is stored, and saves are idempotent, so a crash between them
redoes the poll safely. One group's failure, whatever its cause (arXiv, a failed save, a bug),
is recorded in its authors' poll state with its real cause and a growing but capped delay
before the next try, and never stops the other groups. Only authors someone wants are polled:
the operator's, and those some chat subscribes to.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from sqlalchemy.exc import SQLAlchemyError

from watcher.aio import in_db_thread
from watcher.errors import ArxivEmptyPage, ArxivError, ArxivHTTPError, ArxivTooManyResults
from watcher.fetch import ARXIV_PAGING_CAP, ArxivClient
from watcher.match import author_query, group_queries, record_matches
from watcher.models import utcnow
from watcher.parse import Page, parse_feed
from watcher.records import Record
from watcher.store import Followed, MatchedRecord, SaveResult, Store

log = logging.getLogger(__name__)

RETRY_FIRST = 60.0  # seconds before the first retry of a failed poll (POLL_RETRY_FIRST)
# The doubling stops here: 2**62 times any delay is far past any cap, and a float does not
# overflow on it, however many failures in a row there were.
_MAX_DOUBLINGS = 62
_MAX_ERROR_LENGTH = 500  # of the cause kept in the poll state and logged
# arXiv's Retry-After is honoured up to this: a longer one is a broken header, and an author
# must never go unpolled for ever (nor may the date arithmetic overflow on it).
MAX_RETRY_AFTER = timedelta(days=1)
# A first poll asks this many more times before it believes an empty first page.
EMPTY_FIRST_PAGE_RETRIES = 2
DEFAULT_WINDOW = timedelta(days=14)
DEFAULT_BACKFILL_LIMIT = 2000
# A save transaction aims at this many seconds: every other database call (the bot's commands
# among them) waits for the one database thread meanwhile. Records per transaction adapt to the
# measured pace, within these bounds.
SAVE_TARGET = 0.1
SAVE_CHUNK_FIRST, SAVE_CHUNK_MIN, SAVE_CHUNK_MAX = 10, 5, 500


def retry_delay(failures: int, *, first: float, cap: timedelta) -> timedelta:
    """The wait after `failures` failed polls in a row: `first` seconds, doubling each time,
    never more than `cap`. Computed in floats on a capped exponent, so it cannot overflow."""
    doublings = min(max(failures - 1, 0), _MAX_DOUBLINGS)
    return timedelta(seconds=min(first * 2.0**doublings, cap.total_seconds()))


def failure_cause(error: BaseException) -> str:
    """One short line saying why a poll failed: for a database error the driver's own message
    (SQLAlchemy's wrapper leads with hints such as the autoflush one, and quotes every
    parameter), for anything unexpected its type too."""
    if isinstance(error, ArxivError):
        text = str(error)
    elif isinstance(error, SQLAlchemyError):
        original = getattr(error, "orig", None)
        cause = original if original is not None else error
        text = f"saving failed: {type(cause).__name__}: {_first_line(cause)}"
    else:
        text = f"{type(error).__name__}: {_first_line(error)}"
    return text if len(text) <= _MAX_ERROR_LENGTH else text[: _MAX_ERROR_LENGTH - 1] + "…"


def _first_line(error: BaseException) -> str:
    lines = [line for line in str(error).splitlines() if line.strip()]
    return lines[0].strip() if lines else "(no message)"


@dataclass(slots=True)
class PollReport:
    """What one poll cycle found: new papers, revisions, and which authors failed why."""

    new: list[Record] = field(default_factory=list)
    revisions: list[Record] = field(default_factory=list)
    polled: list[str] = field(default_factory=list)
    failures: dict[str, str] = field(default_factory=dict)
    backfilled: int = 0  # records stored silently by first polls


class Poller:
    """Polls arXiv for the followed authors. Two polls never run at once."""

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
        clock: Callable[[], datetime] = utcnow,
    ) -> None:
        self.store = store
        self.client = client
        self.poll_interval = timedelta(seconds=poll_interval)
        self.retry_first = retry_first
        self.page_size = page_size
        self.window = window
        # Past the API's paging cap a history cannot be read whole, whatever the setting.
        self.backfill_limit = min(backfill_limit, ARXIV_PAGING_CAP)
        self.clock = clock
        self._lock = asyncio.Lock()
        self._save_chunk = SAVE_CHUNK_FIRST
        # Set by whoever schedules the polls (the service): runs a round as soon as it can.
        self.on_poll_soon: Callable[[], None] | None = None

    def poll_soon(self) -> None:
        """Ask for a round now rather than at the next tick: an author was just followed and
        its history is wanted. Without a scheduler (tests, the CLI) it waits for the next poll."""
        if self.on_poll_soon is not None:
            self.on_poll_soon()

    async def poll(self, *, only: Sequence[int] | None = None, force: bool = False) -> PollReport:
        """Poll the due authors (all of them with `force`, or just the ids in `only`)."""
        async with self._lock:
            now = self.clock()
            followed = [f for f in await in_db_thread(self.store.followed, only) if f.polled]
            if not force and only is None:
                followed = [f for f in followed if f.next_poll is None or f.next_poll <= now]
            report = PollReport()
            for group in self._groups(followed):
                await self._poll_group(group, report)
            return report

    def _groups(self, followed: list[Followed]) -> list[list[Followed]]:
        """Authors whose history is known share OR-queries; a first poll goes alone."""
        known = [f for f in followed if f.backfilled]
        groups = [[known[i] for i in group] for group in group_queries([f.names for f in known])]
        return groups + [[f] for f in followed if not f.backfilled]

    async def _poll_group(self, group: list[Followed], report: PollReport) -> None:
        names = ", ".join(f.name for f in group)
        try:
            matched = await self._fetch_group(group)
            announce_for = frozenset(f.id for f in group if f.backfilled)
            saved = await self._save(matched, announce_for=announce_for, report=report)
            now = self.clock()
            await in_db_thread(
                self.store.record_poll_success,
                [f.id for f in group],
                now=now,
                next_poll=now + self.poll_interval,
            )
        except Exception as error:
            # The boundary of one group: whatever went wrong (arXiv, the save, a bug) is this
            # group's failure, recorded and retried later; the other groups are polled on.
            await self._record_failure(group, error, report)
            return
        log.info(
            "polled %s: %d new, %d revised, %d stored silently",
            names,
            len(saved.new),
            len(saved.revisions),
            saved.silent,
        )
        report.polled.extend(f.name for f in group)

    async def _record_failure(
        self, group: list[Followed], error: Exception, report: PollReport
    ) -> None:
        """Log the failure with its real cause, count it, and put the next try off."""
        names = ", ".join(f.name for f in group)
        cause = failure_cause(error)
        failures = max(f.consecutive_failures for f in group) + 1
        retry = retry_delay(failures, first=self.retry_first, cap=self.poll_interval)
        if isinstance(error, ArxivHTTPError) and error.retry_after:
            asked = timedelta(seconds=min(error.retry_after, MAX_RETRY_AFTER.total_seconds()))
            retry = max(retry, asked)  # arXiv's own word
        log.log(
            logging.WARNING if isinstance(error, ArxivError | SQLAlchemyError) else logging.ERROR,
            "poll failed for %s: %s; %d failure(s) in a row, next try in %d s",
            names, cause, failures, retry.total_seconds(),
            exc_info=not isinstance(error, ArxivError | SQLAlchemyError),  # a bug: say where
        )  # fmt: skip
        report.failures.update({f.name: cause for f in group})
        now = self.clock()
        try:
            await in_db_thread(
                self.store.record_poll_failure,
                [f.id for f in group],
                error=cause,
                now=now,
                next_poll=now + retry,
            )
        except Exception as recording:
            # The database itself is failing: the log line above is all there can be, and the
            # next tick tries this group again.
            log.error("could not record the failure of %s: %s", names, failure_cause(recording))

    async def _fetch_group(self, group: list[Followed]) -> list[MatchedRecord]:
        """Fetch, parse and match every page this group needs; nothing is stored here."""
        query = author_query([name for f in group for name in f.names])
        backfill = not all(f.backfilled for f in group)
        # Results come newest `updated` first. A paper can reach the API days late with its
        # older date, so a known group pages back to a window before its last success, never
        # merely to "a page already stored". A first poll reads the whole history.
        successes = [f.last_success for f in group if f.last_success is not None]
        older_than = None if backfill else min(successes) - self.window
        matched: list[MatchedRecord] = []
        start, first_total = 0, None
        while True:
            page = await self._fetch_page(query, start)
            if start == 0:
                if not page.records:
                    page = await self._first_page_again(group, query, page)
                first_total = page.total_results
                if backfill and (first_total or 0) > self.backfill_limit:
                    raise ArxivTooManyResults(first_total or 0, self.backfill_limit)
            if not page.records:
                if start > 0 and (first_total is None or start < first_total):
                    # The first page promised more: this empty one is the quirk, not the end.
                    raise ArxivEmptyPage(
                        f"arXiv answered an empty page at {start} of {first_total}; will retry"
                    )
                return matched
            matched.extend(
                MatchedRecord(record, ids)
                for record in page.records
                if (ids := frozenset(f.id for f in group if record_matches(record, f.names)))
            )
            if len(page.records) < self.page_size:
                return matched
            if older_than is not None and min(r.updated for r in page.records) < older_than:
                return matched
            start += len(page.records)

    async def count_results(self, names: Sequence[str]) -> int:
        """How many results arXiv lists for these names: one small request, nothing stored.

        Asked before following a new name, so that a name too broad to be one person is refused
        for the price of one request. Waits its turn on the client like any request.
        """
        body = await self.client.query(search_query=author_query(names), start=0, max_results=1)
        page = await asyncio.to_thread(parse_feed, body)
        return page.total_results if page.total_results is not None else len(page.records)

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
            for found in (total, report):
                found.new.extend(part.new)
                found.revisions.extend(part.revisions)
            total.silent += part.silent
            report.backfilled += part.silent
            if len(chunk) == self._save_chunk:
                # At most double at a time: one quick transaction is no proof of the next.
                pace = len(chunk) * SAVE_TARGET / max(took, 1e-3)
                size = min(pace, 2 * len(chunk), SAVE_CHUNK_MAX)
                self._save_chunk = int(max(SAVE_CHUNK_MIN, size))
        return total

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
