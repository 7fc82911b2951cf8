"""The fake Bot API's updates and answers are shapes python-telegram-bot 22.8 (Bot API 10.0)
reads whole: each goes through PTB's `de_json` and back through `to_dict`, and nothing may be
lost, renamed or missing. And the shapes the audit of tests/fakes/README.md checked: a channel
post of the bot, a reader's press in a channel, a press on a reply, `chat_member` updates.
"""

from __future__ import annotations

import json
from typing import Any

import httpx
from telegram import (
    Bot,
    ChatFullInfo,
    ChatMember,
    InlineKeyboardButton,
    InlineKeyboardMarkup,
    Message,
    ReplyParameters,
    Update,
    User,
)
from telegram.constants import BOT_API_VERSION

from tests.fakes.telegram import FakeTelegram
from tests.harness.fake_telegram_ids import ALICE, CHANNEL, GROUP, SUPERGROUP

# Service flags PTB's Message always writes back as False; Telegram leaves them out.
_PTB_DEFAULT_FLAGS = frozenset(
    {"group_chat_created", "channel_chat_created", "supergroup_chat_created", "delete_chat_photo"}
)
_BUTTON = InlineKeyboardMarkup([[InlineKeyboardButton("Save", callback_data="save")]])


def _differences(sent: Any, read: Any, path: str = "") -> list[str]:
    """Where PTB's reading of `sent` (`read`, its to_dict) differs from what the fake sent."""
    if isinstance(sent, dict) and isinstance(read, dict):
        found = [f"{path}.{key}: PTB lost it" for key in sent if key not in read]
        found += [
            f"{path}.{key}: PTB added {read[key]!r}"
            for key in read
            if key not in sent and not (key in _PTB_DEFAULT_FLAGS and read[key] is False)
        ]
        for key in sent.keys() & read.keys():
            found += _differences(sent[key], read[key], f"{path}.{key}")
        return found
    if isinstance(sent, list) and isinstance(read, list) and len(sent) == len(read):
        return [
            d
            for i, pair in enumerate(zip(sent, read, strict=True))
            for d in _differences(*pair, f"[{i}]")
        ]
    return [] if sent == read else [f"{path}: sent {sent!r}, PTB reads {read!r}"]


async def _raw(fake: FakeTelegram, method: str, **params: object) -> Any:
    """The fake's JSON `result` for a method, as it goes over the wire."""
    data = {k: v if isinstance(v, str) else json.dumps(v) for k, v in params.items()}
    async with httpx.AsyncClient() as client:
        answer = await client.post(f"{fake.base_url}{fake.token}/{method}", data=data)
    body = answer.json()
    assert body["ok"], body
    return body["result"]


def test_the_fake_targets_the_bot_api_of_the_installed_ptb() -> None:
    # tests/fakes/README.md names the version the fake was checked against.
    assert BOT_API_VERSION == "10.0"


async def test_every_update_and_answer_reads_whole_in_ptb(fake: FakeTelegram, bot: Bot) -> None:
    fake.add_channel(CHANNEL, title="Papers")
    fake.set_admins(SUPERGROUP, [5], creator_id=3, bot_is_admin=True)
    fake.user_sends(ALICE, "/start")
    fake.user_sends(SUPERGROUP, "/subscribe Dezun Dong", user_id=7)
    fake.user_sends(SUPERGROUP, "/subscribe", as_chat=SUPERGROUP)
    fake.channel_post(CHANNEL, "/start")
    answer = await bot.send_message(
        SUPERGROUP, "answer", reply_parameters=ReplyParameters(2), reply_markup=_BUTTON
    )
    post = await bot.send_message(CHANNEL, "a paper", reply_markup=_BUTTON)
    fake.press_button(SUPERGROUP, answer.message_id, "save", user_id=7)
    fake.press_button(CHANNEL, post.message_id, "save", user_id=555, joined=False)
    fake.chat_member(SUPERGROUP, 8, "member")
    fake.my_chat_member(ALICE, "kicked")
    fake.my_chat_member(GROUP, "restricted", old_status="member", can_send=False)

    kinds = ["message", "channel_post", "callback_query", "my_chat_member", "chat_member"]
    updates = await _raw(fake, "getUpdates", allowed_updates=kinds)
    assert [next(k for k in u if k != "update_id") for u in updates] == [
        *["message"] * 3,
        "channel_post",
        *["callback_query"] * 2,
        "chat_member",
        *["my_chat_member"] * 2,
    ]
    for update in updates:
        assert _differences(update, Update.de_json(update, bot).to_dict()) == [], update
    answers: list[tuple[Any, type[Any]]] = [
        (await _raw(fake, "getMe"), User),
        (await _raw(fake, "getChat", chat_id=SUPERGROUP), ChatFullInfo),
        (await _raw(fake, "sendMessage", chat_id=CHANNEL, text="<b>x</b>"), Message),
        (await _raw(fake, "getChatMember", chat_id=CHANNEL, user_id=555), ChatMember),
        *[(m, ChatMember) for m in await _raw(fake, "getChatAdministrators", chat_id=SUPERGROUP)],
    ]
    for result, kind in answers:
        assert _differences(result, kind.de_json(result, bot).to_dict()) == [], result


