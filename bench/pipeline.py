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

`--oai` measures harvest mode instead, on one `ListRecords` page of a realistic day of 2,500
records (`tests/fakes/day.py`, in the fake's exact OAI-PMH layout), all in one run:

- defusedxml's `ElementTree.fromstring` of the page alone (the floor: `parse_list_records` is
  built on it);
- `parse_list_records`;
- building `FollowRules` of all follows, as every harvest does once a cycle (the followed people
  are the first authors of every tenth record, and 100,000 other names that match nothing);
- parse + match (`FollowRules.match_authors` of every record against all follows);
- the whole harvest of the page (`Harvester.harvest`): the rules, parse, match, look up which
  matched papers changed, fetch their versions from the API (answers built in memory
  beforehand, so only their parsing counts), save them as the poll does (`Store.save_records`)
  and note their datestamps; then the same page harvested again, as every cycle rereads the
  day before its mark (nothing changed: no API request, nothing saved).

    .venv/bin/python bench/pipeline.py --oai [--records 2500] [--database-url URL] [--profile FILE]

A PostgreSQL `--database-url` gets a fresh schema, dropped afterwards.
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import dataclasses
import io
import random
import sys
import time
from collections.abc import Mapping, Sequence
from datetime import UTC, date, datetime, timedelta
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

import defusedxml.ElementTree as SafeElementTree  # noqa: E402
import feedparser  # noqa: E402

from tests.databases import empty_database  # noqa: E402
from tests.fakes.arxiv_api import render_feed  # noqa: E402
from tests.fakes.corpus import make_record  # noqa: E402
from tests.fakes.day import realistic_day  # noqa: E402
from tests.fakes.oai import OaiItem, render_page  # noqa: E402
from watcher.aio import in_db_thread  # noqa: E402
from watcher.db import open_database  # noqa: E402
from watcher.match import FollowRules, record_matches  # noqa: E402
from watcher.parse import parse_feed  # noqa: E402
from watcher.poll import SAVE_CHUNK_MAX, SAVE_CHUNK_MIN  # noqa: E402
from watcher.records import Author, Record  # noqa: E402
from watcher.sources.harvest import Harvester  # noqa: E402
from watcher.sources.oai import parse_list_records  # noqa: E402
from watcher.store import Followed, MatchedRecord, SaveResult, Store  # noqa: E402

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


DAY = date(2026, 11, 30)
OTHER_FOLLOWS = 100_000


class MemoryArxiv:
    """The far side of a harvest, from memory: the page for any `ListRecords`, and for an
    `id_list` query the API's answer, rendered before the clock starts."""

    def __init__(self, page: bytes, api_answers: Mapping[tuple[str, ...], bytes]) -> None:
        self.page = page
        self.api_answers = api_answers

    async def get(self, url: str, params: Mapping[str, str]) -> bytes:
        return self.page

    async def query(self, *, id_list: Sequence[str] = (), **_: object) -> bytes:
        return self.api_answers[tuple(id_list)]


def oai_day(records: int) -> tuple[bytes, list[Record]]:
    """One `ListRecords` page of a realistic day, and the records it was made of."""
    day = realistic_day(DAY, count=records)
    items = [OaiItem(record, DAY) for record in day]
    params = {"verb": "ListRecords", "metadataPrefix": "arXiv", "from": DAY.isoformat()}
    page = render_page(items, names={}, params=params, base="http://oai.test/oai", token=None)
    return page, day


def api_answers(day: list[Record], matched: list[str]) -> dict[tuple[str, ...], bytes]:
    """The API's answer to each `id_list` the harvest will send (100 matched ids a request)."""
    by_id = {record.arxiv_id: record for record in day}
    answers = {}
    for start in range(0, len(matched), 100):
        chunk = tuple(matched[start : start + 100])
        answers[chunk] = render_feed(
            [by_id[arxiv_id] for arxiv_id in chunk],
            search_query="",
            id_list=",".join(chunk),
            start=0,
            max_results=len(chunk),
            total_results=len(chunk),
            now=datetime(2026, 12, 1, tzinfo=UTC),
        )
    return answers


