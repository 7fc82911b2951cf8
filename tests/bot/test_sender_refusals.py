"""The delivery sender against Telegram's refusals, on the real outbox and the fake Bot API
(`tests.harness.delivery`): flood control is waited out, a blocked chat is parked and resumes, a
migrated group gets its message at the new id, HTML Telegram cannot parse goes again as plain
text, and a message too long or a chat Telegram does not know fails once with the reason.
"""

from __future__ import annotations

import asyncio

import pytest
from sqlalchemy import Engine

from bot.render import render_paper
from tests.fakes.telegram import Fault
from tests.harness.delivery import (
    FAST_RETRY,
    GROUP,
    SUPERGROUP,
    World,
    eventually,
    fake_telegram,
    make_world,
    sending,
    sent_count,
)

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
    # The fake stamps a request once it has answered it, so the 429's stamp may trail the moment
    # the client began its pause by a scheduling slice: allow 0.1 s of the 2 s.
    assert retried.time - refused.time >= 1.9
    assert other.time - refused.time >= 1.9  # the pause held every chat
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
