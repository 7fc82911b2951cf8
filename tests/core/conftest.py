"""Fixtures the core tests share: `store`, the real store on the test database (SQLite file, or
PostgreSQL) that the `engine` fixture of `tests/conftest.py` opens.
"""

from __future__ import annotations

import pytest
from sqlalchemy import Engine

from watcher.store import Store


@pytest.fixture
def store(engine: Engine) -> Store:
    return Store(engine)


@pytest.fixture
def followed_id(store: Store) -> int:
    """Dezun Dong, followed in `store`."""
    followed, _ = store.follow(["Dezun Dong"])
    return followed.id
