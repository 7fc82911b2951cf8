"""The poll step in harvest mode: which follows the harvest serves (WATCH_SOURCE, auto's rule),
a new follow's history still from the API, and `arxiv-watcher poll --json` harvesting."""

from __future__ import annotations

import json
from datetime import timedelta
from pathlib import Path

import pytest

from tests.fakes.arxiv_api import FakeArxiv
from tests.fakes.corpus import make_record
from tests.harness.cli_helpers import run_cli
from tests.harness.harvest_day import FIRST, NOW, TODAY, client, fake, store
from watcher.aio import in_db_thread
from watcher.arxiv.fetch import ArxivClient
from watcher.polling.poll import HARVEST_REQUESTS, Poller
from watcher.store import Store
from watcher.store.tables import utcnow

__all__ = ["client", "fake", "store"]  # fixtures from the harness


def follow_many(store: Store, count: int) -> None:
    """`count` more follows, each with its history fetched (as after its first API poll)."""
    ids = [store.follow([f"Person{n} Testname{n}"])[0].id for n in range(count)]
    store.record_poll_success(ids, now=NOW - timedelta(days=1), next_poll=NOW)


@pytest.mark.parametrize(("extra", "harvests"), [(0, False), (150, True)])
async def test_auto_harvests_once_the_api_would_need_more_than_four_requests(
    fake: FakeArxiv, client: ArxivClient, store: Store, extra: int, harvests: bool
) -> None:
    follow_many(store, extra)
    fake.add(FIRST, datestamp=TODAY)
    poller = Poller(
        store=store, client=client, poll_interval=3600, source="auto", oai_url=fake.oai_url
    )
    followed = await in_db_thread(store.followed)
    groups = poller.api.requests_per_cycle(followed)
    assert (groups > HARVEST_REQUESTS) == harvests

    report = await poller.poll(force=True)

    assert [r.arxiv_id for r in report.new] == [FIRST.arxiv_id]
    assert bool(fake.oai_requests()) == harvests
    queries = [r for r in fake.api_requests() if "search_query" in r.params]
    assert len(queries) == (0 if harvests else groups)


async def test_auto_counts_the_api_requests_only_as_far_as_it_takes_to_tell(
    client: ArxivClient, store: Store
) -> None:
    follow_many(store, 150)
    store.follow(["Not Yet Polled"])  # a first poll goes alone
    poller = Poller(store=store, client=client, poll_interval=3600, source="auto")
    followed = await in_db_thread(store.followed)
    for size in (0, 1, 30, 100, len(followed)):
        some = followed[:size]
        cost = poller.api.requests_per_cycle(some)
        told = [poller.api.costs_more_than(some, limit) for limit in range(cost + 2)]
        assert told == [limit < cost for limit in range(cost + 2)], (size, cost)


async def test_in_harvest_mode_a_new_follow_is_backfilled_by_the_api_silently_then_harvested(
    fake: FakeArxiv, client: ArxivClient, store: Store
) -> None:
    newcomer = make_record(
        arxiv_id="2611.30005", title="Older Work of a Newcomer", authors=["Yemao Xu"]
    )
    fake.add(newcomer, datestamp=TODAY)
    fake.add(FIRST, datestamp=TODAY)
    store.follow(["Yemao Xu"])
    poller = Poller(
        store=store, client=client, poll_interval=3600, source="harvest", oai_url=fake.oai_url
    )

    first = await poller.poll(force=True)

    assert [r.arxiv_id for r in first.new] == [FIRST.arxiv_id]  # Dezun Dong's, harvested
    assert first.backfilled >= 1  # Yemao Xu's history, from the API, silently
    assert any('au:"Yemao Xu"' in r.params.get("search_query", "") for r in fake.api_requests())
    before = len(fake.api_requests())
    second = await poller.poll(force=True)
    assert second.new == [] and set(second.polled) == {"Dezun Dong", "Yemao Xu"}
    assert all("search_query" not in r.params for r in fake.api_requests()[before:])


def test_the_cli_poll_harvests_with_the_same_json(
    fake: FakeArxiv, store: Store, database_url: str, tmp_path: Path
) -> None:
    fake.add(FIRST, datestamp=TODAY)
    settings = {
        "DATABASE_URL": database_url,
        "ARXIV_API_URL": fake.url,
        "ARXIV_OAI_URL": fake.oai_url,
        "ARXIV_MIN_INTERVAL": "0",
        "WATCH_SOURCE": "harvest",
    }
    result = run_cli("poll", "--json", cwd=tmp_path, **settings)

    assert result.returncode == 0, result.stderr
    (found,) = json.loads(result.stdout)
    assert (found["arxiv_id"], found["kind"], found["version"]) == (FIRST.arxiv_id, "new", 1)
    assert fake.oai_requests()


async def test_a_harvest_runs_at_the_tick_it_falls_due_and_not_before(
    fake: FakeArxiv, client: ArxivClient, store: Store
) -> None:
    """Between harvests a tick finds nothing due and asks arXiv nothing; the tick after the
    harvest's time has come harvests."""
    fake.add(FIRST, datestamp=TODAY)
    poller = Poller(
        store=store, client=client, poll_interval=3600, source="harvest", oai_url=fake.oai_url
    )
    first = await poller.poll()
    assert [r.arxiv_id for r in first.new] == [FIRST.arxiv_id]
    pages = len(fake.oai_requests())

    idle = await poller.poll()

    assert (idle.polled, idle.failures, len(fake.oai_requests())) == ([], {}, pages)
    now = utcnow()
    store.record_harvest_success("", through=None, now=now, next_attempt=now)
    due = await poller.poll()
    assert due.polled == ["Dezun Dong"] and len(fake.oai_requests()) > pages
