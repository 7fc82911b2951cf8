"""The database's plan for each statement a store question sends: `EXPLAIN QUERY PLAN` on SQLite,
`EXPLAIN` on PostgreSQL with sequential scans priced out (a test database is too small for the
planner to want an index). Used by tests/core/test_query_plans.py and bench/queries.py."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from sqlalchemy import Engine, event

from watcher.store import Store

Question = Callable[[Store, list[int]], object]


@contextmanager
def statements(engine: Engine) -> Iterator[list[tuple[str, Any]]]:
    """The SQL statements (with their parameters) sent through `engine` meanwhile."""
    sent: list[tuple[str, Any]] = []

    def record(_conn: Any, _cursor: Any, statement: str, parameters: Any, *_: Any) -> None:
        if statement.lstrip().upper().startswith("SELECT"):
            sent.append((statement, parameters))

    event.listen(engine, "before_cursor_execute", record)
    try:
        yield sent
    finally:
        event.remove(engine, "before_cursor_execute", record)


def plans(store: Store, question: Question) -> list[str]:
    """The plan of each statement `question` sends (for a chat following everyone), one text
    each."""
    ids = [f.id for f in store.followed()]
    with statements(store.engine) as sent:
        question(store, ids)
    assert sent
    found = []
    with store.engine.connect() as connection:
        raw: Any = connection.connection.dbapi_connection
        cursor = raw.cursor()
        if store.engine.dialect.name == "postgresql":
            cursor.execute("SET enable_seqscan = off")
            for statement, parameters in sent:
                cursor.execute("EXPLAIN " + statement, parameters)
                found.append("\n".join(row[0] for row in cursor.fetchall()))
        else:
            for statement, parameters in sent:
                cursor.execute("EXPLAIN QUERY PLAN " + statement, parameters)
                found.append("\n".join(str(row[-1]) for row in cursor.fetchall()))
        cursor.close()
    return found
