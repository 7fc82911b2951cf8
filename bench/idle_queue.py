"""Queue benchmark: what an idle check of the outbox costs, with and without parked deliveries.

The delivery sender, with nothing to send, calls `Outbox.due` (refill) and `Outbox.next_due`
(how long to sleep) every few seconds. Both must cost the same whether the queue holds nothing
or 300,000 deliveries parked for chats that blocked the bot. This loads the parked rows with
bulk SQL (one INSERT … SELECT over inactive chats × papers), runs both calls many times on an
idle queue, and prints the median time of each at 0 parked rows and at `--parked`, and the ratio.

    .venv/bin/python bench/idle_queue.py [--parked 300000] [--database-url URL] [--explain]

A PostgreSQL `--database-url` gets a fresh schema of its own for the run, dropped afterwards.
`--explain` prints the query plans of both calls at the full load.
"""

from __future__ import annotations

import argparse
import contextlib
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from pathlib import Path

# This file shares its name with the standard library's `queue` (which psycopg imports): keep
# its own folder off the import path.
HERE = Path(__file__).resolve().parent
sys.path[:] = [entry for entry in sys.path if Path(entry or ".").resolve() != HERE]

from sqlalchemy import Engine, bindparam, event, inspect, make_url, text  # noqa: E402

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from tests.harness.databases import fresh_postgres_schema  # noqa: E402
from watcher.runtime.db import open_database  # noqa: E402
from watcher.store.outbox import Outbox  # noqa: E402
from watcher.store.tables import UTCDateTime  # noqa: E402

PAPERS = 300  # parked rows = papers × inactive chats
ACTIVE_CHATS = 10_000  # each with one sent delivery: a served bot's ordinary state
DUE_LIMIT = 208  # what the sender asks for: batch 200 + concurrency 8


@contextlib.contextmanager
def fresh_database(url: str, workdir: Path) -> Iterator[str]:
    if not url:
        yield f"sqlite:///{workdir / 'queue.db'}"
        return
    if make_url(url).get_backend_name() != "postgresql":
        yield url
        return
    with fresh_postgres_schema(url, prefix="queue") as schema_url:
        yield schema_url


