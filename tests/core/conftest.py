"""Fixtures the core tests share: `store`, the real store on the test database (SQLite file, or
PostgreSQL) that the `engine` fixture of `tests/conftest.py` opens; and `client`, the real arXiv
client talking to the module's own `fake` arXiv over loopback, without politeness waits or
retries (a module that wants retries defines its own).
"""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest
from sqlalchemy import Engine

from tests.fakes.arxiv_api import FakeArxiv
from tests.harness.patience import LOOPBACK_TIMEOUT
from watcher.arxiv.fetch import ArxivClient
from watcher.store import Store


@pytest.fixture
def store(engine: Engine) -> Store:
    return Store(engine)


@pytest.fixture
def followed_id(store: Store) -> int:
    """Dezun Dong, followed in `store`."""
    followed, _ = store.follow(["Dezun Dong"])
    return followed.id


@pytest.fixture
async def client(fake: FakeArxiv) -> AsyncIterator[ArxivClient]:
    async with ArxivClient(
        fake.url, min_interval=0, timeout=LOOPBACK_TIMEOUT, max_retries=0
    ) as arxiv:
        yield arxiv