async def test_the_bot_posts_in_a_channel_as_the_channel(fake: FakeTelegram, bot: Bot) -> None:
    fake.add_channel(CHANNEL, title="Papers")
    post = await bot.send_message(CHANNEL, "a paper", reply_markup=_BUTTON)
    assert post.from_user is None
    assert post.sender_chat is not None
    assert post.sender_chat.id == CHANNEL
    # It is still the bot's own post: the bot may edit it.
    edited = await bot.edit_message_text("a paper, saved", CHANNEL, post.message_id)
    assert isinstance(edited, Message)
    assert edited.text == "a paper, saved"


async def test_any_reader_of_a_channel_may_press_its_buttons(fake: FakeTelegram, bot: Bot) -> None:
    fake.add_channel(CHANNEL, title="Papers")
    fake.set_admins(CHANNEL, [5], creator_id=3, bot_is_admin=True)
    post = await bot.send_message(CHANNEL, "a paper", reply_markup=_BUTTON)
    fake.press_button(CHANNEL, post.message_id, "save", user_id=555)
    fake.press_button(CHANNEL, post.message_id, "save", user_id=556, joined=False)
    presses = [u.callback_query for u in await bot.get_updates()]
    assert [(q.from_user.id, q.data) for q in presses if q] == [(555, "save"), (556, "save")]
    for query in presses:
        assert query is not None
        assert isinstance(query.message, Message)
        assert (query.message.chat.type, query.message.from_user) == ("channel", None)
    statuses = [(await bot.get_chat_member(CHANNEL, uid)).status for uid in (3, 5, 555, 556)]
    assert statuses == ["creator", "administrator", "member", "left"]


async def test_a_press_on_a_reply_carries_the_replied_message(fake: FakeTelegram, bot: Bot) -> None:
    fake.user_sends(SUPERGROUP, "/import", user_id=7)
    [command] = [u.message for u in await bot.get_updates()]
    assert command is not None
    question = await command.reply_text("Import?", do_quote=True, reply_markup=_BUTTON)
    fake.press_button(SUPERGROUP, question.message_id, "save", user_id=7)
    [update] = await bot.get_updates(offset=-1)
    query = update.callback_query
    assert query is not None
    assert isinstance(query.message, Message)
    replied = query.message.reply_to_message
    assert replied is not None
    assert (replied.message_id, replied.text) == (command.message_id, "/import")


async def test_chat_member_updates_come_only_when_asked_and_to_an_admin(
    fake: FakeTelegram, bot: Bot
) -> None:
    assert fake.chat_member(SUPERGROUP, 8, "member") is None  # the bot is no administrator
    fake.set_admins(SUPERGROUP, [], bot_is_admin=True)
    fake.chat_member(SUPERGROUP, 8, "administrator", old_status="member", by=3)
    assert await bot.get_updates() == ()  # not asked for: dropped, as Telegram does
    fake.chat_member(SUPERGROUP, 9, "member")
    [update] = await bot.get_updates(allowed_updates=["chat_member"])
    change = update.chat_member
    assert change is not None
    assert (change.chat.id, change.from_user.id) == (SUPERGROUP, 9)
    assert (change.old_chat_member.status, change.new_chat_member.status) == ("left", "member")
    assert change.new_chat_member.user.id == 9
    assert (await bot.get_chat_member(SUPERGROUP, 8)).status == "administrator"
