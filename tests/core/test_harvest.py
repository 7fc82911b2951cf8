"""The OAI-PMH harvest against the fake arXiv over HTTP: pages and tokens, the protocol's errors,
versions from the API, the high-water mark, and the shared politeness. Real database."""

from __future__ import annotations

import asyncio
import gc
from dataclasses import replace
from datetime import UTC, date, datetime, timedelta
from itertools import pairwise

import pytest

from tests.fakes.arxiv_api import FakeArxiv, Fault
from tests.fakes.corpus import dezun_dong_records, make_record
from tests.fakes.day import realistic_day
from tests.harness.harvest_day import (
    DAY,
    FIRST,
    NOW,
    SECOND,
    TODAY,
    client,
    day_id,
    fake,
    paper,
    store,
)
from tests.harness.patience import PATIENCE
from watcher.aio import in_db_thread
from watcher.arxiv.fetch import ArxivClient
from watcher.follows.followed import Followed
from watcher.follows.match import FollowRules
from watcher.polling.poll import PollReport
from watcher.polling.sources.harvest import HARVEST_NAME, Harvester
from watcher.store import MatchedRecord, SaveResult, Store


def harvester(store: Store, client: ArxivClient, fake: FakeArxiv, **options: object) -> Harvester:
    settings: dict[str, object] = {
        "store": store,
        "client": client,
        "oai_url": fake.oai_url,
        "poll_interval": timedelta(hours=1),
        "window": timedelta(days=14),
        "retry_first": 60.0,
        "clock": lambda: datetime.now(UTC),
        **options,
    }
    return Harvester(**settings)  # type: ignore[arg-type]


__all__ = ["client", "fake", "store"]  # fixtures from the harness


async def run(harvest: Harvester, store: Store, *, force: bool = True) -> PollReport:
    report = PollReport()

    async def save(matched: list[MatchedRecord], announce_for: frozenset[int]) -> SaveResult:
        found = await in_db_thread(store.save_records, matched, announce_for=announce_for)
        report.new.extend(found.new)
        report.revisions.extend(found.revisions)
        return found

    followed: list[Followed] = await in_db_thread(store.followed)
    report.add(await harvest.poll(followed, save=save, force=force))
    return report


def oai_params(fake: FakeArxiv) -> list[dict[str, str]]:
    return [r.params for r in fake.oai_requests()]


async def test_pages_and_tokens_until_the_empty_one_then_one_api_request_for_versions(
    fake: FakeArxiv, client: ArxivClient, store: Store
) -> None:
    fake.add(FIRST, datestamp=TODAY)
    fake.add(SECOND, datestamp=TODAY)
    harvest = harvester(store, client, fake)

    report = await run(harvest, store)

    assert sorted(r.arxiv_id for r in report.new) == [FIRST.arxiv_id, SECOND.arxiv_id]
    assert report.failures == {}
    params = oai_params(fake)
    assert len(params) == 3  # 602 records, 250 a page
    assert params[0] == {
        "verb": "ListRecords",
        "metadataPrefix": "arXiv",
        "from": (TODAY - timedelta(days=2)).isoformat(),  # a day before yesterday's success
    }
    assert all(set(p) == {"verb", "resumptionToken"} for p in params[1:])
    (lookup,) = fake.api_requests()
    assert sorted(lookup.params["id_list"].split(",")) == [FIRST.arxiv_id, SECOND.arxiv_id]
    state = store.harvest_state("")
    assert state is not None and state.harvested_through == TODAY
    assert harvest.last is not None and harvest.last.records == 602


async def test_an_unchanged_day_costs_its_pages_only_and_announces_nothing_again(
    fake: FakeArxiv, client: ArxivClient, store: Store
) -> None:
    fake.add(FIRST, datestamp=TODAY)
    harvest = harvester(store, client, fake)
    await run(harvest, store)
    api_before, oai_before = len(fake.api_requests()), len(fake.oai_requests())

    report = await run(harvest, store)

    assert report.new == [] and report.failures == {}
    assert len(fake.api_requests()) == api_before
    assert oai_params(fake)[oai_before]["from"] == (TODAY - timedelta(days=1)).isoformat()


