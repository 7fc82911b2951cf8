"""`InlinePapers`: what inline mode (`@bot QUERY` in any chat) asks of the core; reads only,
apart from a paper fetched by id.

- a paper by id (`paper`): /paper's look-up (`watcher.core.lookup.PaperLookup`) on the same
  budget and the poller's client (one request by `id_list`, at arXiv's spacing), charged to the
  asker's private chat, whose budget /paper spends too; it waits for arXiv at most
  `INLINE_PATIENCE` seconds, as Telegram drops an inline answer that comes late;
- a person's newest stored papers by exact name (`by_name`, `watcher.store.by_name`);
- the newest stored papers holding some words (`search`: /search's index);
- the newest papers announced to the asker's private chat (`announced`).
"""

from __future__ import annotations

from watcher.aio import in_db_thread
from watcher.arxiv.records import Record
from watcher.core.lookup import LookupOutcome, PaperFetcher, PaperLookup
from watcher.core.lookups import Lookups
from watcher.follows.search_words import SearchQuery
from watcher.store import Store

INLINE_PATIENCE = 8.0  # seconds an inline answer may wait for arXiv, its turn included
INLINE_RESULTS = 10  # papers an inline answer lists at most


class InlinePapers:
    """Inline mode's questions of one core."""

    def __init__(
        self, store: Store, lookups: Lookups, fetcher: PaperFetcher, *, patience: float
    ) -> None:
        self.store = store
        self.lookup = PaperLookup(
            store=store,
            fetcher=fetcher,
            budget=lookups.budget,
            patience=min(patience, INLINE_PATIENCE),
        )

    async def paper(self, user_id: int, arxiv_id: str, version: int | None) -> LookupOutcome:
        """The paper, from the store or from arXiv on the asker's (private chat's) budget."""
        return await self.lookup.find(user_id, arxiv_id, version)

    async def by_name(self, name: str, *, limit: int = INLINE_RESULTS) -> list[Record]:
        """The newest stored papers of exactly this person."""
        return await in_db_thread(self.store.papers_by_name, name, limit=limit)

    async def search(self, query: SearchQuery, *, limit: int = INLINE_RESULTS) -> list[Record]:
        """The newest stored papers holding every word of `query`."""
        return list((await in_db_thread(self.store.search, query, limit=limit)).records)

    async def announced(self, user_id: int, *, limit: int = INLINE_RESULTS) -> list[Record]:
        """The newest papers announced to the asker's private chat."""
        return await in_db_thread(self.store.announced_newest, user_id, limit=limit)
