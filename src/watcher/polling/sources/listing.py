"""The listing source: a batch's papers from arXiv's listing pages, minutes after they flip.

arXiv's `/list/<archive>/new` shows a batch at the announcement itself (20:00 US Eastern), hours
before OAI-PMH (about 22:30) and the API (after midnight). From each announcement instant
(`watcher.calendars.announcements`) `read` does, top to bottom:

- **probe**: ask one sentinel page (the first archive needed) every LISTING_PROBE_INTERVAL
  seconds, conditionally (`If-None-Match`/`If-Modified-Since`: an unchanged page is a 304 of no
  body), until its heading names the expected mailing date; after 15 probes without it, every
  10 intervals (1 and 10 minutes by default), up to LISTING_PROBE_HOURS after the instant. A
  day that never flips is left to the structured sources, as is every day this source fails.
  On an evening the calendar guesses is a holiday (`Announcement.holiday`) it probes at a low
  rate instead: at most `len(HOLIDAY_PROBES)` probes, at those offsets from the usual instant
  (within LISTING_PROBE_HOURS). The heading is the truth: a batch it shows is read as on any
  evening, and a holiday without one costs those few requests.
- **read**: each archive the follows need (`archives_needed`), `skip=0&show=2000`, then further
  pages with `skip` while the sections hold more; the sentinel's page is its archive's first.
- **parse and check** (`watcher.arxiv.listing_page`): every section's items must be the count
  its heading says, and across pages its whole total.
- **match and save**: the same rules as the harvest (`watcher.follows.match.FollowRules`), saved
  through the same `Save` as every source, so the store's rule of new and the outbox's exactly-once
  hold: a read redone after a crash finds every link made and announces nothing twice, and a
  structured record arriving later at the same version replaces the listed metadata without a word.

What is saved from a listed item: a *new* submission as version 1 with the metadata as listed
(the abstract as arXiv processed it) and, as v1 date, the announcement less six hours (the
listing carries no dates; 14:00 US Eastern is the deadline of the batch). A *cross-list* may be
of an old paper: one already stored is saved as stored (the rule of new then judges it); one not
stored is asked of the API by `id_list` (one request for up to 100), whose answer, if it has
the paper, is saved (an old paper's id is older than the follows'), and otherwise the paper
is new today and saved as listed. *Replacements* are never saved from the listing: it carries
no version, and a revision is announced once a structured source confirms it.

Requests go through the one `ArxivClient`: one at a time with the other sources, with the
project's User-Agent, and listing requests at least LISTING_MIN_INTERVAL apart. A listing that
does not parse, or whose counts disagree, is a failure of this source: logged naming the
listing, and recorded on the follows (`authors`, `health`, /stats show it) until their next
successful poll; nothing was lost, the structured sources find that day as before.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta

from watcher.aio import in_db_thread
from watcher.arxiv.fetch import ArxivClient, ListingResponse
from watcher.arxiv.listing_page import ListedItem, ListingPage, Section, parse_listing_page
from watcher.arxiv.parse import parse_feed
from watcher.arxiv.records import Author, Record
from watcher.arxiv.taxonomy import categories
from watcher.calendars.announcements import Announcement
from watcher.errors import ArxivBadListing, ArxivError
from watcher.follows.followed import Followed
from watcher.follows.match import FollowRules
from watcher.kinds import FollowKind
from watcher.polling.failures import expected, failure_cause, is_parse_failure
from watcher.polling.sources import Save
from watcher.polling.sources.harvest import ID_LIST_SIZE, Announced
from watcher.store import MatchedRecord, Store

log = logging.getLogger(__name__)

DEFAULT_LISTING_URL = "https://arxiv.org/list/"
PAGE_SIZE = 2000  # the most arXiv shows on one page
SLOW_AFTER_PROBES = 15  # probes at LISTING_PROBE_INTERVAL before slowing down
SLOW_FACTOR = 10  # then one probe every this many intervals
# On a guessed holiday: probes at these offsets from the usual instant, six in all. Early ones
# catch a batch on time, later ones one announced late (arXiv has announced hours late).
HOLIDAY_PROBES = tuple(timedelta(minutes=minutes) for minutes in (0, 5, 20, 60, 120, 240))
DEADLINE_BEFORE_ANNOUNCEMENT = timedelta(hours=6)  # 14:00 before a 20:00 announcement
# The archives of the physics group, for an OAI-PMH set "physics" in HARVEST_SETS.
_PHYSICS = (
    "astro-ph", "cond-mat", "gr-qc", "hep-ex", "hep-lat", "hep-ph", "hep-th", "math-ph", "nlin",
    "nucl-ex", "nucl-th", "physics", "quant-ph",
)  # fmt: skip


def archive_of(category: str) -> str:
    """The archive whose listing shows a category: cs.DC → cs, hep-th → hep-th."""
    return category.split(".", 1)[0]


def all_archives() -> list[str]:
    return sorted({archive_of(category) for category in categories()})


def archives_needed(followed: Sequence[Followed], sets: Sequence[str]) -> list[str]:
    """The archives whose listings can hold a paper for `followed`: those of their categories
    when every follow names some, else those of HARVEST_SETS when set, else all of arXiv."""
    if followed and all(f.categories for f in followed):
        return sorted({archive_of(c) for f in followed for c in f.categories})
    if sets:
        found: set[str] = set()
        for spec in sets:
            parts = spec.split(":")
            if len(parts) > 1:
                found.add(parts[1])
            elif parts[0] == "physics":
                found.update(_PHYSICS)
            else:
                found.add(parts[0])
        return sorted(found)
    return all_archives()


@dataclass(slots=True)
class ListingOutcome:
    """What one announcement's listing read did; for the log line, /stats and the tests."""

    mailing: date
    flipped: bool = False
    flipped_at: datetime | None = None  # when the probe saw the mailing
    probes: int = 0
    pages: int = 0
    items: int = 0
    papers: int = 0  # new papers read whole: distinct new submissions and cross-lists (/why)
    matched: int = 0
    looked_up: int = 0  # API requests for cross-lists not stored
    new: int = 0
    failure: str | None = None
    parsed: bool = False  # some page of the listing parsed
    unparsed: Exception | None = None  # the answer that did not (`watcher.polling.source_alerts`)
    # The batch's papers read (new submissions and cross-lists, each once, as listed): the
    # candidates of "Suggested for you" (`watcher.polling.suggested_batch`).
    candidates: list[Record] = field(default_factory=list)


