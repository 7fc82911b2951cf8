"""The database the tests run on (`TEST_DATABASE`); throwaway databases for tests and benchmarks
(a fresh PostgreSQL schema, a temporary SQLite file); and what an outage or an operator can do to
a service's leader lock."""

from __future__ import annotations

import contextlib
import os
import tempfile
import uuid
from collections.abc import Iterator

from sqlalchemy import create_engine, text
from sqlalchemy.engine import make_url

from watcher.leader import PostgresLeaderLock

# The backend the tests run on (`TEST_DATABASE`), and the PostgreSQL they use when it is postgres.
BACKEND = os.environ.get("TEST_DATABASE", "sqlite")
POSTGRES_URL = os.environ.get(
    "TEST_POSTGRES_URL", "postgresql+psycopg://postgres@127.0.0.1:5432/test"
)


@contextlib.contextmanager
def fresh_postgres_schema(url: str, *, prefix: str = "t") -> Iterator[str]:
    """Create an empty schema, yield `url` pointed at it, and drop the schema afterwards."""
    schema = f"{prefix}_{uuid.uuid4().hex[:12]}"
    admin = create_engine(url, isolation_level="AUTOCOMMIT")
    with admin.connect() as connection:
        connection.execute(text(f'CREATE SCHEMA "{schema}"'))
    separator = "&" if "?" in url else "?"
    try:
        yield f"{url}{separator}options=-csearch_path%3D{schema}"
    finally:
        with admin.connect() as connection:
            connection.execute(text(f'DROP SCHEMA "{schema}" CASCADE'))
        admin.dispose()


def take_leader_lock_away(database_url: str) -> None:
    """End the session holding the leader lock (as a server restart or an admin would), or
    delete the SQLite lock file beside the database."""
    url = make_url(database_url)
    if url.get_backend_name() == "sqlite":
        os.unlink(f"{url.database}.lock")
        return
    admin = create_engine(database_url)
    try:
        with admin.connect() as connection:
            database, schema = connection.execute(
                text("SELECT current_database(), current_schema()")
            ).one()
            key = PostgresLeaderLock.key_for(database, schema)
            ended = connection.execute(
                text(
                    "SELECT pg_terminate_backend(pid) FROM pg_locks WHERE locktype = 'advisory'"
                    " AND granted AND objsubid = 1"
                    " AND classid = ((:key >> 32) & 4294967295)::oid"
                    " AND objid = (:key & 4294967295)::oid"
                ),
                {"key": key},
            ).all()
    finally:
        admin.dispose()
    assert ended == [(True,)], "nobody held the leader lock"


@contextlib.contextmanager
def empty_database(url: str | None) -> Iterator[str]:
    """A URL to an empty database: a fresh schema of the PostgreSQL at `url`, or (None) a
    SQLite file in a temporary folder. Either is gone afterwards."""
    if url is None:
        with tempfile.TemporaryDirectory() as folder:
            yield f"sqlite:///{folder}/bench.db"
    else:
        with fresh_postgres_schema(url, prefix="bench") as fresh:
            yield fresh
