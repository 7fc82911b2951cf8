"""The database the tests run on (`TEST_DATABASE`); throwaway databases for tests and benchmarks
(a fresh PostgreSQL schema, a temporary SQLite file); a database migrated once and copied for
each test that wants one at the newest migration; and what an outage or an operator can do to a
service's leader lock."""

from __future__ import annotations

import contextlib
import os
import shutil
import tempfile
import uuid
from collections.abc import Iterator
from pathlib import Path

from sqlalchemy import create_engine, text
from sqlalchemy.engine import make_url

from watcher.runtime.db import open_database
from watcher.runtime.leader import PostgresLeaderLock

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


@contextlib.contextmanager
def migrated_template(folder: Path) -> Iterator[str]:
    """A database of the backend under test with every migration applied, by `open_database`,
    once: a SQLite file in `folder`, or a PostgreSQL database of its own (dropped afterwards).
    Yields its URL, for `migrated_copy`; nothing may stay connected to it."""
    if BACKEND == "sqlite":
        url = f"sqlite:///{folder / 'migrated-template.db'}"
        open_database(url).dispose()  # closing the last connection folds SQLite's WAL back in
        yield url
        return
    with _postgres_database(f"template_{uuid.uuid4().hex[:12]}") as url:
        open_database(url).dispose()
        yield url


@contextlib.contextmanager
def migrated_copy(template_url: str, folder: Path) -> Iterator[str]:
    """A URL to a new database holding exactly what `migrated_template` made, schema and rows:
    a copy of its SQLite file in `folder`, or a PostgreSQL database created from it as template
    (dropped afterwards). About 20 times quicker than running the migrations again."""
    if BACKEND == "sqlite":
        copy = folder / "watcher.runtime.db"
        shutil.copyfile(make_url(template_url).database or "", copy)
        yield f"sqlite:///{copy}"
        return
    template = make_url(template_url).database
    with _postgres_database(f"t_{uuid.uuid4().hex[:12]}", template=template) as url:
        yield url


@contextlib.contextmanager
def _postgres_database(name: str, *, template: str | None = None) -> Iterator[str]:
    """Create database `name` on the tests' PostgreSQL (empty, or a copy of `template`), yield its
    URL, and drop it afterwards with whatever is still connected to it."""
    admin = create_engine(POSTGRES_URL, isolation_level="AUTOCOMMIT")
    try:
        with admin.connect() as connection:
            create = f'CREATE DATABASE "{name}"'
            if template is not None:
                create += f' TEMPLATE "{template}"'
                # PostgreSQL 15's WAL_LOG copies a small database without a checkpoint (its
                # default before 15 takes one, several times slower).
                if connection.dialect.server_version_info >= (15,):
                    create += " STRATEGY WAL_LOG"
            connection.execute(text(create))
        try:
            yield make_url(POSTGRES_URL).set(database=name).render_as_string(hide_password=False)
        finally:
            with admin.connect() as connection:
                connection.execute(text(f'DROP DATABASE "{name}" WITH (FORCE)'))
    finally:
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
