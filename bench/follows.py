"""Reading every follow, as each poll tick does: 1,000 to 100,000 follows.

Every tick of the service's poll job (at most a minute apart) starts with `Store.followed()`:
every follow with its poll state, its paper count and its chat count. It is how the poll
knows which follows are due. This loads N follows in bulk into an empty, migrated database:
synthetic persons, one in ten with an alias, each with a poll state and a successful last
poll. It then times `Store.followed()` and prints the median of `--runs` calls, and the time a
follow at each size against the smallest.

    .venv/bin/python bench/follows.py [--sizes 1000 10000 100000] [--runs 5] [--database-url URL]

A PostgreSQL `--database-url` gets a fresh schema, dropped afterwards.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from datetime import UTC, datetime
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from sqlalchemy import Engine, text  # noqa: E402

from tests.databases import empty_database  # noqa: E402
from watcher.db import open_database  # noqa: E402
from watcher.rules import rule_key  # noqa: E402
from watcher.store import Store  # noqa: E402


def load(engine: Engine, follows: int) -> None:
    """`follows` persons, each with a poll state, in two multi-row INSERTs."""
    now = datetime(2026, 11, 30, tzinfo=UTC)
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
                "INSERT INTO poll_state (followed_author_id, last_success, consecutive_failures) "
                "VALUES (:id, :now, 0)"
            ),
            [{"id": i, "now": now} for i in range(1, follows + 1)],
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 10000, 100000])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--database-url", default=None)
    args = parser.parse_args()
    medians: dict[int, float] = {}
    for size in args.sizes:
        with empty_database(args.database_url) as url:
            engine = open_database(url)
            load(engine, size)
            store = Store(engine)
            times = []
            for _ in range(args.runs):
                started = time.perf_counter()
                found = store.followed()
                times.append(time.perf_counter() - started)
            assert len(found) == size, len(found)
            medians[size] = statistics.median(times)
            engine.dispose()
    smallest = min(medians)
    print(f"Store.followed(), {args.database_url or 'sqlite'}, median of {args.runs}:")
    for size, seconds in medians.items():
        each = seconds / size / (medians[smallest] / smallest)
        print(f"  {size:>7,} follows  {seconds:7.3f} s   a follow: {each:.2f}× at {smallest:,}")


if __name__ == "__main__":
    main()
