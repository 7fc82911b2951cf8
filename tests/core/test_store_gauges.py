"""The store's gauges a scrape shows (`watcher.store.gauges`) on a real database: pending rows
only (not parked, held, sent or failed), follow rules someone polls by kind, active chats."""

from __future__ import annotations

from sqlalchemy import Engine

from tests.fakes.corpus import make_record
from watcher.follows.rules import parse_watched
from watcher.store import MatchedRecord, Store
from watcher.store.chats import Chats
from watcher.store.gauges import Gauges, read_gauges
from watcher.store.outbox import Outbox


def test_gauges_count_what_waits_what_is_polled_and_who_listens(
    engine: Engine, store: Store
) -> None:
    assert read_gauges(engine) == Gauges(0, {"person": 0, "identity": 0, "topic": 0}, 0)
    store.follow(["Dezun Dong"])  # the operator's: polled without subscribers
    subscribed, _ = store.follow(["Ann Other"], watched=False)
    store.follow(["Nobody Follows"], watched=False)  # no subscriber: not polled
    gone, _ = store.follow(["Only Blocked"], watched=False)  # only a blocked chat: not polled
    store.follow_watched(parse_watched("arxiv:dong_d_1"))
    chats = Chats(engine, summary_threshold=10)
    for chat_id in (1, 2, 3):
        chats.seen(chat_id, kind="private")
        chats.subscribe(chat_id, subscribed.id)
    ids = frozenset({subscribed.id})
    for n in range(2):
        store.save_records(
            [MatchedRecord(make_record(arxiv_id=f"2612.0000{n}"), ids)], announce_for=ids
        )
    outbox = Outbox(engine)
    first = outbox.due(limit=100)[0]
    outbox.mark_sent_many([(first.id, 1)])  # sent: no longer pending
    chats.seen(4, kind="private")
    chats.subscribe(4, gone.id)
    chats.deactivate(3, reason="bot was blocked by the user")  # its two rows are parked
    chats.deactivate(4, reason="bot was blocked by the user")

    assert read_gauges(engine) == Gauges(
        outbox_pending=3, follows={"person": 2, "identity": 1, "topic": 0}, chats_active=2
    )
