"""The outbox's bounds and merges on a real database: pruning, abandoned chats, parked rows,
summaries for returning chats, and a revision that catches up with a delivery still waiting."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime, timedelta

import pytest
from alembic import command
from sqlalchemy import Engine, update
from sqlmodel import Session, col, select

from tests.fakes.corpus import make_record
from watcher.arxiv.records import Record
from watcher.runtime.db import alembic_config, create_db_engine
from watcher.store import MatchedRecord, Store
from watcher.store.chats import Chats
from watcher.store.outbox import Outbox, PruneReport
from watcher.store.tables import Chat, Delivery

RETENTION = timedelta(days=30)


@pytest.fixture
def chats(engine: Engine, followed_id: int) -> Chats:
    chats = Chats(engine, summary_threshold=3)
    for chat_id in (10, 20):
        chats.seen(chat_id, kind="private")
        chats.subscribe(chat_id, followed_id)
    return chats


@pytest.fixture
def outbox(engine: Engine) -> Outbox:
    return Outbox(engine)


def publish(store: Store, followed_id: int, record: Record) -> tuple[int, int]:
    """Save as the poller does; (new, revised) counts of what the store reported."""
    ids = frozenset({followed_id})
    saved = store.save_records([MatchedRecord(record, ids)], announce_for=ids)
    return len(saved.new), len(saved.revisions)


def deliveries(engine: Engine) -> list[Delivery]:
    with Session(engine) as session:
        return list(session.exec(select(Delivery).order_by(col(Delivery.id))))


def age(engine: Engine, *, days: int, chat_id: int | None = None) -> None:
    """Make the deliveries (of one chat, or all) look created `days` ago."""
    with Session(engine) as session:
        statement = update(Delivery).values(created=datetime.now(UTC) - timedelta(days=days))
        if chat_id is not None:
            statement = statement.where(col(Delivery.chat_id) == chat_id)
        session.exec(statement)
        session.commit()


def send_all(outbox: Outbox) -> None:
    outbox.mark_sent_many([(d.id, 1) for d in outbox.due(limit=1000)])


# --- pruning ------------------------------------------------------------------------------


def test_sent_and_failed_rows_older_than_the_retention_are_pruned_in_batches(
    engine: Engine, store: Store, chats: Chats, outbox: Outbox, followed_id: int
) -> None:
    for n in range(3):
        publish(store, followed_id, make_record(arxiv_id=f"2611.0000{n}"))
    due = outbox.due(limit=100)
    assert len(due) == 6
    outbox.mark_sent_many([(d.id, 1) for d in due[:4]])
    outbox.mark_failed(due[4].id, error="Bad Request: chat not found")
    age(engine, days=31)
    publish(store, followed_id, make_record(arxiv_id="2611.00009"))  # recent: stays
    recent = [d for d in outbox.due(limit=100) if d.id != due[5].id]
    outbox.mark_sent_many([(d.id, 1) for d in recent])

    report = outbox.prune(older_than=datetime.now(UTC) - RETENTION, batch=2)

    assert report == PruneReport(settled=5, abandoned=0)
    # The old pending row stays: it is what the outbox still owes.
    assert sorted((d.id, d.status) for d in deliveries(engine)) == sorted(
        [(due[5].id, "pending")] + [(d.id, "sent") for d in recent]
    )
    assert outbox.prune(older_than=datetime.now(UTC) - RETENTION) == PruneReport(0, 0)


def test_a_pruned_paper_seen_again_is_not_announced_again(
    engine: Engine, store: Store, chats: Chats, outbox: Outbox, followed_id: int
) -> None:
    record = make_record(arxiv_id="2611.00001")
    assert publish(store, followed_id, record) == (1, 0)
    send_all(outbox)
    age(engine, days=31)
    assert outbox.prune(older_than=datetime.now(UTC) - RETENTION).settled == 2
    assert deliveries(engine) == []

    # The next polls see the same paper, at the same version: paper_match remembers it.
    assert publish(store, followed_id, record) == (0, 0)
    assert publish(store, followed_id, record) == (0, 0)

    assert outbox.due(limit=10) == []
    assert deliveries(engine) == []


def test_a_pruned_paper_revised_later_is_announced_once_as_a_revision(
    engine: Engine, store: Store, chats: Chats, outbox: Outbox, followed_id: int
) -> None:
    record = make_record(arxiv_id="2611.00001")
    publish(store, followed_id, record)
    send_all(outbox)
    age(engine, days=31)
    outbox.prune(older_than=datetime.now(UTC) - RETENTION)
    chats.set_notify_revisions(20, True)

    assert publish(store, followed_id, replace(record, version=2)) == (0, 1)
    assert publish(store, followed_id, replace(record, version=2)) == (0, 0)

    assert [(d.chat_id, d.kind, d.record.version) for d in outbox.due(limit=10)] == [
        (20, "revision", 2)
    ]


def test_a_chat_inactive_longer_than_the_retention_loses_its_queue(
    engine: Engine, store: Store, chats: Chats, outbox: Outbox, followed_id: int
) -> None:
    chats.deactivate(10, reason="Forbidden: user is deactivated")
    chats.deactivate(20, reason="Forbidden: bot was blocked by the user")
    publish(store, followed_id, make_record(arxiv_id="2611.00001"))
    with Session(engine) as session:  # chat 10 has been gone for 31 days, chat 20 for 29
        for chat_id, days in ((10, 31), (20, 29)):
            since = datetime.now(UTC) - timedelta(days=days)
            session.exec(update(Chat).where(col(Chat.id) == chat_id).values(inactive_since=since))
        session.commit()

    report = outbox.prune(older_than=datetime.now(UTC) - RETENTION)

    assert (report.settled, report.abandoned) == (0, 1)
    assert [(d.chat_id, d.status, d.parked) for d in deliveries(engine)] == [(20, "pending", True)]


def test_deactivating_again_keeps_the_first_inactive_date(engine: Engine, chats: Chats) -> None:
    chats.deactivate(10, reason="blocked")
    with Session(engine) as session:
        first = session.get(Chat, 10)
        assert first is not None and first.inactive_since is not None
        since = first.inactive_since
    chats.deactivate(10, reason="blocked")
    with Session(engine) as session:
        chat = session.get(Chat, 10)
        assert chat is not None and chat.inactive_since == since
    chats.seen(10, kind="private")
    with Session(engine) as session:
        chat = session.get(Chat, 10)
        assert chat is not None and chat.inactive_since is None


# --- parked rows and the idle check -------------------------------------------------------


def test_parked_rows_are_flagged_and_never_due(
    engine: Engine, store: Store, chats: Chats, outbox: Outbox, followed_id: int
) -> None:
    publish(store, followed_id, make_record(arxiv_id="2611.00001"))
    chats.deactivate(10, reason="blocked")
    publish(store, followed_id, make_record(arxiv_id="2611.00002"))  # queued parked

    assert [(d.chat_id, d.parked) for d in deliveries(engine)] == [
        (10, True),
        (20, False),
        (10, True),
        (20, False),
    ]
    assert {d.chat_id for d in outbox.due(limit=10)} == {20}
    assert outbox.stats().parked == 2
    send_all(outbox)
    assert outbox.next_due() is None

    chats.seen(10, kind="private")

    assert [d.chat_id for d in outbox.due(limit=10)] == [10, 10]
    assert outbox.next_due() is not None


# --- a chat coming back -------------------------------------------------------------------


def test_a_chat_back_to_more_than_the_threshold_gets_its_papers_as_one_summary(
    engine: Engine, store: Store, chats: Chats, outbox: Outbox, followed_id: int
) -> None:
    chats.deactivate(10, reason="blocked")
    chats.deactivate(20, reason="blocked")
    chats.unsubscribe(20)
    publish(store, followed_id, make_record(arxiv_id="2611.00000"))
    chats.subscribe(20, followed_id)
    for n in range(1, 4):  # threshold 3: chat 10 waits for 4 papers (a summary), chat 20 for 3
        publish(store, followed_id, make_record(arxiv_id=f"2611.0000{n}"))

    assert chats.seen(10, kind="private") is True
    assert chats.seen(20, kind="private") is True

    due = outbox.due(limit=10)
    assert sorted((d.chat_id, d.summarize) for d in due) == [(10, True)] * 4 + [(20, False)] * 3
    summary = outbox.summary_for(10)
    assert [d.record.arxiv_id for d in summary] == [f"2611.0000{n}" for n in range(4)]
    assert outbox.summary_for(20) == []


# --- a revision while the announcement still waits ----------------------------------------


def test_a_revision_while_the_new_delivery_waits_moves_it_to_the_new_version(
    engine: Engine, store: Store, chats: Chats, outbox: Outbox, followed_id: int
) -> None:
    chats.set_notify_revisions(20, True)
    v1 = make_record(arxiv_id="2611.00001", title="Draft title")
    publish(store, followed_id, v1)

    assert publish(store, followed_id, replace(v1, version=2, title="Final title")) == (0, 1)

    due = sorted(outbox.due(limit=10), key=lambda d: d.chat_id)
    assert [(d.chat_id, d.kind, d.record.version, d.record.title) for d in due] == [
        (10, "new", 2, "Final title"),
        (20, "new", 2, "Final title"),
    ]
    assert [(d.version, d.status) for d in deliveries(engine)] == [(2, "pending")] * 2


def test_a_second_revision_while_the_first_waits_is_one_message_too(
    engine: Engine, store: Store, chats: Chats, outbox: Outbox, followed_id: int
) -> None:
    chats.set_notify_revisions(20, True)
    v1 = make_record(arxiv_id="2611.00001")
    publish(store, followed_id, v1)
    send_all(outbox)

    publish(store, followed_id, replace(v1, version=2))
    publish(store, followed_id, replace(v1, version=3))

    assert [(d.chat_id, d.kind, d.record.version) for d in outbox.due(limit=10)] == [
        (20, "revision", 3)
    ]


def test_a_revision_after_the_new_one_was_sent_is_its_own_message(
    store: Store, chats: Chats, outbox: Outbox, followed_id: int
) -> None:
    chats.set_notify_revisions(20, True)
    v1 = make_record(arxiv_id="2611.00001")
    publish(store, followed_id, v1)
    send_all(outbox)

    publish(store, followed_id, replace(v1, version=2))

    assert [(d.chat_id, d.kind) for d in outbox.due(limit=10)] == [(20, "revision")]


# --- the migration on a database with rows ------------------------------------------------


def test_the_migration_parks_what_inactive_chats_already_had(database_url: str) -> None:
    engine = create_db_engine(database_url)
    try:
        config = alembic_config(engine)
        command.upgrade(config, "0002")
        with engine.begin() as connection:
            now = datetime.now(UTC).replace(tzinfo=None)
            connection.exec_driver_sql(
                "INSERT INTO paper (id, arxiv_id, version, title, abstract, primary_category,"
                " published, updated, abs_url, pdf_url, first_seen) VALUES (1, '2611.00001', 1,"
                f" 't', 'a', 'cs.DC', '{now}', '{now}', 'u', 'p', '{now}')"
            )
            for chat_id, active in ((10, True), (20, False)):
                connection.exec_driver_sql(
                    "INSERT INTO chat (id, kind, active, notify_revisions, created)"
                    f" VALUES ({chat_id}, 'private', {'true' if active else 'false'}, false,"
                    f" '{now}')"
                )
                connection.exec_driver_sql(
                    "INSERT INTO delivery (chat_id, paper_id, version, kind, status, attempts,"
                    f" next_attempt, created) VALUES ({chat_id}, 1, 1, 'new', 'pending', 0,"
                    f" '{now}', '{now}')"
                )

        command.upgrade(config, "head")

        with Session(engine) as session:
            rows = session.exec(select(Delivery).order_by(col(Delivery.chat_id))).all()
            assert [(d.chat_id, d.parked, d.summarize) for d in rows] == [
                (10, False, False),
                (20, True, False),
            ]
            gone = session.get(Chat, 20)
            assert gone is not None and gone.inactive_since is not None
        assert [d.chat_id for d in Outbox(engine).due(limit=10)] == [10]
    finally:
        engine.dispose()


def test_a_deleted_delivery_id_never_comes_back(
    engine: Engine, store: Store, chats: Chats, outbox: Outbox, followed_id: int
) -> None:
    # A confirmation names its row by id: a new row under a deleted row's id would be marked
    # sent by the old row's late confirmation (SQLite reuses the highest id unless told not to).
    publish(store, followed_id, make_record(arxiv_id="2611.00001"))
    highest = max(d.id or 0 for d in deliveries(engine))
    chats.unsubscribe(10)
    chats.unsubscribe(20)
    assert deliveries(engine) == []
    chats.subscribe(10, followed_id)

    publish(store, followed_id, make_record(arxiv_id="2611.00002"))

    (new,) = deliveries(engine)
    assert (new.id or 0) > highest
    outbox.mark_sent_many([(highest, 1)])  # the late confirmation of a deleted row
    assert [d.status for d in deliveries(engine)] == ["pending"]


def test_a_due_row_of_an_inactive_chat_is_parked_not_returned(
    engine: Engine, store: Store, chats: Chats, outbox: Outbox, followed_id: int
) -> None:
    publish(store, followed_id, make_record(arxiv_id="2611.00001"))
    with Session(engine) as session:  # inactive without `Chats.deactivate` (its rows unparked)
        session.exec(update(Chat).where(col(Chat.id) == 10).values(active=False))
        session.commit()

    assert [d.chat_id for d in outbox.due(limit=10)] == [20]
    assert [(d.chat_id, d.parked) for d in deliveries(engine)] == [(10, True), (20, False)]


# --- forum topics (thread_id) with parked rows, summaries and revisions -------------------

TOPIC = 7


def test_a_parked_topic_waits_for_its_retry_time_while_inactive_chats_rows_stay_parked(
    engine: Engine, store: Store, chats: Chats, outbox: Outbox, followed_id: int
) -> None:
    chats.subscribe(20, followed_id, thread_id=TOPIC)
    now = datetime.now(UTC)
    parked = chats.parking.park(20, TOPIC, reason="TOPIC_CLOSED", first_retry=60, now=now)
    chats.deactivate(10, reason="blocked")
    publish(store, followed_id, make_record(arxiv_id="2611.00001"))

    assert [(d.chat_id, d.thread_id, d.parked) for d in deliveries(engine)] == [
        (10, 0, True),
        (20, 0, False),
        (20, TOPIC, False),
    ]
    # The chat's other topic is not held back; the parked topic and the inactive chat are.
    assert [(d.chat_id, d.thread_id) for d in outbox.due(limit=10)] == [(20, 0)]
    assert outbox.stats().parked == 2
    send_all(outbox)
    assert outbox.next_due() == parked.retry_at
    assert outbox.due(limit=10, now=parked.retry_at - timedelta(seconds=1)) == []
    (probe,) = outbox.due(limit=10, now=parked.retry_at)
    assert (probe.chat_id, probe.thread_id, probe.probing) == (20, TOPIC, True)


def test_a_returning_chat_gets_one_summary_per_topic_over_the_threshold(
    engine: Engine, store: Store, chats: Chats, outbox: Outbox, followed_id: int
) -> None:
    chats.unsubscribe(20)
    chats.deactivate(10, reason="blocked")
    for n in range(2):
        publish(store, followed_id, make_record(arxiv_id=f"2611.0000{n}"))
    chats.subscribe(10, followed_id, thread_id=TOPIC)
    for n in range(2, 4):  # threshold 3: General waits for 4 papers (a summary), the topic for 2
        publish(store, followed_id, make_record(arxiv_id=f"2611.0000{n}"))

    assert chats.seen(10, kind="supergroup") is True

    due = outbox.due(limit=10)
    assert sorted((d.thread_id, d.summarize) for d in due) == [(0, True)] * 4 + [(TOPIC, False)] * 2
    summary = outbox.summary_for(10, 0)
    assert [(d.thread_id, d.record.arxiv_id) for d in summary] == [
        (0, f"2611.0000{n}") for n in range(4)
    ]
    assert outbox.summary_for(10, TOPIC) == []


def test_a_revision_moves_each_topics_waiting_row_and_is_its_own_message_where_sent(
    engine: Engine, store: Store, chats: Chats, outbox: Outbox, followed_id: int
) -> None:
    chats.set_notify_revisions(20, True)
    chats.subscribe(20, followed_id, thread_id=TOPIC)
    v1 = make_record(arxiv_id="2611.00001")
    publish(store, followed_id, v1)
    (sent,) = [d for d in outbox.due(limit=10) if (d.chat_id, d.thread_id) == (20, 0)]
    outbox.mark_sent(sent.id, message_id=1)

    assert publish(store, followed_id, replace(v1, version=2)) == (0, 1)

    due = outbox.due(limit=10)
    assert sorted((d.chat_id, d.thread_id, d.kind, d.record.version) for d in due) == [
        (10, 0, "new", 2),
        (20, 0, "revision", 2),
        (20, TOPIC, "new", 2),
    ]
