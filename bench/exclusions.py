"""Excluded-words benchmark (/exclude): what holding papers back costs the queue.

Builds a database with every migration applied, `--chats` private chats following one author,
then times `save_records` of batches of `--papers` new papers of that author (the save and the
INSERT ... SELECT that queues one delivery per chat and paper), median of `--rounds` batches, in
three cases: no chat excludes anything (the queue as it was: one extra read of an empty join);
10% of the chats exclude 20 words each that no paper holds; the same with one word that every
tenth paper holds (those papers held back in those chats). Prints milliseconds a batch and
deliveries queued. `--version 2`: the papers are new to the author at v2, which also looks for
chats told an older version (a revision for them: `watcher.store.announce`; none here), with
`--revisions` among every chat's (each asked for revisions).

    .venv/bin/python bench/exclusions.py [--chats 2000] [--papers 50] [--rounds 5]
        [--version 1] [--revisions] [--database-url URL]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

from sqlalchemy import Engine, delete, func
from sqlmodel import Session, col, select

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from bench.fanout import fresh_database, subscribe_chats  # noqa: E402
from tests.fakes.corpus import make_record  # noqa: E402
from watcher.follows.rules import parse_person  # noqa: E402
from watcher.runtime.db import open_database  # noqa: E402
from watcher.store import MatchedRecord, Store  # noqa: E402
from watcher.store.chats import Chats  # noqa: E402
from watcher.store.tables import Delivery  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--chats", type=int, default=2000)
    parser.add_argument("--papers", type=int, default=50)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--version", type=int, default=1, help="the version the papers come at")
    parser.add_argument("--revisions", action="store_true", help="every chat asks for them")
    parser.add_argument("--database-url", default="")
    parser.add_argument(
        "--plain", action="store_true", help="only the first case (runs on code before /exclude)"
    )
    args = parser.parse_args()
    with fresh_database(args.database_url, Path(tempfile.mkdtemp(prefix="exclude-"))) as url:
        engine = open_database(url)
        try:
            run(engine, args)
        finally:
            engine.dispose()


def run(engine: Engine, args: argparse.Namespace) -> None:
    store = Store(engine)
    followed, _ = store.follow_person(parse_person("Dezun Dong"))
    chat_ids = subscribe_chats(engine, followed.id, args.chats)
    if args.revisions:
        chats = Chats(engine)
        for chat_id in chat_ids:
            chats.set_notify_revisions(chat_id, True)
    excluding = chat_ids[::10]
    serial = iter(range(1, 1_000_000))

    def batch_ms() -> tuple[float, int]:
        times, queued = [], 0
        for _ in range(args.rounds):
            records = []
            for _ in range(args.papers):
                n = next(serial)
                topic = "A Survey of Routing" if n % 10 == 0 else "Adaptive Routing"
                records.append(
                    make_record(
                        arxiv_id=f"2612.{n:05d}",
                        version=args.version,
                        title=f"{topic} in Dragonfly Networks, Part {n}",
                        abstract="We route packets around congestion in large networks.",
                        authors=["Dezun Dong"],
                    )
                )
            ids = frozenset({followed.id})
            before = _deliveries(engine)
            start = time.perf_counter()
            store.save_records([MatchedRecord(r, ids) for r in records], announce_for=ids)
            times.append((time.perf_counter() - start) * 1000)
            queued += _deliveries(engine) - before
        return statistics.median(times), queued

    if args.plain:
        ms, queued = batch_ms()
        print(f"  no exclusions                       : {ms:8.1f} ms a batch, {queued} queued")
        return
    from watcher.follows.excluded_words import MAX_EXCLUDED, parse_excluded
    from watcher.store.exclusions import ExcludedEntry, add_entries

    def excluding_words(words: list[str]) -> None:
        with Session(engine) as session:
            now = datetime.now(UTC)
            for chat_id in excluding:
                add_entries(session, chat_id, [parse_excluded(w) for w in words], now=now)
            session.commit()

    print(f"{args.chats} chats, batches of {args.papers} papers, median of {args.rounds}:")
    ms, queued = batch_ms()
    print(f"  no exclusions                       : {ms:8.1f} ms a batch, {queued} queued")
    excluding_words([f"nothingword{k}" for k in range(MAX_EXCLUDED)])
    ms, queued = batch_ms()
    print(f"  10% of chats, 20 words none holds   : {ms:8.1f} ms a batch, {queued} queued")
    with Session(engine) as session:  # one of the 20 gives way to a word some papers hold
        session.execute(delete(ExcludedEntry).where(col(ExcludedEntry.text) == "nothingword0"))
        session.commit()
    excluding_words(["survey"])
    ms, queued = batch_ms()
    print(f"  10% of chats, 1 word in 1/10 papers : {ms:8.1f} ms a batch, {queued} queued")


def _deliveries(engine: Engine) -> int:
    with Session(engine) as session:
        return int(session.exec(select(func.count()).select_from(Delivery)).one())


if __name__ == "__main__":
    main()
