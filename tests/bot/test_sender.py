"""The delivery sender: the real outbox on the real database, a real PTB bot, the fake Bot API.

Each test queues deliveries the way the service does (a followed author's new paper saved by the
store, chats subscribed through `Chats`), runs the sender, and checks what the fake received and
what the outbox recorded.
"""

from __future__ import annotations

import asyncio
import contextlib
import sqlite3
from collections.abc import AsyncIterator, Iterator, Sequence
from dataclasses import replace
from datetime import timedelta

import pytest
from sqlalchemy import Engine, event
from sqlalchemy.engine import make_url

from bot.delivery.answers import backoff_delay
from bot.delivery.confirmations import confirm_retry_delay
from bot.ratelimit import TelegramRateLimiter
from bot.render import render_paper
from tests.fakes.corpus import make_record
from tests.fakes.telegram import FakeTelegram, Fault
from tests.harness.delivery import (
    FAST_RETRY,
    TOKEN,
    World,
    eventually,
    make_world,
    sending,
    sent_count,
)
from watcher.aio import in_db_thread
from watcher.db import create_db_engine
from watcher.store import MatchedRecord
from watcher.store.tables import utcnow

GROUP, SUPERGROUP = -4001, -1001234567890


@contextlib.contextmanager
def fake_telegram(**options: object) -> Iterator[FakeTelegram]:
    with FakeTelegram(TOKEN, **options) as fake:  # type: ignore[arg-type]
        yield fake
        assert fake.internal_errors == []


@pytest.fixture
def fake() -> Iterator[FakeTelegram]:
    with fake_telegram() as fake:
        yield fake


@pytest.fixture
async def world(fake: FakeTelegram, engine: Engine, database_url: str) -> AsyncIterator[World]:
    async with make_world(fake, engine, database_url) as world:
        yield world


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
        urls = [b["url"] for row in first.reply_markup["inline_keyboard"] for b in row]
        assert urls == [record.abs_url, record.pdf_url]
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


# -- Telegram's refusals -------------------------------------------------------------------


async def test_flood_control_is_waited_out_by_that_delivery_and_everyone_else(
    world: World,
) -> None:
    world.subscribe(11, 12)
    world.publish()
    world.fake.inject(Fault.flood(retry_after=2))

    async with sending(world, concurrency=1):
        await eventually(sent_count(world, 2))

    sends = [r for r in world.fake.requests if r.method == "sendMessage"]
    refused = sends[0]
    assert refused.status == 429
    retried = next(r for r in sends[1:] if r.params["chat_id"] == refused.params["chat_id"])
    other = next(r for r in sends if r.params["chat_id"] != refused.params["chat_id"])
    assert retried.time - refused.time >= 2.0
    assert other.time - refused.time >= 2.0  # the pause held every chat
    assert len(world.fake.sent(11)) == len(world.fake.sent(12)) == 1


async def test_a_blocked_chat_is_parked_after_one_403_and_resumes_when_it_comes_back(
    world: World,
) -> None:
    world.subscribe(11, 12, 13)
    first, second = world.publish("2611.00001"), world.publish("2611.00002")
    world.fake.block(12)

    async with sending(world) as sender:
        await eventually(sent_count(world, 4))
        await eventually(lambda: world.outbox.stats().parked == 2)
        assert world.chats.get(12).active is False  # type: ignore[union-attr]
        # More news while it is away: the blocked chat is not tried again.
        third = world.publish("2611.00003")
        sender.wake()
        await eventually(sent_count(world, 6))
        assert world.requests_to(12) == [403]
        assert world.outbox.stats().parked == 3

        world.fake.unblock(12)
        assert world.chats.seen(12, kind="private") is True  # what /start does
        sender.wake()
        await eventually(sent_count(world, 9))

    assert [m.text.splitlines()[1] for m in world.fake.sent(12)] == [
        first.title,
        second.title,
        third.title,
    ]
    assert world.requests_to(12) == [403, 200, 200, 200]


