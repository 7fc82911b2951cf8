"""What does one 2,000-entry arXiv API page cost us, next to what feedparser alone costs?

Builds one results page of RECORDS entries in arXiv's exact layout (the fake arXiv's renderer):
a group of 10 followed authors, each entry by one of them and 2-12 co-authors (a third of them
with affiliations), abstracts of about 1,000 characters, 1-3 categories, some comments, DOIs and
journal references. Then, all in one run and on the same bytes:

- `feedparser.parse` alone (the floor: our parser is built on it);
- `parse_feed` (feedparser plus our own pass over the entries);
- parse + match (`record_matches` for each of the group's authors, as the poll does);
- the whole path: parse + match + `Store.save_records` into an empty database, in the same
  save parts as the poll (`SAVE_CHUNK_MIN` records first, then at most double), as a first poll
  (nothing announced) and again as a later poll of the same page at version 2 (all revisions);

and prints each time and its ratio to feedparser's.

    .venv/bin/python bench/pipeline.py [--records 2000] [--database-url URL] [--profile FILE]

A PostgreSQL `--database-url` gets a fresh schema, dropped afterwards.
"""

from __future__ import annotations

import argparse
import cProfile
import dataclasses
import io
import random
import sys
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

import feedparser  # noqa: E402

from tests.databases import empty_database  # noqa: E402
from tests.fakes.arxiv_api import render_feed  # noqa: E402
from tests.fakes.corpus import make_record  # noqa: E402
from watcher.db import open_database  # noqa: E402
from watcher.match import record_matches  # noqa: E402
from watcher.parse import parse_feed  # noqa: E402
from watcher.poll import SAVE_CHUNK_MAX, SAVE_CHUNK_MIN  # noqa: E402
from watcher.records import Author, Record  # noqa: E402
from watcher.store import MatchedRecord, Store  # noqa: E402

FOLLOWED = [f"Followed Person{n}" for n in range(10)]
CATEGORIES = ["cs.DC", "cs.NI", "cs.LG", "math.CO", "hep-th", "quant-ph", "astro-ph.GA"]


def page(records: int, version: int) -> bytes:
    rng = random.Random(records)
    start = datetime(2026, 6, 1, tzinfo=UTC)
    entries = []
    for n in range(records):
        authors = [Author(rng.choice(FOLLOWED))]
        for k in range(rng.randint(2, 12)):
            affiliations = (f"University {rng.randint(1, 300)}",) if rng.random() < 0.33 else ()
            authors.append(Author(f"Co Author{rng.randint(1, 5000)} {k}", affiliations))
        categories = tuple(dict.fromkeys(rng.choices(CATEGORIES, k=rng.randint(1, 3))))
        arxiv_id = f"2606.{n:05d}"
        entries.append(
            make_record(
                arxiv_id=arxiv_id,
                version=version,
                published=start - timedelta(hours=n),
                updated=start - timedelta(hours=n) + timedelta(days=version - 1),
                title=f"On the {rng.randint(1, 10**6)} problem of things, revisited {version}",
                abstract=" ".join(f"word{rng.randint(1, 9999)}" for _ in range(120)),
                authors=authors,
                primary_category=categories[0],
                categories=categories,
                comment="12 pages, 3 figures" if n % 2 else None,
                doi=f"10.1000/x{n}" if n % 3 == 0 else None,
                journal_ref=f"J. Things {n} (2026)" if n % 5 == 0 else None,
                abs_url=f"https://arxiv.org/abs/{arxiv_id}v{version}",
                pdf_url=f"https://arxiv.org/pdf/{arxiv_id}v{version}",
            )
        )
    return render_feed(
        entries,
        search_query="au:x",
        id_list="",
        start=0,
        max_results=records,
        total_results=records,
        now=start,
    )


def match(records: list[Record], followed: dict[int, str]) -> list[MatchedRecord]:
    return [
        MatchedRecord(record, ids)
        for record in records
        if (ids := frozenset(i for i, name in followed.items() if record_matches(record, [name])))
    ]


def save_in_parts(store: Store, matched: list[MatchedRecord]) -> int:
    """As `Poller._save` does, timed per part: first SAVE_CHUNK_MIN, then at most double."""
    done, size, stored = 0, SAVE_CHUNK_MIN, 0
    while done < len(matched):
        part = store.save_records(matched[done : done + size], announce_for=frozenset())
        stored += part.silent
        done += size
        size = min(2 * size, SAVE_CHUNK_MAX)
    return stored


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--records", type=int, default=2000)
    parser.add_argument("--database-url", default=None)
    parser.add_argument("--profile", default=None, help="write a cProfile of the whole path")
    args = parser.parse_args()
    first, second = page(args.records, 1), page(args.records, 2)
    timings: dict[str, float] = {}

    def timed(name: str, started: float) -> None:
        timings[name] = time.perf_counter() - started

    started = time.perf_counter()
    feed = feedparser.parse(io.BytesIO(first))
    timed("feedparser.parse", started)
    assert len(feed.entries) == args.records
    started = time.perf_counter()
    parsed = parse_feed(first).records
    timed("parse_feed", started)
    with empty_database(args.database_url) as url:
        engine = open_database(url)
        store = Store(engine)
        followed = {store.follow([name])[0].id: name for name in FOLLOWED}
        started = time.perf_counter()
        matched = match(parse_feed(first).records, followed)
        timed("parse + match", started)
        profile = cProfile.Profile() if args.profile else None
        started = time.perf_counter()
        if profile:
            profile.enable()
        matched = match(parse_feed(first).records, followed)
        stored = save_in_parts(store, matched)
        timed("parse + match + store, new", started)
        started = time.perf_counter()
        revised = match(parse_feed(second).records, followed)
        again = save_in_parts(store, revised)
        timed("parse + match + store, v2", started)
        if profile:
            profile.disable()
            profile.dump_stats(args.profile)
        engine.dispose()
    assert stored == again == len(parsed) == len(matched)
    assert all(dataclasses.is_dataclass(r) for r in parsed)
    floor = timings["feedparser.parse"]
    print(f"{args.records} entries, {len(first) / 1e6:.1f} MB, {url.split(':')[0]}")
    for name, seconds in timings.items():
        print(f"  {name:<30} {seconds:6.2f} s   {seconds / floor:4.1f}× feedparser")


if __name__ == "__main__":
    main()
