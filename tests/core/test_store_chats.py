"""Chats and the outbox on a real database (SQLite file, or PostgreSQL): deliveries are queued
once per chat, retried, parked for an inactive chat, carried over a migrated chat and dropped on
/unsubscribe; a paper shared by co-authors reaches each one's subscribers; a chat follows at
most fifty authors.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy import Engine
from sqlmodel import Session, select

from tests.fakes.corpus import make_record
from tests.harness.matched import matched
from watcher.arxiv.records import Record
from watcher.follows.followed import Followed
from watcher.store import SaveResult, Store
from watcher.store.chats import MAX_SUBSCRIPTIONS, Chats, SubscriptionLimit
from watcher.store.outbox import Outbox
from watcher.store.tables import Delivery

# -- chats and the outbox ----------------------------------------------------------------------


@pytest.fixture
def subscribed(engine: Engine, store: Store) -> tuple[Chats, Outbox, int]:
    chats = Chats(engine)
    followed, _ = store.follow(["Dezun Dong"])
    for chat_id in (10, 20):
        chats.seen(chat_id, kind="private")
        chats.subscribe(chat_id, followed.id)
    return chats, Outbox(engine), followed.id


def test_new_paper_queues_one_delivery_per_chat_and_only_once(
    store: Store, subscribed: tuple[Chats, Outbox, int]
) -> None:
    _chats, outbox, followed_id = subscribed
    ids = frozenset({followed_id})
    store.save_records([matched(make_record(), followed_id)], announce_for=ids)
    store.save_records([matched(make_record(), followed_id)], announce_for=ids)

    assert sorted(d.chat_id for d in outbox.due(limit=10)) == [10, 20]


def test_revisions_only_reach_chats_that_asked(
    store: Store, subscribed: tuple[Chats, Outbox, int]
) -> None:
    chats, outbox, followed_id = subscribed
    ids = frozenset({followed_id})
    v1 = make_record()
    store.save_records([matched(v1, followed_id)], announce_for=ids)
    for delivery in outbox.due(limit=10):
        outbox.mark_sent(delivery.id, message_id=1)
    chats.set_notify_revisions(20, True)

    store.save_records([matched(replace(v1, version=2), followed_id)], announce_for=ids)

    (due,) = outbox.due(limit=10)
    assert (due.chat_id, due.kind, due.record.version) == (20, "revision", 2)


def test_sent_failed_and_retry_states(store: Store, subscribed: tuple[Chats, Outbox, int]) -> None:
    _chats, outbox, followed_id = subscribed
    store.save_records([matched(make_record(), followed_id)], announce_for=frozenset({followed_id}))
    first, second = sorted(outbox.due(limit=10), key=lambda d: d.chat_id)

    outbox.mark_sent(first.id, message_id=7)
    outbox.retry_later(second.id, error="timed out", at=datetime.now(UTC) + timedelta(hours=1))
    assert outbox.due(limit=10) == []
    later = outbox.due(limit=10, now=datetime.now(UTC) + timedelta(hours=2))
    assert [(d.chat_id, d.attempts) for d in later] == [(20, 1)]

    outbox.mark_failed(second.id, error="Bad Request: chat not found")
    outbox.mark_sent(second.id, message_id=8)  # a failed delivery is never flipped back
    stats = outbox.stats()
    assert (stats.pending, stats.sent, stats.failed) == (0, 1, 1)
    assert outbox.failures() == [(20, "2604.00001", "Bad Request: chat not found")]


def test_inactive_chat_parks_deliveries_until_it_comes_back(
    store: Store, subscribed: tuple[Chats, Outbox, int]
) -> None:
    chats, outbox, followed_id = subscribed
    chats.deactivate(10, reason="Forbidden: bot was blocked by the user")
    store.save_records([matched(make_record(), followed_id)], announce_for=frozenset({followed_id}))

    assert [d.chat_id for d in outbox.due(limit=10)] == [20]
    assert outbox.stats().parked == 1

    assert chats.seen(10, kind="private") is True
    assert sorted(d.chat_id for d in outbox.due(limit=10)) == [10, 20]


def test_migrated_chat_keeps_subscriptions_and_deliveries(
    store: Store, subscribed: tuple[Chats, Outbox, int]
) -> None:
    chats, outbox, followed_id = subscribed
    store.save_records([matched(make_record(), followed_id)], announce_for=frozenset({followed_id}))

    chats.migrate(20, -1001234)

    assert chats.get(20) is None
    assert chats.subscribed_ids(-1001234) == [followed_id]
    assert sorted(d.chat_id for d in outbox.due(limit=10)) == [-1001234, 10]


def test_unsubscribing_drops_pending_deliveries_no_longer_wanted(
    store: Store, subscribed: tuple[Chats, Outbox, int]
) -> None:
    chats, outbox, followed_id = subscribed
    store.save_records([matched(make_record(), followed_id)], announce_for=frozenset({followed_id}))

    assert chats.unsubscribe(10) == 1
    assert chats.unsubscribe(10) == 0

    assert [d.chat_id for d in outbox.due(limit=10)] == [20]


def test_migration_into_a_chat_we_already_know_merges_the_two(
    store: Store, subscribed: tuple[Chats, Outbox, int]
) -> None:
    chats, outbox, followed_id = subscribed
    other, _ = store.follow(["Daoyi Dong"])
    chats.seen(-1001234, kind="supergroup")
    chats.subscribe(-1001234, followed_id)
    chats.subscribe(20, other.id)
    store.save_records([matched(make_record(), followed_id)], announce_for=frozenset({followed_id}))
    chats.seen(20, kind="group")

    chats.migrate(20, -1001234)

    assert chats.get(20) is None
    assert sorted(chats.subscribed_ids(-1001234)) == sorted([followed_id, other.id])
    assert sorted(d.chat_id for d in outbox.due(limit=10)) == [-1001234, 10]


def test_many_confirmations_are_marked_sent_in_one_call(
    engine: Engine, store: Store, subscribed: tuple[Chats, Outbox, int]
) -> None:
    chats, outbox, followed_id = subscribed
    for chat_id in (30, 40):
        chats.seen(chat_id, kind="private")
        chats.subscribe(chat_id, followed_id)
    store.save_records([matched(make_record(), followed_id)], announce_for=frozenset({followed_id}))
    by_chat = {d.chat_id: d for d in outbox.due(limit=10)}
    outbox.mark_failed(by_chat[40].id, error="Bad Request: chat not found")

    outbox.mark_sent_many([(by_chat[10].id, 101), (by_chat[20].id, None), (by_chat[40].id, 104)])
    outbox.mark_sent_many([])

    assert [d.chat_id for d in outbox.due(limit=10)] == [30]
    stats = outbox.stats()
    assert (stats.pending, stats.sent, stats.failed) == (1, 2, 1)
    with Session(engine) as session:
        rows = {d.chat_id: d for d in session.exec(select(Delivery))}
    assert (rows[10].status, rows[10].message_id) == ("sent", 101)
    assert (rows[20].status, rows[20].message_id) == ("sent", None)
    assert rows[10].sent is not None
    assert rows[20].sent is not None
    assert (rows[30].status, rows[30].sent) == ("pending", None)
    # A failed delivery is never flipped back, even inside a batch.
    assert (rows[40].status, rows[40].message_id, rows[40].sent) == ("failed", None, None)


@dataclass
class Coauthors:
    """Two followed authors who write a paper together, and chats following them."""

    store: Store
    chats: Chats
    outbox: Outbox
    dong: Followed
    wang: Followed
    joint: Record

    @property
    def both(self) -> frozenset[int]:
        return frozenset({self.dong.id, self.wang.id})

    def subscribe(self, chat_id: int, *authors: Followed) -> None:
        self.chats.seen(chat_id, kind="private")
        for author in authors:
            self.chats.subscribe(chat_id, author.id)

    def save(self, record: Record, *authors: Followed, announce_for: frozenset[int]) -> SaveResult:
        return self.store.save_records(
            [matched(record, *(a.id for a in authors))], announce_for=announce_for
        )


@pytest.fixture
def coauthors(engine: Engine, store: Store) -> Coauthors:
    return Coauthors(
        store=store,
        chats=Chats(engine),
        outbox=Outbox(engine),
        dong=store.follow(["Dezun Dong"])[0],
        wang=store.follow(["Ziyu Wang"])[0],
        joint=make_record(authors=["Ziyu Wang", "Dezun Dong"]),
    )


def test_a_paper_stored_through_one_author_is_still_new_to_the_others_subscribers(
    coauthors: Coauthors,
) -> None:
    c = coauthors
    c.subscribe(1, c.dong)
    c.subscribe(2, c.wang)
    c.subscribe(3, c.dong, c.wang)

    # Their polls run in different cycles: Wang's finds the paper first, Dong's later.
    first = c.save(c.joint, c.wang, announce_for=c.both)
    second = c.save(c.joint, c.dong, announce_for=c.both)
    again = c.save(c.joint, c.dong, c.wang, announce_for=c.both)

    assert [r.arxiv_id for r in first.new] == [c.joint.arxiv_id]
    assert [r.arxiv_id for r in second.new] == [c.joint.arxiv_id]
    assert again.new == [] and again.revisions == []
    assert sorted(d.chat_id for d in c.outbox.due(limit=10)) == [1, 2, 3]


def test_a_backfill_of_one_author_does_not_silence_the_paper_for_another(
    coauthors: Coauthors,
) -> None:
    c = coauthors
    c.subscribe(1, c.dong)
    only_dong = frozenset({c.dong.id})

    silent = c.save(c.joint, c.wang, announce_for=only_dong)
    found = c.save(c.joint, c.dong, announce_for=only_dong)

    assert silent.new == [] and silent.silent == 1
    assert [r.arxiv_id for r in found.new] == [c.joint.arxiv_id]
    assert [d.chat_id for d in c.outbox.due(limit=10)] == [1]


def test_a_version_one_author_has_not_seen_is_a_revision_for_them(coauthors: Coauthors) -> None:
    c = coauthors
    c.subscribe(1, c.dong)
    c.chats.set_notify_revisions(1, True)
    v2 = replace(c.joint, version=2, abstract="Revised.")
    c.save(c.joint, c.dong, c.wang, announce_for=c.both)
    (delivery,) = c.outbox.due(limit=10)
    c.outbox.mark_sent(delivery.id, message_id=1)

    by_wang = c.save(v2, c.wang, announce_for=c.both)
    by_dong = c.save(v2, c.dong, announce_for=c.both)

    assert [r.version for r in by_wang.revisions] == [2]
    assert [r.version for r in by_dong.revisions] == [2]
    (revision,) = c.outbox.due(limit=10)
    assert (revision.chat_id, revision.kind, revision.record.version) == (1, "revision", 2)
    assert c.store.linked_versions([v2.arxiv_id], c.both) == {
        (v2.arxiv_id, c.dong.id): 2,
        (v2.arxiv_id, c.wang.id): 2,
    }


def test_a_chat_hears_of_a_paper_as_new_once_whatever_version_it_comes_at(
    coauthors: Coauthors,
) -> None:
    c = coauthors
    c.subscribe(1, c.dong, c.wang)

    c.save(c.joint, c.wang, announce_for=c.both)
    c.save(replace(c.joint, version=2), c.dong, announce_for=c.both)

    assert [(d.kind, d.chat_id) for d in c.outbox.due(limit=10)] == [("new", 1)]


def test_a_chat_follows_at_most_fifty_authors(engine: Engine, store: Store) -> None:
    chats = Chats(engine)
    chats.seen(1, kind="private")
    ids = [
        store.follow([f"Author Number{chr(65 + i // 26)}{chr(65 + i % 26)}"])[0].id
        for i in range(MAX_SUBSCRIPTIONS + 1)
    ]
    for followed_id in ids[:MAX_SUBSCRIPTIONS]:
        assert chats.subscribe(1, followed_id)

    with pytest.raises(SubscriptionLimit):
        chats.subscribe(1, ids[-1])
    assert chats.subscribe(1, ids[0]) is False  # already followed: no limit in the way
    assert len(chats.subscribed_ids(1)) == MAX_SUBSCRIPTIONS
