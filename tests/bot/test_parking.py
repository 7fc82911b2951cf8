"""Chats and forum topics that refuse for a reason of their own: parked, probed, released.

The real sender on the real outbox and database, a real PTB bot, the fake Bot API with the bot's
rights and forum topics. A chat-level 400 (no rights, a closed topic) must never fail a paper:
its deliveries wait, one probe at a time with a capped backoff, and each paper still arrives once.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from datetime import timedelta

import pytest
from sqlalchemy import Engine

from bot.delivery.answers import is_chat_refusal
from tests.fakes.telegram import FakeTelegram
from tests.harness.delivery import TOKEN, World, eventually, make_world, sending, sent_count
from watcher.store.parking import PARKED_RETRY_MAX, parked_retry_delay
from watcher.store.tables import utcnow

SUPERGROUP, FORUM, CHANNEL = -1001234567890, -1005555555555, -1009876543210
FIRST_RETRY = 0.3  # seconds before the first probe, instead of a minute


@pytest.fixture
def fake() -> Iterator[FakeTelegram]:
    with FakeTelegram(TOKEN) as fake:
        yield fake
        assert fake.internal_errors == []


@pytest.fixture
async def world(fake: FakeTelegram, engine: Engine, database_url: str) -> AsyncIterator[World]:
    async with make_world(fake, engine, database_url, parked_retry_first=FIRST_RETRY) as world:
        yield world


def statuses(world: World, chat_id: int) -> list[int]:
    return world.requests_to(chat_id)


def titles(world: World, chat_id: int, thread_id: int | None = None) -> list[str]:
    return [
        m.text.splitlines()[1] for m in world.fake.sent(chat_id) if m.message_thread_id == thread_id
    ]


@pytest.mark.parametrize(
    ("description", "about_the_chat"),
    [
        # As PTB hands them over: "Bad Request: " cut off, the first letter capitalised.
        ("Not enough rights to send text messages to the chat", True),
        ("Have no rights to send a message", True),
        ("Need administrator rights in the channel chat", True),
        ("Chat_write_forbidden", True),
        ("Chat_restricted", True),
        ("Topic_closed", True),
        ("Message thread not found", True),
        ("Message is too long", False),
        ('Can\'t parse entities: unsupported start tag "x" at byte offset 0', False),
        ("Chat not found", False),
        ("Message text is empty", False),
    ],
)
def test_only_refusals_about_the_chat_park_it(description: str, about_the_chat: bool) -> None:
    assert is_chat_refusal(description) is about_the_chat


def test_the_parked_backoff_doubles_to_an_hour_and_never_overflows() -> None:
    assert parked_retry_delay(1, first=60) == 60
    assert parked_retry_delay(2, first=60) == 120
    assert parked_retry_delay(7, first=60) == PARKED_RETRY_MAX
    assert parked_retry_delay(10_000_000, first=60) == PARKED_RETRY_MAX
    assert 0 < parked_retry_delay(10_000_000, first=0.001) <= PARKED_RETRY_MAX


def test_a_parked_destination_is_due_again_at_its_retry_time_only(world: World) -> None:
    world.subscribe(11, SUPERGROUP)
    world.publish()
    now = utcnow()
    parked = world.chats.parking.park(
        SUPERGROUP, 0, reason="CHAT_WRITE_FORBIDDEN", first_retry=60, now=now
    )
    assert parked.retry_at == now + timedelta(seconds=60)

    assert [d.chat_id for d in world.outbox.due(limit=10, now=now)] == [11]
    world.outbox.mark_sent(world.outbox.due(limit=10, now=now)[0].id, message_id=1)
    # With the private chat served, the earliest due is the parked group's next probe.
    assert world.outbox.next_due() == parked.retry_at
    assert world.outbox.due(limit=10, now=parked.retry_at - timedelta(seconds=1)) == []
    (probe,) = world.outbox.due(limit=10, now=parked.retry_at)
    assert (probe.chat_id, probe.thread_id, probe.probing) == (SUPERGROUP, 0, True)

    again = world.chats.parking.park(
        SUPERGROUP, 0, reason="CHAT_WRITE_FORBIDDEN", first_retry=60, now=parked.retry_at
    )
    assert (again.failures, again.since) == (2, now)
    assert again.retry_at == parked.retry_at + timedelta(seconds=120)
    assert world.chats.parking.retry_now(SUPERGROUP, now=parked.retry_at) == 1
    assert world.outbox.next_due() == parked.retry_at


async def test_a_group_without_rights_is_parked_probed_and_gets_every_paper_once_after(
    world: World,
) -> None:
    world.fake.add_chat(SUPERGROUP, title="Lab")
    world.fake.my_chat_member(SUPERGROUP, "restricted", old_status="member", can_send=False)
    world.subscribe(11, SUPERGROUP)
    first, second = world.publish("2611.00001"), world.publish("2611.00002")

    async with sending(world):
        await eventually(sent_count(world, 2))  # the private chat is not held up
        await eventually(lambda: len(statuses(world, SUPERGROUP)) >= 3)  # probed, again and again
        total, [parked] = world.chats.parking.parked()
        assert (total, parked.chat_id, parked.thread_id) == (1, SUPERGROUP, 0)
        assert parked.reason == "Not enough rights to send text messages to the chat"
        assert parked.waiting == 2
        stats = world.outbox.stats()
        assert (stats.parked, stats.failed) == (2, 0)
        assert world.chats.get(SUPERGROUP).active  # type: ignore[union-attr]

        world.fake.my_chat_member(SUPERGROUP, "member", old_status="restricted")
        await eventually(sent_count(world, 4))

    assert titles(world, SUPERGROUP) == [first.title, second.title]
    refused = [status for status in statuses(world, SUPERGROUP) if status == 400]
    # One probe per backoff step, never one request per paper.
    assert statuses(world, SUPERGROUP) == [*refused, 200, 200]
    assert world.chats.parking.parked() == (0, [])
    assert all(d.status == "sent" for d in world.deliveries())


async def test_rights_back_make_the_parked_deliveries_due_at_once(
    fake: FakeTelegram, engine: Engine, database_url: str
) -> None:
    async with make_world(fake, engine, database_url, parked_retry_first=3600) as world:
        fake.add_channel(CHANNEL)
        fake.my_chat_member(CHANNEL, "administrator", old_status="administrator", can_send=False)
        world.subscribe(CHANNEL)
        record = world.publish()

        async with sending(world) as sender:
            await eventually(lambda: world.chats.parking.parked()[0] == 1)
            assert world.requests_to(CHANNEL) == [400]
            fake.my_chat_member(CHANNEL, "administrator", old_status="administrator")
            # What the bot does on a my_chat_member update showing the right to post again.
            assert world.chats.parking.retry_now(CHANNEL) == 1
            sender.wake()
            await eventually(sent_count(world, 1))

        assert titles(world, CHANNEL) == [record.title]
        assert world.requests_to(CHANNEL) == [400, 200]


async def test_a_closed_topic_parks_that_topic_only_and_each_topic_gets_the_paper_once(
    world: World,
) -> None:
    papers = world.fake.create_topic(FORUM, "Papers")
    talk = world.fake.create_topic(FORUM, "Talk")
    world.chats.seen(FORUM, kind="supergroup")
    # Both topics follow the same author: each gets the paper once, and General gets nothing.
    for thread in (papers, talk):
        world.chats.subscribe(FORUM, world.followed_id, thread_id=thread)
    world.fake.close_topic(FORUM, papers)
    record = world.publish()

    async with sending(world):
        await eventually(sent_count(world, 1))
        assert titles(world, FORUM, talk) == [record.title]
        await eventually(lambda: len(statuses(world, FORUM)) >= 3)  # Papers probed again
        total, [parked] = world.chats.parking.parked()
        assert (total, parked.thread_id, parked.reason) == (1, papers, "Topic_closed")

        world.fake.reopen_topic(FORUM, papers)
        await eventually(sent_count(world, 2))

    assert titles(world, FORUM, papers) == [record.title]
    assert titles(world, FORUM, talk) == [record.title]
    assert titles(world, FORUM, None) == []
    assert world.chats.parking.parked() == (0, [])


async def test_a_forum_back_to_many_papers_gets_each_topics_summary_in_that_topic(
    world: World,
) -> None:
    papers = world.fake.create_topic(FORUM, "Papers")
    talk = world.fake.create_topic(FORUM, "Talk")
    world.chats.seen(FORUM, kind="supergroup")
    world.chats.subscribe(FORUM, world.followed_id, thread_id=papers)
    world.chats.deactivate(FORUM, reason="Forbidden: bot was kicked from the supergroup chat")
    first = [world.publish(f"2611.0000{n}", title=f"Paper number {n}") for n in range(6)]
    world.chats.subscribe(FORUM, world.followed_id, thread_id=talk)
    later = [world.publish(f"2611.0001{n}", title=f"Later paper {n}") for n in range(2)]

    assert world.chats.seen(FORUM, kind="supergroup") is True  # added again
    async with sending(world):
        await eventually(sent_count(world, 10))  # Papers: 8 in one summary; Talk: 2 messages

    in_papers = [m.text for m in world.fake.sent(FORUM) if m.message_thread_id == papers]
    (summary,) = in_papers
    assert summary.splitlines() == ["📬 While you were away: 8 new papers"] + [
        f"• {record.title} — ★ Dezun Dong" for record in first + later
    ]
    assert titles(world, FORUM, talk) == [record.title for record in later]
    assert titles(world, FORUM, None) == []
