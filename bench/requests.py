"""arXiv requests per daily cycle, by number of followed people, in api and in harvest mode.

For each count N: N followed people (their histories already fetched, as after their first
polls), and the fake arXiv (in this process, over real HTTP) holding a realistic day of 2,500
records (`tests/fakes/day.py`) plus one new paper by each of the first min(N, 150) followed
people. Then one poll cycle, as `arxiv-watcher poll` runs it, with ARXIV_MIN_INTERVAL=0:

- harvest mode (WATCH_SOURCE=harvest): the OAI-PMH pages read and the API requests for the
  matched papers' versions, as the fake received them;
- api mode (WATCH_SOURCE=api): the API requests, as the fake received them, up to
  `--run-api-up-to` follows; above that computed from the grouping (`group_queries`: one request
  per group of about 30 names; none of these groups has more than a page of results), because
  at arXiv's 3 s a request the run would take hours, and even against the fake it is slow.

Then the matching throughput: the day's records (parsed from the fake's OAI-PMH answer) matched
against 100,000 followed names, records a second.

    .venv/bin/python bench/requests.py [--counts 1,100,10000,100000] [--run-api-up-to 10000]
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from sqlalchemy import insert  # noqa: E402

from tests.fakes.arxiv_api import FakeArxiv  # noqa: E402
from tests.fakes.corpus import make_record  # noqa: E402
from tests.fakes.day import realistic_day  # noqa: E402
from watcher.arxiv.fetch import ArxivClient  # noqa: E402
from watcher.arxiv.oai import parse_list_records  # noqa: E402
from watcher.arxiv.queries import group_queries  # noqa: E402
from watcher.arxiv.records import Record  # noqa: E402
from watcher.follows.match import FollowRules  # noqa: E402
from watcher.polling.poll import Poller  # noqa: E402
from watcher.runtime.db import open_database  # noqa: E402
from watcher.store import Store, key_of  # noqa: E402
from watcher.store.tables import FollowedAuthor, PollState  # noqa: E402

MATCHED_MAX = 150
_SYLLABLES = [
    "ka", "lo", "mi", "ren", "sa", "to", "vi", "nu", "pe", "qu", "ra", "se", "ti", "ul", "va",
    "wen", "xi", "yo", "za", "bo", "ce", "da", "el", "fa", "go", "ha", "il", "jo", "ko", "lu",
    "ma", "ne", "or", "pi", "ro", "su", "ta", "un", "ve", "wo",
]  # fmt: skip


def person(index: int) -> str:
    """A unique, name-like person for each index, unlike anyone in the generated day."""
    s = _SYLLABLES
    given = (s[index % 40] + s[index // 40 % 40]).capitalize()
    family = (s[index // 1600 % 40] + s[index // 64000 % 40] + "ström").capitalize()
    return f"{given} {family}"


def follow_all(url: str, names: list[str], since: datetime) -> None:
    """N follows in two bulk inserts: `Store.follow` one by one would take minutes."""
    engine = open_database(url)
    with engine.begin() as connection:
        connection.execute(
            insert(FollowedAuthor),
            [{"id": i + 1, "name": n, "rule_key": key_of(n), "aliases": "", "watched": True,
              "created": since} for i, n in enumerate(names)],
        )  # fmt: skip
        connection.execute(
            insert(PollState),
            [{"followed_author_id": i + 1, "last_attempt": since, "last_success": since,
              "consecutive_failures": 0} for i in range(len(names))],
        )  # fmt: skip
    engine.dispose()


async def cycle(url: str, fake: FakeArxiv, source: str) -> tuple[int, int, float]:
    """One forced poll; returns (OAI requests, API requests, seconds)."""
    store = Store(open_database(url))
    oai, api = len(fake.oai_requests()), len(fake.api_requests())
    began = time.perf_counter()
    async with ArxivClient(fake.url, min_interval=0) as client:
        poller = Poller(
            store=store, client=client, poll_interval=86400, source=source,  # type: ignore[arg-type]
            oai_url=fake.oai_url,
        )  # fmt: skip
        report = await poller.poll(force=True)
    took = time.perf_counter() - began
    store.engine.dispose()
    if report.failures:
        raise RuntimeError(f"the {source} cycle failed: {report.failures}")
    return len(fake.oai_requests()) - oai, len(fake.api_requests()) - api, took


def day_with_news(names: list[str], today: datetime) -> list[Record]:
    day = realistic_day(today.date())
    news = [
        make_record(
            arxiv_id=f"{today:%y%m}.{40000 + i:05d}",
            title=f"New results {i}",
            authors=["Ann Other", name],
            published=today - timedelta(hours=1),
        )
        for i, name in enumerate(names[:MATCHED_MAX])
    ]
    return day + news


async def measure(count: int, run_api_up_to: int) -> dict[str, object]:
    today = datetime.now(UTC)
    names = [person(i) for i in range(count)]
    with tempfile.TemporaryDirectory() as folder, FakeArxiv(day_with_news(names, today)) as fake:
        url = f"sqlite:///{folder}/bench.db"
        follow_all(url, names, today - timedelta(days=1))
        oai, api, took = await cycle(url, fake, "harvest")
        row: dict[str, object] = {
            "follows": count,
            "matched": min(count, MATCHED_MAX),
            "harvest_pages": oai,
            "harvest_api": api,
            "harvest_seconds": took,
        }
        groups = len(group_queries([[n] for n in names]))
        if count <= run_api_up_to:
            _, api_requests, api_took = await cycle(url, fake, "api")
            row |= {"api": api_requests, "api_how": "run", "api_seconds": api_took}
        else:
            row |= {"api": groups, "api_how": "computed", "api_seconds": None}
        row["groups"] = groups
        return row


def matching_throughput(follows: int = 100_000) -> tuple[float, int]:
    """Records a second matched against `follows` names; the day parsed from the fake's XML."""
    today = datetime.now(UTC)
    with FakeArxiv(realistic_day(today.date())) as fake:
        import httpx

        params = {"verb": "ListRecords", "metadataPrefix": "arXiv", "from": f"{today:%Y-%m-%d}"}
        records = parse_list_records(httpx.get(fake.oai_url, params=params, timeout=60).content)
    rules = FollowRules((i, [person(i)]) for i in range(follows))
    rules.add(follows, ["Wei Wang"])  # a common name of the day: some records do match
    rounds, matched = 20, 0
    began = time.perf_counter()
    for _ in range(rounds):
        matched = sum(1 for r in records.records if rules.match_authors(r.authors))
    seconds = time.perf_counter() - began
    return rounds * len(records.records) / seconds, matched


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--counts", default="1,100,10000,100000")
    parser.add_argument("--run-api-up-to", type=int, default=10_000)
    args = parser.parse_args()
    print("| follows | api requests | api at 3 s/request | harvest: OAI pages + API "
          "requests (matched papers) | harvest at 3 s/request |")  # fmt: skip
    print("|---|---|---|---|---|")
    for count in (int(c) for c in args.counts.split(",")):
        row = asyncio.run(measure(count, args.run_api_up_to))
        api = row["api"]
        assert isinstance(api, int)
        pages, lookups = row["harvest_pages"], row["harvest_api"]
        assert isinstance(pages, int) and isinstance(lookups, int)
        print(
            f"| {count:,} | {api:,} ({row['api_how']}) | {api * 3 / 60:.1f} min | "
            f"{pages} + {lookups} = {pages + lookups} ({row['matched']}) | "
            f"{(pages + lookups) * 3} s |",
            flush=True,
        )
    rate, matched = matching_throughput()
    print(f"\nmatching: {rate:,.0f} records/s against 100,000 followed names "
          f"({matched} of the day's records matched)")  # fmt: skip


if __name__ == "__main__":
    main()
