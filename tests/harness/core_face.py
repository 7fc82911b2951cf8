"""A `watcher.core.Core` on the test database for core-level tests of its use cases: the real
store, a poller whose arXiv is the test's fake over loopback, and a clock the test gives."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from sqlalchemy import Engine

from tests.fakes.arxiv_api import FakeArxiv
from tests.harness.patience import LOOPBACK_TIMEOUT
from watcher.arxiv.fetch import ArxivClient
from watcher.clock import Clock
from watcher.core import Core
from watcher.polling.poll import Poller
from watcher.settings import Settings
from watcher.store import Store
from watcher.store.chats import Chats
from watcher.store.outbox import Outbox


@asynccontextmanager
async def core_on(
    engine: Engine, fake: FakeArxiv, clock: Clock, *, settings: Settings | None = None
) -> AsyncIterator[Core]:
    """The core as the runtime builds it, on `engine`, asking `fake`, on `clock`."""
    async with ArxivClient(
        fake.url, min_interval=0, timeout=LOOPBACK_TIMEOUT, max_retries=0
    ) as client:
        store = Store(engine)
        poller = Poller(
            store=store, client=client, poll_interval=3600, author_feed_url=fake.author_feed_url
        )
        yield Core(
            settings or Settings(_env_file=None),
            store,
            Chats(engine),
            Outbox(engine),
            poller,
            clock,
        )