def load_parked(engine: Engine, parked: int) -> None:
    """`parked` pending deliveries for inactive chats; active chats with nothing due."""
    chats = max(1, -(-parked // PAPERS))
    now = datetime.now(UTC)
    stamp = bindparam("now", value=now, type_=UTCDateTime())
    delivery_columns = {c["name"] for c in inspect(engine).get_columns("delivery")}
    chat_columns = {c["name"] for c in inspect(engine).get_columns("chat")}
    with engine.begin() as connection:
        connection.execute(
            text(
                "INSERT INTO paper (arxiv_id, version, title, abstract, primary_category,"
                " published, updated, abs_url, pdf_url, first_seen)"
                " VALUES (:arxiv_id, 1, 'A title', 'An abstract', 'cs.DC', :now, :now,"
                " 'https://arxiv.org/abs/x', 'https://arxiv.org/pdf/x', :now)"
            ).bindparams(stamp),
            [{"arxiv_id": f"2611.{n:05d}"} for n in range(PAPERS)],
        )
        inactive = "inactive_since, " if "inactive_since" in chat_columns else ""
        # Before 0028 a chat had its own `notify_revisions` (NOT NULL, no server default).
        revisions = "notify_revisions, " if "notify_revisions" in chat_columns else ""
        connection.execute(
            text(
                f"INSERT INTO chat (id, kind, active, {inactive}{revisions}created)"
                f" VALUES (:id, 'private', :active, {':now, ' if inactive else ''}"
                f"{'false, ' if revisions else ''}:now)"
            ).bindparams(stamp),
            [{"id": 1_000_000 + n, "active": False} for n in range(chats)]
            + [{"id": 1 + n, "active": True} for n in range(ACTIVE_CHATS)],
        )
        # Columns later schemas added (parked, summarize): filled where the schema has them.
        flags = [name for name in ("parked", "summarize") if name in delivery_columns]

        def insert_deliveries(status: str, parked: bool, where: str) -> None:
            names = "".join(f", {name}" for name in flags)
            values = "".join(
                f", {'true' if name == 'parked' and parked else 'false'}" for name in flags
            )
            connection.execute(
                text(
                    "INSERT INTO delivery (chat_id, paper_id, version, kind, status, attempts,"
                    f" next_attempt, created, sent{names})"
                    f" SELECT chat.id, paper.id, 1, 'new', '{status}', 0, :now, :now,"
                    f" {':now' if status == 'sent' else 'NULL'}{values}"
                    f" FROM chat CROSS JOIN paper WHERE {where}"
                ).bindparams(stamp)
            )

        insert_deliveries("sent", False, "chat.active AND paper.arxiv_id = '2611.00000'")
        insert_deliveries(
            "pending", True, f"NOT chat.active ORDER BY paper.id, chat.id LIMIT {int(parked)}"
        )
    with engine.connect() as connection:
        connection.execute(text("ANALYZE"))
        connection.commit()


def median_ms(call: Callable[[], object], repeat: int) -> float:
    for _ in range(5):
        call()  # warm the caches and the connection pool
    times = []
    for _ in range(repeat):
        started = time.perf_counter()
        call()
        times.append(time.perf_counter() - started)
    return statistics.median(times) * 1000


def measure(engine: Engine, repeat: int) -> tuple[float, float]:
    outbox = Outbox(engine)
    due = median_ms(lambda: outbox.due(limit=DUE_LIMIT), repeat)
    next_due = median_ms(outbox.next_due, repeat)
    assert outbox.due(limit=DUE_LIMIT) == [] and outbox.next_due() is None, "the queue is not idle"
    return due, next_due


def explain(engine: Engine) -> None:
    """The plans of both idle calls, as the database runs them (same statements, same values)."""
    statements: list[tuple[str, object]] = []

    def record(conn, cursor, statement, parameters, context, executemany):  # type: ignore[no-untyped-def]
        statements.append((statement, parameters))

    event.listen(engine, "before_cursor_execute", record)
    try:
        Outbox(engine).due(limit=DUE_LIMIT)
        Outbox(engine).next_due()
    finally:
        event.remove(engine, "before_cursor_execute", record)
    prefix = "EXPLAIN QUERY PLAN " if engine.dialect.name == "sqlite" else "EXPLAIN "
    connection = engine.raw_connection()
    try:
        for statement, parameters in [s for s in statements if "FROM delivery" in s[0]]:
            print(" ".join(statement.split()))
            cursor = connection.cursor()
            cursor.execute(prefix + statement, parameters)
            for row in cursor.fetchall():
                print("   ", " | ".join(str(part) for part in row))
    finally:
        connection.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--parked", type=int, default=300_000)
    parser.add_argument("--repeat", type=int, default=200, help="calls timed per figure")
    parser.add_argument(
        "--database-url",
        default="",
        help="default: a SQLite file in a tmp dir; PostgreSQL: a fresh schema is made and dropped",
    )
    parser.add_argument("--explain", action="store_true", help="print the plans at full load")
    args = parser.parse_args()

    workdir = Path(tempfile.mkdtemp(prefix="queue-"))
    figures = {}
    for parked in (0, args.parked):
        with fresh_database(args.database_url, workdir / str(parked)) as url:
            (workdir / str(parked)).mkdir(exist_ok=True)
            engine = open_database(url)
            try:
                started = time.perf_counter()
                load_parked(engine, parked)
                loaded = time.perf_counter() - started
                figures[parked] = measure(engine, args.repeat)
                print(
                    f"{engine.dialect.name}: {parked:>7} parked rows (loaded in {loaded:.1f}s):"
                    f" due {figures[parked][0]:.3f} ms, next_due {figures[parked][1]:.3f} ms"
                )
                if args.explain and parked:
                    explain(engine)
            finally:
                engine.dispose()
    (due0, next0), (due_n, next_n) = figures[0], figures[args.parked]
    print(f"ratio at {args.parked} / at 0: due {due_n / due0:.2f}, next_due {next_n / next0:.2f}")


if __name__ == "__main__":
    main()