async def test_an_alias_added_between_harvests_matches_at_the_next_one(
    fake: FakeArxiv, client: ArxivClient, store: Store
) -> None:
    harvest = harvester(store, client, fake)  # one harvester: its rules are kept between cycles
    first = await run(harvest, store)
    by_alias = sorted(r.arxiv_id for r in DAY if "Dezun Li" in [a.name for a in r.authors])
    assert by_alias and not set(by_alias) & {r.arxiv_id for r in first.new}

    assert all(store.paper(a) is None for a in by_alias)

    store.follow(["Dezun Dong", "Dezun Li"])
    second = await run(harvest, store)

    # All stored for the follow now; new only those arXiv announced after it began (polled
    # since yesterday): today's v1s. A new version of a paper of years ago is stored silently.
    assert all(store.paper(a) is not None for a in by_alias)
    new_by_alias = [r.arxiv_id for r in DAY if r.arxiv_id in by_alias and r.version == 1]
    assert sorted(r.arxiv_id for r in second.new) == sorted(new_by_alias)


def follow_of(id: int, name: str, **fields: object) -> Followed:
    settings: dict[str, object] = {
        "id": id, "name": name, "aliases": (), "record_count": 0, "last_attempt": None,
        "last_success": None, "last_error": None, "consecutive_failures": 0, "next_poll": None,
        **fields,
    }  # fmt: skip
    return Followed(**settings)  # type: ignore[arg-type]


FOLLOWS = [
    follow_of(1, "Dezun Dong"),
    follow_of(2, "Ke Wu", categories=("cs.DC",)),
    follow_of(3, "rdma", kind="topic", topic="rdma", categories=("cs.DC",)),
]
# Each a change to one thing the rules are built from, and a record only the changed rules match
# (authors, categories, title): a harvester that kept the old rules would miss it.
CHANGES = {
    "alias added": ({0: {"aliases": ("Daoyi Dong",)}}, (["Daoyi Dong"], ["cs.DC"], "x")),
    "name changed": ({0: {"name": "Dezun Li"}}, (["Dezun Li"], ["math.CO"], "x")),
    "categories changed": ({1: {"categories": ("cs.NI",)}}, (["Ke Wu"], ["cs.NI"], "x")),
    "categories dropped": ({1: {"categories": ()}}, (["Ke Wu"], ["math.CO"], "x")),
    "topic changed": ({2: {"topic": "hyperx", "name": "hyperx"}}, ([], ["cs.DC"], "HyperX")),
    "topic's categories": ({2: {"categories": ("cs.NI",)}}, ([], ["cs.NI"], "RDMA")),
    "person became a topic": (
        {0: {"kind": "topic", "topic": "dezun", "name": "dezun", "categories": ("cs.DC",)}},
        ([], ["cs.DC"], "Dezun"),
    ),
    "id changed": ({0: {"id": 9}}, (["Dezun Dong"], ["cs.DC"], "x")),
}


@pytest.mark.parametrize("change", CHANGES)
async def test_the_rules_are_kept_while_the_follows_are_the_same_and_rebuilt_on_any_change(
    fake: FakeArxiv, client: ArxivClient, store: Store, change: str
) -> None:
    harvest = harvester(store, client, fake)
    rules = harvest.rules_for(FOLLOWS)
    # The same follows read again (new objects, other poll state): the same rules, kept.
    again = [replace(f, record_count=5, last_success=NOW) for f in FOLLOWS]
    assert harvest.rules_for(again) is rules

    edits, (authors, categories, title) = CHANGES[change]
    changed = [replace(f, **edits.get(n, {})) for n, f in enumerate(FOLLOWS)]  # type: ignore[arg-type]
    expected = FollowRules.of(changed).match(authors, categories, title=title, abstract="")
    assert expected and expected != rules.match(authors, categories, title=title, abstract="")
    kept = harvest.rules_for(changed)
    assert kept.match(authors, categories, title=title, abstract="") == expected
    assert harvest.rules_for(changed) is harvest.rules_for(list(changed))


async def test_a_new_version_is_a_revision_and_a_metadata_update_is_stored_silently(
    fake: FakeArxiv, client: ArxivClient, store: Store
) -> None:
    fake.add(FIRST, datestamp=TODAY - timedelta(days=1))
    harvest = harvester(store, client, fake)
    await run(harvest, store)
    v2 = replace(FIRST, version=2, updated=NOW, abs_url=FIRST.abs_url.replace("v1", "v2"))
    fake.replace(v2)
    fake.datestamps[FIRST.arxiv_id] = TODAY
    old = dezun_dong_records()[3]
    fake.touch(old.arxiv_id, TODAY, journal_ref="J. Interconnect. Netw. 27 (2026) 1")

    report = await run(harvest, store)

    assert report.new == []
    assert [(r.arxiv_id, r.version) for r in report.revisions] == [(FIRST.arxiv_id, 2)]
    stored = store.paper(old.arxiv_id)
    assert stored is not None and stored.journal_ref == "J. Interconnect. Netw. 27 (2026) 1"


