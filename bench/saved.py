"""Reading-list benchmark: a chat that saved the most papers it may (500), each with 12 authors.

Builds a database with every migration applied, stores the papers, saves each (one transaction
a save, as presses come), then prints the median of `--rounds` calls of: a /saved page (the first
and the last), and /saved bib's file (the whole list read and every entry written as Cite writes
it), with the file's size.

    .venv/bin/python bench/saved.py [--rounds 20] [--database-url URL]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path

from sqlalchemy import Engine

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from bench.fanout import fresh_database  # noqa: E402
from tests.fakes.corpus import make_record  # noqa: E402
from watcher.core.reading_list import bib_file  # noqa: E402
from watcher.runtime.db import open_database  # noqa: E402
from watcher.store import MatchedRecord, Store  # noqa: E402
from watcher.store.chats import Chats  # noqa: E402
from watcher.store.reading_list import MAX_SAVED, ReadingLists  # noqa: E402

CHAT = 1


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--rounds", type=int, default=20)
    parser.add_argument("--database-url", default="")
    args = parser.parse_args()
    with fresh_database(args.database_url, Path(tempfile.mkdtemp(prefix="saved-"))) as url:
        engine = open_database(url)
        try:
            run(engine, args.rounds)
        finally:
            engine.dispose()


def run(engine: Engine, rounds: int) -> None:
    store = Store(engine)
    papers = [
        make_record(
            arxiv_id=f"2611.{n:05d}",
            title=f"Adaptive Routing in Dragonfly Networks, Part {n}",
            authors=[f"Author Number{k}" for k in range(12)],
        )
        for n in range(MAX_SAVED)
    ]
    store.save_records([MatchedRecord(p, frozenset()) for p in papers], announce_for=frozenset())
    Chats(store.engine).seen(CHAT, kind="private")
    lists = ReadingLists(store.engine)
    start = datetime(2026, 12, 4, tzinfo=UTC)
    began = time.perf_counter()
    for n, paper in enumerate(papers):
        lists.save(CHAT, paper.arxiv_id, title=paper.title, now=start + timedelta(seconds=n))
    print(f"{MAX_SAVED} saves, one transaction each: {time.perf_counter() - began:.2f} s")
    print(f"/saved first page: {median_ms(lambda: lists.page(CHAT, limit=5), rounds):.1f} ms")
    last = MAX_SAVED - 5
    print(
        f"/saved last page: {median_ms(lambda: lists.page(CHAT, limit=5, offset=last), rounds):.1f}"
        " ms"
    )
    made = bib_file(lists.all_saved(CHAT), now="now")
    took = median_ms(lambda: bib_file(lists.all_saved(CHAT), now="now"), rounds)
    print(f"/saved bib: {took:.0f} ms, {made.entries} entries, {len(made.data) // 1024} KB")


def median_ms(call: Callable[[], object], rounds: int) -> float:
    times = []
    for _ in range(rounds):
        began = time.perf_counter()
        call()
        times.append((time.perf_counter() - began) * 1000)
    return statistics.median(times)


if __name__ == "__main__":
    main()
