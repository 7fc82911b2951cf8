"""What only one database's SQLAlchemy dialect says: the upsert, and PostgreSQL's partial index.

Naming a dialect's statement or option at import time loaded SQLAlchemy's PostgreSQL dialect on
every SQLite run (about 2 MB resident, bench/README.md, "Lighter at rest"), so each is taken
here when it is needed, by the engine's dialect.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from sqlalchemy import text

from watcher.store.tables import FollowedAuthor

if TYPE_CHECKING:
    from sqlalchemy.dialects import postgresql, sqlite


def upsert_into(dialect: str, table: Any) -> postgresql.Insert | sqlite.Insert:
    """An `insert(table)` with `on_conflict_do_*`, for the dialect named `dialect`."""
    if dialect == "postgresql":
        from sqlalchemy.dialects.postgresql import insert as postgresql_insert

        return postgresql_insert(table)
    from sqlalchemy.dialects.sqlite import insert as sqlite_insert

    return sqlite_insert(table)


def with_postgresql_options() -> None:
    """Give the indexes their PostgreSQL-only options (loading that dialect): for what compares
    or creates the schema on PostgreSQL (the migrations' environment, their tests). The service's
    queries do not need them: the index is in the database, made by its migration."""
    for index in FollowedAuthor.__table__.indexes:  # type: ignore[attr-defined]
        if index.name == "ix_followed_author_whole_topic":
            index.dialect_kwargs["postgresql_where"] = text("topic = ''")
