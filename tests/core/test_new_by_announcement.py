""" "New" means announced after the follow began, in arXiv's own order (issue 28, item 5): arXiv
gives the id at announcement, so a paper is new to a follow when its id is newer than the
newest the store held at the follow's start. Against the fake arXiv over HTTP and a real
database, by the API and by the harvest: a submission held in moderation for a week and
announced after the follow began is announced once; a paper announced before it began is not,
whether it arrives late with a DOI, the same evening, or claimed years later; an old-style id
never is."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta

import pytest
from sqlmodel import Session, col, select

from tests.fakes.arxiv_api import FakeArxiv
from tests.fakes.corpus import make_record
from watcher.arxiv.fetch import ArxivClient
from watcher.arxiv.records import Record, announced_after, announcement_order, start_floor
from watcher.follows.identity import Identity
from watcher.polling.poll import Poller, WatchSource
from watcher.store import MatchedRecord, Store
from watcher.store.chats import Chats
from watcher.store.tables import Delivery, Paper, PollState

CHAT = 282
DONG = Identity("arxiv", "dong_d_1")
MODES: list[WatchSource] = ["api", "harvest"]


def now() -> datetime:
    return datetime.now(UTC)


def this_month(number: int) -> str:
    """An id arXiv announces this month: the higher the number, the later."""
    return f"{now():%y%m}.{number:05d}"


def by_dong(arxiv_id: str, title: str, published: datetime, **changes: object) -> Record:
    fields: dict[str, object] = {
        "arxiv_id": arxiv_id,
        "title": title,
        "authors": ["Ziyu Wang", "Dezun Dong"],
        "published": published,
        **changes,
    }
    return make_record(**fields)


@pytest.fixture
def fake() -> Iterator[FakeArxiv]:
    with FakeArxiv([]) as server:
        yield server


def poller(store: Store, client: ArxivClient, fake: FakeArxiv, source: WatchSource) -> Poller:
    return Poller(
        store=store,
        client=client,
        poll_interval=3600,
        source=source,
        oai_url=fake.oai_url,
        author_feed_url=fake.author_feed_url,
    )


def seen_before(store: Store, arxiv_id: str, published: datetime) -> None:
    """The store held this paper before the follow began (another follow's, a look-up)."""
    paper = make_record(arxiv_id=arxiv_id, title="Somebody Else's", published=published)
    store.save_records([MatchedRecord(paper, frozenset())], announce_for=frozenset())


def queued(store: Store) -> list[tuple[str, str]]:
    with Session(store.engine) as session:
        rows = session.exec(
            select(Paper.arxiv_id, Delivery.kind)
            .join(Delivery, col(Delivery.paper_id) == col(Paper.id))
            .where(col(Delivery.chat_id) == CHAT)
        ).all()
    return sorted((arxiv_id, str(kind)) for arxiv_id, kind in rows)


def horizon(store: Store, followed_id: int) -> str | None:
    with Session(store.engine) as session:
        state = session.get(PollState, followed_id)
        assert state is not None and state.started is not None
        return state.horizon


def subscribed(store: Store, followed_id: int) -> None:
    chats = Chats(store.engine)
    chats.seen(CHAT, kind="private")
    chats.subscribe(CHAT, followed_id)


def test_ids_run_in_the_order_arxiv_announced_them() -> None:
    assert announcement_order("2612.00042") == (2612, 42)
    assert announcement_order("0704.0001") == (704, 1)
    assert announcement_order("hep-th/9901001") is None
    assert announced_after("1501.00001", "1412.9999")  # four digits, then five
    assert announced_after("2612.10000", "2612.09999")
    assert not announced_after("2612.00042", "2612.00042")
    assert not announced_after("hep-th/9901001", "0704.0001")  # old-style: never after
    assert announced_after("0704.0001", "hep-th/9901001")
    # Knowing nothing, January of the year before the start's.
    assert start_floor(datetime(2026, 12, 3, 15, tzinfo=UTC)) == "2501.00000"
    assert start_floor(datetime(2027, 1, 1, 0, 30, tzinfo=UTC)) == "2601.00000"


@pytest.mark.parametrize("source", MODES)
async def test_a_paper_held_a_week_and_announced_after_the_follow_began_is_new_once(
    fake: FakeArxiv, client: ArxivClient, store: Store, source: WatchSource
) -> None:
    """The store held this month's 50000 when Dezun Dong's follow began (its first poll found
    his paper of last month). Then arXiv announces 60001, submitted 5 days ago and held in
    moderation: new, announced once. And 40001, announced before the follow began, which the
    API showed only later, with a DOI: not new, stored silently."""
    seen_before(store, this_month(50000), now() - timedelta(days=2))
    older = by_dong("2610.01234", "Routing of Old", now() - timedelta(days=40))
    fake.add(older, datestamp=(now() - timedelta(days=40)).date())
    follow, _ = store.follow(["Dezun Dong"])
    subscribed(store, follow.id)
    polls = poller(store, client, fake, source)
    first = await polls.poll(force=True)
    assert first.failures == {} and first.new == [] and queued(store) == []
    assert horizon(store, follow.id) == this_month(50000)

    held = by_dong(this_month(60001), "Held in Moderation", now() - timedelta(days=5))
    late = by_dong(
        this_month(40001), "Out Before the Follow", now() - timedelta(days=3), doi="10.1/x"
    )
    for record in (held, late):
        fake.add(record, datestamp=now().date())
    second = await polls.poll(force=True)
    third = await polls.poll(force=True)

    assert second.failures == {} and third.failures == {}
    assert [r.arxiv_id for r in second.new] == [held.arxiv_id]
    assert third.new == []
    assert queued(store) == [(held.arxiv_id, "new")]
    (watched,) = store.followed([follow.id])
    assert watched.record_count == 3  # the late one is his, silently


@pytest.mark.parametrize("source", MODES)
async def test_a_paper_of_the_evening_the_follow_began_is_new_only_if_announced_after(
    fake: FakeArxiv, client: ArxivClient, store: Store, source: WatchSource
) -> None:
    """The follow began at 21:00 US Eastern, after that evening's batch (the store holds its
    55000): that batch's 54000 by Dezun Dong, missed by the first poll, is not new. The next
    evening's 70001 is, once."""
    seen_before(store, this_month(55000), now() - timedelta(hours=30))
    follow, _ = store.follow(["Dezun Dong"])
    subscribed(store, follow.id)
    polls = poller(store, client, fake, source)
    assert (await polls.poll(force=True)).new == []

    same_evening = by_dong(this_month(54000), "Out That Evening", now() - timedelta(hours=28))
    next_evening = by_dong(this_month(70001), "Out the Next Evening", now() - timedelta(hours=6))
    for record in (same_evening, next_evening):
        fake.add(record, datestamp=now().date())
    second = await polls.poll(force=True)
    third = await polls.poll(force=True)

    assert [r.arxiv_id for r in second.new] == [next_evening.arxiv_id]
    assert third.new == []
    assert queued(store) == [(next_evening.arxiv_id, "new")]


@pytest.mark.parametrize("source", MODES)
async def test_a_claimed_2015_paper_and_an_old_style_one_are_not_new(
    fake: FakeArxiv, client: ArxivClient, store: Store, source: WatchSource
) -> None:
    """Followed by identity (the author feed), the history fetched silently (the store holds
    his paper of last month); then the person claims a paper of 2015 and one of 1999: stored as
    theirs, announced to nobody. A paper announced today is new."""
    first_paper = by_dong("2611.00001", "Routing on HyperX", now() - timedelta(days=30))
    fake.add(first_paper)
    fake.claim(DONG.feed_id, [first_paper.arxiv_id])
    follow, _ = store.follow_identity(DONG, name="Dezun Dong")
    subscribed(store, follow.id)
    polls = poller(store, client, fake, source)
    assert (await polls.poll(force=True)).new == []

    claimed = by_dong("1503.00007", "Interconnects of 2015", datetime(2015, 3, 7, tzinfo=UTC))
    ancient = by_dong("cs/9901001", "Interconnects of 1999", datetime(1999, 1, 4, tzinfo=UTC))
    fresh = by_dong(this_month(80001), "Dragonfly Today", now() - timedelta(hours=4))
    for record in (claimed, ancient, fresh):
        fake.add(record, datestamp=now().date())
    fake.claim(DONG.feed_id, [claimed.arxiv_id, ancient.arxiv_id, fresh.arxiv_id])
    second = await polls.poll(force=True)

    assert second.failures == {}
    assert [r.arxiv_id for r in second.new] == [fresh.arxiv_id]
    assert queued(store) == [(fresh.arxiv_id, "new")]
    (watched,) = store.followed([follow.id])
    assert watched.record_count == 4


def test_on_an_empty_store_the_month_before_the_start_stands_in(store: Store) -> None:
    """A fresh install: the follow's first poll found nothing and the store held nothing, so
    it has no horizon of its own. A paper of 2015 is still not new, one of this month is."""
    follow, _ = store.follow(["Dezun Dong"])
    subscribed(store, follow.id)
    store.record_poll_success([follow.id], now=now(), next_poll=now())
    assert horizon(store, follow.id) is None
    ids = frozenset({follow.id})
    claimed = by_dong("1503.00007", "Interconnects of 2015", datetime(2015, 3, 7, tzinfo=UTC))
    fresh = by_dong(this_month(80001), "Dragonfly Today", now() - timedelta(hours=4))

    saved = store.save_records([MatchedRecord(r, ids) for r in (claimed, fresh)], announce_for=ids)

    assert [r.arxiv_id for r in saved.new] == [fresh.arxiv_id]
    assert queued(store) == [(fresh.arxiv_id, "new")]


def test_the_horizon_is_the_newest_new_style_id_in_arxivs_order(store: Store) -> None:
    """Old-style ids, even one shaped like a new one ("math.GT/…"), and older months with more
    papers do not stand in for the newest id the store holds."""
    for arxiv_id in ("math.GT/0309136", "hep-th/9901001", "1412.9999", "2611.00500", "2610.99999"):
        seen_before(store, arxiv_id, now() - timedelta(days=30))
    follow, _ = store.follow(["Dezun Dong"])
    store.record_poll_success([follow.id], now=now(), next_poll=now())
    later = now() + timedelta(hours=1)
    seen_before(store, "2611.00900", now())
    store.record_poll_success([follow.id], now=later, next_poll=later)  # started already

    assert horizon(store, follow.id) == "2611.00500"