async def test_a_migrated_group_gets_its_message_at_the_new_id(world: World) -> None:
    world.subscribe(GROUP)
    world.publish()
    world.fake.migrate(GROUP, SUPERGROUP)

    async with sending(world):
        await eventually(sent_count(world, 1))

    assert world.requests_to(GROUP) == [400]
    assert len(world.fake.sent(SUPERGROUP)) == 1
    assert world.chats.get(GROUP) is None
    moved = world.chats.get(SUPERGROUP)
    assert moved is not None
    assert moved.active
    assert moved.kind == "supergroup"
    assert world.chats.subscribed_ids(SUPERGROUP) == [world.followed_id]


async def test_a_group_migrating_into_a_chat_we_know_gets_the_paper_once(world: World) -> None:
    # The supergroup spoke to us and subscribed before the old group's send hit the migration.
    world.subscribe(GROUP)
    world.chats.seen(SUPERGROUP, kind="supergroup")
    world.chats.subscribe(SUPERGROUP, world.followed_id)
    world.publish()
    world.fake.migrate(GROUP, SUPERGROUP)

    async with sending(world):
        await eventually(sent_count(world, 1))
        await asyncio.sleep(0.3)  # room for a wrong second send to show up

    assert len(world.fake.sent(SUPERGROUP)) == 1
    assert world.chats.get(GROUP) is None
    assert [d.status for d in world.deliveries()] == ["sent"]


