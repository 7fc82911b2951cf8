"""`Lookups`: what a chat's commands ask of arXiv, built once for the core's face.

A chat's look-ups share one budget in the database (`watcher.store.budgets`): the new follows
it starts (names, author ids, topics: `watcher.core.subscribing`), the papers /paper fetches
(`watcher.core.lookup`), and the author ids an import asks about (`watcher.core.identity_check`).
Each waits at most `patience` seconds for arXiv, its turn on the polite client included. A follow
started asks the runtime for a round of polls now through `poll_soon`, the callable the runtime
gives when it builds the core (none: the next scheduled round fetches the history).
"""

from __future__ import annotations

from collections.abc import Callable

from watcher.core.identity_check import IdentityCheck
from watcher.core.lookup import PaperLookup
from watcher.core.subscribing import Subscribing
from watcher.polling.poll import Poller
from watcher.settings import Settings
from watcher.store import Store
from watcher.store.budgets import LookupBudgets
from watcher.store.chats import Chats


def no_poll_request() -> None:
    """The poll request of a core without a scheduler (the CLI, the commands alone in tests)."""


class Lookups:
    """The arXiv look-ups of the chats' commands, on one budget a chat."""

    def __init__(
        self,
        *,
        settings: Settings,
        store: Store,
        chats: Chats,
        poller: Poller,
        poll_soon: Callable[[], None],
        patience: float,
    ) -> None:
        self.budget = LookupBudgets(chats.engine, per_hour=settings.backfills_per_chat_hour)
        self.subscribing = Subscribing(
            store=store,
            chats=chats,
            poller=poller,
            budget=self.budget,
            patience=patience,
            poll_soon=poll_soon,
        )
        self.papers = PaperLookup(
            store=store, fetcher=poller, budget=self.budget, patience=patience
        )
        self.identities = IdentityCheck(store, poller)
