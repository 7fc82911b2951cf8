"""Any arXiv paper by id, for /paper: the stored record, or one request to arXiv's API.

A paper the store holds (at the version asked for, if one was) is answered from the store and
costs nothing. Otherwise arXiv is asked once, by `id_list`, on the poller's client (the one
connection and the 3 s spacing that every arXiv request of the service shares), within the chat's
look-up budget (`watcher.store.budgets`, one look-up a request, whatever the answer):

- a paper not stored is asked for as `ID` (its current version), and, when a version was asked
  for, as `IDvN` in the same request; the current version is then stored linked to no follow,
  so it is announced to nobody, now or later. A follow that finds it later links it as it would
  any paper, and it is news to that follow by the usual rule (`watcher.store.papers`).
- a stored paper asked for at another version is asked for as `IDvN` alone, shown, not stored:
  the store keeps the version the polls saw.

Old-style ids may carry a subject class (`math.GT/0309136`); arXiv files them without it
(`math/0309136`), and so do the store and this look-up.

Each request ends in one typed outcome that the front end renders: `Found`, `Missing` (arXiv
lists nothing under the id, or refuses it as malformed), `NoSuchVersion`, `BudgetSpent`,
`TooSlow` and `Unreachable` (`watcher.core.subscribing` defines the last three).
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

from watcher.aio import in_db_thread
from watcher.arxiv.records import Record
from watcher.core.subscribing import LOOKUP_PATIENCE, BudgetSpent, TooSlow, Unreachable
from watcher.errors import ArxivAPIError, ArxivError
from watcher.store import MatchedRecord, Store

_SUBJECT_CLASS = re.compile(r"^([a-z][a-z-]*)\.[A-Za-z]{2}/")


@dataclass(frozen=True, slots=True)
class Found:
    """The paper, at the version asked for (else the newest known). `fetched`: it came from
    arXiv just now; `newest`: the newest version known, when the one shown is older."""

    record: Record
    fetched: bool
    newest: int | None = None


@dataclass(frozen=True, slots=True)
class Missing:
    """arXiv lists no paper under the id; `reason` is arXiv's own, when it refused the id."""

    arxiv_id: str
    reason: str | None = None


@dataclass(frozen=True, slots=True)
class NoSuchVersion:
    """The paper exists, without the version asked for; `record` is its newest known."""

    record: Record
    asked: int


LookupOutcome = Found | Missing | NoSuchVersion | BudgetSpent | TooSlow | Unreachable


class PaperFetcher(Protocol):
    """What asks arXiv for papers by id (`watcher.polling.poll.Poller.papers`)."""

    async def papers(self, ids: Sequence[str]) -> list[Record]: ...


class LookupAllowance(Protocol):
    """A chat's budget of arXiv look-ups (`watcher.store.budgets.LookupBudgets.take_lookup`):
    None when one is spent, else the seconds until one may be. Database thread."""

    def take_lookup(self, chat_id: int) -> float | None: ...


def canonical_id(arxiv_id: str) -> str:
    """The id as arXiv files it: an old-style id without its subject class."""
    return _SUBJECT_CLASS.sub(r"\1/", arxiv_id)


class PaperLookup:
    """/paper's core: the store first, then at most one request to arXiv."""

    def __init__(
        self,
        *,
        store: Store,
        fetcher: PaperFetcher,
        budget: LookupAllowance,
        patience: float = LOOKUP_PATIENCE,
    ) -> None:
        self.store = store
        self.fetcher = fetcher
        self.budget = budget
        self.patience = patience  # seconds the request may wait for arXiv, its turn included

    async def find(self, chat_id: int, arxiv_id: str, version: int | None) -> LookupOutcome:
        """The paper `arxiv_id` (without version) at `version` (None: the newest)."""
        arxiv_id = canonical_id(arxiv_id)
        stored = await in_db_thread(self.store.paper, arxiv_id)
        if stored is not None and version in (None, stored.version):
            return Found(stored, fetched=False)
        wait = await in_db_thread(self.budget.take_lookup, chat_id)
        if wait is not None:
            return BudgetSpent(wait)
        ids = [] if stored is not None else [arxiv_id]
        if version is not None:
            ids.append(f"{arxiv_id}v{version}")
        try:
            async with asyncio.timeout(self.patience):
                found = await self.fetcher.papers(ids)
        except TimeoutError:
            return TooSlow()
        except ArxivAPIError as error:
            return Missing(arxiv_id, reason=error.message)
        except ArxivError as error:
            return Unreachable(error)
        found = [r for r in found if canonical_id(r.arxiv_id) == arxiv_id]
        newest = stored
        if stored is None and found:
            newest = max(found, key=lambda r: r.version)
            await in_db_thread(self._store_unannounced, newest)
        if newest is None:
            return Missing(arxiv_id)
        if version is None:
            return Found(newest, fetched=True)
        asked = next((r for r in found if r.version == version), None)
        if asked is None:
            return NoSuchVersion(newest, version)
        later = newest.version if newest.version > version else None
        return Found(asked, fetched=True, newest=later)

    def _store_unannounced(self, record: Record) -> None:
        """Database thread: store the paper linked to no follow, so nobody is told of it."""
        self.store.save_records([MatchedRecord(record, frozenset())], announce_for=frozenset())