async def test_no_records_match_is_nothing_new_not_a_failure(
    fake: FakeArxiv, client: ArxivClient, store: Store
) -> None:
    fake.records = [r for r in fake.records if r not in DAY]  # an empty window

    report = await run(harvester(store, client, fake), store)

    assert report.failures == {} and report.polled == ["Dezun Dong"]
    assert len(fake.oai_requests()) == 1
    state = store.harvest_state("")
    assert state is not None and state.harvested_through is None
    assert state.last_success is not None


async def test_an_expired_token_restarts_from_from_and_nothing_doubles(
    fake: FakeArxiv, client: ArxivClient, store: Store
) -> None:
    fake.add(FIRST, datestamp=TODAY)
    fake.add(SECOND, datestamp=TODAY)
    fake.hold_oai(after=2)  # the third page is held...
    task = asyncio.create_task(run(harvester(store, client, fake), store))
    assert await asyncio.to_thread(fake.oai_held.wait, PATIENCE), "the third page never came"
    fake.expire_tokens()  # ...while its token expires
    fake.release_oai()

    report = await task

    assert report.failures == {}
    froms = [p.get("from") for p in oai_params(fake)]
    assert froms == [froms[0], None, None, froms[0], None, None]
    assert sorted(r.arxiv_id for r in report.new) == [FIRST.arxiv_id, SECOND.arxiv_id]


async def test_a_503_with_retry_after_is_waited_out(
    fake: FakeArxiv, client: ArxivClient, store: Store
) -> None:
    fake.oai_faults.append(Fault("503", retry_after="1"))

    report = await run(harvester(store, client, fake), store)

    assert report.failures == {}
    first, second = fake.oai_requests()[:2]
    assert first.fault == "503" and second.fault is None
    assert second.time - first.time >= 1.0


async def test_a_retry_after_past_the_backoff_fails_the_harvest_until_then(
    fake: FakeArxiv, client: ArxivClient, store: Store
) -> None:
    fake.oai_faults.append(Fault("503", retry_after="7200"))
    harvest = harvester(store, client, fake)

    report = await run(harvest, store)

    assert "503" in report.failures[HARVEST_NAME]
    state = store.harvest_state("")
    assert state is not None and state.next_attempt is not None
    assert state.next_attempt - datetime.now(UTC) > timedelta(seconds=7000)
    requests = len(fake.oai_requests())
    await run(harvest, store, force=False)  # not due: arXiv asked for two hours
    assert len(fake.oai_requests()) == requests


@pytest.mark.parametrize("kind", ["html", "truncated", "empty"])
async def test_garbage_fails_the_harvest_visibly_and_the_next_one_redoes_the_window(
    fake: FakeArxiv, client: ArxivClient, store: Store, kind: str
) -> None:
    fake.add(FIRST, datestamp=TODAY)
    fake.oai_faults.extend([Fault("none"), Fault(kind)])  # the second page is spoiled
    harvest = harvester(store, client, fake)

    failed = await run(harvest, store)

    assert HARVEST_NAME in failed.failures
    state = store.harvest_state("")
    assert state is not None and state.harvested_through is None
    assert state.consecutive_failures == 1 and state.last_error
    (followed,) = store.followed()
    assert followed.consecutive_failures == 1 and "harvest failed" in (followed.last_error or "")

    report = await run(harvest, store)

    assert report.failures == {}
    assert [r.arxiv_id for r in report.new] == [FIRST.arxiv_id]
    state = store.harvest_state("")
    assert state is not None and state.harvested_through == TODAY
    assert state.consecutive_failures == 0


async def test_sets_are_harvested_each_and_only_they(
    fake: FakeArxiv, client: ArxivClient, store: Store
) -> None:
    in_dc = paper(day_id(30003), "Collectives on Multi-Rail Clusters")  # cs.DC by default
    elsewhere = make_record(
        arxiv_id=day_id(30004),
        title="A Dong in Quantum Physics",
        authors=["Dezun Dong"],
        primary_category="quant-ph",
        categories=("quant-ph",),
        published=FIRST.published,
    )
    fake.add(in_dc, datestamp=TODAY)
    fake.add(elsewhere, datestamp=TODAY)

    report = await run(harvester(store, client, fake, sets=("cs:cs:DC", "math")), store)

    assert [r.arxiv_id for r in report.new] == [in_dc.arxiv_id]
    assert {p.get("set") for p in oai_params(fake) if "from" in p} == {"cs:cs:DC", "math"}
    assert store.harvest_state("cs:cs:DC,math") is not None


