"""After a batch is read whole, "Suggested for you" for every destination that wants it, once
(issue 32).

`BatchSuggester.after_batch` is called by the reader of a mailing's batch: the listing source
(`watcher.polling.sources.listing`) once its archives are read, or the OAI-PMH harvest
(`watcher.polling.sources.harvest`) once its window moved to a new day, whichever comes first;
the store's claim (`watcher.store.suggesting`) makes the second reader's call do nothing, or
finish what a crash cut short.

The candidates are the batch's papers as read: from the listing, its new submissions and
cross-lists in the archives the follows needed (not replacements: papers announced before);
from the harvest, the records of the new day first submitted within a week of it (its new
papers, as OAI-PMH has no version). Candidates are not stored, bar those shown to some
destination, which are stored without a follow (so they can be shown, /paper'd, saved and
👍'd) when their message is queued; every candidate's terms are counted in the document
frequencies once.

The batch is prepared once (`scoring.Batch`); the destinations with suggestions on are read a
page at a time (`PAGE`), each with its chat's profile; each is ranked (`choose`: papers it was
told of, and those its chat's excluded words hold, left out; up to its count, above the
threshold), and only the papers shown are explained (`scoring.explain`). Each page's messages
are queued in one transaction, the one that reads the next page. In the service's event loop the
database thread is asked for short steps and the ranking runs on a worker thread between them;
the service ranks in a process of its own (`watcher.polling.ranking_process`), where every step
runs on its one thread.
"""

from __future__ import annotations

import asyncio
import heapq
import json
import logging
from collections import OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import date, datetime
from typing import Generic, ParamSpec, Protocol, TypeVar, overload

from watcher.aio import in_db_thread
from watcher.arxiv.records import Record
from watcher.follows.excluded_words import RecordText, holds_any
from watcher.store.paper_terms import counts_json
from watcher.store.suggesting import Claim, SuggestionStore, ToRank
from watcher.store.suggestion_queue import Queued, Shown
from watcher.suggestions.frequencies import DocumentFrequencies
from watcher.suggestions.profile import Profile
from watcher.suggestions.scoring import THRESHOLD, Batch, Example, explain, scored
from watcher.suggestions.terms import ShownWords, Terms, paper_terms, term_frequencies

log = logging.getLogger(__name__)
P = ParamSpec("P")
T = TypeVar("T")
K = TypeVar("K")
V = TypeVar("V")

PAGE = 25  # destinations read, ranked and queued at a time
_CACHED = 256  # candidates' texts (for excluded words) kept between destinations
_EXAMPLES = 128  # example papers (their vectors) kept between pages


class _Cache(Generic[K, V]):
    """A small least-recently-used cache filled by `make`."""

    def __init__(self, make: Callable[[K], V], size: int = _CACHED) -> None:
        self._make = make
        self._size = size
        self._items: OrderedDict[K, V] = OrderedDict()

    def __call__(self, key: K) -> V:
        found = self._items.get(key)
        if found is not None:
            self._items.move_to_end(key)
            return found
        made = self._items[key] = self._make(key)
        if len(self._items) > self._size:
            self._items.popitem(last=False)
        return made


@dataclass(slots=True)
class Prepared:
    """A batch ready to rank: its papers' ids and texts, the frequencies, and the posting lists.
    Neither the papers' `Record`s nor their term counts are kept (a 2,000-paper batch's are
    about 8 MB, bench/README.md): an explanation counts its paper's terms again
    (`terms`, the last `_CACHED` kept), and the papers shown are stored from the batch the store
    keeps (`watcher.store.suggestion_queue.queue_in`)."""

    ids: list[str]  # in batch order: a paper's index is its position in the batch
    titles_and_abstracts: list[tuple[str, str]]
    frequencies: DocumentFrequencies
    batch: Batch
    texts: _Cache[int, RecordText]
    counted: _Cache[int, dict[str, int]]

    def terms(self, index: int) -> Terms:
        """A paper's terms as an explanation reads them: its counts, and the words it shows
        for a few of them found when asked (`ShownWords`)."""
        title, abstract = self.titles_and_abstracts[index]
        return Terms(counts=self.counted(index), words=ShownWords(title, abstract))

    @classmethod
    def of(
        cls, records: Sequence[Record], counts: Sequence[str], df: DocumentFrequencies
    ) -> Prepared:
        """`counts`: each record's term counts, JSON (`watcher.store.paper_terms.counts_json`),
        read one at a time."""
        texts = [(record.title, record.abstract) for record in records]
        return cls(
            [record.arxiv_id for record in records],
            texts,
            df,
            Batch(_Weights(counts), df),
            _Cache(lambda i: RecordText(*texts[i])),
            _Cache(lambda i: paper_terms(*texts[i]).counts),
        )

    def positions(self) -> dict[str, int]:
        """Each paper's position in the batch, by arXiv id."""
        return {arxiv_id: index for index, arxiv_id in enumerate(self.ids)}


