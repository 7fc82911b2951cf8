"""How long can a command wait for the database while a big backfill is saved?

Every database call of the service (the bot's commands, the sender, the poll) runs on one
thread, one call at a time. This runs a real poll (the fake arXiv in this process, the real
client and store) whose first poll of an author saves RECORDS records, while a probe puts an
empty call on the database thread every 5 ms, as a command would, and times how long each one
waited. Printed: the poll's save time, and the probe's median and longest wait: the longest wait
is about the longest single save transaction.

    .venv/bin/python bench/db_wait.py [--records 1000] [--database-url URL]

A PostgreSQL `--database-url` gets a fresh schema for the run, dropped afterwards.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from tests.fakes.arxiv_api import FakeArxiv  # noqa: E402
from tests.fakes.corpus import make_record  # noqa: E402
from tests.harness.databases import empty_database  # noqa: E402
from watcher.aio import in_db_thread  # noqa: E402
from watcher.arxiv.fetch import ArxivClient  # noqa: E402
from watcher.polling.poll import Poller  # noqa: E402
from watcher.runtime.db import open_database  # noqa: E402
from watcher.store import Store  # noqa: E402


async def run(url: str, records: int) -> None:
    engine = open_database(url)
    store = Store(engine)
    store.follow(["Yu Wang"])
    moment = datetime(2026, 6, 1, tzinfo=UTC)
    papers = [
        make_record(
            arxiv_id=f"2606.{n:05d}",
            published=moment - timedelta(hours=n),
            authors=["Yu Wang", f"Co Author{n % 50}", f"Other Person{n % 7}"],
        )
        for n in range(records)
    ]
    waits: list[float] = []
    with FakeArxiv(papers) as fake:
        async with ArxivClient(fake.url, min_interval=0) as client:
            poller = Poller(store=store, client=client, poll_interval=3600, page_size=1000)
            poll = asyncio.create_task(poller.poll())
            saving_started = None
            while not poll.done():
                asked = time.perf_counter()
                await in_db_thread(lambda: None)
                waits.append(time.perf_counter() - asked)
                if saving_started is None and store.count() > 0:
                    saving_started = time.perf_counter()
                await asyncio.sleep(0.005)
            report = await poll
    saved = time.perf_counter() - (saving_started or time.perf_counter())
    engine.dispose()
    print(
        f"{engine.dialect.name}: {report.backfilled} records saved in about {saved:.1f} s; "
        f"a database call waited {statistics.median(waits) * 1000:.0f} ms (median), "
        f"{max(waits) * 1000:.0f} ms at most, over {len(waits)} probes"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--records", type=int, default=1000)
    parser.add_argument("--database-url", default=None)
    args = parser.parse_args()
    with empty_database(args.database_url) as url:
        asyncio.run(run(url, args.records))


if __name__ == "__main__":
    main()
