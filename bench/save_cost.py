"""What does saving one 2,000-entry API page cost, apart from parsing and matching it?

`bench/pipeline.py`'s page (its `page`, `match` and `save_in_parts`), parsed and matched once,
then saved into a fresh empty database as a first poll and again at version 2, `--rounds`
times; prints each save's wall and CPU seconds (CPU: this process's, which on SQLite is nearly
all the save's work and swings far less than the wall clock on a shared machine).

    .venv/bin/python bench/save_cost.py [--rounds 3] [--database-url URL]

To compare two versions of the code, alternate runs with `PYTHONPATH` at an export of the
other's `src`.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.pipeline import FOLLOWED, match, page, save_in_parts
from tests.harness.databases import empty_database
from watcher.arxiv.parse import parse_feed
from watcher.runtime.db import open_database
from watcher.store import Store


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--database-url", default=None)
    args = parser.parse_args()
    first = parse_feed(page(2000, 1)).records
    second = parse_feed(page(2000, 2)).records
    print(f"load average {os.getloadavg()[0]:.1f}")
    for _ in range(args.rounds):
        with empty_database(args.database_url) as url:
            engine = open_database(url)
            store = Store(engine)
            followed = {store.follow([name])[0].id: name for name in FOLLOWED}
            for label, records in (("new", first), ("v2", second)):
                matched = match(records, followed)
                wall, cpu = time.perf_counter(), time.process_time()
                save_in_parts(store, matched)
                print(
                    f"  {label:<4} {time.perf_counter() - wall:6.2f} s wall "
                    f"{time.process_time() - cpu:6.2f} s CPU",
                    flush=True,
                )
            engine.dispose()


if __name__ == "__main__":
    main()
