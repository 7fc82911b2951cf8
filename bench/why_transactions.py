"""/why's reads in seven transactions (before issue 33's item 4 was made fast) and in one
(`watcher.store.arrivals.why_reads`, as `watcher.core.why.Why` reads now), timed alternately on
the same database, so that a shared machine's load falls on both alike.

The database is `bench/queries.py`'s at each size, with `bench/why_query.py`'s chats; the
seven transactions are the store calls the core made before, one session each, with the same
statements (`queued_in` had a session of its own).

    .venv/bin/python bench/why_transactions.py --sizes 10000 1000000 --runs 60
    .venv/bin/python bench/why_transactions.py --sizes 10000 \\
        --database-url postgresql+psycopg://postgres@127.0.0.1:5432/test
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from sqlalchemy import text  # noqa: E402
from sqlmodel import Session  # noqa: E402

from bench.queries import CHAT_AUTHORS, Shape, load  # noqa: E402
from bench.why_query import WHY_CHAT, why_chats  # noqa: E402
from tests.harness.databases import empty_database  # noqa: E402
from watcher.runtime.db import open_database  # noqa: E402
from watcher.store import Store  # noqa: E402
from watcher.store.arrivals import queued_in, why_reads  # noqa: E402
from watcher.store.chats import Chats  # noqa: E402


def percentiles(times: list[float]) -> tuple[float, float]:
    """p50 and p99 in ms, as `bench/queries.py` takes them."""
    times = sorted(times)
    return statistics.median(times), times[min(len(times) - 1, round(0.99 * (len(times) - 1)))]


def compare(url: str, n: int, runs: int) -> None:
    """Load `n` papers into the empty database at `url`, and time both ways `runs` times."""
    engine = open_database(url)
    started = time.perf_counter()
    load(engine, Shape(n))
    loaded = time.perf_counter() - started
    store, chats = Store(engine), Chats(engine)
    with engine.connect() as connection:  # the chat `bench/queries.py` picks
        having = [
            row[0]
            for row in connection.execute(
                text("SELECT DISTINCT followed_author_id FROM paper_match ORDER BY 1")
            )
        ]
    chat = random.Random(1).sample(having, min(CHAT_AUTHORS, len(having)))
    since = why_chats(store, chat)

    def seven() -> object:
        ids = chats.subscribed_ids(WHY_CHAT, thread_id=0)
        with Session(engine) as session:
            queued = queued_in(session, WHY_CHAT, 0, since)
        return (
            store.last_mailing(),
            store.followed(ids, counted=False),
            queued,
            store.source_health(),
            chats.speaking.settings(WHY_CHAT, 0),
            chats.digests.settings(WHY_CHAT, 0),
        )

    def one() -> object:
        return why_reads(engine, WHY_CHAT, 0, since)

    asked: dict[str, Callable[[], object]] = {"seven": seven, "one": one}
    times: dict[str, list[float]] = {name: [] for name in asked}
    for _warm_up in range(3):
        for question in asked.values():
            question()
    for run in range(runs):
        order = list(asked.items()) if run % 2 == 0 else list(asked.items())[::-1]
        for name, question in order:
            began = time.perf_counter()
            question()
            times[name].append((time.perf_counter() - began) * 1000)
    print(
        f"N = {n:,} ({engine.dialect.name}): loaded in {loaded:.1f} s; load average "
        f"{os.getloadavg()[0]:.1f}; {runs} runs each, alternated",
        flush=True,
    )
    (p50_7, p99_7), (p50_1, p99_1) = percentiles(times["seven"]), percentiles(times["one"])
    print(f"  seven transactions   p50 {p50_7:8.2f} ms   p99 {p99_7:8.2f} ms")
    print(f"  one transaction      p50 {p50_1:8.2f} ms   p99 {p99_1:8.2f} ms")
    print(
        f"  one / seven          p50 {p50_1 / p50_7:.2f}×    p99 {p99_1 / p99_7:.2f}×", flush=True
    )
    engine.dispose()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[10_000])
    parser.add_argument("--runs", type=int, default=60)
    parser.add_argument("--database-url", default=None)
    args = parser.parse_args()
    for n in args.sizes:
        with empty_database(args.database_url) as url:
            compare(url, n, args.runs)


if __name__ == "__main__":
    main()
