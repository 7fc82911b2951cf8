"""Database engines and migrations: one place that knows SQLite from PostgreSQL.

`open_database` turns `DATABASE_URL` into a ready engine: it creates the SQLite data directory,
switches SQLite to WAL with foreign keys on, checks that the server answers, and applies pending
Alembic migrations (the service migrates at start; `arxiv-watcher db upgrade` does the same alone).

Alembic (with Mako and Pygments, about 10 MB resident) is imported only when a migration is
pending or asked about: a database already at the head, the usual start, is recognised by reading
`alembic_version` and the `revision` lines of the migration files (`script_head`). The service
applies pending migrations in a child process (`upgrade_in_child`), so that it never keeps
Alembic loaded, even on its very first start.
"""

from __future__ import annotations

import logging
import os
import re
import subprocess
import sys
from contextlib import closing
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sqlalchemy import Engine, create_engine, event, text
from sqlalchemy.engine import make_url
from sqlalchemy.exc import ArgumentError, DBAPIError, NoSuchModuleError

from watcher.errors import ConfigError, WatcherError, first_line

if TYPE_CHECKING:
    from alembic.config import Config

log = logging.getLogger(__name__)

MIGRATIONS = Path(__file__).parents[1] / "migrations"
SQLITE_BUSY_TIMEOUT = 30.0


def normalise_url(url: str) -> str:
    """Accept the usual spellings: `postgres://` and `postgresql://` mean psycopg 3 here."""
    for prefix in ("postgres://", "postgresql://"):
        if url.startswith(prefix):
            return "postgresql+psycopg://" + url[len(prefix) :]
    return url


def safe_url(url: str) -> str:
    """The URL with any password hidden, fit for messages and logs."""
    try:
        return make_url(url).render_as_string(hide_password=True)
    except ArgumentError:
        return "<unparseable URL>"


def create_db_engine(url: str, *, sqlite_busy_timeout: float = SQLITE_BUSY_TIMEOUT) -> Engine:
    """An engine for `url`; raises ConfigError naming DATABASE_URL when the URL is unusable.

    `sqlite_busy_timeout`: seconds a SQLite write waits for another writer's lock before failing.
    """
    url = normalise_url(url)
    try:
        parsed = make_url(url)
    except ArgumentError:
        raise ConfigError(
            "DATABASE_URL is not a database URL; use sqlite:///path/to/file.db "
            "or postgresql://user:password@host:5432/name"
        ) from None
    connect_args: dict[str, Any] = {}
    if parsed.get_backend_name() == "sqlite":
        check_sqlite_library()
        database = parsed.database or ""
        if database and database != ":memory:":
            folder = Path(database).expanduser().parent
            try:
                folder.mkdir(parents=True, exist_ok=True)
            except OSError as exc:
                raise ConfigError(
                    f"DATABASE_URL points into {folder}, which cannot be created: {exc.strerror}"
                ) from None
        connect_args = {"check_same_thread": False, "timeout": sqlite_busy_timeout}
    elif parsed.get_backend_name() == "postgresql":
        connect_args = {"connect_timeout": 10}
    else:
        raise ConfigError(
            f"DATABASE_URL names an unsupported database ({parsed.get_backend_name()}); "
            "use sqlite:/// or postgresql://"
        )
    try:
        engine = create_engine(url, connect_args=connect_args, pool_pre_ping=True)
    except (ArgumentError, NoSuchModuleError) as exc:
        raise ConfigError(f"DATABASE_URL cannot be used: {exc}") from None
    if engine.dialect.name == "sqlite":
        event.listen(engine, "connect", _sqlite_pragmas)
    return engine


# What the store asks of SQLite: RETURNING (3.35) and the JSON functions (`json_each`, built in
# since 3.38 and in most builds before), which read the announcements a save owes, and FTS5
# (in the usual builds), which /search reads.
SQLITE_MINIMUM = (3, 35, 0)


def check_sqlite_library() -> None:
    """Fail at start, in words, when Python's SQLite library cannot hold the store."""
    import sqlite3

    needs = f"arxiv-watcher needs SQLite {'.'.join(map(str, SQLITE_MINIMUM))} or newer"
    if sqlite3.sqlite_version_info < SQLITE_MINIMUM:
        raise ConfigError(
            f"{needs}; this Python uses SQLite {sqlite3.sqlite_version}. Use a newer Python "
            "build, or PostgreSQL (DATABASE_URL=postgresql://...)"
        )
    try:
        with closing(sqlite3.connect(":memory:")) as connection:
            connection.execute("SELECT value FROM json_each('[1]')").fetchall()
    except sqlite3.OperationalError:
        raise ConfigError(
            f"{needs} with its JSON functions; this Python's SQLite {sqlite3.sqlite_version} was "
            "built without them. Use another Python build, or PostgreSQL"
        ) from None
    try:
        with closing(sqlite3.connect(":memory:")) as connection:
            connection.execute("CREATE VIRTUAL TABLE probe USING fts5(text)")
    except sqlite3.OperationalError:
        raise ConfigError(
            f"{needs} with full-text search (FTS5, for /search); this Python's SQLite "
            f"{sqlite3.sqlite_version} was built without it. Use another Python build, or "
            "PostgreSQL"
        ) from None


