"""Matching throughput: a harvested day's records a second, against many persons and topics.

The realistic day of 2,500 records (`tests/fakes/day.py`, seeded) is served by the fake arXiv
in this process and parsed from its OAI-PMH answer, as a harvest sees it. The rules
(`watcher.follows.match.FollowRules`) hold `--persons` followed names (synthetic, none of the day's
authors, plus "Wei Wang", a common name of the day) and `--topics` topics: 1 to 3 words or
phrases in 1 to 3 categories, one in 200 drawn from the day's 44-word vocabulary (which every
abstract of the synthetic day nearly exhausts, so these match often) and the
rest from a synthetic one of 5,000 words, a fifth with an excluded word. Each record is matched
as the harvest matches it (`FollowRules.match`: its authors, categories, title and abstract).
`--alternatives SHARE` (issue 32; default 0, the topics above unchanged) turns that share of the
topics' last term into a group of 2 or 3 alternatives (`(a OR b OR c)`): a one-term topic is then
filed under each alternative.

    .venv/bin/python bench/matching.py [--persons 100000] [--topics 10000] [--rounds 5] [--cpu]
        [--alternatives 0.3]

`--cpu` times each round apart in this process's CPU time and reports the best round: on a
shared machine, wall time over all rounds moves by tens of percent with the other jobs' load.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from datetime import UTC, datetime
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

import httpx  # noqa: E402

from bench.requests import person  # noqa: E402
from tests.fakes.arxiv_api import FakeArxiv  # noqa: E402
from tests.fakes.day import _CATEGORIES, _WORDS, realistic_day  # noqa: E402
from watcher.arxiv.oai import OaiRecord, parse_list_records  # noqa: E402
from watcher.follows.match import FollowRules  # noqa: E402
from watcher.follows.topics import Topic, TopicError, parse_topic  # noqa: E402


def harvested_day() -> list[OaiRecord]:
    """The day's records as the harvest parses them from the fake's OAI-PMH answer."""
    today = datetime.now(UTC)
    with FakeArxiv(realistic_day(today.date())) as fake:
        params = {"verb": "ListRecords", "metadataPrefix": "arXiv", "from": f"{today:%Y-%m-%d}"}
        records: list[OaiRecord] = []
        while True:
            page = parse_list_records(httpx.get(fake.oai_url, params=params, timeout=60).content)
            records += page.records
            if page.resumption_token is None:
                return records
            params = {"verb": "ListRecords", "resumptionToken": page.resumption_token}


def topics(count: int, seed: int = 9, alternatives: float = 0.0) -> list[Topic]:
    rng = random.Random(seed)
    synthetic = [f"{person(i).split()[0].lower()}{i % 7}" for i in range(5000)]
    made: list[Topic] = []
    while len(made) < count:
        vocabulary = _WORDS if rng.random() < 0.005 else synthetic
        terms = rng.sample(vocabulary, rng.randint(1, 3))
        if len(terms) == 3 and rng.random() < 0.5:
            terms = [f'"{terms[0]} {terms[1]}"', terms[2]]
        if alternatives and rng.random() < alternatives:
            others = rng.sample(vocabulary, rng.randint(1, 2))
            terms[-1] = f"({' OR '.join([terms[-1], *others])})"
        if rng.random() < 0.2:
            terms.append("-" + rng.choice(vocabulary))
        categories = ",".join(rng.sample(_CATEGORIES, rng.randint(1, 3)))
        try:
            made.append(parse_topic(f"{' '.join(terms)} in {categories}"))
        except TopicError:
            continue  # a word drawn both required and excluded
    return made


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--persons", type=int, default=100_000)
    parser.add_argument("--topics", type=int, default=10_000)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--cpu", action="store_true", help="best round, in CPU time")
    parser.add_argument(
        "--alternatives", type=float, default=0.0, help="share of topics with an OR group"
    )
    args = parser.parse_args()
    records = harvested_day()
    rules = FollowRules()
    for index in range(args.persons):
        rules.add(index, [person(index)])
    rules.add(args.persons, ["Wei Wang"])
    made = topics(args.topics, alternatives=args.alternatives)
    for index, topic in enumerate(made, start=args.persons + 1):
        rules.add_topic(index, topic)

    def match_day() -> tuple[int, int]:
        by_person = by_topic = 0
        for r in records:
            found = rules.match(r.authors, r.categories, title=r.title, abstract=r.abstract)
            by_person += any(i <= args.persons for i in found)
            by_topic += any(i > args.persons for i in found)
        return by_person, by_topic

    for label, kept in (("persons and topics", True), ("persons only", False)):
        if not kept:
            rules = FollowRules()
            for index in range(args.persons):
                rules.add(index, [person(index)])
            rules.add(args.persons, ["Wei Wang"])
        if args.cpu:
            best = float("inf")
            for _ in range(args.rounds):
                began = time.process_time()
                by_person, by_topic = match_day()
                best = min(best, time.process_time() - began)
            rate, how = len(records) / best, f"best of {args.rounds} rounds, CPU time"
        else:
            began = time.perf_counter()
            for _ in range(args.rounds):
                by_person, by_topic = match_day()
            seconds = time.perf_counter() - began
            rate, how = args.rounds * len(records) / seconds, "wall time"
        print(
            f"{label}: {rate:,.0f} records/s ({len(records):,} records, {how}; "
            f"{by_person} matched a person, {by_topic} a topic)"
        )


if __name__ == "__main__":
    main()
