"""Suggestions through the real store (issue 32): `bench/suggestions.py --store` runs this.

A first process (not measured) builds the database: every migration applied, `--chats` chats with
suggestions on, each with a stored profile built from a real author's papers announced before the
batch (the sample's newest `--batch` papers), cycling through the authors with 3 to 60 such papers,
as `--cost` builds them; those papers stored, their terms kept (as the batches that read them keep
them); each chat's 3 newest papers recorded as announced since its profile was last read (the batch
folds them in first, `watcher.store.profiles.current`); and the document frequencies those of the
whole sample. A second process stands for the service: it reads the batch and hands it to the batch
hook as the service does after the listing, to a ranking process of its own
(`watcher.polling.ranking_process`), which claims the batch, keeps its papers and counts their
terms, prepares it, reads the destinations and their profiles a page at a time, ranks, explains,
stores the papers shown and queues one message a destination, in the store's transactions.
Printed: the ranking's wall clock, the ranking process's CPU seconds and peak RSS (ru_maxrss of
the child), the messages queued; on PostgreSQL also the server's CPU; and the resident memory of
the process standing for the service, before and after (what the batch left in the service).
With `--in-process` (run this file directly) the second process ranks the batch itself, as the
service did before the ranking process: its own CPU and peak.

    .venv/bin/python bench/suggestions.py --store [--chats 10000] [--batch 2000]
        [--database-url postgresql+psycopg://postgres@127.0.0.1:5432/test]
    .venv/bin/python bench/suggestions_store.py --in-process [--database-url URL]

With `--announce` (run this file directly), the second process instead subscribes every chat to
one author and times `save_records` of one new paper of his (a delivery queued to each chat, and
the paper recorded for each chat's profile in the same transaction), median of 20 saves, then
20 more with no profile kept (the save as it was before suggestions). Its peak RSS is the whole
sample's, read to pick the papers.

    .venv/bin/python bench/suggestions_store.py --announce [--chats 10000] [--database-url URL]
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import json
import resource
import subprocess
import sys
import tempfile
import time
from datetime import UTC, date, datetime
from pathlib import Path

from sqlalchemy import delete
from sqlmodel import Session

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from watcher.arxiv.records import Author, Record  # noqa: E402
from watcher.clock import SYSTEM_CLOCK  # noqa: E402
from watcher.runtime.db import open_database  # noqa: E402
from watcher.store import MatchedRecord, Store, paper_terms  # noqa: E402
from watcher.store.destinations import DestinationSetting  # noqa: E402
from watcher.store.profiles import dump  # noqa: E402
from watcher.store.suggesting import SuggestionStore  # noqa: E402
from watcher.store.suggestion_tables import (  # noqa: E402
    ProfilePaper,
    SuggestionProfile,
    TermFrequency,
)
from watcher.store.tables import Chat  # noqa: E402
from watcher.suggestions.frequencies import DocumentFrequencies  # noqa: E402
from watcher.suggestions.profile import Profile  # noqa: E402
from watcher.suggestions.terms import paper_terms as terms_of  # noqa: E402
from watcher.suggestions.terms import term_frequencies  # noqa: E402

FIRST_CHAT = 20_000_001
MAILING = date(2026, 5, 22)
PENDING = 3  # papers announced to each chat since its profile was last read


def as_record(item: dict[str, object]) -> Record:
    published = datetime.fromisoformat(str(item["published"])).replace(tzinfo=UTC)
    arxiv_id = str(item["id"])
    categories = tuple(str(c) for c in item["categories"])  # type: ignore[attr-defined]
    return Record(
        arxiv_id=arxiv_id,
        version=1,
        title=str(item["title"]),
        abstract=str(item["abstract"]),
        authors=tuple(Author(str(a)) for a in item["authors"]),  # type: ignore[attr-defined]
        primary_category=str(item["primary"]),
        categories=categories,
        published=published,
        updated=published,
        abs_url=f"https://arxiv.org/abs/{arxiv_id}v1",
        pdf_url=f"https://arxiv.org/pdf/{arxiv_id}v1",
    )


def sample(args: argparse.Namespace) -> list[dict[str, object]]:
    from bench.suggestions import records

    return sorted(records(args.sample), key=lambda r: (str(r["published"]), str(r["id"])))


def build(args: argparse.Namespace) -> None:
    """The database as a service that has run a while holds it (see the module docstring)."""
    everything = sample(args)
    before = everything[: -args.batch]
    by_author: dict[str, list[dict[str, object]]] = collections.defaultdict(list)
    for item in before:
        for name in set(item["authors"]):  # type: ignore[call-overload]
            by_author[str(name)].append(item)
    authors = sorted(name for name, own in by_author.items() if 3 <= len(own) <= 60)
    used = [authors[chat % len(authors)] for chat in range(args.chats)]
    wanted = {str(item["id"]): item for name in set(used) for item in by_author[name]}
    engine = open_database(args.database_url)
    store = Store(engine)
    records = [as_record(item) for item in wanted.values()]
    for start in range(0, len(records), 500):
        part = [MatchedRecord(r, frozenset()) for r in records[start : start + 500]]
        store.save_records(part, announce_for=frozenset())
    counted = DocumentFrequencies()
    for item in everything:
        counted.add(terms_of(str(item["title"]), str(item["abstract"])).counts)
    ids = SuggestionStore(engine).stored_ids(list(wanted))
    weights = {
        arxiv_id: term_frequencies(terms_of(str(item["title"]), str(item["abstract"])))
        for arxiv_id, item in wanted.items()
    }
    profiles: dict[str, Profile] = {}
    with Session(engine) as session:
        # Their terms kept, as the batches of the mailings that brought them kept them (the
        # save keeps none); the frequencies then set to the whole sample's.
        paper_terms.count_papers(
            session,
            [
                (
                    arxiv_id,
                    paper_terms.counts_json(terms_of(str(item["title"]), str(item["abstract"]))),
                )
                for arxiv_id, item in wanted.items()
            ],
            now=datetime.now(UTC),
        )
        session.execute(delete(TermFrequency))
        paper_terms.add_frequencies(session, {**counted.counts, "": counted.papers})
        chat_ids = range(FIRST_CHAT, FIRST_CHAT + args.chats)
        session.add_all(Chat(id=chat_id, kind="private") for chat_id in chat_ids)
        session.flush()
        now = datetime.now(UTC)
        for chat_id, name in zip(chat_ids, used, strict=True):
            profile = profiles.get(name)
            if profile is None:
                profile = profiles[name] = Profile.built(
                    (
                        (
                            str(ids[str(item["id"])]),
                            weights[str(item["id"])],
                            datetime.fromisoformat(str(item["published"])).replace(tzinfo=UTC),
                        )
                        for item in by_author[name]
                    ),
                    counted,
                )
            stored_weights, examples = dump(profile)
            # The day's announcements recorded by the saves, not folded in yet: the batch
            # folds them (`watcher.store.profiles.current`) before it ranks.
            for paper_id in profile.examples[-PENDING:]:
                session.add(
                    ProfilePaper(
                        chat_id=chat_id, paper_id=int(paper_id), reading="announced", at=now
                    )
                )
            session.add(DestinationSetting(chat_id=chat_id, suggest=True, suggest_count=3))
            session.add(
                SuggestionProfile(
                    chat_id=chat_id, weights=stored_weights, examples=examples, updated=now
                )
            )
        session.commit()
    (Path(args.folder) / "batch.json").write_text(
        json.dumps([str(item["id"]) for item in everything[-args.batch :]])
    )
    engine.dispose()


def resident_mb() -> float:
    """This process's resident memory now (VmRSS), in MB."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise RuntimeError("no VmRSS")


