"""`Suggestions`: "Suggested for you" as the core's face offers it (`Core.suggestions`).

A destination (a chat, or one forum topic of it) turns its suggestions on (`turn_on`) or off
(`turn_off`) and chooses how many a batch brings at most (`set_count`, 1..10, default 3). After
each announcement batch is read whole (the listing, or the OAI-PMH harvest: whichever reads it
first), the destination gets ONE message of up to that many papers of the batch, ranked by its
chat's profile and above the threshold (`watcher.suggestions.scoring`); a weak day brings none.
A destination that takes digests gets them as a section of its next digest instead
(`watcher.store.digests.DigestContent.suggestions`).

`top_now` is the newest batch's top five for the destination, computed on demand with the same
ranking and exclusions. `react` applies 👍 or 👎 to the chat's profile, once per (chat, paper): the
front end decides who may press (in a group, its administrators).

The sender's half: `due`, `next_due`, `mark_sent`, `retry_later`, `mark_failed`, like the
outbox's deliveries (`watcher.store.outbox`): a suggestion message is marked sent only once
Telegram confirmed it, and is sent once across crashes and restarts.

In API-only mode (WATCH_SOURCE=api and EARLY_LISTINGS off; or "auto", which may never harvest,
with the listing off) no batch is read whole, and `turn_on` refuses with a `Sentence` saying
what it needs.

Each method is ONE async call on the runtime's clock.
"""

from __future__ import annotations

import asyncio
import dataclasses
import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date, datetime

from watcher.aio import in_db_thread
from watcher.clock import Clock
from watcher.polling.suggested_batch import Prepared, choose, explained
from watcher.sentences import Sentence, sentence
from watcher.settings import Settings
from watcher.store import Store
from watcher.store.suggesting import SuggestionSetting, SuggestionStore
from watcher.store.suggestion_outbox import PendingSuggestion, SuggestionOutbox
from watcher.suggestions.scoring import Example, Explanation
from watcher.suggestions.shown import SuggestedPaper

__all__ = [
    "DEFAULT_COUNT",
    "MAX_COUNT",
    "MIN_COUNT",
    "TOP_NOW",
    "Explanation",
    "PendingSuggestion",
    "Reacted",
    "SuggestedPaper",
    "SuggestionState",
    "Suggestions",
    "TopNow",
    "UnknownPaper",
]

DEFAULT_COUNT = 3  # papers a batch brings at most, until /suggest N
MIN_COUNT = 1
MAX_COUNT = 10
TOP_NOW = 5  # what `top_now` shows


@dataclass(frozen=True, slots=True)
class SuggestionState:
    """A destination's suggestions: `on`, how many a batch brings at most (`count`), whether
    the configured sources read a batch whole (`readable`: the listing or the harvest; without,
    nothing is ever suggested), and whether the destination takes digests (`digest`: the
    suggestions then come as a section of the digest)."""

    on: bool
    count: int
    readable: bool
    digest: bool


@dataclass(frozen=True, slots=True)
class TopNow:
    """The newest batch's best papers for a destination: `mailing` is that batch's date (None:
    no batch was read whole yet, and `papers` is empty), `papers` best first (none above the
    threshold: empty)."""

    mailing: date | None
    papers: tuple[SuggestedPaper, ...]


@dataclass(frozen=True, slots=True)
class Reacted:
    """👍 (`liked`) or 👎 is applied to the chat's profile; `changed` is False when the chat's
    last press on this paper said the same already (pressing twice counts once)."""

    arxiv_id: str
    liked: bool
    changed: bool


@dataclass(frozen=True, slots=True)
class UnknownPaper:
    """No stored paper has this arXiv id: nothing was applied."""

    arxiv_id: str


_VERSION = re.compile(r"v\d+$")


def needs_a_batch() -> Sentence:
    """Why /suggest on is refused in API-only mode."""
    return sentence(
        "suggestions need a source that reads each day's batch whole: the listing "
        "(EARLY_LISTINGS=true) or the harvest (WATCH_SOURCE=harvest)"
    )


def count_out_of_range(count: int) -> Sentence:
    return sentence(
        "{count} is not a number of suggestions: say one from {least} to {most}",
        count=count,
        least=MIN_COUNT,
        most=MAX_COUNT,
    )


