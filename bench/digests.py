"""Digest benchmark: 10,000 chats whose daily digests fall due in the same minute.

The fake arXiv and the fake Bot API run in this process, `python -m watcher run` as a
subprocess. Each chat takes a daily digest and follows the one author; one new paper is found
and held for all of them; then every digest falls due at the same instant. The fake enforces
Telegram's limits (30 messages a second overall; 429 above them) and the service runs at its
defaults. Printed: the time from the digest instant to the last digest, against the least
Telegram's 30/s allows (chats / 30 s), and 429s, duplicates and misses.

    .venv/bin/python bench/digests.py [--chats 10000] [--database-url URL]
"""

from __future__ import annotations

import argparse
import os
import signal
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

from sqlalchemy import Engine
from sqlmodel import Session

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from bench.fanout import (  # noqa: E402
    _wait_for_backfill,
    cpu_seconds,
    fresh_database,
    service_env,
    start_service,
    wait_until,
)
from tests.fakes.arxiv_api import FakeArxiv  # noqa: E402
from tests.fakes.corpus import dezun_dong_records, make_record  # noqa: E402
from tests.fakes.telegram import FakeTelegram, RateLimits  # noqa: E402
from watcher.arxiv.records import Record  # noqa: E402
from watcher.store import Store  # noqa: E402
from watcher.store.destinations import DestinationSetting  # noqa: E402
from watcher.store.outbox import Outbox  # noqa: E402
from watcher.store.tables import Chat, Subscription  # noqa: E402

TOKEN = "123456:BENCH-digests-token"
TELEGRAM_RATE = 30.0  # messages a second, all chats together: Telegram's limit


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--chats", type=int, default=10_000)
    parser.add_argument("--lead", type=float, default=40.0, help="seconds until the digests")
    parser.add_argument("--database-url", default="")
    args = parser.parse_args()
    workdir = Path(tempfile.mkdtemp(prefix="digests-"))
    with fresh_database(args.database_url, workdir) as database_url:
        run(args, workdir, database_url)


def add_digest_chats(engine: Engine, followed_id: int, chats: int, due: datetime) -> list[int]:
    """Adds `chats` private chats, each following `followed_id` and taking a daily digest due at
    `due` (`bench/digest_claims.py` builds the same); returns their ids."""
    chat_ids = list(range(20_000_001, 20_000_001 + chats))
    with Session(engine) as session:
        session.add_all(Chat(id=chat_id, kind="private") for chat_id in chat_ids)
        session.flush()
        session.add_all(
            DestinationSetting(
                chat_id=chat_id,
                digest_minute=due.hour * 60 + due.minute,
                digest_days=127,
                next_digest_at=due,
                digest_since=due - timedelta(days=1),
            )
            for chat_id in chat_ids
        )
        session.flush()
        session.add_all(
            Subscription(chat_id=chat_id, followed_author_id=followed_id) for chat_id in chat_ids
        )
        session.commit()
    return chat_ids


def bench_paper() -> Record:
    """The one paper the digests carry."""
    return make_record(
        arxiv_id="2612.20000",
        title="Benchmarking Digests on Interconnection Networks",
        authors=["Ann Other", "Dezun Dong"],
    )


def run(args: argparse.Namespace, workdir: Path, database_url: str) -> None:
    limits = RateLimits(global_per_second=TELEGRAM_RATE, global_burst=int(TELEGRAM_RATE))
    with FakeArxiv(dezun_dong_records()) as arxiv, FakeTelegram(TOKEN, rate_limits=limits) as tg:
        service, log_path = start_service(service_env(database_url, arxiv, tg), workdir)
        try:
            engine = _wait_for_backfill(database_url, service)
            (followed,) = Store(engine).followed()
            due = datetime.now(UTC) + timedelta(seconds=args.lead)
            chat_ids = add_digest_chats(engine, followed.id, args.chats, due)
            outbox = Outbox(engine)
            arxiv.add(bench_paper())
            wait_until(lambda: outbox.stats().held == args.chats, "every chat holds the paper")
            assert tg.calls("sendMessage") == 0, "a held paper went out before its digest"
            time.sleep(max(0.0, (due - datetime.now(UTC)).total_seconds()))
            cpu_before = cpu_seconds(service.pid)
            wait_until(
                lambda: tg.calls("sendMessage") >= args.chats + tg.count_429,
                "every chat has its digest",
                timeout=3 * args.chats / TELEGRAM_RATE + 120,
            )
            wait_until(lambda: outbox.stats().sent == args.chats, "every digest is confirmed")
            cpu = cpu_seconds(service.pid) - cpu_before
            service.send_signal(signal.SIGTERM)
            exit_code = service.wait(timeout=60)
        finally:
            if service.poll() is None:
                service.kill()
                service.wait()

        sent = tg.sent()
        times = sorted(message.time for message in sent)
        per_chat = dict.fromkeys(chat_ids, 0)
        for message in sent:
            per_chat[message.chat_id] += 1
        duplicates = sum(n - 1 for n in per_chat.values() if n > 1)
        missing = sum(1 for n in per_chat.values() if n == 0)
        drain = times[-1] - due.timestamp()
        least = args.chats / TELEGRAM_RATE
        print(
            f"{args.chats} digests due at the same instant; service on {database_url.split(':')[0]}"
        )
        print(f"  first digest after the instant: {times[0] - due.timestamp():.2f} s")
        print(f"  last digest after the instant : {drain:.1f} s")
        print(
            f"  least Telegram allows (30/s)  : {least:.1f} s; "
            f"measured / least = {drain / least:.3f}"
        )
        print(f"  429s / duplicates / missed    : {tg.count_429} / {duplicates} / {missing}")
        print(
            f"  service CPU from the instant  : {cpu:.1f} s "
            f"({1000 * cpu / args.chats:.2f} ms a digest)"
        )
        print(f"  load average at the end       : {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
        print(f"  service exit code after SIGTERM: {exit_code}; log: {log_path}")


if __name__ == "__main__":
    main()