class _Weights(Sequence[dict[str, float]]):
    """Each paper's term weights, read from its stored counts when asked (`Batch` reads each
    once): the batch's weights are never all in memory at once."""

    def __init__(self, counts: Sequence[str]) -> None:
        self._counts = counts

    def __len__(self) -> int:
        return len(self._counts)

    @overload
    def __getitem__(self, index: int) -> dict[str, float]: ...
    @overload
    def __getitem__(self, index: slice) -> Sequence[dict[str, float]]: ...
    def __getitem__(self, index: int | slice) -> dict[str, float] | Sequence[dict[str, float]]:
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(len(self)))]
        return term_frequencies(Terms(json.loads(self._counts[index] or "{}"), {}))


def choose(prepared: Prepared, vector: dict[str, float], one: ToRank) -> list[tuple[int, float]]:
    """The destination's papers (batch index, score), best first: at most its count, each at
    least `THRESHOLD`, none it was told of or its chat's excluded words hold."""
    scores = scored(vector, prepared.batch)
    size = prepared.batch.size
    wanted = one.count + len(one.told) + 5
    while True:
        best = heapq.nlargest(min(wanted, size), range(size), key=scores.__getitem__)
        chosen: list[tuple[int, float]] = []
        for index in best:
            score = scores[index]
            if score < THRESHOLD:
                return chosen
            if prepared.ids[index] in one.told:
                continue
            if one.excluded and holds_any(prepared.texts(index), one.excluded):
                continue
            chosen.append((index, score))
            if len(chosen) == one.count:
                return chosen
        if wanted >= size:
            return chosen
        wanted *= 4


def explained(
    prepared: Prepared,
    chosen: Sequence[tuple[int, float]],
    vector: dict[str, float],
    examples: Sequence[Example],
) -> tuple[Shown, ...]:
    return tuple(
        Shown(
            prepared.ids[index],
            score,
            explain(prepared.terms(index), vector, examples, prepared.frequencies),
        )
        for index, score in chosen
    )


@dataclass(slots=True)
class BatchReport:
    """What one call did, for the log and the tests."""

    mailing: date
    claim: Claim | None = None
    candidates: int = 0
    destinations: int = 0
    queued: int = 0


class Suggester(Protocol):
    """What the poll calls once a batch was read whole: `BatchSuggester` here, or in a process
    of its own (`watcher.polling.ranking_process`)."""

    async def after_batch(
        self, mailing: date, records: Sequence[Record], *, source: str
    ) -> BatchReport: ...


