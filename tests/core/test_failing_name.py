"""One name that arXiv keeps failing: its OR-query is split until it stands alone, the other
names of that query are polled on, and the split's requests stay bounded when arXiv fails
everyone. The poller against the fake arXiv over real HTTP, a real database; the poller is
built anew each cycle (a restart: the split lives in the poll states only), and each cycle the
clock is moved past every backoff.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path

import pytest
from sqlalchemy import Engine
from sqlmodel import Session, col, update

from tests.fakes.arxiv_api import FakeArxiv
from tests.fakes.corpus import make_record
from tests.harness.cli_helpers import run_cli
from watcher.arxiv.fetch import ArxivClient
from watcher.polling.failing_groups import ALONE_AFTER, SPLIT_BUDGET
from watcher.polling.poll import Poller, PollReport
from watcher.store import Store
from watcher.store.chats import Chats
from watcher.store.outbox import Outbox
from watcher.store.tables import PollState, utcnow

INTERVAL = 3600
# Forty followed people, about thirty to a query: the first query holds the failing name and
# its neighbour, freed last by the halving (16, 8, 4, 2, 1).
NAMES = [f"Given{chr(97 + n // 26)}{chr(97 + n % 26)} Family{chr(97 + n % 7)}" for n in range(40)]
FAILING, NEIGHBOUR = NAMES[4], NAMES[5]
NEW_PAPER = make_record(
    arxiv_id="2611.04005", title="The Neighbour's New Paper", authors=[NEIGHBOUR]
)


@pytest.fixture
def fake() -> Iterator[FakeArxiv]:
    histories = [
        make_record(arxiv_id=f"2501.{n:05d}", authors=[name]) for n, name in enumerate(NAMES)
    ]
    with FakeArxiv(histories) as server:
        yield server


class World:
    """The followed names, a clock the test moves, and a poller built anew for each cycle."""

    def __init__(self, store: Store, client: ArxivClient) -> None:
        self.store, self.client = store, client
        self.now = utcnow()

    def poller(self) -> Poller:
        return Poller(
            store=self.store,
            client=self.client,
            poll_interval=INTERVAL,
            retry_first=60,
            clock=lambda: self.now,
        )

    async def cycle(self) -> PollReport:
        """A poll with the clock moved past every follow's next poll (all of them due, backoffs
        over), by a poller that starts afresh."""
        self.now = max(f.next_poll or self.now for f in self.store.followed())
        return await self.poller().poll()

    def failing(self) -> dict[str, int]:
        """The follows whose last poll failed, and their failures in a row."""
        return {f.name: f.consecutive_failures for f in self.store.followed() if f.last_error}


def groups_of(world: World) -> list[list[str]]:
    """The OR-groups a poll would ask now, by name."""
    return [[f.name for f in g] for g in world.poller().api.groups(world.store.followed())]


@pytest.fixture
async def world(store: Store, client: ArxivClient) -> World:
    for name in NAMES:
        store.follow([name])
    world = World(store, client)
    await world.poller().poll()  # every history, stored silently, one first poll each
    assert all(f.backfilled for f in store.followed())
    return world


async def test_a_name_arxiv_keeps_failing_is_split_off_and_its_query_mates_polled_on(
    world: World, store: Store, engine: Engine, fake: FakeArxiv, database_url: str, tmp_path: Path
) -> None:
    (together,) = [g for g in groups_of(world) if FAILING in g]
    assert NEIGHBOUR in together and len(together) > 16
    chats, outbox = Chats(engine), Outbox(engine)
    chats.seen(7, kind="private")
    chats.subscribe(7, next(f.id for f in store.followed() if f.name == NEIGHBOUR))
    fake.fail_queries(f'au:"{FAILING}"', "500")
    fake.add(NEW_PAPER)

    found_in = None
    for cycle in range(1, 11):
        report = await world.cycle()
        if NEW_PAPER.arxiv_id in [r.arxiv_id for r in report.new]:
            found_in = cycle

    assert found_in is not None and found_in <= ALONE_AFTER + 1
    assert store.paper(NEW_PAPER.arxiv_id) is not None
    assert [(d.chat_id, d.record.arxiv_id) for d in outbox.due(limit=10)] == [
        (7, NEW_PAPER.arxiv_id)
    ]
    # The failing name alone fails, with its own cause and its own backoff; no one else does.
    assert list(world.failing()) == [FAILING]
    failing = next(f for f in store.followed() if f.name == FAILING)
    assert failing.consecutive_failures > ALONE_AFTER
    assert failing.last_error == "arXiv answered HTTP 500"
    assert failing.next_poll is not None and failing.last_attempt is not None
    assert failing.next_poll - failing.last_attempt == timedelta(seconds=INTERVAL)
    # Its next try is a query of its own; its former query mates are back in full queries.
    assert [FAILING] in groups_of(world)
    assert [len(g) for g in groups_of(world) if FAILING not in g] == [28, 11]

    settings = {"DATABASE_URL": database_url, "POLL_INTERVAL": str(INTERVAL)}
    authors = run_cli("authors", cwd=tmp_path, **settings).stdout.splitlines()
    (line,) = [line for line in authors if "failures in a row" in line]
    assert line.startswith(f"{FAILING}: 1 record, last success ")
    assert line.endswith("failures in a row: arXiv answered HTTP 500")
    # The name alone fails: the service is healthy, and names it (issue 29.3).
    health = run_cli("health", cwd=tmp_path, **settings)
    assert health.returncode == 0, health.stdout
    assert health.stdout.startswith("ok: last successful poll ")
    assert f"; failing: {FAILING}" in health.stdout


async def test_query_mates_are_told_the_failure_may_be_another_name_s(
    world: World, store: Store, fake: FakeArxiv
) -> None:
    fake.fail_queries(f'au:"{FAILING}"', "500")

    report = await world.cycle()

    shared = len(next(g for g in groups_of(world) if FAILING in g))
    cause = f"arXiv answered HTTP 500 (in one query with {shared - 1} other names)"
    assert report.failures[NEIGHBOUR] == cause
    assert next(f for f in store.followed() if f.name == NEIGHBOUR).last_error == cause


async def test_when_arxiv_fails_every_query_the_split_costs_a_bounded_number_of_requests(
    world: World, store: Store, engine: Engine, fake: FakeArxiv, caplog: pytest.LogCaptureFixture
) -> None:
    unsplit = len(world.poller().api.groups(store.followed()))
    fake.fail_queries('au:"', "503")

    spent: list[int] = []
    with caplog.at_level(logging.INFO, logger="watcher.polling.sources.api"):
        for _ in range(20):
            before = len(fake.api_requests())
            report = await world.cycle()
            spent.append(len(fake.api_requests()) - before)
            assert len(report.failures) == len(NAMES)
            assert report.split_requests == spent[-1] - unsplit

    assert max(spent) <= unsplit + SPLIT_BUDGET
    assert max(spent) > unsplit  # the budget was spent, on splitting
    split = [r.getMessage() for r in caplog.records if r.getMessage().startswith("splitting")]
    assert split and all(f"(at most {SPLIT_BUDGET} split queries" in line for line in split)
    assert f"{SPLIT_BUDGET} request(s) more than unsplit" in split[-1]

    # A thousand failures in a row: no overflow, the same bound, one request each at most.
    with Session(engine) as session:
        session.exec(update(PollState).values(consecutive_failures=1000))  # type: ignore[call-overload]
        session.commit()
    before = len(fake.api_requests())
    report = await world.cycle()
    assert len(fake.api_requests()) - before <= unsplit + SPLIT_BUDGET
    assert all(f.consecutive_failures == 1001 for f in store.followed())
    assert all(f.next_poll == world.now + timedelta(seconds=INTERVAL) for f in store.followed())

    # arXiv answers again: every name is polled at once, and they share full queries again.
    fake.heal('au:"')
    healed = await world.cycle()
    assert sorted(healed.polled) == sorted(NAMES) and world.failing() == {}
    assert len(world.poller().api.groups(store.followed())) == unsplit


async def test_a_split_resumes_where_it_was_after_a_restart_at_any_step(
    world: World, store: Store, fake: FakeArxiv
) -> None:
    """Two pollers reading the same poll states (a restart, or another process) plan the same
    groups at every step of the split."""
    fake.fail_queries(f'au:"{FAILING}"', "500")
    for _ in range(ALONE_AFTER + 1):
        followed = store.followed()
        first, second = world.poller().api.groups(followed), world.poller().api.groups(followed)
        assert [[f.id for f in g] for g in first] == [[f.id for f in g] for g in second]
        await world.cycle()
    assert list(world.failing()) == [FAILING]


async def test_arxiv_watcher_poll_says_what_the_split_cost(
    world: World, store: Store, engine: Engine, fake: FakeArxiv, database_url: str, tmp_path: Path
) -> None:
    fake.fail_queries(f'au:"{FAILING}"', "500")
    last_two = [f.id for f in store.followed() if f.name in (FAILING, NEIGHBOUR)]
    with Session(engine) as session:  # the split is at its last step: each of two goes alone
        session.exec(
            update(PollState)  # type: ignore[call-overload]
            .where(col(PollState.followed_author_id).in_(last_two))
            .values(consecutive_failures=ALONE_AFTER)
        )
        session.commit()

    polled = run_cli(
        "poll",
        cwd=tmp_path,
        DATABASE_URL=database_url,
        ARXIV_API_URL=fake.url,
        ARXIV_MIN_INTERVAL="0",
        ARXIV_MAX_RETRIES="0",
        WATCH_AUTHORS=";".join(NAMES),
    )

    assert polled.returncode == 1
    said = [line for line in polled.stderr.splitlines() if line.startswith("arxiv-watcher: ")]
    assert said == [
        f"arxiv-watcher: polling {FAILING} failed: arXiv answered HTTP 500",
        "arxiv-watcher: 2 more request(s) spent splitting queries that keep failing, to find "
        "the name arXiv fails on",
    ]
    assert (
        "INFO watcher.polling.sources.api: splitting queries that keep failing, to find the name "
        "arXiv "
        f"fails on: {FAILING}; {NEIGHBOUR}; 2 request(s) more than unsplit (at most "
        f"{SPLIT_BUDGET} split queries a cycle)"
    ) in polled.stderr
