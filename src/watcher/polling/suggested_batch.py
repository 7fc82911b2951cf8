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
are queued in one transaction, the one that reads the next page. The database thread is asked
for short steps; the ranking runs on a worker thread between them.
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
from typing import Generic, TypeVar, overload

from watcher.aio import in_db_thread
from watcher.arxiv.records import Record
from watcher.follows.excluded_words import RecordText, holds_any
from watcher.store.paper_terms import counts_json
from watcher.store.suggesting import Claim, Queued, Shown, SuggestionStore, ToRank
from watcher.suggestions.frequencies import DocumentFrequencies
from watcher.suggestions.profile import Profile
from watcher.suggestions.scoring import THRESHOLD, Batch, Example, explain, scored
from watcher.suggestions.terms import ShownWords, Terms, paper_terms, term_frequencies

log = logging.getLogger(__name__)
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
    """A batch ready to rank: its papers, the frequencies, and the posting lists."""

    records: list[Record]
    counts: Sequence[str]  # each paper's term counts, JSON
    frequencies: DocumentFrequencies
    batch: Batch
    texts: _Cache[int, RecordText]

    def terms(self, index: int) -> Terms:
        """A paper's terms as an explanation reads them: its stored counts, and the words it
        shows for a few of them found when asked (`ShownWords`)."""
        record = self.records[index]
        counts = json.loads(self.counts[index] or "{}")
        return Terms(counts=counts, words=ShownWords(record.title, record.abstract))

    @classmethod
    def of(
        cls, records: Sequence[Record], counts: Sequence[str], df: DocumentFrequencies
    ) -> Prepared:
        """`counts`: each record's term counts, JSON (`watcher.store.paper_terms.counts_json`),
        read one at a time."""
        kept = list(records)
        batch = Batch(_Weights(counts), df)
        return cls(
            kept, counts, df, batch, _Cache(lambda i: RecordText(kept[i].title, kept[i].abstract))
        )


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
            record = prepared.records[index]
            if record.arxiv_id in one.told:
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
            prepared.records[index].arxiv_id,
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


class BatchSuggester:
    """Ranks a read batch for every destination with suggestions on (`after_batch`)."""

    def __init__(self, store: SuggestionStore, clock: Callable[[], datetime]) -> None:
        self.store = store
        self.clock = clock

    async def after_batch(
        self, mailing: date, records: Sequence[Record], *, source: str
    ) -> BatchReport:
        """The batch of `mailing` was read whole by `source`: queue each destination's
        suggestions, unless another call did (see the module docstring)."""
        report = BatchReport(mailing)
        if not records:
            return report
        unique = list({record.arxiv_id: record for record in records}.values())
        counts = await asyncio.to_thread(
            lambda: [counts_json(paper_terms(r.title, r.abstract)) for r in unique]
        )
        claim = await in_db_thread(
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
            unique = await in_db_thread(self.store.candidates, mailing)
            kept = await in_db_thread(self.store.candidate_counts, [r.arxiv_id for r in unique])
            counts = [kept.get(r.arxiv_id, "{}") for r in unique]
        report.candidates = len(unique)
        await self._rank_all(mailing, unique, counts, report)
        await in_db_thread(self.store.finish_batch, mailing, now=self.clock())
        log.info(
            "suggestions for the mailing of %s (%s, %d papers): %d destinations ranked, "
            "%d messages queued",
            mailing, source, report.candidates, report.destinations, report.queued,
            extra={"source": source},
        )  # fmt: skip
        return report

    async def _rank_all(
        self,
        mailing: date,
        records: Sequence[Record],
        counts: Sequence[str],
        report: BatchReport,
    ) -> None:
        df = await in_db_thread(self.store.frequencies)
        prepared = await asyncio.to_thread(Prepared.of, records, counts, df)
        stored = await in_db_thread(self.store.stored_ids, [r.arxiv_id for r in records])
        by_id = {record.arxiv_id: record for record in records}
        examples: dict[int, Example] = {}
        after: tuple[int, int] | None = None
        queued: list[Queued] = []  # the last page's, queued with the next page's read
        while True:
            count, page = await in_db_thread(
                self.store.page,
                mailing,
                queued,
                records=by_id,
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

        ranked = [(one, chosen) for one, chosen in await asyncio.to_thread(rank) if chosen]
        wanted = {
            int(paper_id)
            for one, _ in ranked
            for paper_id in one.profile.examples
            if int(paper_id) not in examples
        }
        if wanted:
            read = await in_db_thread(self.store.examples, wanted, now=self.clock())
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

        return await asyncio.to_thread(explain_all)


def _examples_of(profile: Profile, examples: dict[int, Example]) -> list[Example]:
    return [examples[int(p)] for p in profile.examples if int(p) in examples]


__all__ = ["PAGE", "BatchReport", "BatchSuggester", "Prepared", "choose"]