class BatchSuggester:
    """Ranks a read batch for every destination with suggestions on (`after_batch`)."""

    def __init__(
        self, store: SuggestionStore, clock: Callable[[], datetime], *, one_thread: bool = False
    ) -> None:
        """`one_thread`: every step on the calling thread, none on the database thread or a
        worker: for the ranking process (`watcher.polling.ranking_process`), where nothing else
        waits on the event loop, and one thread's allocator reuses what the steps let go
        (2.3 MB less at the peak, bench/README.md)."""
        self.store = store
        self.clock = clock
        self._database = _inline if one_thread else in_db_thread
        self._work = _inline if one_thread else asyncio.to_thread

    async def after_batch(
        self, mailing: date, records: Sequence[Record], *, source: str
    ) -> BatchReport:
        """The batch of `mailing` was read whole by `source`: queue each destination's
        suggestions, unless another call did (see the module docstring)."""
        report = BatchReport(mailing)
        if not records:
            return report
        unique = list({record.arxiv_id: record for record in records}.values())
        del records  # not held by this call from here (the ranking process passes its only copy)
        counts = await self._work(_counts_of, unique)
        claim = await self._database(
            self.store.begin_batch,
            mailing,
            source=source,
            candidates=list(zip(unique, counts, strict=True)),
            now=self.clock(),
        )
        report.claim = claim
        if claim == Claim.FINISHED:
            return report
        if claim == Claim.UNFINISHED:  # resumed: the papers as the first reader kept them
            unique = await self._database(self.store.candidates, mailing)
            kept = await self._database(self.store.candidate_counts, [r.arxiv_id for r in unique])
            counts = [kept.get(r.arxiv_id, "{}") for r in unique]
        report.candidates = len(unique)
        df = await self._database(self.store.frequencies)
        prepared = await self._work(Prepared.of, unique, counts, df)
        del unique, counts  # the ranking holds the papers' ids and texts only (`Prepared`)
        await self._rank_all(mailing, prepared, report)
        await self._database(self.store.finish_batch, mailing, now=self.clock())
        log.info(
            "suggestions for the mailing of %s (%s, %d papers): %d destinations ranked, "
            "%d messages queued",
            mailing, source, report.candidates, report.destinations, report.queued,
            extra={"source": source},
        )  # fmt: skip
        return report

    async def _rank_all(self, mailing: date, prepared: Prepared, report: BatchReport) -> None:
        stored = await self._database(self.store.stored_ids, prepared.ids)
        positions = prepared.positions()
        examples: dict[int, Example] = {}
        after: tuple[int, int] | None = None
        queued: list[Queued] = []  # the last page's, queued with the next page's read
        while True:
            count, page = await self._database(
                self.store.page,
                mailing,
                queued,
                positions=positions,
                after=after,
                limit=PAGE,
                stored=stored,
                now=self.clock(),
            )
            report.queued += count
            if not page:
                return
            after = (page[-1].chat_id, page[-1].thread_id)
            report.destinations += len(page)
            queued = await self.rank_page(prepared, page, examples)
            del page  # not held while the next page is read
            while len(examples) > _EXAMPLES:  # the oldest read go first
                del examples[next(iter(examples))]

    async def rank_page(
        self, prepared: Prepared, page: Sequence[ToRank], examples: dict[int, Example]
    ) -> list[Queued]:
        """Rank and explain one page of destinations (`examples`: the example papers read so
        far, by paper id, filled here)."""
        vectors: dict[int, dict[str, float]] = {}

        def rank() -> list[tuple[ToRank, list[tuple[int, float]]]]:
            found = []
            for one in page:
                vector = vectors.get(one.chat_id)
                if vector is None:
                    vector = vectors[one.chat_id] = one.profile.vector(prepared.frequencies)
                found.append((one, choose(prepared, vector, one)))
            return found

        ranked = [(one, chosen) for one, chosen in await self._work(rank) if chosen]
        wanted = {
            int(paper_id)
            for one, _ in ranked
            for paper_id in one.profile.examples
            if int(paper_id) not in examples
        }
        if wanted:
            read = await self._database(self.store.examples, wanted, now=self.clock())
            while read:  # each paper's weights let go as its vector is made
                paper_id, (title, weights) = read.popitem()
                examples[paper_id] = Example.of(title, weights, prepared.frequencies)

        def explain_all() -> list[Queued]:
            return [
                Queued(
                    one.chat_id,
                    one.thread_id,
                    one.digest,
                    explained(
                        prepared, chosen, vectors[one.chat_id], _examples_of(one.profile, examples)
                    ),
                )
                for one, chosen in ranked
            ]

        return await self._work(explain_all)


async def _inline(function: Callable[P, T], *args: P.args, **kwargs: P.kwargs) -> T:
    return function(*args, **kwargs)


def _counts_of(records: Sequence[Record]) -> list[str]:
    return [counts_json(paper_terms(record.title, record.abstract)) for record in records]


def _examples_of(profile: Profile, examples: dict[int, Example]) -> list[Example]:
    return [examples[int(p)] for p in profile.examples if int(p) in examples]


__all__ = ["PAGE", "BatchReport", "BatchSuggester", "Prepared", "Suggester", "choose"]
