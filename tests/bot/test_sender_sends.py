"""The delivery sender's normal path: the real outbox on the real database, a real PTB bot, the
fake Bot API (`tests.harness.delivery`). Each chat gets a paper once and a restart sends nothing
again, a delivery is marked sent only after Telegram answers, failed sends are retried with
backoff, sends are paced per chat and overlap across chats, confirmations share transactions, and
confirmations a locked database refuses are written later without resending.
"""

from __future__ import annotations

import asyncio
import sqlite3
from collections.abc import Sequence
from datetime import timedelta

import pytest
from sqlalchemy import Engine, event
from sqlalchemy.engine import make_url

from bot.delivery.answers import backoff_delay
from bot.delivery.confirmations import confirm_retry_delay
from bot.ratelimit import TelegramRateLimiter
from tests.fakes.corpus import make_record
from tests.fakes.telegram import FakeTelegram, Fault
from tests.harness.delivery import GROUP, World, eventually, make_world, sending, sent_count
from watcher.aio import in_db_thread
from watcher.runtime.db import create_db_engine
from watcher.store import MatchedRecord
from watcher.store.tables import utcnow

# -- the normal path -----------------------------------------------------------------------


async def test_each_subscribed_chat_gets_the_paper_once_and_a_restart_sends_nothing_again(
    world: World,
) -> None:
    chats = [11, 12, 13, GROUP]
    world.subscribe(*chats)
    record = world.publish(title="Latency < 200 µs & A&B routing")

    async with sending(world):
        await eventually(sent_count(world, 4))
    async with sending(world) as sender:  # a restart: the outbox is the only memory
        second = world.publish("2611.00002")
        sender.wake()
        await eventually(sent_count(world, 8))

    for chat_id in chats:
        messages = world.fake.sent(chat_id)
        assert [m.text.splitlines()[1] for m in messages] == [record.title, second.title]
        first = messages[0]
        assert first.parse_mode == "HTML"
        assert first.link_preview_options == {"is_disabled": True}
        assert first.reply_markup is not None
        urls = [
            b["url"] for row in first.reply_markup["inline_keyboard"] for b in row if "url" in b
        ]
        assert urls == [record.abs_url, record.pdf_url, f"https://arxiv.org/html/{record.arxiv_id}"]
    assert all(d.status == "sent" and d.message_id for d in world.deliveries())
    assert world.fake.count_429 == 0


async def test_a_delivery_is_marked_sent_only_after_telegram_answers(world: World) -> None:
    world.subscribe(11)
    world.publish()
    world.fake.inject(Fault.slow(3.0))  # delivered at once, answered 3 s later

    async with sending(world):
        await world.fake.wait_for(lambda: world.fake.sent(11), timeout=10)
        # The chat has the message, but Telegram has not confirmed it yet.
        assert [d.status for d in await in_db_thread(world.deliveries)] == ["pending"]
        await eventually(sent_count(world, 1))

    assert len(world.fake.sent(11)) == 1


@pytest.mark.parametrize(
    ("fault", "error"),
    [
        (Fault.disconnect(delivered=False), "Server disconnected"),
        (Fault.server_error(502), "Bad Gateway"),
        (Fault.server_error(500), "Internal Server Error"),
    ],
    ids=["closed-connection", "502", "500"],
)
async def test_a_failed_send_is_retried_and_delivered_once(
    world: World, fault: Fault, error: str
) -> None:
    world.subscribe(11)
    world.publish()
    world.fake.inject(fault)

    async with sending(world):
        await eventually(sent_count(world, 1))

    assert len(world.fake.sent(11)) == 1
    assert world.requests_to(11)[-1] == 200
    assert len(world.requests_to(11)) == 2
    (delivery,) = world.deliveries()
    assert delivery.attempts == 1
    assert error in (delivery.last_error or "")


async def test_an_answer_lost_after_delivery_is_the_one_way_to_a_duplicate(world: World) -> None:
    """At-least-once: a send Telegram delivered but never confirmed is sent again."""
    world.subscribe(11)
    world.publish()
    world.fake.inject(Fault.disconnect(delivered=True))

    async with sending(world):
        await eventually(sent_count(world, 1))

    assert len(world.fake.sent(11)) == 2


def test_backoff_doubles_from_five_seconds_to_an_hour_with_jitter() -> None:
    assert backoff_delay(0, jitter=lambda: 0.5) == 5
    assert backoff_delay(3, jitter=lambda: 0.5) == 40
    assert backoff_delay(30, jitter=lambda: 1.0) == 3600
    assert 3.75 <= backoff_delay(0, jitter=lambda: 0.0) < backoff_delay(0, jitter=lambda: 1.0)


# -- pacing and concurrency ----------------------------------------------------------------


async def test_several_papers_to_one_chat_go_in_order_within_its_limit(world: World) -> None:
    world.subscribe(11)
    records = [world.publish(f"2611.0000{n}") for n in range(1, 6)]

    async with sending(world, limiter=TelegramRateLimiter(private_per_second=1)):
        await eventually(sent_count(world, 5), within=20)

    messages = world.fake.sent(11)
    assert [m.text.splitlines()[1] for m in messages] == [r.title for r in records]
    assert world.fake.count_429 == 0
    # Two at once at most, then one a second (0.6 s allows for the fake's thread stamping one
    # message late on a loaded machine: 2.62 s was seen; without the limit the five would take
    # milliseconds).
    assert messages[-1].time - messages[1].time >= 3.0 - 0.6