def run(args: argparse.Namespace) -> None:
    """Measured: the batch hook over the built database, as the service runs it: in a ranking
    process of its own (`watcher.polling.ranking_process`), or here with `--in-process`."""
    from watcher.polling.ranking_process import RankingProcess
    from watcher.polling.suggested_batch import BatchSuggester

    wanted = set(json.loads((Path(args.folder) / "batch.json").read_text()))
    from bench.suggestions import records

    batch = [as_record(item) for item in records(args.sample) if item["id"] in wanted]
    engine = open_database(args.database_url)
    if args.in_process:
        suggester: BatchSuggester | RankingProcess = BatchSuggester(
            SuggestionStore(engine), SYSTEM_CLOCK
        )
    else:
        suggester = RankingProcess(args.database_url, SYSTEM_CLOCK)
    before = resident_mb()
    started = time.perf_counter()
    report = asyncio.run(suggester.after_batch(MAILING, batch, source="listing"))
    took = time.perf_counter() - started
    ranker = resource.getrusage(
        resource.RUSAGE_SELF if args.in_process else resource.RUSAGE_CHILDREN
    )
    print(
        json.dumps(
            {
                "total_s": took,
                "cpu_s": ranker.ru_utime + ranker.ru_stime,
                "peak_rss_mb": ranker.ru_maxrss / 1024,
                "service_before_mb": before,
                "service_after_mb": resident_mb(),
                "destinations": report.destinations,
                "queued": report.queued,
                "candidates": report.candidates,
            }
        )
    )
    engine.dispose()


