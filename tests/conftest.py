"""Shared fixtures: a real database per test (SQLite file, or a fresh PostgreSQL schema); and
which tests run on which database.

`TEST_DATABASE=sqlite` (the default) runs every test. `TEST_DATABASE=postgres` runs, on the
machine's PostgreSQL (127.0.0.1:5432, user postgres, database test), only the tests that reach a
database: those that take the `database_url` fixture, directly or through another fixture
(`engine`, `bot`, `world`, ...), and those marked `database` (they open PostgreSQL themselves).
Parsing, rendering, settings and the fakes' own tests run once, on the SQLite pass.

A test that takes `engine` gets a copy of a database each worker migrates once at its first such
test (`migrated_template`): a copied SQLite file, or a PostgreSQL database made from it as
template, dropped afterwards. Migrating an empty database for each of them took most of the
suite's database time. A test that takes only `database_url` gets an empty database (a fresh
SQLite path, or a PostgreSQL schema of its own, dropped afterwards), so the migrations, their log
lines and what runs on an unmigrated database are still tested for real.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Sequence
from pathlib import Path

import pytest
from sqlalchemy import Engine

from tests.harness.databases import (
    BACKEND,
    POSTGRES_URL,
    fresh_postgres_schema,
    migrated_copy,
    migrated_template,
)
from watcher.runtime.db import open_database

# PTB 22 warns about int `retry_after` unless opted in (see bot/__init__.py); warnings are errors.
os.environ.setdefault("PTB_TIMEDELTA", "true")


@pytest.fixture(scope="session")
def template_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """This worker's database at the newest migration, made at its first test that needs it."""
    with migrated_template(tmp_path_factory.mktemp("template")) as url:
        yield url


@pytest.fixture
def database_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """A URL to a database of the backend under test: at the newest migration (a copy of the
    worker's template) when the test takes `engine` too, else empty."""
    if BACKEND not in ("sqlite", "postgres"):
        raise pytest.UsageError(f"TEST_DATABASE must be sqlite or postgres, not {BACKEND!r}")
    if "engine" in request.fixturenames:
        with migrated_copy(request.getfixturevalue("template_url"), tmp_path) as url:
            yield url
    elif BACKEND == "sqlite":
        yield f"sqlite:///{tmp_path / 'watcher.db'}"
    else:
        with fresh_postgres_schema(POSTGRES_URL) as url:
            yield url


@pytest.fixture
def engine(database_url: str) -> Iterator[Engine]:
    """An engine on a database with every migration applied, opened as the service opens it
    (`open_database`, which finds nothing pending on the template's copy)."""
    engine = open_database(database_url)
    yield engine
    engine.dispose()


def reaches_the_database(item: pytest.Item) -> bool:
    """Whether the test takes a database from the fixtures or is marked as opening one itself."""
    fixtures: Sequence[str] = getattr(item, "fixturenames", ())
    return "database_url" in fixtures or item.get_closest_marker("database") is not None


def _waits_least_first(item: pytest.Item) -> tuple[bool, bool]:
    return item.get_closest_marker("real_clock") is None, item.get_closest_marker("slow") is None


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """The tests that wait on the wall clock (`real_clock`) first, then those that start real
    processes, so that the workers do not end the run waiting on one of them; on PostgreSQL,
    keep only the tests that reach the database, and refuse a run left empty."""
    items.sort(key=_waits_least_first)  # a stable sort: each file's tests stay in their order
    if BACKEND != "postgres" or not items:
        return
    kept = [item for item in items if reaches_the_database(item)]
    if not kept:
        raise pytest.UsageError(
            "TEST_DATABASE=postgres runs only tests that reach the database (the database_url "
            "fixture or the `database` marker), and none of those collected does; run these "
            "with TEST_DATABASE=sqlite"
        )
    config.hook.pytest_deselected(items=[item for item in items if item not in kept])
    items[:] = kept
