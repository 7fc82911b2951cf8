"""The poll cycle end to end: fake arXiv over real HTTP, the real client, a real database."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Iterator
from datetime import timedelta

import pytest
from sqlalchemy import Engine, event

from tests.fakes.arxiv_api import FakeArxiv, Fault
from tests.fakes.corpus import (
    LOOKALIKES_BY_THE_AUTHOR,
    dezun_dong_records,
    dezun_dong_revision,
    lookalike_records,
    make_record,
)
from watcher.arxiv.fetch import ArxivClient
from watcher.arxiv.records import Record
from watcher.polling.poll import Poller
from watcher.store import Store
from watcher.store.chats import Chats
from watcher.store.outbox import Outbox
from watcher.store.tables import utcnow


@pytest.fixture
def fake() -> Iterator[FakeArxiv]:
    with FakeArxiv([*dezun_dong_records(), *lookalike_records()]) as server:
        yield server


@pytest.fixture
async def client(fake: FakeArxiv) -> AsyncIterator[ArxivClient]:
    async with ArxivClient(
        fake.url, min_interval=0, timeout=2, max_retries=2, backoff_base=0.01, backoff_max=0.05
    ) as arxiv:
        yield arxiv


@pytest.fixture
def store(engine: Engine) -> Store:
    store = Store(engine)
    store.follow(["Dezun Dong"])
    return store


def poller(store: Store, client: ArxivClient, *, page_size: int = 100) -> Poller:
    return Poller(store=store, client=client, poll_interval=3600, page_size=page_size)


def new_paper(arxiv_id: str = "2611.99999") -> Record:
    return make_record(
        arxiv_id=arxiv_id,
        title="Fresh Results on HyperX Routing",
        authors=["Ziyu Wang", "Dezun Dong"],
    )


async def test_first_poll_stores_history_silently(store: Store, client: ArxivClient) -> None:
    report = await poller(store, client).poll()

    assert report.new == []
    assert report.revisions == []
    expected = len(dezun_dong_records()) + len(LOOKALIKES_BY_THE_AUTHOR)
    assert report.backfilled == expected
    assert store.count() == expected
    (followed,) = store.followed()
    assert followed.record_count == expected
    assert followed.backfilled


async def test_lookalikes_are_never_stored(store: Store, client: ArxivClient) -> None:
    await poller(store, client).poll()

    stored = {record.arxiv_id for record in store.recent(limit=100)}
    for record in lookalike_records():
        assert (record.arxiv_id in stored) == (record.arxiv_id in LOOKALIKES_BY_THE_AUTHOR)


async def test_new_record_is_reported_once(
    store: Store, client: ArxivClient, fake: FakeArxiv
) -> None:
    watcher = poller(store, client)
    await watcher.poll()
    fake.add(new_paper())

    first = await watcher.poll(force=True)
    again = await watcher.poll(force=True)

    assert [r.arxiv_id for r in first.new] == ["2611.99999"]
    assert again.new == []
    assert again.revisions == []
    assert store.paper("2611.99999") is not None


async def test_new_version_is_a_revision_not_a_new_paper(
    engine: Engine, client: ArxivClient, fake: FakeArxiv
) -> None:
    v1, v2 = dezun_dong_revision()
    store = Store(engine)
    store.follow(["Dezun Dong"])
    fake.replace(v1)
    watcher = poller(store, client)
    await watcher.poll()
    assert store.paper(v1.arxiv_id) == v1

    fake.replace(v2)
    report = await watcher.poll(force=True)

    assert report.new == []
    assert [r.versioned_id for r in report.revisions] == [v2.versioned_id]
    stored = store.paper(v1.arxiv_id)
    assert stored is not None
    assert (stored.version, stored.abstract, stored.updated) == (2, v2.abstract, v2.updated)


async def test_deliveries_are_queued_with_the_new_paper(
    engine: Engine, store: Store, client: ArxivClient, fake: FakeArxiv
) -> None:
    chats, outbox = Chats(engine), Outbox(engine)
    (followed,) = store.followed()
    for chat_id in (1, 2, -100):
        chats.seen(chat_id, kind="private" if chat_id > 0 else "group")
        chats.subscribe(chat_id, followed.id)
    watcher = poller(store, client)
    await watcher.poll()
    assert outbox.due(limit=100) == []  # the backfill announces nothing

    fake.add(new_paper())
    await watcher.poll(force=True)
    await watcher.poll(force=True)

    due = outbox.due(limit=100)
    assert sorted(d.chat_id for d in due) == [-100, 1, 2]
    assert {d.record.arxiv_id for d in due} == {"2611.99999"}


@pytest.mark.parametrize("fault", ["503", "429", "html", "truncated", "timeout", "reset", "empty"])
async def test_a_fault_loses_nothing_and_invents_nothing(
    store: Store, client: ArxivClient, fake: FakeArxiv, fault: str
) -> None:
    watcher = poller(store, client)
    await watcher.poll()
    before = {r.arxiv_id: r.version for r in store.recent(limit=100)}
    fake.add(new_paper())
    fake.inject(fault, times=10)  # type: ignore[arg-type]  # outlasts the client's retries

    failed = await watcher.poll(force=True)

    assert failed.new == []
    assert "Dezun Dong" in failed.failures
    assert {r.arxiv_id: r.version for r in store.recent(limit=100)} == before
    (followed,) = store.followed()
    assert followed.consecutive_failures == 1
    assert followed.last_error
    assert followed.next_poll is not None

    fake.faults.clear()
    recovered = await watcher.poll(force=True)
    assert [r.arxiv_id for r in recovered.new] == ["2611.99999"]
    (followed,) = store.followed()
    assert followed.consecutive_failures == 0
    assert followed.last_error is None


async def test_failed_author_waits_before_its_next_try(
    store: Store, client: ArxivClient, fake: FakeArxiv
) -> None:
    watcher = poller(store, client)
    await watcher.poll()
    fake.inject("503", times=10)
    await watcher.poll(force=True)
    requests = len(fake.api_requests())

    skipped = await watcher.poll()  # not forced: the author is not due again yet

    assert skipped.polled == []
    assert skipped.failures == {}
    assert len(fake.api_requests()) == requests


async def test_one_author_failing_does_not_stop_the_others(
    engine: Engine, client: ArxivClient, fake: FakeArxiv
) -> None:
    store = Store(engine)
    store.follow(["Dezun Dong"])
    store.follow(["Daoyi Dong"])
    fake.inject("503", times=3)  # the first query (one of the two backfills) fails

    report = await poller(store, client).poll()

    assert len(report.failures) == 1
    assert len(report.polled) == 1


async def test_paging_walks_the_whole_history_then_stops_at_known_records(
    store: Store, client: ArxivClient, fake: FakeArxiv
) -> None:
    watcher = poller(store, client, page_size=4)
    await watcher.poll()
    history = len(dezun_dong_records()) + len(LOOKALIKES_BY_THE_AUTHOR)
    assert store.count() == history
    backfill_requests = len(fake.api_requests())
    assert backfill_requests >= history // 4

    fake.add(new_paper())
    report = await watcher.poll(force=True)

    assert [r.arxiv_id for r in report.new] == ["2611.99999"]
    assert len(fake.api_requests()) - backfill_requests <= 2


async def test_empty_page_for_a_known_author_is_unknown_not_nothing(
    store: Store, client: ArxivClient, fake: FakeArxiv
) -> None:
    watcher = poller(store, client)
    await watcher.poll()
    count = store.count()
    fake.inject("empty", times=10)

    report = await watcher.poll(force=True)

    assert "Dezun Dong" in report.failures
    assert "empty" in report.failures["Dezun Dong"]
    assert store.count() == count


async def test_author_without_records_is_polled_fine(engine: Engine, client: ArxivClient) -> None:
    store = Store(engine)
    _followed, _ = store.follow(["Nobody Atall"])

    report = await poller(store, client).poll()

    assert report.failures == {}
    assert report.polled == ["Nobody Atall"]
    assert store.followed()[0].record_count == 0


async def test_several_known_authors_share_one_query(
    engine: Engine, client: ArxivClient, fake: FakeArxiv
) -> None:
    store = Store(engine)
    store.follow(["Dezun Dong"])
    store.follow(["Daoyi Dong"])
    watcher = poller(store, client)
    await watcher.poll()  # two backfills, one query each
    first = len(fake.api_requests())
    fake.add(new_paper())

    await watcher.poll(force=True)

    queries = [r.params["search_query"] for r in fake.api_requests()[first:]]
    assert queries == ['au:"Daoyi Dong" OR au:"Dezun Dong"']


async def test_two_polls_never_run_at_once(
    store: Store, client: ArxivClient, fake: FakeArxiv
) -> None:
    watcher = poller(store, client, page_size=4)

    first, second = await asyncio.gather(watcher.poll(force=True), watcher.poll(force=True))

    starts = [int(r.params["start"]) for r in fake.api_requests()]
    # The first poll pages through the whole history (0, 4, 8, ...) before the second begins,
    # and the second, finding all it sees already stored, stops after its first page.
    backfill_pages = len(starts) - 1
    assert starts == [4 * page for page in range(backfill_pages)] + [0]
    assert first.backfilled > 0 and second.backfilled == 0
    assert second.new == [] and store.count() == first.backfilled


async def test_an_empty_first_answer_on_a_first_poll_is_asked_again_not_believed(
    store: Store, client: ArxivClient, fake: FakeArxiv
) -> None:
    fake.inject("empty", times=2)
    watcher = poller(store, client)

    first = await watcher.poll()

    history = len(dezun_dong_records()) + len(LOOKALIKES_BY_THE_AUTHOR)
    assert first.backfilled == history and first.new == []
    assert [r.fault for r in fake.api_requests()] == ["empty", "empty", None]
    fake.add(new_paper())
    second = await watcher.poll(force=True)
    assert [r.arxiv_id for r in second.new] == ["2611.99999"]  # the history never looks new


async def test_an_empty_page_in_the_middle_of_paging_is_unknown_not_the_end(
    store: Store, client: ArxivClient, fake: FakeArxiv
) -> None:
    fake.faults.extend(["none", "empty"])  # the second page comes back empty
    watcher = poller(store, client, page_size=4)

    failed = await watcher.poll()

    assert "empty page at 4" in failed.failures["Dezun Dong"]
    assert store.count() == 0  # all or nothing: half a history is never stored
    (followed,) = store.followed()
    assert not followed.backfilled

    retried = await watcher.poll(force=True)
    history = len(dezun_dong_records()) + len(LOOKALIKES_BY_THE_AUTHOR)
    assert retried.backfilled == history and store.count() == history


async def test_a_long_retry_after_from_arxiv_sets_the_authors_next_poll(
    store: Store, client: ArxivClient, fake: FakeArxiv
) -> None:
    fake.faults.append(Fault("503", retry_after="7200"))

    report = await poller(store, client).poll()

    assert "asked us to wait 7200 s" in report.failures["Dezun Dong"]
    (followed,) = store.followed()
    assert followed.next_poll is not None and followed.last_attempt is not None
    assert followed.next_poll - followed.last_attempt >= timedelta(seconds=7200)
    assert len(fake.api_requests()) == 1


async def test_a_tick_with_nothing_due_asks_one_question_and_reads_no_follow(
    engine: Engine, store: Store, client: ArxivClient, fake: FakeArxiv
) -> None:
    """Most ticks have nothing to do: they ask whether anything is due (one row at most) and
    stop, where reading every follow with its counts takes a second at 100,000 follows. A
    follow that falls due is polled at the next tick."""
    ticks = poller(store, client)
    await ticks.poll()  # the first poll: Dezun Dong's history, next poll in an hour
    requests = len(fake.api_requests())
    statements: list[str] = []

    def seen(_conn, _cursor, statement, _parameters, _context, _many) -> None:  # type: ignore[no-untyped-def]
        statements.append(statement)

    event.listen(engine, "before_cursor_execute", seen)
    try:
        idle = await ticks.poll()
    finally:
        event.remove(engine, "before_cursor_execute", seen)

    assert (idle.polled, idle.new, idle.failures) == ([], [], {})
    assert len(fake.api_requests()) == requests
    assert len(statements) == 1 and "LIMIT" in statements[0], statements
    (followed,) = store.followed()
    store.record_poll_success([followed.id], now=utcnow(), next_poll=utcnow())  # due now
    fake.add(new_paper())

    due = await ticks.poll()

    assert due.polled == ["Dezun Dong"]
    assert [r.arxiv_id for r in due.new] == [new_paper().arxiv_id]


def test_only_a_follow_someone_wants_makes_a_tick_poll(engine: Engine, store: Store) -> None:
    """A follow neither watched nor subscribed to is never polled: due or not, it does not
    make the tick read every follow."""
    (dong,) = store.followed()
    nobody, _ = store.follow(["Nobody Wanted"], watched=False)
    later, now = utcnow() + timedelta(hours=1), utcnow()
    store.record_poll_success([dong.id], now=now, next_poll=later)
    store.record_poll_success([nobody.id], now=now, next_poll=now - timedelta(hours=1))
    assert not store.any_follow_due(now)

    chats = Chats(engine)
    chats.seen(7, kind="private")
    chats.subscribe(7, nobody.id)
    assert store.any_follow_due(now)

    store.record_poll_success([nobody.id], now=now, next_poll=later)
    assert not store.any_follow_due(now)
    assert store.any_follow_due(later)