def _sqlite_pragmas(dbapi_connection: Any, _record: Any) -> None:
    cursor = dbapi_connection.cursor()
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.execute("PRAGMA synchronous=NORMAL")
    cursor.execute("PRAGMA foreign_keys=ON")
    cursor.close()


def check_connection(engine: Engine) -> None:
    """Fail fast, naming DATABASE_URL, when the database cannot be reached or opened."""
    try:
        with engine.connect():
            pass
    except DBAPIError as exc:
        reason = first_line(exc.orig) if exc.orig else type(exc).__name__
        raise ConfigError(
            f"DATABASE_URL {safe_url(str(engine.url))} cannot be opened: {reason}"
        ) from None


# The full-text index of /search (0027, 0030) lives beside the tables, not in them: SQLite's FTS5
# tables (the virtual table and its shadows), PostgreSQL's `paper_search` table and its GIN index
# (0027's generated column and its index, for a database between the two).
_FULL_TEXT = ("paper_search", "search_words", "ix_paper_search_words", "ix_paper_search_terms")


def compared_by_autogenerate(name: str | None, _type: str, _parents: object) -> bool:
    """Whether Alembic's comparison of models and schema looks at this object: all but the
    full-text index, which no model declares."""
    return name is None or not name.startswith(_FULL_TEXT)


def alembic_config(engine: Engine) -> Config:
    from alembic.config import Config

    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    config.attributes["engine"] = engine
    return config


def upgrade(engine: Engine) -> None:
    """Apply every pending migration."""
    from alembic import command

    command.upgrade(alembic_config(engine), "head")


_REVISION_LINE = re.compile(
    r"^(revision|down_revision)\s*(?::[^=]*)?=\s*(?:None|[\"']([^\"']+)[\"'])\s*$", re.MULTILINE
)


def script_head() -> str | None:
    """The newest migration, read from the `revision` and `down_revision` lines of the files in
    `migrations/versions` without importing Alembic; None unless they form one plain chain
    (then Alembic, which understands every form, decides)."""
    parents: dict[str, str | None] = {}
    for path in (MIGRATIONS / "versions").glob("*.py"):
        found = {name: value or None for name, value in _REVISION_LINE.findall(path.read_text())}
        revision = found.get("revision")
        if revision is None or "down_revision" not in found or revision in parents:
            return None
        parents[revision] = found["down_revision"]
    heads = set(parents) - set(parents.values())
    roots = [revision for revision, parent in parents.items() if parent is None]
    if (
        len(heads) != 1
        or len(roots) != 1
        or any(parent is not None and parent not in parents for parent in parents.values())
    ):
        return None
    return heads.pop()


def applied_revisions(engine: Engine) -> set[str] | None:
    """The revisions recorded in `alembic_version`; None when the table cannot be read (a new
    database has none). A None sends `pending_migrations` to Alembic, which reads the same table
    and raises whatever error is real."""
    try:
        with engine.connect() as connection:
            rows = connection.execute(text("SELECT version_num FROM alembic_version"))
            return {row[0] for row in rows}
    except DBAPIError:
        return None


def at_head(engine: Engine) -> bool:
    """Whether the database is known to be at the newest migration, without importing Alembic
    (False also when that cannot be told this way: Alembic then decides)."""
    head = script_head()
    return head is not None and applied_revisions(engine) == {head}


def pending_migrations(engine: Engine) -> list[str]:
    """Revisions not yet applied, oldest first."""
    if at_head(engine):
        return []
    from alembic.runtime.migration import MigrationContext
    from alembic.script import ScriptDirectory

    script = ScriptDirectory.from_config(alembic_config(engine))
    with engine.connect() as connection:
        current = MigrationContext.configure(connection).get_current_heads()
    return [
        revision.revision
        for revision in reversed(list(script.iterate_revisions("head", current or "base")))
        if revision.revision not in current
    ]


def upgrade_in_child(url: str) -> None:
    """Apply every pending migration in a process of its own (`arxiv-watcher db upgrade`), so
    that a long-running service never keeps Alembic loaded. The child reads its settings as this
    process did (environment, `.env`), with DATABASE_URL set to `url`; it logs to standard error,
    redacted, as every command does. Raises WatcherError when it fails."""
    child = subprocess.run(
        [sys.executable, "-m", "watcher", "db", "upgrade"],
        env={**os.environ, "DATABASE_URL": url},
        check=False,
        stdout=subprocess.PIPE,  # its one-line summary, logged here; its log lines pass through
        text=True,
    )
    for line in child.stdout.splitlines():
        log.info("migrations: %s", line)
    if child.returncode != 0:
        raise WatcherError(
            f"the database migrations failed (`arxiv-watcher db upgrade` exited with "
            f"{child.returncode}); its error is on the line above, and the database is as the "
            "last migration that succeeded left it"
        )


def open_database(url: str, *, migrate: bool = True) -> Engine:
    """An engine that answers, with the schema at the newest migration."""
    engine = create_db_engine(url)
    check_connection(engine)
    if migrate:
        pending = pending_migrations(engine)
        if pending:
            # The count and the two ends, in the order they apply. Named in the order they were
            # written, the chain reads 0002, 0004, 0003 (0004 landed first), which looks wrong.
            log.info(
                "applying %d database migration(s), %s to %s", len(pending), pending[0], pending[-1]
            )
            upgrade(engine)
    return engine
