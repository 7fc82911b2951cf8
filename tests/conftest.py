"""Shared fixtures: a real database per test (SQLite file, or a fresh PostgreSQL schema).

`TEST_DATABASE=postgres` runs the suite on the machine's PostgreSQL (127.0.0.1:5432, user
postgres, database test); each test gets a schema of its own, dropped afterwards.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import Engine

from tests.harness.databases import BACKEND, POSTGRES_URL, fresh_postgres_schema
from watcher.db import open_database

# PTB 22 warns about int `retry_after` unless opted in (see bot/__init__.py); warnings are errors.
os.environ.setdefault("PTB_TIMEDELTA", "true")


@pytest.fixture
def database_url(tmp_path: Path) -> Iterator[str]:
    """A URL to an empty database of the backend under test."""
    if BACKEND == "sqlite":
        yield f"sqlite:///{tmp_path / 'watcher.db'}"
        return
    if BACKEND != "postgres":
        raise pytest.UsageError(f"TEST_DATABASE must be sqlite or postgres, not {BACKEND!r}")
    with fresh_postgres_schema(POSTGRES_URL) as url:
        yield url


@pytest.fixture
def engine(database_url: str) -> Iterator[Engine]:
    """An engine on an empty database with every migration applied."""
    engine = open_database(database_url)
    yield engine
    engine.dispose()
