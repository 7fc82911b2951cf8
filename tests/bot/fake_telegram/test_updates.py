"""The fake Bot API's chats and updates, through PTB: blocked, kicked and migrated chats,
getUpdates with offsets and long polls, group and channel messages, members and administrators,
commands, buttons and edits, my_chat_member updates, and injected faults.
"""

from __future__ import annotations

import asyncio
import datetime as dtm

import httpx
import pytest
from telegram import Bot, InlineKeyboardButton, InlineKeyboardMarkup
from telegram.error import (
    BadRequest,
    ChatMigrated,
    Conflict,
    EndPointNotFound,
    Forbidden,
    InvalidToken,
    NetworkError,
    RetryAfter,
)

from tests.fakes.telegram import FakeTelegram, Fault
from tests.harness.fake_telegram_ids import ALICE, CHANNEL, GROUP, SUPERGROUP, TOKEN


async def test_blocked_and_kicked_chats_are_forbidden(fake: FakeTelegram, bot: Bot) -> None:
    fake.block(ALICE)
    with pytest.raises(Forbidden, match="bot was blocked by the user"):
        await bot.send_message(ALICE, "hello")
    fake.kick(SUPERGROUP)
    with pytest.raises(Forbidden, match="bot was kicked from the supergroup chat"):
        await bot.send_message(SUPERGROUP, "hello")
    fake.unblock(ALICE)
    await bot.send_message(ALICE, "welcome back")


async def test_migrated_group_raises_chat_migrated(fake: FakeTelegram, bot: Bot) -> None:
    fake.migrate(GROUP, SUPERGROUP)
    with pytest.raises(ChatMigrated) as migrated:
        await bot.send_message(GROUP, "hello")
    assert migrated.value.new_chat_id == SUPERGROUP
    message = await bot.send_message(SUPERGROUP, "hello again")
    assert message.chat.type == "supergroup"


async def test_get_updates_honours_offset_and_limit(fake: FakeTelegram, bot: Bot) -> None:
    ids = [fake.user_sends(ALICE, f"message {n}") for n in range(3)]
    assert [u.update_id for u in await bot.get_updates()] == ids
    assert [u.update_id for u in await bot.get_updates(limit=1)] == ids[:1]
    assert [u.update_id for u in await bot.get_updates(offset=ids[1])] == ids[1:]
    # The first update was confirmed by that offset: it is gone for good.
    later = await bot.get_updates()
    assert [u.update_id for u in later] == ids[1:]
    assert later[0].message is not None
    assert later[0].message.text == "message 1"
    assert await bot.get_updates(offset=ids[-1] + 1) == ()
    assert fake.pending_updates == 0


async def test_long_poll_returns_when_an_update_arrives(fake: FakeTelegram, bot: Bot) -> None:
    polling = asyncio.create_task(bot.get_updates(timeout=100))
    await fake.wait_for(lambda: fake.calls("getUpdates") == 1)
    update_id = fake.user_sends(ALICE, "/start@arxiv_watcher_bot now")
    # Far below the poll's own 100 s: only an early return can finish in time.
    updates = await asyncio.wait_for(polling, timeout=30)
    [update] = updates
    assert update.update_id == update_id
    assert update.message is not None
    [entity] = update.message.entities
    assert (entity.type, entity.offset, entity.length) == ("bot_command", 0, 24)
    assert update.message.chat.type == "private"


async def test_group_messages_carry_sender_and_chat(fake: FakeTelegram, bot: Bot) -> None:
    fake.add_chat(SUPERGROUP, chat_type="supergroup", title="Lab")
    fake.user_sends(SUPERGROUP, "/follow@arxiv_watcher_bot Dezun Dong", user_id=77)
    fake.user_sends(GROUP, "hello", username="carol")
    first, second = await bot.get_updates()
    assert first.message is not None
    assert second.message is not None
    assert (first.message.chat.type, first.message.chat.title) == ("supergroup", "Lab")
    assert first.message.from_user is not None
    assert first.message.from_user.id == 77
    assert first.message.parse_entities() == {
        first.message.entities[0]: "/follow@arxiv_watcher_bot"
    }
    assert second.message.chat.type == "group"
    assert second.message.from_user is not None
    assert second.message.from_user.username == "carol"


async def test_a_second_poller_terminates_the_first(fake: FakeTelegram, bot: Bot) -> None:
    # PTB gives getUpdates a single connection, so the rival is a second Bot (process).
    first = asyncio.create_task(bot.get_updates(timeout=100))
    await fake.wait_for(lambda: fake.calls("getUpdates") == 1)
    async with Bot(TOKEN, base_url=fake.base_url) as rival:
        assert await rival.get_updates(timeout=0) == ()
    with pytest.raises(Conflict, match="terminated by other getUpdates request"):
        await asyncio.wait_for(first, timeout=30)


async def test_chat_members_and_administrators(fake: FakeTelegram, bot: Bot) -> None:
    fake.set_admins(SUPERGROUP, [7], creator_id=5)
    statuses = [(await bot.get_chat_member(SUPERGROUP, uid)).status for uid in (5, 7, 9)]
    assert statuses == ["creator", "administrator", "member"]
    admins = await bot.get_chat_administrators(SUPERGROUP)
    assert [(a.user.id, a.status) for a in admins] == [(5, "creator"), (7, "administrator")]

    fake.add_channel(CHANNEL, title="Papers", username="papers_feed")
    assert (await bot.get_chat_member(CHANNEL, bot.id)).status == "administrator"
    posted = await bot.send_message("@papers_feed", "to the channel")
    assert (posted.chat.id, posted.chat.type, posted.chat.title) == (CHANNEL, "channel", "Papers")
    chat = await bot.get_chat(CHANNEL)
    assert (chat.type, chat.username) == ("channel", "papers_feed")

    fake.add_channel(CHANNEL - 1, bot_is_admin=False)
    with pytest.raises(BadRequest, match="Need administrator rights in the channel chat"):
        await bot.send_message(CHANNEL - 1, "no rights")