class ListingSource:
    """Reads arXiv's listings for one announcement at a time (`read`)."""

    def __init__(
        self,
        *,
        store: Store,
        client: ArxivClient,
        listing_url: str = DEFAULT_LISTING_URL,
        sets: Sequence[str] = (),
        probe_interval: float = 60.0,
        probe_hours: float = 6.0,
        clock: Callable[[], datetime],
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
    ) -> None:
        self.store = store
        self.client = client
        self.listing_url = listing_url
        self.sets = tuple(sets)
        self.probe_interval = probe_interval
        self.probe_window = timedelta(hours=probe_hours)
        self.clock = clock
        self.sleep = sleep
        self._validators: dict[str, tuple[str, str]] = {}  # url -> (etag, last-modified)
        self._showed: dict[str, date] = {}  # archive -> the mailing its page last showed
        self.last: ListingOutcome | None = None

    def url_of(self, archive: str) -> str:
        return f"{self.listing_url}{archive}/new"

    async def read(
        self, announcement: Announcement, followed: Sequence[Followed], *, save: Save
    ) -> ListingOutcome:
        """Probe, read, match and save the batch of `announcement` for `followed` (those whose
        history was fetched: the others are backfilled silently by the API first)."""
        outcome = ListingOutcome(announcement.mailing)
        eligible = [
            f
            for f in followed
            if f.backfilled and f.polled and f.kind in (FollowKind.PERSON, FollowKind.TOPIC)
        ]
        if not eligible:
            return outcome
        archives = archives_needed(eligible, self.sets)
        self.last = outcome
        try:
            first = await self._probe(archives[0], announcement, outcome)
            if first is None:
                if announcement.holiday:
                    log.info(
                        "the listing %s showed no mailing of %s, as arXiv's holiday list "
                        "guessed (%d probes)",
                        self.url_of(archives[0]), announcement.mailing, outcome.probes,
                        extra={"source": "listing"},
                    )  # fmt: skip
                    return outcome
                log.info(
                    "the listing %s did not show the mailing of %s within %s: the day is left "
                    "to the other sources (%d probes)",
                    self.url_of(archives[0]), announcement.mailing, self.probe_window,
                    outcome.probes,
                    extra={"source": "listing"},
                )  # fmt: skip
                return outcome
            # A later mailing than expected (this one was missed while the service was down)
            # is read all the same: its papers are as new.
            outcome.flipped, outcome.mailing = True, first.mailing
            outcome.flipped_at = self.clock()
            rules = FollowRules.of(eligible)
            topics = [f for f in eligible if f.kind == FollowKind.TOPIC and f.created]
            announce_for = Announced(
                frozenset(f.id for f in eligible),
                {f.id: f.created.date() for f in topics if f.created},
            ).on(first.mailing)
            done: set[str] = set()
            for archive in archives:
                items = await self._read_archive(archive, outcome.mailing, first, outcome)
                first = None
                outcome.candidates += [
                    as_record(item, announcement)
                    for item in items
                    if item.section != "rep" and item.arxiv_id not in done
                ]
                matched = self._match(items, rules, done)
                outcome.matched += len(matched)
                records = await self._records(matched, announcement, outcome)
                if records:
                    saved = await save(records, announce_for)
                    outcome.new += len(saved.new)
            outcome.papers = len(done)  # every archive read whole: its new papers, each once
        except Exception as error:
            await self._record_failure(eligible, error, outcome)
            return outcome
        log.info(
            "read the listings of %d archive(s) for the mailing of %s: %d probe(s), %d page(s), "
            "%d item(s), %d matched, %d API request(s) for cross-lists; %d new",
            len(archives), announcement.mailing, outcome.probes, outcome.pages, outcome.items,
            outcome.matched, outcome.looked_up, outcome.new,
            extra={"source": "listing"},
        )  # fmt: skip
        return outcome

    async def _get(self, archive: str, skip: int, *, conditional: bool) -> ListingResponse:
        url = self.url_of(archive)
        key = f"{url}?skip={skip}"
        etag, modified = self._validators.get(key, ("", "")) if conditional else ("", "")
        page = await self.client.get_page(
            url, {"skip": str(skip), "show": str(PAGE_SIZE)}, etag=etag, modified=modified
        )
        if not page.not_modified:
            self._validators[key] = (page.etag, page.modified)
        return page

    async def _probe(
        self, archive: str, announcement: Announcement, outcome: ListingOutcome
    ) -> ListingPage | None:
        """The sentinel's first page once it names the mailing; None if it never does in time."""
        deadline = announcement.at + self.probe_window
        url = self.url_of(archive)
        while True:
            wait = (announcement.at - self.clock()).total_seconds()
            if wait > 0:
                await self.sleep(wait)
            try:
                # Unchanged since it showed this mailing (a read redone): asked in full.
                known = self._showed.get(archive)
                fresh = known is not None and known >= announcement.mailing
                page = await self._get(archive, 0, conditional=not fresh)
            except ArxivError as error:
                # arXiv busy or unreachable after the client's retries: the next probe may
                # do better, and the deadline bounds them.
                log.warning("probing the listing %s failed: %s", url, failure_cause(error))
                page = None
            outcome.probes += 1
            if page is not None and not page.not_modified:
                # A page of 2,000 items parses in a fraction of a second: off the event loop.
                parsed = await asyncio.to_thread(parse_listing_page, page.body, url=url)
                outcome.parsed = True
                self._showed[archive] = parsed.mailing
                if parsed.mailing >= announcement.mailing:
                    return parsed
            next_probe = self._next_probe(announcement, outcome.probes)
            if next_probe is None or next_probe > deadline:
                return None
            await self.sleep(max(0.0, (next_probe - self.clock()).total_seconds()))

    def _next_probe(self, announcement: Announcement, probes: int) -> datetime | None:
        """When to probe again after `probes`: on a guessed holiday the next of
        HOLIDAY_PROBES (None after the last), else LISTING_PROBE_INTERVAL from now, ten
        times that after SLOW_AFTER_PROBES."""
        if announcement.holiday:
            if probes >= len(HOLIDAY_PROBES):
                return None
            return announcement.at + HOLIDAY_PROBES[probes]
        interval = self.probe_interval
        if probes >= SLOW_AFTER_PROBES:
            interval *= SLOW_FACTOR
        return self.clock() + timedelta(seconds=interval)

    async def _read_archive(
        self, archive: str, mailing: date, first: ListingPage | None, outcome: ListingOutcome
    ) -> list[ListedItem]:
        """Every item of one archive's listing, paged with `skip`, the counts checked."""
        url = self.url_of(archive)
        items: list[ListedItem] = []
        totals: dict[Section, int] = {}
        skip = 0
        while True:
            page = first
            if page is None:
                answer = await self._get(archive, skip, conditional=False)
                page = await asyncio.to_thread(parse_listing_page, answer.body, url=url)
            first = None
            outcome.pages += 1
            if page.mailing != mailing:
                raise ArxivBadListing(
                    f"the listing {url} went from the mailing of {mailing} to {page.mailing} "
                    "while it was read",
                    url=url,
                )
            for section, count in page.sections.items():
                if totals.setdefault(section, count.total) != count.total:
                    raise ArxivBadListing(f"the {section} count of {url} changed", url=url)
            items.extend(page.items)
            if not page.items or len(items) >= page.total:
                break
            skip = len(items)
        if len(items) != page.total or sum(totals.values()) != page.total:
            raise ArxivBadListing(
                f"the listing {url} lists {len(items)} item(s) of the {page.total} it counts",
                url=url,
            )
        for section, total in totals.items():
            found = sum(1 for item in items if item.section == section)
            if found != total:
                raise ArxivBadListing(
                    f"the listing {url} lists {found} {section} item(s) of the {total} it counts",
                    url=url,
                )
        outcome.items += len(items)
        return items

    @staticmethod
    def _match(
        items: Sequence[ListedItem], rules: FollowRules, done: set[str]
    ) -> list[tuple[ListedItem, frozenset[int]]]:
        """New submissions and cross-lists that a follow matches, each paper once (the first
        archive that lists it: its primary's lists it as new). Replacements never."""
        matched = []
        for item in sorted(items, key=lambda i: i.section != "new"):
            if item.section == "rep" or item.arxiv_id in done:
                continue
            done.add(item.arxiv_id)
            ids = rules.match(
                item.authors, item.categories, title=item.title, abstract=item.abstract
            )
            if ids:
                matched.append((item, ids))
        return matched

    async def _records(
        self,
        matched: Sequence[tuple[ListedItem, frozenset[int]]],
        announcement: Announcement,
        outcome: ListingOutcome,
    ) -> list[MatchedRecord]:
        """What to save for the matched items: see the module docstring."""
        records: list[MatchedRecord] = []
        unknown: dict[str, tuple[ListedItem, frozenset[int]]] = {}
        for item, ids in matched:
            if item.section == "new":
                records.append(MatchedRecord(as_record(item, announcement), ids))
                continue
            stored = await in_db_thread(self.store.paper, item.arxiv_id)
            if stored is not None:
                records.append(MatchedRecord(stored, ids))
            else:
                unknown[item.arxiv_id] = (item, ids)
        chunks = [list(unknown)[i : i + ID_LIST_SIZE] for i in range(0, len(unknown), ID_LIST_SIZE)]
        for chunk in chunks:
            body = await self.client.query(id_list=chunk, max_results=len(chunk))
            outcome.looked_up += 1
            known = {r.arxiv_id: r for r in (await asyncio.to_thread(parse_feed, body)).records}
            for arxiv_id in chunk:
                item, ids = unknown[arxiv_id]
                record = known.get(arxiv_id) or as_record(item, announcement)
                records.append(MatchedRecord(record, ids))
        return records

    async def _record_failure(
        self, followed: Sequence[Followed], error: Exception, outcome: ListingOutcome
    ) -> None:
        cause = failure_cause(error)
        outcome.failure = cause
        if is_parse_failure(error):
            outcome.unparsed = error
        log.log(
            logging.WARNING if expected(error) else logging.ERROR,
            "reading the listings for the mailing of %s failed: %s; the day is left to the "
            "other sources",
            outcome.mailing, cause,
            exc_info=not expected(error),  # a bug: say where
            extra={"source": "listing"},
        )  # fmt: skip
        try:
            ids = [f.id for f in followed]
            for start in range(0, len(ids), 1000):
                await in_db_thread(
                    self.store.record_source_failure,
                    ids[start : start + 1000],
                    error=f"listing failed: {cause}",
                    now=self.clock(),
                )
        except Exception as recording:
            log.error("could not record the listing's failure: %s", failure_cause(recording))


def as_record(item: ListedItem, announcement: Announcement) -> Record:
    """A listed item as version 1, its metadata as listed (see the module docstring)."""
    published = announcement.at - DEADLINE_BEFORE_ANNOUNCEMENT
    return Record(
        arxiv_id=item.arxiv_id,
        version=1,
        title=item.title,
        abstract=item.abstract,
        authors=tuple(Author(name) for name in item.authors),
        primary_category=item.primary_category,
        categories=item.categories,
        published=published,
        updated=published,
        abs_url=f"https://arxiv.org/abs/{item.arxiv_id}v1",
        pdf_url=f"https://arxiv.org/pdf/{item.arxiv_id}v1",
        comment=item.comment,
        journal_ref=item.journal_ref,
    )
