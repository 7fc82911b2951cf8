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

- the floor: what parsing every byte the harvest of the page reads costs the libraries our
  parsers are built on: defusedxml's `ElementTree.fromstring` of the page, plus
  `feedparser.parse` of the API's answers for the matched papers' versions (the `arXiv` format
  has no version number, so the harvest asks the API, 100 ids a request);
- `parse_list_records` of the page;
- the harvest's `FollowRules` of all follows (built once, then kept while the follows do not
  change; the followed people are the first authors of every tenth record, and 100,000 other
  names that match nothing; all of them with their history fetched, as every follow the harvest
  serves, so what it stores is announced: the save looks for their chats, of which there are
  none here);
- parse + match (`FollowRules.match` of every record against all follows);
- `parse_feed` of the API's answers;
- the whole harvest of the page with the rules built (`Harvester.harvest`): parse, match, look
  up which matched papers changed, fetch their versions (answers built in memory beforehand,
  so only their parsing counts), save them in the poller's own parts (`Poller._save`) and note
  their datestamps; then the same page harvested again, as every cycle rereads the day before
  its mark (nothing changed: no API request, nothing saved);
- the first harvest after a start or a change of the follows: the rules plus the harvest.

Each time is printed with its ratio to the page's ElementTree parse and to the floor.

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

from tests.fakes.arxiv_api.atom import render_feed  # noqa: E402
from tests.fakes.corpus import make_record  # noqa: E402
from tests.fakes.day import realistic_day  # noqa: E402
from tests.fakes.oai import OaiItem, render_page  # noqa: E402
from tests.harness.databases import empty_database  # noqa: E402
from watcher.arxiv.oai import parse_list_records  # noqa: E402
from watcher.arxiv.parse import parse_feed  # noqa: E402
from watcher.arxiv.records import Author, Record  # noqa: E402
from watcher.follows.followed import Followed  # noqa: E402
from watcher.follows.match import record_matches  # noqa: E402
from watcher.polling.poll import SAVE_CHUNK_MAX, SAVE_CHUNK_MIN, Poller, PollReport  # noqa: E402
from watcher.runtime.db import open_database  # noqa: E402
from watcher.store import MatchedRecord, SaveResult, Store  # noqa: E402

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
    timed(PAGE_FLOOR, started)
    assert root is not None
    started = time.perf_counter()
    parsed = parse_list_records(page).records
    timed("parse_list_records", started)
    assert len(parsed) == records
    del root, parsed  # the service keeps neither: they would only slow its garbage collections
    with empty_database(args.database_url) as url:
        engine = open_database(url)
        store = Store(engine)
        names = list(dict.fromkeys(record.authors[0].name for record in day[::10]))
        for name in names:
            store.follow([name])
        # The harvest serves only follows whose history was fetched (their papers are announced).
        backfilled = datetime(2026, 11, 29, tzinfo=UTC)
        follows = [
            dataclasses.replace(f, last_success=backfilled) for f in [*store.followed(), *others()]
        ]
        client = MemoryArxiv(page, {})
        # The service's own poller: its harvester, and its save in parts of adaptive size.
        poller = Poller(
            store=store,
            client=client,  # type: ignore[arg-type]
            poll_interval=3600,
            oai_url="http://oai.test/oai",
            source="harvest",
            clock=lambda: datetime(2026, 12, 1, tzinfo=UTC),
        )
        harvester = poller.harvest
        started = time.perf_counter()
        rules = harvester.rules_for(follows)
        timed(f"FollowRules of {len(follows):,}", started)
        started = time.perf_counter()
        matches = {
            record.arxiv_id: ids
            for record in parse_list_records(page).records
            if (
                ids := rules.match(
                    record.authors, record.categories, title=record.title, abstract=record.abstract
                )
            )
        }
        timed("parse + match", started)
        client.api_answers = api_answers(day, list(matches))
        started = time.perf_counter()
        for body in client.api_answers.values():
            feedparser.parse(io.BytesIO(body))
        timed(ANSWERS_FLOOR, started)
        started = time.perf_counter()
        for body in client.api_answers.values():
            parse_feed(body)
        timed("parse_feed of the API answers", started)

        async def save(matched: list[MatchedRecord], announce_for: frozenset[int]) -> SaveResult:
            return await poller._save(matched, announce_for=announce_for, report=PollReport())

        async def harvest() -> tuple[int, int, int]:
            outcome = await harvester.harvest(follows, save=save)
            return outcome.matched, outcome.looked_up, outcome.silent + outcome.new

        profile = cProfile.Profile() if args.profile else None
        if profile:
            profile.enable()
        started = time.perf_counter()
        matched, requests, stored = asyncio.run(harvest())
        timed(WHOLE_PATH, started)
        started = time.perf_counter()
        again = asyncio.run(harvest())
        timed("harvest again, nothing new", started)
        if profile:
            profile.disable()
            profile.dump_stats(args.profile)
        engine.dispose()
    assert matched == stored == len(matches), (matched, stored, len(matches))
    assert again == (matched, 0, 0), again
    floor = timings[PAGE_FLOOR] + timings[ANSWERS_FLOOR]
    print(
        f"{records} records, {len(page) / 1e6:.1f} MB, {url.split(':')[0]}; "
        f"{len(names)} followed names + {OTHER_FOLLOWS:,} others; {matched} records matched, "
        f"{requests} API requests for their versions "
        f"({sum(map(len, client.api_answers.values())) / 1e6:.1f} MB)"
    )
    print(f"  {'':<34} {'':>8}   {'× page':>6}   {'× floor':>7}")
    for name, seconds in timings.items():
        print(
            f"  {name:<34} {seconds:6.2f} s   {seconds / timings[PAGE_FLOOR]:5.1f}×"
            f"   {seconds / floor:6.1f}×"
        )
    first = timings[WHOLE_PATH] + timings[f"FollowRules of {len(follows):,}"]
    print(f"  {'floor: page + answers':<34} {floor:6.2f} s")
    print(
        f"  {'first harvest (rules + harvest)':<34} {first:6.2f} s   "
        f"{first / timings[PAGE_FLOOR]:5.1f}×   {first / floor:6.1f}×"
    )


PAGE_FLOOR = "ElementTree of the page"
ANSWERS_FLOOR = "feedparser of the API answers"
WHOLE_PATH = "harvest: parse, match, versions, store"


def others() -> list[Followed]:
    """OTHER_FOLLOWS followed people who match nothing: the harvest's cost is per record."""
    return [
        Followed(
            id=-n, name=f"Nobody Person{n}", aliases=(), record_count=0, last_attempt=None,
            last_success=None, last_error=None, consecutive_failures=0, next_poll=None,
        )
        for n in range(1, OTHER_FOLLOWS + 1)
    ]  # fmt: skip


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