def announce(args: argparse.Namespace) -> None:
    """Measured: papers announced to every chat, each chat's profile updated in the save
    (`watcher.store.profiles.announced`), against the same save with no profile kept."""
    from sqlmodel import col, select

    from watcher.follows.rules import parse_person
    from watcher.store.tables import Subscription

    engine = open_database(args.database_url)
    store = Store(engine)
    followed, _ = store.follow_person(parse_person("Dezun Dong"))
    with Session(engine) as session:
        chat_ids = session.exec(select(Chat.id).order_by(col(Chat.id))).all()
        session.add_all(
            Subscription(chat_id=chat_id, followed_author_id=followed.id) for chat_id in chat_ids
        )
        session.commit()
    everything = sample(args)[-args.batch - 40 : -args.batch]
    ids = frozenset({followed.id})
    timings: dict[str, list[float]] = {"with profiles": [], "without": []}
    for round_number, item in enumerate(everything):
        if round_number == len(everything) // 2:
            with Session(engine) as session:
                session.execute(delete(SuggestionProfile))
                session.commit()
        record = as_record({**item, "authors": ["Dezun Dong"]})
        began = time.perf_counter()
        store.save_records([MatchedRecord(record, ids)], announce_for=ids)
        took = time.perf_counter() - began
        key = "with profiles" if round_number < len(everything) // 2 else "without"
        timings[key].append(took)
    usage = resource.getrusage(resource.RUSAGE_SELF)
    print(
        json.dumps(
            {
                "chats": len(chat_ids),
                **{key: sorted(values)[len(values) // 2] for key, values in timings.items()},
                "peak_rss_mb": usage.ru_maxrss / 1024,
            }
        )
    )
    engine.dispose()


def measure(args: argparse.Namespace) -> None:
    from bench.fanout import fresh_database, postgres_cpu_seconds

    with (
        tempfile.TemporaryDirectory(prefix="suggestions-store-") as folder,
        fresh_database(args.database_url, Path(folder)) as url,
    ):
        passed = [
            f"--chats={args.chats}",
            f"--batch={args.batch}",
            f"--folder={folder}",
            f"--sample={args.sample}",
            f"--database-url={url}",
            *(["--in-process"] if args.in_process else []),
        ]
        started = time.perf_counter()
        subprocess.run([sys.executable, __file__, "--build", *passed], check=True)
        print(f"database of {args.chats:,} chats built in {time.perf_counter() - started:.0f} s")
        postgres = url.startswith("postgresql")
        server_before = postgres_cpu_seconds() if postgres else 0.0
        out = subprocess.run(
            [sys.executable, __file__, "--announce-run" if args.announce else "--run", *passed],
            check=True,
            capture_output=True,
            text=True,
        ).stdout
        server = postgres_cpu_seconds() - server_before if postgres else 0.0
        if args.announce:
            found = json.loads(out.strip().splitlines()[-1])
            print(
                f"{'PostgreSQL' if postgres else 'SQLite'}: one paper announced to "
                f"{found['chats']:,} chats, median of 20 saves: "
                f"{found['with profiles']:.2f} s with every chat's profile updated, "
                f"{found['without']:.2f} s with no profile kept; peak RSS "
                f"{found['peak_rss_mb']:.0f} MB"
            )
            return
        found = json.loads(out.strip().splitlines()[-1])
        print(
            f"{'PostgreSQL' if postgres else 'SQLite'}: {found['destinations']:,} destinations x "
            f"{found['candidates']:,} papers: {found['total_s']:.1f} s "
            f"({found['cpu_s']:.1f} CPU seconds"
            + (f", the server {server:.1f}" if postgres else "")
            + f"), peak RSS {found['peak_rss_mb']:.1f} MB; {found['queued']:,} messages queued; "
            f"the calling process (the service) {found['service_before_mb']:.1f} MB resident "
            f"before, {found['service_after_mb']:.1f} MB after"
        )


def main() -> None:
    from bench.suggestions import SAMPLE

    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--chats", type=int, default=10_000)
    parser.add_argument("--batch", type=int, default=2_000)
    parser.add_argument("--sample", type=Path, default=SAMPLE)
    parser.add_argument("--database-url", default="")
    parser.add_argument("--folder", default="")
    parser.add_argument("--build", action="store_true")
    parser.add_argument("--run", action="store_true")
    parser.add_argument(
        "--announce", action="store_true", help="time the profiles' update in a save instead"
    )
    parser.add_argument("--announce-run", action="store_true")
    parser.add_argument(
        "--in-process",
        action="store_true",
        help="rank in the measured process itself, not in a ranking process as the service does",
    )
    args = parser.parse_args()
    if args.build:
        build(args)
    elif args.run:
        run(args)
    elif args.announce_run:
        announce(args)
    else:
        measure(args)


if __name__ == "__main__":
    main()
