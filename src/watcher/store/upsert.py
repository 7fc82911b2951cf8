"""The INSERT ... ON CONFLICT statement of the database a session is bound to.

SQLAlchemy's upsert lives in each dialect's own module; importing both at the top of the store
loaded the PostgreSQL dialect on every SQLite run (about 2 MB resident, bench/README.md,
"Lighter at rest"), so the dialect is imported here, at the first upsert, by the engine's name.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from sqlalchemy.dialects import postgresql, sqlite


def upsert_into(dialect: str, table: Any) -> postgresql.Insert | sqlite.Insert:
    """An `insert(table)` with `on_conflict_do_*`, for the dialect named `dialect`."""
    if dialect == "postgresql":
        from sqlalchemy.dialects.postgresql import insert as postgresql_insert

        return postgresql_insert(table)
    from sqlalchemy.dialects.sqlite import insert as sqlite_insert

    return sqlite_insert(table)
