"""Polls stay bounded and lose nothing: the date window, the backfill limit, authors nobody
wants, and saves in short transactions. Fake arXiv over real HTTP, a real database."""

from __future__ import annotations

import threading
from collections.abc import AsyncIterator, Iterator
from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy import Engine, text

from tests.fakes.arxiv_api import FakeArxiv
from tests.fakes.corpus import dezun_dong_records, make_record
from tests.harness.patience import LOOPBACK_TIMEOUT
from watcher.arxiv.fetch import ArxivClient
from watcher.arxiv.records import Record
from watcher.cli.command_line import describe_followed
from watcher.polling.poll import Poller
from watcher.store import Store
from watcher.store.chats import Chats
from watcher.store.outbox import Outbox

NOW = datetime.now(UTC).replace(microsecond=0)
CHAT = 7


def paper(number: int, *, age: timedelta, authors: list[str]) -> Record:
    moment = NOW - age
    return make_record(
        arxiv_id=f"2611.{number:05d}", published=moment, updated=moment, authors=authors
    )


@pytest.fixture
def fake() -> Iterator[FakeArxiv]:
    with FakeArxiv() as server:
        yield server


@pytest.fixture
async def client(fake: FakeArxiv) -> AsyncIterator[ArxivClient]:
    async with ArxivClient(
        fake.url, min_interval=0, timeout=LOOPBACK_TIMEOUT, max_retries=1
    ) as arxiv:
        yield arxiv


def poller(store: Store, client: ArxivClient, **options: object) -> Poller:
    return Poller(store=store, client=client, poll_interval=3600, **options)  # type: ignore[arg-type]


async def test_a_paper_reaching_the_api_late_is_fetched_and_announced_once(
    engine: Engine, fake: FakeArxiv, client: ArxivClient
) -> None:
    for number in range(12):  # three full pages of recent papers
        fake.add(paper(number, age=timedelta(hours=number + 1), authors=["Dezun Dong"]))
    store, chats, outbox = Store(engine), Chats(engine), Outbox(engine)
    followed, _ = store.follow(["Dezun Dong"])
    chats.seen(CHAT, kind="private")
    chats.subscribe(CHAT, followed.id)
    watcher = poller(store, client, page_size=4)
    await watcher.poll()
    # A held submission turns up now, dated three days ago: behind every page already stored
    # (announced after the follow began: its id is newer than every one stored).
    late = paper(99, age=timedelta(days=3), authors=["Yemao Xu", "Dezun Dong"])
    fake.add(late)

    found = await watcher.poll(force=True)
    again = await watcher.poll(force=True)

    assert [r.arxiv_id for r in found.new] == [late.arxiv_id]
    assert again.new == []
    assert [d.record.arxiv_id for d in outbox.due(limit=100)] == [late.arxiv_id]


