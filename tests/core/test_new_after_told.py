"""A paper new to one follow, at a version newer than the one a chat was already told through
another follow: a chat that asked for revisions is told that version as a revision; one that
did not hears nothing more; one told of the paper by no follow hears it as new.

Found by the property test over random histories (`test_histories.py`): a chat follows a person
by name and by arXiv identity; v1 came by the name and was sent; v2 came first by the author
feed, new to the identity. Before, the chat was owed v2 "as new", was already told of the
paper, and was queued nothing: v2 was never told unless a later poll of the name saw it (and
never, once the chat kept only the identity).
"""

from __future__ import annotations

from datetime import timedelta

from sqlmodel import Session, col, select

from tests.fakes.corpus import make_record
from watcher.follows.identity import Identity
from watcher.kinds import NewsKind
from watcher.store import MatchedRecord, Store
from watcher.store.chats import Chats
from watcher.store.outbox import Outbox
from watcher.store.tables import Delivery, utcnow

BOTH_WITH_REVISIONS, IDENTITY_ONLY, BOTH_WITHOUT_REVISIONS = 404, 405, 406


def told(store: Store, chat_id: int) -> list[tuple[int, NewsKind]]:
    with Session(store.engine) as session:
        rows = session.exec(
            select(Delivery.version, Delivery.kind)
            .where(col(Delivery.chat_id) == chat_id)
            .order_by(col(Delivery.id))
        ).all()
    return [(version, NewsKind(kind)) for version, kind in rows]


def send_all(store: Store) -> None:
    outbox = Outbox(store.engine)
    due = outbox.due(limit=100)
    outbox.mark_sent_many(
        [(d.id, i) for i, d in enumerate(due, 1)], versions={d.id: d.record.version for d in due}
    )


def test_a_version_new_to_another_follow_is_a_revision_for_a_chat_told_an_older_one(
    store: Store,
) -> None:
    by_name, _ = store.follow(["Dezun Dong"])
    by_identity, _ = store.follow_identity(Identity("arxiv", "dong_d_1"), name="Dezun Dong")
    long_ago = utcnow() - timedelta(days=30)
    store.record_poll_success([by_name.id, by_identity.id], now=long_ago, next_poll=long_ago)
    chats = Chats(store.engine)
    for chat_id, follows, revisions in (
        (BOTH_WITH_REVISIONS, (by_name, by_identity), True),
        (IDENTITY_ONLY, (by_identity,), False),
        (BOTH_WITHOUT_REVISIONS, (by_name, by_identity), False),
    ):
        chats.seen(chat_id, kind="private")
        chats.set_notify_revisions(chat_id, revisions)
        for followed in follows:
            chats.subscribe(chat_id, followed.id)
    v1 = make_record(arxiv_id="2611.04040", title="RDMA on HyperX", authors=["Dezun Dong"])
    v2 = make_record(
        arxiv_id="2611.04040", version=2, title="RDMA on HyperX, Revised", authors=["Dezun Dong"]
    )

    # v1 found by the name (the person has not claimed it yet), and sent.
    ids = frozenset({by_name.id})
    assert store.save_records([MatchedRecord(v1, ids)], announce_for=ids).new == [v1]
    send_all(store)
    # v2, claimed: the author feed brings it first, new to the identity.
    ids = frozenset({by_identity.id})
    assert store.save_records([MatchedRecord(v2, ids)], announce_for=ids).new == [v2]
    send_all(store)

    assert told(store, BOTH_WITH_REVISIONS) == [(1, NewsKind.NEW), (2, NewsKind.REVISION)]
    assert told(store, IDENTITY_ONLY) == [(2, NewsKind.NEW)]
    assert told(store, BOTH_WITHOUT_REVISIONS) == [(1, NewsKind.NEW)]

    # The name's poll sees v2 later: nobody is told it again.
    ids = frozenset({by_name.id})
    assert store.save_records([MatchedRecord(v2, ids)], announce_for=ids).revisions == [v2]
    assert Outbox(store.engine).due(limit=100) == []
    assert told(store, BOTH_WITH_REVISIONS) == [(1, NewsKind.NEW), (2, NewsKind.REVISION)]


def test_a_paper_twice_in_one_save_waits_at_the_version_stored(store: Store) -> None:
    """One save holds v1 for a name and v2 for an identity (new to both): a chat following
    both waits for one message, at v2, the version stored."""
    by_name, _ = store.follow(["Dezun Dong"])
    by_identity, _ = store.follow_identity(Identity("arxiv", "dong_d_1"), name="Dezun Dong")
    long_ago = utcnow() - timedelta(days=30)
    store.record_poll_success([by_name.id, by_identity.id], now=long_ago, next_poll=long_ago)
    chats = Chats(store.engine)
    chats.seen(BOTH_WITH_REVISIONS, kind="private")
    chats.set_notify_revisions(BOTH_WITH_REVISIONS, True)
    for followed in (by_name, by_identity):
        chats.subscribe(BOTH_WITH_REVISIONS, followed.id)
    v1 = make_record(arxiv_id="2611.04041", title="RDMA on HyperX", authors=["Dezun Dong"])
    v2 = make_record(
        arxiv_id="2611.04041", version=2, title="RDMA, Revised", authors=["Dezun Dong"]
    )
    ids = frozenset({by_name.id, by_identity.id})
    store.save_records(
        [
            MatchedRecord(v1, frozenset({by_name.id})),
            MatchedRecord(v2, frozenset({by_identity.id})),
        ],
        announce_for=ids,
    )
    assert told(store, BOTH_WITH_REVISIONS) == [(2, NewsKind.NEW)]