async def test_wrong_token_and_unknown_method(fake: FakeTelegram, bot: Bot) -> None:
    with pytest.raises(InvalidToken):
        async with Bot("123456:WRONG-token", base_url=fake.base_url):
            pass
    async with httpx.AsyncClient() as client:
        answer = await client.post(fake.base_url + "123456:WRONG-token/getMe")
    assert answer.status_code == 401
    assert answer.json() == {"ok": False, "error_code": 401, "description": "Unauthorized"}
    with pytest.raises(EndPointNotFound):
        await bot.do_api_request("sendCarrierPigeon")


async def test_commands_round_trip(fake: FakeTelegram, bot: Bot) -> None:
    await bot.set_my_commands([("follow", "Follow an author"), ("list", "Followed authors")])
    assert fake.commands == [
        {"command": "follow", "description": "Follow an author"},
        {"command": "list", "description": "Followed authors"},
    ]
    assert [c.command for c in await bot.get_my_commands()] == ["follow", "list"]
    with pytest.raises(BadRequest, match="Bot_command_invalid"):
        await bot.set_my_commands([("Follow", "capitals are refused")])
    await bot.delete_my_commands()
    assert fake.commands == []


async def test_buttons_callbacks_and_edits(fake: FakeTelegram, bot: Bot) -> None:
    keyboard = InlineKeyboardMarkup([[InlineKeyboardButton("More", callback_data="more:2401")]])
    message = await bot.send_message(
        ALICE, "<b>Title</b>", parse_mode="HTML", reply_markup=keyboard
    )
    fake.press_button(ALICE, message.message_id, "more:2401")
    [update] = await bot.get_updates()
    query = update.callback_query
    assert query is not None
    assert query.data == "more:2401"
    assert query.message is not None
    assert query.message.message_id == message.message_id
    assert await bot.answer_callback_query(query.id, text="Expanded")
    with pytest.raises(BadRequest, match="Query is too old"):
        await bot.answer_callback_query(query.id)
    [answer] = fake.callback_answers
    assert (answer.data, answer.text) == ("more:2401", "Expanded")

    edited = await bot.edit_message_text(
        "<b>Title</b> and abstract", ALICE, message.message_id, parse_mode="HTML"
    )
    assert isinstance(edited, type(message))
    assert edited.text == "Title and abstract"
    with pytest.raises(BadRequest, match="Message is not modified"):
        await bot.edit_message_text(
            "<b>Title</b> and abstract", ALICE, message.message_id, parse_mode="HTML"
        )
    # Like Telegram, an edit without reply_markup removed the keyboard: put one back.
    assert edited.reply_markup is None
    await bot.edit_message_reply_markup(ALICE, message.message_id, reply_markup=keyboard)
    assert [(e.method, e.text) for e in fake.edits] == [
        ("editMessageText", "Title and abstract"),
        ("editMessageReplyMarkup", None),
    ]
    too_long = InlineKeyboardMarkup([[InlineKeyboardButton("x", callback_data="x" * 65)]])
    with pytest.raises(BadRequest, match="Button_data_invalid"):
        await bot.send_message(ALICE, "x", reply_markup=too_long)


async def test_my_chat_member_update_blocks_the_chat(fake: FakeTelegram, bot: Bot) -> None:
    fake.my_chat_member(ALICE, "kicked")
    [update] = await bot.get_updates()
    assert update.my_chat_member is not None
    assert update.my_chat_member.new_chat_member.status == "kicked"
    with pytest.raises(Forbidden):
        await bot.send_message(ALICE, "still there?")


async def test_channel_post_has_sender_chat_and_no_sender(fake: FakeTelegram, bot: Bot) -> None:
    fake.channel_post(CHANNEL, "/follow Dezun Dong", username="papers_feed")
    [update] = await bot.get_updates()
    post = update.channel_post
    assert post is not None
    assert post.from_user is None
    assert post.parse_entities() == {post.entities[0]: "/follow"}
    assert post.sender_chat is not None
    assert post.sender_chat.id == CHANNEL


async def test_injected_faults_hit_the_next_sends_in_order(fake: FakeTelegram, bot: Bot) -> None:
    fake.inject(
        Fault.server_error(500),
        Fault.server_error(502),
        Fault.disconnect(),
        Fault.disconnect(delivered=True),
        Fault.flood(retry_after=7),
        Fault.slow(0.2),
    )
    for _ in range(4):
        with pytest.raises(NetworkError):
            await bot.send_message(ALICE, "attempt")
    with pytest.raises(RetryAfter) as flood:
        await bot.send_message(ALICE, "attempt")
    assert flood.value.retry_after == dtm.timedelta(seconds=7)
    await bot.send_message(ALICE, "slow but fine")
    await bot.send_message(ALICE, "normal again")
    # Only the disconnect after delivery and the two successes reached the chat.
    assert [m.text for m in fake.sent(ALICE)] == ["attempt", "slow but fine", "normal again"]
    assert fake.count_429 == 1
    assert fake.calls("sendMessage") == 7
