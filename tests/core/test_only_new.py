"""Only what is new, only once (issue 18, items 1-3), against the fake arXiv over HTTP and a
real database: a paper older than a follow is never new to it, whatever brings it now (a
metadata change seen by the harvest, a new version seen by the API, a person claiming it), and
a chat told of a paper is not told again after the outbox is pruned."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, date, datetime, timedelta

import pytest
from sqlalchemy import update
from sqlmodel import Session, col, select

from tests.fakes.arxiv_api import FakeArxiv
from tests.fakes.corpus import make_record
from watcher.arxiv.fetch import ArxivClient
from watcher.arxiv.records import Record
from watcher.follows.identity import Identity
from watcher.follows.topics import parse_topic
from watcher.polling.poll import Poller, WatchSource
from watcher.store import MatchedRecord, Store
from watcher.store.chats import Chats
from watcher.store.outbox import Outbox
from watcher.store.tables import Delivery, FollowedAuthor, Paper, utcnow

RDMA = parse_topic('"remote direct memory access" RDMA in cs.DC,cs.NI')
ABSTRACT = "We build remote direct memory access (RDMA) transports for clusters."
DONG = Identity("arxiv", "dong_d_1")
CHAT = 181


def on_topic(arxiv_id: str, title: str, published: datetime, **changes: object) -> Record:
    fields: dict[str, object] = {
        "arxiv_id": arxiv_id,
        "title": title,
        "abstract": ABSTRACT,
        "authors": ["Ada Topicwriter"],
        "published": published,
        **changes,
    }
    return make_record(**fields)


def by_dong(arxiv_id: str, title: str, published: datetime) -> Record:
    return make_record(
        arxiv_id=arxiv_id, title=title, authors=["Ziyu Wang", "Dezun Dong"], published=published
    )


OLD_2019 = on_topic("1905.01234", "Transports of 2019", datetime(2019, 5, 6, 9, 0, tzinfo=UTC))


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


def created_days_ago(store: Store, followed_id: int, days: float) -> None:
    """The follow was created `days` ago (test data: the row as an older follow leaves it)."""
    with Session(store.engine) as session:
        session.exec(
            update(FollowedAuthor)
            .where(col(FollowedAuthor.id) == followed_id)
            .values(created=utcnow() - timedelta(days=days))
        )
        session.commit()


def subscribed(store: Store, followed_id: int, chat_id: int = CHAT) -> Chats:
    chats = Chats(store.engine)
    chats.seen(chat_id, kind="private")
    chats.subscribe(chat_id, followed_id)
    return chats


def queued(store: Store, chat_id: int = CHAT) -> list[tuple[str, str]]:
    """(arXiv id, kind) of every delivery to `chat_id`, in the outbox now."""
    with Session(store.engine) as session:
        rows = session.exec(
            select(Paper.arxiv_id, Delivery.kind)
            .join(Delivery, col(Delivery.paper_id) == col(Paper.id))
            .where(col(Delivery.chat_id) == chat_id)
        ).all()
    return sorted((arxiv_id, str(kind)) for arxiv_id, kind in rows)


def stored_version(store: Store, arxiv_id: str) -> int | None:
    with Session(store.engine) as session:
        return session.exec(select(Paper.version).where(col(Paper.arxiv_id) == arxiv_id)).first()


async def test_harvest_a_years_old_paper_whose_metadata_moved_is_stored_silently_for_a_topic(
    fake: FakeArxiv, client: ArxivClient, store: Store
) -> None:
    """A topic created a week ago, its first poll done; a 2019 paper on the topic gets a
    journal reference stamped today: it is linked to the topic, and announced to nobody. A
    paper of today on the topic is announced (the same harvest)."""
    topic, _ = store.watch_topic(RDMA)
    created_days_ago(store, topic.id, 7)
    subscribed(store, topic.id)
    store.record_poll_success([topic.id], now=utcnow(), next_poll=utcnow())
    today = datetime.now(UTC).date()
    fake.add(OLD_2019, datestamp=date(2019, 5, 7))
    fake.touch(OLD_2019.arxiv_id, today, journal_ref="J. Transports 12 (2026) 1-20")
    fresh = on_topic(f"{today:%y%m}.40001", "Transports of Today", utcnow() - timedelta(hours=5))
    fake.add(fresh, datestamp=today)

    report = await poller(store, client, fake, "harvest").poll(force=True)

    assert report.failures == {}
    assert [r.arxiv_id for r in report.new] == [fresh.arxiv_id]
    assert queued(store) == [(fresh.arxiv_id, "new")]
    (watched,) = store.followed([topic.id])
    assert watched.record_count == 2  # the 2019 paper is the topic's, silently


async def test_api_a_new_version_of_a_years_old_paper_is_not_new_to_a_topic(
    fake: FakeArxiv, client: ArxivClient, store: Store
) -> None:
    """A topic created a week ago, its first poll done; a 2019 paper's v2 appears today: it is
    stored (at v2) for the topic, and announced to nobody. A paper of today is announced."""
    fake.add(OLD_2019)
    topic, _ = store.watch_topic(RDMA)
    created_days_ago(store, topic.id, 7)
    subscribed(store, topic.id)
    polls = poller(store, client, fake, "api")
    first = await polls.poll(force=True)
    assert first.failures == {} and first.new == []
    assert stored_version(store, OLD_2019.arxiv_id) is None  # outside the first poll's window

    now = utcnow()
    fake.replace(
        on_topic(
            OLD_2019.arxiv_id,
            OLD_2019.title,
            OLD_2019.published,
            version=2,
            updated=now - timedelta(hours=2),
        )
    )
    fresh = on_topic(f"{now:%y%m}.40002", "Transports of Today", now - timedelta(hours=3))
    fake.add(fresh)
    second = await polls.poll(force=True)

    assert second.failures == {}
    assert [r.arxiv_id for r in second.new] == [fresh.arxiv_id]
    assert queued(store) == [(fresh.arxiv_id, "new")]
    assert stored_version(store, OLD_2019.arxiv_id) == 2


async def test_a_person_claiming_old_papers_is_not_a_flood_of_new_ones(
    fake: FakeArxiv, client: ArxivClient, store: Store
) -> None:
    """Followed by identity, the history fetched silently; then the person claims 12 papers
    of 2015: stored as theirs, announced to nobody. A paper of today they claim is announced."""
    first_paper = by_dong("2611.00001", "Routing on HyperX", utcnow() - timedelta(days=30))
    fake.add(first_paper)
    fake.claim(DONG.feed_id, [first_paper.arxiv_id])
    follow, _ = store.follow_identity(DONG, name="Dezun Dong")
    subscribed(store, follow.id)
    polls = poller(store, client, fake, "api")
    first = await polls.poll(force=True)
    assert first.failures == {} and first.new == [] and queued(store) == []

    old = [
        by_dong(f"1503.{n:05d}", f"Interconnects {n}", datetime(2015, 3, n, 9, 0, tzinfo=UTC))
        for n in range(1, 13)
    ]
    fresh = by_dong(f"{utcnow():%y%m}.50001", "Dragonfly Today", utcnow() - timedelta(hours=4))
    for record in (*old, fresh):
        fake.add(record)
    fake.claim(DONG.feed_id, [r.arxiv_id for r in (*old, fresh)])
    second = await polls.poll(force=True)

    assert second.failures == {}
    assert [r.arxiv_id for r in second.new] == [fresh.arxiv_id]
    assert queued(store) == [(fresh.arxiv_id, "new")]
    (watched,) = store.followed([follow.id])
    assert watched.record_count == 14  # the old ones are theirs, silently


def test_a_chat_told_of_a_paper_is_not_told_again_after_the_outbox_is_pruned(
    store: Store,
) -> None:
    """A chat follows Dezun Dong by name and by arxiv:dong_d_1. Paper X was announced through
    the name, sent, and the outbox pruned; then the person claims X: nothing is queued."""
    by_name, _ = store.follow(["Dezun Dong"])
    by_identity, _ = store.follow_identity(DONG, name="Dezun Dong")
    chats = subscribed(store, by_name.id)
    chats.subscribe(CHAT, by_identity.id)
    long_ago = utcnow() - timedelta(days=60)  # both polled since then
    store.record_poll_success([by_name.id, by_identity.id], now=long_ago, next_poll=long_ago)
    paper_x = by_dong("2610.00042", "Paper X", utcnow() - timedelta(days=40))

    told = store.save_records(
        [MatchedRecord(paper_x, frozenset({by_name.id}))], announce_for=frozenset({by_name.id})
    )
    assert [r.arxiv_id for r in told.new] == [paper_x.arxiv_id]
    outbox = Outbox(store.engine)
    (delivery,) = outbox.due(limit=10)
    outbox.mark_sent(delivery.id, message_id=1)
    pruned = outbox.prune(older_than=utcnow() + timedelta(days=1))
    assert pruned.settled == 1 and queued(store) == []

    claimed = store.save_records(
        [MatchedRecord(paper_x, frozenset({by_identity.id}))],
        announce_for=frozenset({by_identity.id}),
    )

    # New to the identity (its first link, not older than it), but this chat was told.
    assert [r.arxiv_id for r in claimed.new] == [paper_x.arxiv_id]
    assert queued(store) == []
