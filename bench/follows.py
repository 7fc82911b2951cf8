"""A poll tick with nothing due, and the read of every follow it starts with: 1,000 to 100,000
follows.

Every tick of the service's poll job (at most a minute apart) starts with `Store.followed()`:
every follow with its poll state, its paper count and its chat count. It is how the poll
knows which follows are due. This loads N follows in bulk into an empty, migrated database:
synthetic persons, one in ten with an alias, each with a poll state and a successful last
poll, next due in an hour, and a harvest due in an hour. It then times `Store.followed()` and a
whole tick (`Poller.poll()`, nothing due, so no request) in `WATCH_SOURCE=auto`, `api` and
`harvest` mode, and the note a successful harvest ends with: every follow's poll state, in the
harvest's own parts (`record_poll_success`). It prints the median of `--runs` calls, and the
time a follow at each size against the smallest.

    .venv/bin/python bench/follows.py [--sizes 1000 10000 100000] [--runs 5] [--database-url URL]

A PostgreSQL `--database-url` gets a fresh schema, dropped afterwards.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from sqlalchemy import Engine, text  # noqa: E402

from tests.harness.databases import empty_database  # noqa: E402
from watcher.arxiv.fetch import ArxivClient  # noqa: E402
from watcher.follows.rules import rule_key  # noqa: E402
from watcher.polling.poll import Poller, WatchSource  # noqa: E402
from watcher.polling.sources.harvest import _chunks  # noqa: E402
from watcher.runtime.db import open_database  # noqa: E402
from watcher.store import Store  # noqa: E402


def load(engine: Engine, follows: int) -> None:
    """`follows` persons, each with a poll state, in two multi-row INSERTs; every follow and
    the harvest next due in an hour."""
    now = datetime(2026, 11, 30, tzinfo=UTC)
    later = datetime.now(UTC) + timedelta(hours=1)
    people = [f"Nobody Person{i}" for i in range(1, follows + 1)]
    with engine.begin() as connection:
        connection.execute(
            text(
                "INSERT INTO followed_author (id, name, rule_key, aliases, watched, created, "
                "kind, categories) VALUES (:id, :name, :key, :aliases, true, :now, 'person', '')"
            ),
            [
                {
                    "id": i,
                    "name": name,
                    "key": rule_key(name),
                    "aliases": f"N. Person{i}" if i % 10 == 0 else "",
                    "now": now,
                }
                for i, name in enumerate(people, start=1)
            ],
        )
        connection.execute(
            text(
                "INSERT INTO poll_state (followed_author_id, last_success, consecutive_failures, "
                "next_poll) VALUES (:id, :now, 0, :later)"
            ),
            [{"id": i, "now": now, "later": later} for i in range(1, follows + 1)],
        )
    Store(engine).record_harvest_success("", through=None, now=now, next_attempt=later)


def median_time(call: Callable[[], object], runs: int) -> float:
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        call()
        times.append(time.perf_counter() - started)
    return statistics.median(times)


def tick(store: Store, source: WatchSource) -> Callable[[], object]:
    """One tick of the poll job, as the service runs it; nothing is due, so nothing is sent."""
    client = ArxivClient("http://127.0.0.1:9/api/query")  # never asked
    poller = Poller(store=store, client=client, poll_interval=3600, source=source)

    def run() -> None:
        report = asyncio.run(poller.poll())
        assert not report.polled and not report.failures, report

    return run


def harvest_success(store: Store) -> Callable[[], object]:
    """What a successful harvest writes last: each follow's poll state, in its parts."""
    ids = [f.id for f in store.followed()]

    def run() -> None:
        now = datetime.now(UTC)
        for part in _chunks(ids):
            store.record_poll_success(part, now=now, next_poll=now + timedelta(hours=1))

    return run


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 10000, 100000])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--database-url", default=None)
    args = parser.parse_args()
    what: dict[str, Callable[[Store], Callable[[], object]]] = {
        "Store.followed()": lambda store: store.followed,
        **{f"tick, {source}": (lambda store, s=source: tick(store, s)) for source in SOURCES},
        "harvest's success": harvest_success,
    }
    medians: dict[str, dict[int, float]] = {name: {} for name in what}
    for size in args.sizes:
        with empty_database(args.database_url) as url:
            engine = open_database(url)
            load(engine, size)
            store = Store(engine)
            assert len(store.followed()) == size
            for name, call in what.items():
                medians[name][size] = median_time(call(store), args.runs)
            engine.dispose()
    where = args.database_url or "sqlite"
    print(f"{where}, median of {args.runs}, seconds (a follow against the smallest size):")
    smallest = min(args.sizes)
    for name, by_size in medians.items():
        figures = "   ".join(
            f"{size:,}: {seconds:.3f} ({seconds / size / (by_size[smallest] / smallest):.2f}×)"
            for size, seconds in by_size.items()
        )
        print(f"  {name:<19} {figures}")


SOURCES: tuple[WatchSource, ...] = ("auto", "api", "harvest")


if __name__ == "__main__":
    main()
