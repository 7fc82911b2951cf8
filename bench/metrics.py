"""How long does one Prometheus scrape of `/metrics` take at a million papers and 10,000 chats?

Loads N papers with their authors, categories and 2,000 followed authors in bulk (the loader of
`bench/queries.py`), then 10,000 chats (a tenth inactive) each subscribed to `SUBSCRIBED` of the
followed authors (half of which are no longer the operator's, so the follows gauge has to look
for their subscribers), and an outbox of `SENT` sent rows, `PENDING` pending rows and `PARKED`
rows parked for the inactive chats. Then it starts the real listener
(`watcher.runtime.observability.Observability`, an event loop running in a thread as in the service)
and times, median and p99 over RUNS each after a warm-up:

- `GET /metrics` over loopback HTTP: the whole scrape, in-memory metrics and store gauges;
- `read_gauges` alone: the scrape's database part;
- `GET /readyz`: the health verdict;
- for scale, `SELECT 1` (one database round trip) and `Store.recent(limit=5)` (the /recent
  question) on the same database.

    .venv/bin/python bench/metrics.py [--papers 1000000] [--explain]
    .venv/bin/python bench/metrics.py --database-url postgresql+psycopg://postgres@127.0.0.1:5432/test

A PostgreSQL URL gets a fresh schema for the run, dropped afterwards. Figures: bench/README.md.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import statistics
import sys
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from sqlalchemy import Engine, bindparam, text  # noqa: E402

from bench.queries import Shape, load  # noqa: E402
from tests.harness.databases import empty_database  # noqa: E402
from tests.harness.query_plans import plans  # noqa: E402
from watcher.runtime.db import open_database  # noqa: E402
from watcher.runtime.observability import Observability  # noqa: E402
from watcher.settings import load_settings  # noqa: E402
from watcher.store import Store  # noqa: E402
from watcher.store.gauges import read_gauges  # noqa: E402
from watcher.store.tables import UTCDateTime  # noqa: E402

CHATS = 10_000
INACTIVE_EVERY = 10  # one chat in ten blocked the bot
SUBSCRIBED = 5  # followed authors a chat subscribes to
SENT = 200_000
PENDING = 5_000
PARKED = 50_000


def load_chats(engine: Engine) -> None:
    """Chats, their subscriptions and an outbox, in bulk (INSERT ... SELECT)."""
    now = datetime.now(UTC)
    stamp = bindparam("now", value=now, type_=UTCDateTime())
    with engine.begin() as connection:
        connection.execute(
            text(
                "INSERT INTO chat (id, kind, active, created)"
                " VALUES (:id, 'private', :active, :now)"
            ).bindparams(stamp),
            [{"id": n, "active": n % INACTIVE_EVERY != 0} for n in range(1, CHATS + 1)],
        )
        connection.execute(
            text(
                "INSERT INTO subscription (chat_id, thread_id, followed_author_id, created)"
                " VALUES (:chat, 0, :followed, :now)"
            ).bindparams(stamp),
            [
                {"chat": n, "followed": (n * 7 + k * 131) % 2000 + 1}
                for n in range(1, CHATS + 1)
                for k in range(SUBSCRIBED)
            ],
        )
        # Half the follows are chats' only, no longer the operator's.
        connection.execute(text("UPDATE followed_author SET watched = false WHERE id % 2 = 0"))

        def deliveries(status: str, parked: bool, rows: int, chats: int, where: str) -> None:
            connection.execute(
                text(
                    "INSERT INTO delivery (chat_id, thread_id, paper_id, version, kind, status,"
                    " parked, summarize, attempts, next_attempt, created, sent)"
                    f" SELECT chat.id, 0, paper.id, 1, 'new', '{status}', {str(parked).lower()},"
                    f" false, 0, :now, :now, {':now' if status == 'sent' else 'NULL'}"
                    f" FROM chat CROSS JOIN paper WHERE {where} AND paper.id <= :papers"
                    f" ORDER BY paper.id, chat.id LIMIT {rows}"
                ).bindparams(stamp, bindparam("papers", value=-(-rows // chats) + 1))
            )

        inactive = CHATS // INACTIVE_EVERY
        deliveries("sent", False, SENT, CHATS - inactive, "chat.active")
        deliveries("pending", True, PARKED, inactive, "NOT chat.active")
        connection.execute(
            text(
                "INSERT INTO delivery (chat_id, thread_id, paper_id, version, kind, status,"
                " parked, summarize, attempts, next_attempt, created)"
                " SELECT chat.id, 0, (SELECT max(id) FROM paper), 1, 'new', 'pending', false,"
                " false, 0, :now, :now"
                " FROM chat WHERE chat.active ORDER BY chat.id LIMIT :rows"
            ).bindparams(stamp, bindparam("rows", value=PENDING))
        )
    with engine.connect() as connection:
        connection.execute(text("ANALYZE"))
        connection.commit()


def timed(call: Callable[[], object], runs: int) -> tuple[float, float]:
    """Median and p99 in milliseconds, after three warm-up calls."""
    for _ in range(3):
        call()
    samples = []
    for _ in range(runs):
        began = time.perf_counter()
        call()
        samples.append((time.perf_counter() - began) * 1000)
    samples.sort()
    return statistics.median(samples), samples[min(len(samples) - 1, int(len(samples) * 0.99))]


def fetch(url: str) -> bytes:
    with urllib.request.urlopen(url, timeout=30) as answer:
        return bytes(answer.read())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--papers", type=int, default=1_000_000)
    parser.add_argument("--runs", type=int, default=200)
    parser.add_argument("--database-url", default=None)
    parser.add_argument("--explain", action="store_true", help="print the gauges' query plans")
    args = parser.parse_args()
    with empty_database(args.database_url) as url:
        engine = open_database(url)
        started = time.perf_counter()
        load(engine, Shape(args.papers))
        load_chats(engine)
        print(
            f"{args.papers:,} papers, {CHATS:,} chats ({engine.dialect.name}): loaded in "
            f"{time.perf_counter() - started:.0f} s; load average {os.getloadavg()[0]:.1f}",
            flush=True,
        )
        print(f"  gauges: {read_gauges(engine)}", flush=True)
        if args.explain:
            for plan in plans(Store(engine), lambda store, _ids: read_gauges(store.engine)):
                print(plan, end="\n\n")
        settings = load_settings(
            database_url=url, metrics_listen="127.0.0.1:0", poll_schedule="interval"
        )
        loop = asyncio.new_event_loop()
        runner = threading.Thread(target=loop.run_forever, daemon=True)
        runner.start()
        listener = Observability(settings, engine, loop)
        listener.start()
        listener.set_role("active")
        base = f"http://127.0.0.1:{listener.port}"
        store = Store(engine)

        def select_one() -> None:
            with engine.connect() as connection:
                connection.execute(text("SELECT 1")).one()

        figures = {
            "GET /metrics (whole scrape)": timed(lambda: fetch(base + "/metrics"), args.runs),
            "read_gauges (its database part)": timed(lambda: read_gauges(engine), args.runs),
            "GET /readyz": timed(lambda: _ready(base), 50),
            "SELECT 1 (a round trip)": timed(select_one, args.runs),
            "Store.recent(limit=5) (/recent)": timed(lambda: store.recent(limit=5), args.runs),
        }
        listener.close()
        loop.call_soon_threadsafe(loop.stop)
        runner.join()
        engine.dispose()
    round_trip = figures["SELECT 1 (a round trip)"][0]
    print("\n| what | p50 ms | p99 ms | p50 in round trips |")
    print("|---|---|---|---|")
    for name, (p50, p99) in figures.items():
        print(f"| {name} | {p50:.2f} | {p99:.2f} | {p50 / round_trip:.0f}× |")


def _ready(base: str) -> None:
    """GET /readyz, 200 or 503 (a bench database has no recent poll: both are answers)."""
    with contextlib.suppress(urllib.error.HTTPError):
        fetch(base + "/readyz")


if __name__ == "__main__":
    main()
