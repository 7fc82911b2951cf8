"""Ways of finding papers: each one a module behind the one small interface the poll step uses.

    api      (`watcher.sources.api`)      arXiv API queries, about 30 names OR-ed a request
    harvest  (`watcher.sources.harvest`)  arXiv's OAI-PMH feed read once a cycle, matched locally
    (later)                               per-person author feeds (arxiv.org/a/<id>.atom)

A source is given the follows it serves, a `save` callback (the poll step's store-in-parts) and
the cycle's report; it fetches, matches with `watcher.match`, saves, and records its own
successes and failures in the store. Which follows go to which source is the poll step's
choice (`WATCH_SOURCE`); a follow is a rule, and all rules are matched in `watcher.match`.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from typing import TYPE_CHECKING, Protocol

from watcher.store import Followed, MatchedRecord, SaveResult

if TYPE_CHECKING:
    from watcher.poll import PollReport

# How a source stores what it found: the records with their follows, and the follows whose
# subscribers hear of it (those whose history was fetched before). Returns what was new.
Save = Callable[[list[MatchedRecord], frozenset[int]], Awaitable[SaveResult]]


class Source(Protocol):
    """One way of finding papers for the follows it is given."""

    async def poll(
        self, followed: Sequence[Followed], *, save: Save, report: PollReport, force: bool = False
    ) -> None:
        """Find, match and `save` what is new for the due follows (all with `force`); record
        successes and failures in the store, and what was found or failed in `report`."""
        ...