async def test_html_telegram_cannot_parse_is_sent_again_as_plain_text(
    world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A Bot API server older than 7.3 knows no (expandable) block quotes, and says so.
    from tests.fakes.telegram import html_markup

    monkeypatch.setattr(html_markup, "ALLOWED_TAGS", html_markup.ALLOWED_TAGS - {"blockquote"})
    world.subscribe(11)
    record = world.publish()

    async with sending(world):
        await eventually(sent_count(world, 1))

    assert world.requests_to(11) == [400, 200]
    (message,) = world.fake.sent(11)
    assert message.parse_mode is None
    expected = render_paper(record, marked=lambda name: name == "Dezun Dong").plain
    assert message.text.splitlines()[:2] == expected.splitlines()[:2]
    assert record.abstract in message.text
    assert message.reply_markup is not None


async def test_a_message_telegram_refuses_as_too_long_fails_once_with_the_reason(
    world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tests.fakes.telegram import bot_api

    monkeypatch.setattr(bot_api, "MAX_TEXT_UTF16", 100)
    world.subscribe(11)
    world.publish()

    async with sending(world):
        await eventually(lambda: world.outbox.stats().failed == 1)
        await asyncio.sleep(FAST_RETRY * 2)  # a retry, if there were one, would be due by now

    assert world.requests_to(11) == [400]
    ((chat_id, arxiv_id, reason),) = world.outbox.failures()
    assert (chat_id, arxiv_id) == (11, "2611.00001")
    assert "too long" in reason.lower()


async def test_a_chat_telegram_does_not_know_fails_with_the_reason(
    engine: Engine, database_url: str
) -> None:
    with fake_telegram(strict_chats=True) as fake:
        fake.add_chat(11)
        async with make_world(fake, engine, database_url) as world:
            world.subscribe(11, 12)
            world.publish()
            async with sending(world):
                await eventually(lambda: world.outbox.stats().failed == 1)
                await eventually(sent_count(world, 1))
            assert world.requests_to(12) == [400]
            assert "chat not found" in world.outbox.failures()[0][2].lower()


# -- pacing and concurrency ----------------------------------------------------------------


async def test_several_papers_to_one_chat_go_in_order_within_its_limit(world: World) -> None:
    world.subscribe(11)
    records = [world.publish(f"2611.0000{n}") for n in range(1, 6)]

    async with sending(world, limiter=TelegramRateLimiter(private_per_second=1)):
        await eventually(sent_count(world, 5), within=20)

    messages = world.fake.sent(11)
    assert [m.text.splitlines()[1] for m in messages] == [r.title for r in records]
    assert world.fake.count_429 == 0
    # Two at once at most, then one a second (0.3 s allows for one request's latency on a
    # loaded machine; without the limit the five would take milliseconds).
    assert messages[-1].time - messages[1].time >= 3.0 - 0.3


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


# -- a chat that comes back, /unsubscribe and revisions while deliveries wait ----------------


async def test_a_chat_back_to_many_waiting_papers_gets_one_summary_of_them(world: World) -> None:
    world.subscribe(11, 12)
    world.chats.deactivate(12, reason="Forbidden: bot was blocked by the user")
    records = [world.publish(f"2611.0000{n}", title=f"Paper number {n}") for n in range(8)]

    async with sending(world) as sender:
        await eventually(sent_count(world, 8))  # the chat that stayed: one message each
        assert world.chats.seen(12, kind="private") is True  # /start, or unblocked
        sender.wake()
        await eventually(sent_count(world, 16))
    async with sending(world):  # a restart finds nothing more to send
        await eventually(lambda: world.outbox.stats().pending == 0)

    (summary,) = world.fake.sent(12)
    assert summary.text.splitlines() == ["📬 While you were away: 8 new papers"] + [
        f"• {record.title}" for record in records
    ]
    assert summary.parse_mode == "HTML"
    assert {d.message_id for d in world.deliveries() if d.chat_id == 12} == {summary.message_id}
    assert len(world.fake.sent(11)) == 8


async def test_a_summary_whose_answer_is_lost_is_sent_again_once_whole(world: World) -> None:
    world.subscribe(12)
    world.chats.deactivate(12, reason="Forbidden: bot was blocked by the user")
    for n in range(7):
        world.publish(f"2611.0000{n}", title=f"Paper number {n}")
    world.chats.seen(12, kind="private")
    world.fake.inject(Fault.disconnect(delivered=True))

    async with sending(world):
        await eventually(sent_count(world, 7))

    texts = [message.text.splitlines()[0] for message in world.fake.sent(12)]
    assert texts == ["📬 While you were away: 7 new papers"] * 2


async def test_unsubscribing_stops_deliveries_the_sender_already_fetched(world: World) -> None:
    world.subscribe(11)
    for n in range(5):
        world.publish(f"2611.0000{n}", title=f"Paper number {n}")
    world.fake.inject(Fault.slow(1.0))  # the first message hangs: the other four wait fetched

    async with sending(world, concurrency=1) as sender:
        await eventually(lambda: len(world.fake.sent(11)) == 1)
        world.chats.unsubscribe(11)  # what /unsubscribe does, then the front end tells us
        sender.forget(11)
        world.subscribe(12)
        world.publish("2611.00009", title="After the unsubscribe")
        sender.wake()
        # One send at a time, in order: anything still owed to 11 would come first.
        await eventually(lambda: len(world.fake.sent(12)) == 1)

    assert [m.text.splitlines()[1] for m in world.fake.sent(11)] == ["Paper number 0"]
    assert world.outbox.stats().pending == 0


async def test_a_revision_of_a_fetched_delivery_goes_out_as_one_message_with_the_new_version(
    world: World,
) -> None:
    world.subscribe(11)
    world.chats.set_notify_revisions(11, True)
    world.publish("2611.00001", title="The first paper")
    draft = world.publish("2611.00002", title="Draft title")
    world.fake.inject(Fault.slow(1.0))  # the first paper hangs; the second waits fetched

    async with sending(world, concurrency=1) as sender:
        await eventually(lambda: len(world.fake.sent(11)) == 1)
        followed = frozenset({world.followed_id})
        revised = replace(draft, version=2, title="Final title")
        saved = world.context.store.save_records(
            [MatchedRecord(revised, followed)], announce_for=followed
        )
        assert saved.revisions == [revised]
        sender.refresh()  # what the front end does after a poll that found revisions
        await eventually(lambda: world.outbox.stats().pending == 0)

    texts = [m.text.splitlines()[:2] for m in world.fake.sent(11)]
    assert texts == [
        ["🆕 New paper · arXiv:2611.00001v1", "The first paper"],
        ["🆕 New paper · arXiv:2611.00002v2", "Final title"],
    ]