async def test_sends_to_different_chats_overlap_up_to_the_concurrency(world: World) -> None:
    world.subscribe(*range(1, 21))
    world.publish()
    world.fake.inject(*[Fault.slow(0.3)] * 8)

    async with sending(world, concurrency=4):
        await eventually(sent_count(world, 20))

    assert 1 < world.fake.max_concurrent <= 4
    assert all(len(world.fake.sent(chat_id)) == 1 for chat_id in range(1, 21))


async def test_confirmations_of_sends_in_flight_together_share_one_transaction(
    world: World,
) -> None:
    world.subscribe(*range(1, 6))
    world.publish()
    batches: list[int] = []  # rows of each UPDATE that marks deliveries sent

    def count_confirmations(
        _connection: object,
        _cursor: object,
        statement: str,
        parameters: Sequence[object],
        _context: object,
        executemany: bool,
    ) -> None:
        if statement.lstrip().upper().startswith("UPDATE DELIVERY") and "message_id" in statement:
            batches.append(len(parameters) if executemany else 1)

    event.listen(world.engine, "before_cursor_execute", count_confirmations)
    try:
        # A linger far longer than the test: a batch is written because every send in flight
        # waits on it, never because the timer ran out.
        async with sending(world, concurrency=4, confirm_linger=600):
            await eventually(sent_count(world, 5))
    finally:
        event.remove(world.engine, "before_cursor_execute", count_confirmations)

    # Four sends in flight at once, one transaction; the fifth started when their slots were
    # freed, after that commit, and went alone.
    assert batches == [4, 1]
    assert all(d.status == "sent" and d.message_id for d in world.deliveries())
    assert all(len(world.fake.sent(chat_id)) == 1 for chat_id in range(1, 6))


async def test_a_due_time_in_the_future_is_waited_for(world: World) -> None:
    world.subscribe(11)
    world.publish()
    (delivery,) = world.deliveries()
    # Due 3 s ahead, looked at 0.3 s after the sender started: room for a loaded machine.
    world.outbox.retry_later(delivery.id or 0, error="test", at=utcnow() + timedelta(seconds=3))

    async with sending(world):
        await asyncio.sleep(0.3)
        assert world.fake.sent(11) == []
        await eventually(sent_count(world, 1))


async def test_a_chat_sees_marked_only_the_authors_it_follows(world: World) -> None:
    """★ says "one of YOUR authors": an author only another chat follows is not marked."""
    store = world.context.store
    ann, _ = store.follow(["Ann Other"])
    world.subscribe(11, 12)  # both follow Dezun Dong
    world.chats.subscribe(12, ann.id)  # and chat 12 Ann Other too
    record = make_record(arxiv_id="2611.00077", authors=["Ann Other", "Dezun Dong"])
    both = frozenset({world.followed_id, ann.id})
    store.save_records([MatchedRecord(record, both)], announce_for=both)

    async with sending(world):
        await eventually(sent_count(world, 2))

    (only_dezun,) = world.fake.sent(11)
    (dezun_and_ann,) = world.fake.sent(12)
    assert "👥 Ann Other, ★ Dezun Dong" in only_dezun.text
    assert "👥 ★ Ann Other, ★ Dezun Dong" in dezun_and_ann.text


# -- a database that refuses writes for a while --------------------------------------------


async def test_confirmations_a_locked_database_refuses_are_written_later_and_nothing_is_resent(
    fake: FakeTelegram, engine: Engine, database_url: str, caplog: pytest.LogCaptureFixture
) -> None:
    """Another writer (a CLI `poll` saving a backfill) holds SQLite's lock past the busy timeout
    while Telegram confirms sends: the confirmations wait in memory, the sends are not repeated."""
    if engine.dialect.name != "sqlite":
        pytest.skip("SQLite's single writer lock; PostgreSQL locks rows, not the database")
    busy_timeout = 0.2
    impatient = create_db_engine(database_url, sqlite_busy_timeout=busy_timeout)
    chats = range(1, 11)
    concurrency = 4
    async with make_world(fake, impatient, database_url) as world:
        world.subscribe(*chats)
        world.publish()
        # The CLI's writer, holding the write lock (readers still read: WAL).
        blocker = sqlite3.connect(make_url(database_url).database or "", isolation_level=None)
        try:
            blocker.execute("BEGIN IMMEDIATE")

            def failed_commits() -> int:
                return sum("marking" in r.getMessage() and "failed" in r.getMessage()
                           for r in caplog.records)  # fmt: skip

            async with sending(world, concurrency=concurrency):
                await fake.wait_for(lambda: fake.sent_count() >= concurrency, timeout=10)
                # Until the writer has failed twice (each try waits out the busy timeout), or
                # a send went out again: the defect, which the assertions below then report.
                await fake.wait_for(
                    lambda: failed_commits() >= 2 or fake.calls("sendMessage") > concurrency,
                    timeout=20,
                )
                assert fake.calls("sendMessage") == concurrency  # the slots stay taken
                assert world.outbox.stats().sent == 0  # nothing could be written
                blocker.execute("ROLLBACK")
                await eventually(sent_count(world, len(chats)))
        finally:
            blocker.close()
            impatient.dispose()

    assert [len(fake.sent(chat_id)) for chat_id in chats] == [1] * len(chats)
    assert fake.calls("sendMessage") == len(chats)
    assert all(d.status == "sent" and d.message_id for d in world.deliveries())


def test_confirmation_retries_wait_longer_each_time_up_to_a_bound() -> None:
    delays = [confirm_retry_delay(failures) for failures in (1, 2, 3, 10, 1000)]
    assert delays[:3] == [0.5, 1.0, 2.0]
    assert delays[3:] == [30.0, 30.0]
