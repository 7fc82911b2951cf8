"""A delivery waiting to go out holds the version of the paper the chat will be sent, the one
stored now, whichever save stored it: a newer version stored by another follow's save (one
that owes this chat nothing) moves the waiting row too. Found by the property test over random
histories (`test_histories.py`); before, the chat was sent v2 (the sender reads the paper as
stored), the row said v1, and when the chat's own follow saw v2 it was told v2 again."""

from __future__ import annotations

from datetime import timedelta

from sqlmodel import Session, col, select

from tests.fakes.corpus import make_record
from watcher.follows.topics import parse_topic
from watcher.store import MatchedRecord, Store
from watcher.store.chats import Chats
from watcher.store.outbox import Outbox
from watcher.store.tables import AnnouncedPaper, Delivery, utcnow

CHAT = 303


def told(store: Store) -> list[tuple[int, str, str]]:
    with Session(store.engine) as session:
        rows = session.exec(
            select(Delivery.version, Delivery.kind, Delivery.status)
            .where(col(Delivery.chat_id) == CHAT)
            .order_by(col(Delivery.id))
        ).all()
    return [(version, str(kind), str(status)) for version, kind, status in rows]


def test_a_newer_version_stored_for_another_follow_is_the_one_the_waiting_row_says(
    store: Store,
) -> None:
    """A chat that asked for revisions follows Dezun Dong; a topic nobody in the chat follows
    matches the same paper. v1 is queued for the chat; v2 is stored for the topic (its silent
    first poll); the chat is sent v2. When Dong's poll sees v2 the chat is not told it again."""
    person, _ = store.follow(["Dezun Dong"])
    topic, _ = store.watch_topic(parse_topic('"remote direct memory access" in cs.DC'))
    long_ago = utcnow() - timedelta(days=30)
    store.record_poll_success([person.id], now=long_ago, next_poll=long_ago)
    chats = Chats(store.engine)
    chats.seen(CHAT, kind="private")
    chats.set_notify_revisions(CHAT, True)
    chats.subscribe(CHAT, person.id)
    v1 = make_record(arxiv_id="2611.03030", title="RDMA on HyperX")
    v2 = make_record(arxiv_id="2611.03030", version=2, title="RDMA on HyperX, Revised")

    def save(record: object, followed_id: int, *, announce: bool) -> None:
        ids = frozenset({followed_id})
        store.save_records(
            [MatchedRecord(record, ids)],  # type: ignore[arg-type]
            announce_for=ids if announce else frozenset(),
        )

    save(v1, person.id, announce=True)
    save(v2, topic.id, announce=False)
    assert told(store) == [(2, "new", "pending")]  # it will carry v2
    outbox = Outbox(store.engine)
    (delivery,) = outbox.due(limit=10)
    assert delivery.record.title == v2.title
    outbox.mark_sent_many([(delivery.id, 1)], versions={delivery.id: delivery.record.version})

    save(v2, person.id, announce=True)

    assert told(store) == [(2, "new", "sent")]
    with Session(store.engine) as session:
        assert session.exec(
            select(AnnouncedPaper.version).where(col(AnnouncedPaper.chat_id) == CHAT)
        ).all() == [2]