async def test_a_quiet_author_in_a_busy_group_costs_requests_bounded_by_the_window(
    engine: Engine, fake: FakeArxiv, client: ArxivClient
) -> None:
    # arXiv's loose `au:"Yu Wang"` also returns sixty strangers (one paper a day), none of them
    # the followed people: pages without a single match, newest first.
    for day in range(60):
        fake.add(paper(day, age=timedelta(days=day, hours=12), authors=["Yu Wang Li"]))
    fake.add(paper(900, age=timedelta(days=400), authors=["Yu Wang"]))
    for record in dezun_dong_records():
        fake.add(record)
    store = Store(engine)
    store.follow(["Yu Wang"])
    store.follow(["Dezun Dong"])
    page_size, window = 5, timedelta(days=14)
    watcher = poller(store, client, page_size=page_size)  # the default window: 14 days
    await watcher.poll()  # the two histories, one query each
    before = len(fake.api_requests())

    report = await watcher.poll(force=True)

    requests = fake.api_requests()[before:]
    assert {r.params["search_query"] for r in requests} == {'au:"Dezun Dong" OR au:"Yu Wang"'}
    # Pages back to the window (14 papers, one a day), and one page past its edge at most.
    bound = -(-window.days // page_size) + 1
    print(f"\nrequests for one poll of the busy group: {len(requests)} (bound {bound})")
    assert len(requests) <= bound, f"{len(requests)} requests, more than {bound}"
    assert report.failures == {} and sorted(report.polled) == ["Dezun Dong", "Yu Wang"]


async def test_a_name_with_more_results_than_the_limit_fails_its_first_poll_in_one_request(
    engine: Engine, fake: FakeArxiv, client: ArxivClient
) -> None:
    for day in range(30):
        fake.add(paper(day, age=timedelta(days=day), authors=["Yu Wang"]))
    store = Store(engine)
    store.follow(["Yu Wang"])

    report = await poller(store, client, page_size=5, backfill_limit=20).poll()

    assert "arXiv lists 30 results for this name, more than 20" in report.failures["Yu Wang"]
    assert len(fake.api_requests()) == 1
    assert store.count() == 0
    (followed,) = store.followed()
    assert not followed.backfilled and followed.consecutive_failures == 1


async def test_an_author_nobody_wants_is_not_polled_and_keeps_its_papers(
    engine: Engine, fake: FakeArxiv, client: ArxivClient
) -> None:
    for number in range(3):
        fake.add(paper(number, age=timedelta(days=number + 1), authors=["Yemao Xu"]))
    store, chats, outbox = Store(engine), Chats(engine), Outbox(engine)
    store.follow(["Dezun Dong"])  # the operator's
    brought, _ = store.follow(["Yemao Xu"], watched=False)  # a chat's
    chats.seen(CHAT, kind="private")
    chats.subscribe(CHAT, brought.id)
    watcher = poller(store, client)
    await watcher.poll()
    chats.unsubscribe(CHAT, brought.id)
    before = len(fake.api_requests())

    report = await watcher.poll(force=True)

    queries = [r.params["search_query"] for r in fake.api_requests()[before:]]
    assert queries == ['au:"Dezun Dong"']
    assert report.polled == ["Dezun Dong"]
    assert store.count(followed_ids=[brought.id]) == 3  # its papers stay
    assert store.find_followed("Yemao Xu") is not None

    # While nobody polls it, Yemao Xu publishes; then a chat subscribes again. The history is
    # fetched again silently: the paper of the pause is stored, and nothing is announced as new.
    during_the_pause = paper(50, age=timedelta(hours=2), authors=["Yemao Xu"])
    fake.add(during_the_pause)
    chats.subscribe(CHAT, brought.id)
    resumed = await watcher.poll()
    assert resumed.new == [] and resumed.backfilled == 1
    assert store.paper(during_the_pause.arxiv_id) is not None
    assert outbox.due(limit=100) == []

    fresh = paper(51, age=timedelta(minutes=5), authors=["Yemao Xu"])
    fake.add(fresh)
    after = await watcher.poll(force=True)
    assert [r.arxiv_id for r in after.new] == [fresh.arxiv_id]
    assert [d.record.arxiv_id for d in outbox.due(limit=100)] == [fresh.arxiv_id]


async def test_a_big_backfill_is_saved_in_many_short_transactions(
    engine: Engine, fake: FakeArxiv, client: ArxivClient
) -> None:
    for number in range(1000):
        fake.add(paper(number, age=timedelta(hours=number), authors=["Yu Wang", "Dezun Dong"]))
    store = Store(engine)
    store.follow(["Yu Wang"])
    counts: set[int] = set()
    saving = threading.Event()

    def watch_the_table() -> None:
        # Another connection reads the table while the poll writes: what it can see is only
        # what has been committed, so every count between 0 and 1000 is one transaction's end.
        with engine.connect() as connection:
            while saving.is_set():
                counts.add(connection.execute(text("SELECT count(*) FROM paper")).scalar_one())
                connection.commit()

    saving.set()
    reader = threading.Thread(target=watch_the_table)
    reader.start()
    try:
        report = await poller(store, client, page_size=1000).poll()
    finally:
        saving.clear()
        reader.join()

    assert report.backfilled == 1000 and store.count() == 1000
    partial = sorted(c for c in counts if 0 < c < 1000)
    print(f"\npartial counts seen during the backfill: {partial}")
    assert len(partial) >= 2, f"saw only {sorted(counts)}: not saved in parts"
    if engine.dialect.name == "postgresql":
        with engine.connect() as connection:
            transactions = connection.execute(
                text("SELECT count(DISTINCT xmin::text) FROM paper")
            ).scalar_one()
        print(f"transactions that inserted the 1000 papers: {transactions}")
        assert transactions >= 5


def test_the_operator_following_a_chats_author_keeps_it_polled(engine: Engine) -> None:
    store = Store(engine)
    brought, created = store.follow(["Yemao Xu"], watched=False)
    assert created and not brought.polled
    assert describe_followed(brought).endswith(
        "; not polled: no chat subscribes any more (its papers stay)"
    )

    followed, created = store.follow(["Yemao Xu"])  # `arxiv-watcher follow`, WATCH_AUTHORS
    assert not created and followed.watched and followed.polled
    assert store.follow(["Yemao Xu"], watched=False)[0].watched  # a chat never unwatches it


POISON = "2611.00030"
_POISON_SQL = {
    "sqlite": [
        f"CREATE TRIGGER poison BEFORE INSERT ON paper WHEN NEW.arxiv_id = '{POISON}' "
        "BEGIN SELECT RAISE(ABORT, 'poisoned'); END"
    ],
    "postgresql": [
        "CREATE FUNCTION poison() RETURNS trigger AS $$ BEGIN "
        f"IF NEW.arxiv_id = '{POISON}' THEN RAISE EXCEPTION 'poisoned'; END IF; "
        "RETURN NEW; END $$ LANGUAGE plpgsql",
        "CREATE TRIGGER poison BEFORE INSERT ON paper FOR EACH ROW EXECUTE FUNCTION poison()",
    ],
}


async def test_a_save_failing_midway_loses_nothing_and_doubles_nothing(
    engine: Engine, fake: FakeArxiv, client: ArxivClient
) -> None:
    for record in dezun_dong_records():
        fake.add(record)
    store, chats, outbox = Store(engine), Chats(engine), Outbox(engine)
    followed, _ = store.follow(["Dezun Dong"])
    chats.seen(CHAT, kind="private")
    chats.subscribe(CHAT, followed.id)
    watcher = poller(store, client)
    await watcher.poll()
    fresh = [paper(n, age=timedelta(hours=n), authors=["Dezun Dong"]) for n in range(1, 61)]
    for record in fresh:
        fake.add(record)
    # The database refuses one paper in the middle: its part of the save fails, as a crash or
    # a conflict with another process would make it.
    with engine.begin() as connection:
        for statement in _POISON_SQL[engine.dialect.name]:
            connection.execute(text(statement))
    (before,) = store.followed()

    failed = await watcher.poll(force=True)

    assert "Dezun Dong" in failed.failures
    stored_first = {r.arxiv_id for r in failed.new}
    assert 0 < len(stored_first) < 60 and POISON not in stored_first
    assert {d.record.arxiv_id for d in outbox.due(limit=100)} == stored_first
    (after,) = store.followed()
    assert after.last_success == before.last_success  # the window's reference stays put
    with engine.begin() as connection:
        on_table = " ON paper" if engine.dialect.name == "postgresql" else ""
        connection.execute(text(f"DROP TRIGGER poison{on_table}"))

    redone = await watcher.poll(force=True)

    assert redone.failures == {}
    stored_then = {r.arxiv_id for r in redone.new}
    assert stored_first.isdisjoint(stored_then)
    assert stored_first | stored_then == {r.arxiv_id for r in fresh}
    due = [d.record.arxiv_id for d in outbox.due(limit=1000)]
    assert sorted(due) == sorted(r.arxiv_id for r in fresh)  # each once