def oai_main(args: argparse.Namespace) -> None:
    records = args.records or 2500
    page, day = oai_day(records)
    timings: dict[str, float] = {}

    def timed(name: str, started: float) -> None:
        timings[name] = time.perf_counter() - started

    started = time.perf_counter()
    root = SafeElementTree.fromstring(page)
    timed("defusedxml ElementTree", started)
    assert root is not None
    started = time.perf_counter()
    parsed = parse_list_records(page).records
    timed("parse_list_records", started)
    assert len(parsed) == records
    with empty_database(args.database_url) as url:
        engine = open_database(url)
        store = Store(engine)
        names = list(dict.fromkeys(record.authors[0].name for record in day[::10]))
        for name in names:
            store.follow([name])
        followed = store.followed()
        others = [
            Followed(
                id=-n, name=f"Nobody Person{n}", aliases=(), record_count=0, last_attempt=None,
                last_success=None, last_error=None, consecutive_failures=0, next_poll=None,
            )
            for n in range(1, OTHER_FOLLOWS + 1)
        ]  # fmt: skip
        started = time.perf_counter()
        rules = FollowRules((f.id, f.names) for f in [*followed, *others])
        timed(f"FollowRules of {len(followed) + len(others):,}", started)
        started = time.perf_counter()
        matches = {
            record.arxiv_id: ids
            for record in parse_list_records(page).records
            if (ids := rules.match_authors(record.authors))
        }
        timed("parse + match", started)
        answers = api_answers(day, list(matches))
        started = time.perf_counter()
        for body in answers.values():
            parse_feed(body)
        timed("(parse_feed of the API answers)", started)
        client = MemoryArxiv(page, answers)
        harvester = Harvester(
            store=store,
            client=client,  # type: ignore[arg-type]
            oai_url="http://oai.test/oai",
            poll_interval=timedelta(hours=1),
            window=timedelta(days=7),
            clock=lambda: datetime(2026, 12, 1, tzinfo=UTC),
        )

        async def save(matched: list[MatchedRecord], announce_for: frozenset[int]) -> SaveResult:
            total, done, size = SaveResult(), 0, SAVE_CHUNK_MIN
            while done < len(matched):
                part = await in_db_thread(
                    store.save_records, matched[done : done + size], announce_for=announce_for
                )
                total.new.extend(part.new)
                total.silent += part.silent
                done += size
                size = min(2 * size, SAVE_CHUNK_MAX)
            return total

        async def harvest() -> tuple[int, int, int]:
            outcome = await harvester.harvest([*followed, *others], save=save)
            return outcome.matched, outcome.looked_up, outcome.silent + outcome.new

        profile = cProfile.Profile() if args.profile else None
        if profile:
            profile.enable()
        started = time.perf_counter()
        matched, requests, stored = asyncio.run(harvest())
        timed("harvest: + versions + store", started)
        started = time.perf_counter()
        again = asyncio.run(harvest())
        timed("harvest again, nothing new", started)
        if profile:
            profile.disable()
            profile.dump_stats(args.profile)
        engine.dispose()
    assert matched == stored == len(matches), (matched, stored, len(matches))
    assert again == (matched, 0, 0), again
    floor = timings["defusedxml ElementTree"]
    print(
        f"{records} records, {len(page) / 1e6:.1f} MB, {url.split(':')[0]}; "
        f"{len(followed)} followed names + {OTHER_FOLLOWS:,} others; {matched} records matched, "
        f"{requests} API requests for their versions"
    )
    for name, seconds in timings.items():
        print(f"  {name:<30} {seconds:6.2f} s   {seconds / floor:4.1f}× ElementTree")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--records", type=int, default=None, help="2000 (API), 2500 (--oai)")
    parser.add_argument("--database-url", default=None)
    parser.add_argument("--profile", default=None, help="write a cProfile of the whole path")
    parser.add_argument("--oai", action="store_true", help="an OAI-PMH page (harvest mode)")
    args = parser.parse_args()
    if args.oai:
        oai_main(args)
        return
    args.records = args.records or 2000
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