class Suggestions:
    """The suggestions of one core's destinations."""

    def __init__(self, settings: Settings, store: Store, clock: Clock) -> None:
        self._settings = settings
        self._store = store
        self._clock = clock
        self._suggesting = SuggestionStore(store.engine)
        self._outbox = SuggestionOutbox(store.engine)

    @property
    def readable(self) -> bool:
        """Whether the configured sources read a batch whole: the listing (EARLY_LISTINGS) or
        the harvest (WATCH_SOURCE=harvest)."""
        return self._settings.early_listings or self._settings.watch_source == "harvest"

    def _state(self, setting: SuggestionSetting) -> SuggestionState:
        return SuggestionState(setting.on, setting.count, self.readable, setting.digest)

    # -- a destination's setting ----------------------------------------------------------

    async def state(self, chat_id: int, thread_id: int) -> SuggestionState:
        """/suggest: the destination's suggestions as they stand."""
        return self._state(await in_db_thread(self._suggesting.setting, chat_id, thread_id))

    async def turn_on(self, chat_id: int, thread_id: int) -> SuggestionState | Sentence:
        """/suggest on. A `Sentence` (nothing changed) when no configured source reads a batch
        whole: suggestions need the listing (EARLY_LISTINGS=true) or the harvest
        (WATCH_SOURCE=harvest). The chat's profile is built now if it has none."""
        if not self.readable:
            return needs_a_batch()
        setting = await in_db_thread(
            self._suggesting.turn, chat_id, thread_id, on=True, now=self._clock()
        )
        return self._state(setting)

    async def turn_off(self, chat_id: int, thread_id: int) -> SuggestionState:
        """/suggest off: no more suggestion messages; one already queued is dropped unsent."""
        setting = await in_db_thread(
            self._suggesting.turn, chat_id, thread_id, on=False, now=self._clock()
        )
        return self._state(setting)

    async def set_count(
        self, chat_id: int, thread_id: int, count: int
    ) -> SuggestionState | Sentence:
        """/suggest N: at most `count` papers a batch, MIN_COUNT..MAX_COUNT; a `Sentence`
        (nothing changed) outside. Leaves on/off as it is."""
        if not MIN_COUNT <= count <= MAX_COUNT:
            return count_out_of_range(count)
        setting = await in_db_thread(self._suggesting.set_count, chat_id, thread_id, count)
        return self._state(setting)

    async def top_now(self, chat_id: int, thread_id: int, *, limit: int = TOP_NOW) -> TopNow:
        """The newest batch's best `limit` papers for the destination, computed now with the
        same ranking as the batch's message: papers the destination was told of, and those its
        chat's excluded words hold, are left out. Whether suggestions are on does not matter
        (the chat's profile is built now if it has none). The papers shown are stored."""
        store = self._suggesting
        mailing = await in_db_thread(store.newest_mailing)
        if mailing is None:
            return TopNow(None, ())
        records = await in_db_thread(store.candidates, mailing)
        ids = [record.arxiv_id for record in records]
        counts = await in_db_thread(store.candidate_counts, ids)
        stored = await in_db_thread(store.stored_ids, ids)
        now = self._clock()
        one = await in_db_thread(store.destination, chat_id, thread_id, stored=stored, now=now)
        # Read once the profile is (a profile built now counts its papers' terms first).
        frequencies = await in_db_thread(store.frequencies)
        one = dataclasses.replace(one, count=limit)

        def rank() -> tuple[Prepared, dict[str, float], list[tuple[int, float]]]:
            prepared = Prepared.of(records, [counts.get(i, "{}") for i in ids], frequencies)
            vector = one.profile.vector(frequencies)
            return prepared, vector, choose(prepared, vector, one)

        prepared, vector, chosen = await asyncio.to_thread(rank)
        if not chosen:
            return TopNow(mailing, ())
        read = await in_db_thread(store.examples, [int(p) for p in one.profile.examples], now=now)
        examples = [
            Example.of(title, weights, frequencies) for paper_id, (title, weights) in read.items()
        ]
        shown = await asyncio.to_thread(explained, prepared, chosen, vector, examples)
        await in_db_thread(store.store_papers, [records[index] for index, _ in chosen])
        papers = []
        for one_shown in shown:
            record = await in_db_thread(self._store.paper, one_shown.arxiv_id)
            if record is not None:
                papers.append(SuggestedPaper(record, one_shown.reason, one_shown.score))
        return TopNow(mailing, tuple(papers))

    async def react(
        self, chat_id: int, thread_id: int, arxiv_id: str, *, liked: bool
    ) -> Reacted | UnknownPaper:
        """👍 (`liked`) or 👎 on a paper, applied to the chat's profile (one profile a chat, all
        its forum topics together). Idempotent per (chat, paper): the same press again changes
        nothing, 👎 after 👍 replaces it (and the other way round). `arxiv_id` may carry a
        version ("2401.01234v2"); it is read without it."""
        bare = _VERSION.sub("", arxiv_id.strip())
        changed = await in_db_thread(
            self._suggesting.react, chat_id, bare, liked=liked, now=self._clock()
        )
        if changed is None:
            return UnknownPaper(bare)
        return Reacted(bare, liked, changed)

    # -- the sender's half ----------------------------------------------------------------

    async def due(self, *, limit: int) -> list[PendingSuggestion]:
        """Suggestion messages due now, oldest first: of active chats, destinations neither
        paused nor in their quiet hours, parked ones only when their probe is due."""
        return await in_db_thread(self._outbox.due, limit=limit, now=self._clock())

    async def next_due(self) -> datetime | None:
        """When the earliest suggestion message not yet due falls due (None: none waits)."""
        return await in_db_thread(self._outbox.next_due, now=self._clock())

    async def mark_sent(self, confirmed: Sequence[tuple[int, int | None]]) -> None:
        """Confirmed by Telegram: `(suggestion id, message id)` each, in one transaction; one no
        longer pending is left as it is."""
        await in_db_thread(self._outbox.mark_sent, confirmed, now=self._clock())

    async def retry_later(self, ids: Sequence[int], *, error: str, at: datetime) -> None:
        """A passing fault: try these again at `at`."""
        await in_db_thread(self._outbox.retry_later, ids, error=error, at=at)

    async def mark_failed(self, ids: Sequence[int], *, error: str) -> None:
        """A permanent refusal: never retried."""
        await in_db_thread(self._outbox.mark_failed, ids, error=error)