async def test_oai_and_api_requests_share_one_connection_and_the_spacing(
    fake: FakeArxiv, store: Store
) -> None:
    fake.add(FIRST, datestamp=TODAY)
    async with ArxivClient(fake.url, min_interval=0.2) as client:
        await run(harvester(store, client, fake), store)

    seen = sorted(fake.requests, key=lambda r: r.time)
    assert {r.path for r in seen} == {fake.oai_path, fake.api_path}
    assert all(b.time - a.time >= 0.2 for a, b in pairwise(seen))
    assert fake.max_concurrent_connections == 1


async def test_a_paper_the_api_does_not_list_fails_the_window_rather_than_losing_it(
    fake: FakeArxiv, client: ArxivClient, store: Store
) -> None:
    fake.add(FIRST, datestamp=TODAY)
    fake.faults.append(Fault("empty"))  # the API answers the id_list with nothing

    report = await run(harvester(store, client, fake), store)

    assert "did not list" in report.failures[HARVEST_NAME]
    state = store.harvest_state("")
    assert state is not None and state.harvested_through is None
    assert [r.arxiv_id for r in (await run(harvester(store, client, fake), store)).new] == [
        FIRST.arxiv_id
    ]


def test_the_day_is_the_same_each_time() -> None:
    assert realistic_day(date(2026, 11, 30), count=50) == realistic_day(
        date(2026, 11, 30), count=50
    )


def test_a_noted_datestamp_moves_forward_only_and_many_are_noted_at_once(store: Store) -> None:
    first, second, third = date(2026, 11, 27), date(2026, 11, 28), date(2026, 11, 29)
    store.mark_harvested({"2611.00001": second, "2611.00002": first})
    store.mark_harvested({"2611.00001": first, "2611.00002": third, "2611.00003": first})
    assert store.harvested_datestamps(["2611.00001", "2611.00002", "2611.00003", "2611.09999"]) == {
        "2611.00001": second,  # an older datestamp (an earlier page read again) is ignored
        "2611.00002": third,
        "2611.00003": first,
    }
    store.mark_harvested({})
    assert len(store.harvested_datestamps([f"2611.{n:05d}" for n in range(1, 4)])) == 3


async def test_a_page_is_saved_once_per_datestamp_whatever_the_follows_that_found_it(
    fake: FakeArxiv, client: ArxivClient, store: Store
) -> None:
    """Whom a record is announced to depends on its datestamp alone: papers of five people
    over two days are two saves, and each paper is announced (not one save per person)."""
    fake.oai_page_size = 10_000
    names = [f"Harvest Person{n}" for n in range(5)]
    for name in names:
        followed, _ = store.follow([name])
        store.record_poll_success([followed.id], now=NOW - timedelta(days=1), next_poll=NOW)
    for n, name in enumerate(names):
        fake.add(
            paper(day_id(31010 + n), f"Paper {n}", authors=(name,)),
            datestamp=TODAY - timedelta(days=n % 2),
        )
    saves: list[frozenset[str]] = []
    report = PollReport()

    async def save(matched: list[MatchedRecord], announce_for: frozenset[int]) -> SaveResult:
        saves.append(frozenset(m.record.arxiv_id for m in matched))
        found = await in_db_thread(store.save_records, matched, announce_for=announce_for)
        report.new.extend(found.new)
        return found

    report.add(
        await harvester(store, client, fake).poll(
            await in_db_thread(store.followed), save=save, force=True
        )
    )

    assert report.failures == {}
    assert sorted(saves, key=len) == [
        frozenset({day_id(31011), day_id(31013)}),
        frozenset({day_id(31010), day_id(31012), day_id(31014)}),
    ]
    assert sorted(r.arxiv_id for r in report.new) == [day_id(31010 + n) for n in range(5)]


async def test_collections_skip_the_follows_during_a_harvest_and_only_then(
    fake: FakeArxiv, client: ArxivClient, store: Store
) -> None:
    """What existed before the harvest is frozen out of the garbage collector while it runs,
    and given back after it, whether it ends well or not: nothing escapes collection longer."""
    fake.add(FIRST, datestamp=TODAY)
    fake.oai_faults.extend([Fault("none"), Fault("html")])  # the first harvest fails
    harvest = harvester(store, client, fake)
    frozen_during_saves: list[int] = []

    async def save(matched: list[MatchedRecord], announce_for: frozenset[int]) -> SaveResult:
        frozen_during_saves.append(gc.get_freeze_count())
        return await in_db_thread(store.save_records, matched, announce_for=announce_for)

    for outcome in ("failed", "stored"):
        followed = await in_db_thread(store.followed)
        report = await harvest.poll(followed, save=save, force=True)
        assert bool(report.failures) == (outcome == "failed")
        assert gc.get_freeze_count() == 0

    assert frozen_during_saves and all(count > 1000 for count in frozen_during_saves)
