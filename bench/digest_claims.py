"""Digest claims in process: `Digests.claim_due` rounds of 50 over chats whose digests are all due.

`--chats` private chats each follow one author, take a daily digest due now and hold one paper;
the claims then run as the sender's rounds do (50 destinations a call, the bot's renderer) until
none is due. Printed: the median and the slowest round, and the time a chat, which is what each
round holds the service's one database thread for (`bench/README.md`, `digests.py`).

    .venv/bin/python bench/digest_claims.py [--chats 3000] [--database-url URL]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

from sqlalchemy import Engine

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from bench.digests import add_digest_chats, bench_paper  # noqa: E402
from bench.fanout import fresh_database  # noqa: E402
from bot.digest import render_digest_parts  # noqa: E402
from watcher.runtime.db import open_database  # noqa: E402
from watcher.store import MatchedRecord, Store  # noqa: E402
from watcher.store.chats import Chats  # noqa: E402

ROUND = 50  # destinations a call, as the sender claims them (bot.delivery.sender.DIGEST_CLAIMS)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--chats", type=int, default=3000)
    parser.add_argument("--database-url", default="")
    args = parser.parse_args()
    with fresh_database(args.database_url, Path(tempfile.mkdtemp(prefix="claims-"))) as url:
        engine = open_database(url)
        try:
            run(engine, args.chats, url)
        finally:
            engine.dispose()


def run(engine: Engine, chats: int, url: str) -> None:
    store = Store(engine)
    followed, _ = store.follow(["Dezun Dong"])
    due = datetime.now(UTC)
    add_digest_chats(engine, followed.id, chats, due)
    record = bench_paper()
    ids = frozenset({followed.id})
    store.save_records([MatchedRecord(record, ids)], announce_for=ids)
    digests = Chats(engine).digests
    now = due + timedelta(seconds=1)
    digests.claim_due(render=render_digest_parts, now=now, limit=1)  # loads the locale data
    rounds: list[float] = []
    claimed = 1
    while True:
        started = time.perf_counter()
        reports = digests.claim_due(render=render_digest_parts, now=now, limit=ROUND)
        if not reports:
            break
        rounds.append(time.perf_counter() - started)
        claimed += len(reports)
    assert claimed == chats, f"claimed {claimed} digests of {chats}"
    median = statistics.median(rounds)
    print(f"{chats} digests claimed, {ROUND} a round; database {url.split(':')[0]}")
    print(f"  a round: median {1000 * median:.1f} ms, slowest {1000 * max(rounds):.1f} ms")
    print(f"  a chat (median round / {ROUND}): {1000 * median / ROUND:.2f} ms")


if __name__ == "__main__":
    main()
