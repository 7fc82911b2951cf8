"""/unsubscribe alone asks first (issue 19, trap 7): "Unfollow all N" or "Keep", and a stale press
is told so and changes nothing. Through the fake Bot API, as a person types and presses."""

from __future__ import annotations

from typing import Any

from bot.handlers.unfollow_all import KEPT, STALE
from tests.harness.bots import GROUP, USER, Bot


def buttons(bot: Bot, chat_id: int) -> list[dict[str, Any]]:
    markup = bot.last(chat_id).reply_markup
    assert markup is not None
    (row,) = markup["inline_keyboard"]
    return list(row)


async def press(bot: Bot, chat_id: int, message_id: int, data: str, **sender: Any) -> None:
    answered = len(bot.telegram.callback_answers)
    bot.telegram.press_button(chat_id, message_id, data, **sender)
    await bot.until(lambda: len(bot.telegram.callback_answers) > answered)


async def follow_two(bot: Bot) -> None:
    await bot.ask(USER, "/subscribe")
    await bot.ask(USER, "/subscribe Yemao Xu")
    assert len(bot.chats.subscribed_ids(USER)) == 2


async def test_unsubscribe_alone_asks_first_and_keep_keeps_everything(bot: Bot) -> None:
    await follow_two(bot)

    question = await bot.ask_one(USER, "/unsubscribe")

    assert question == "Stop this chat's 2 follows, all of them? /unsubscribe NAME stops one."
    unfollow, keep = buttons(bot, USER)
    assert (unfollow["text"], keep["text"]) == ("Unfollow all 2", "Keep")
    assert len(bot.chats.subscribed_ids(USER)) == 2  # nothing changed by asking
    await press(bot, USER, bot.last(USER).message_id, keep["callback_data"])
    await bot.until(lambda: bot.telegram.edits)
    assert bot.telegram.edits[-1].text == KEPT
    assert len(bot.chats.subscribed_ids(USER)) == 2


async def test_unfollow_all_stops_everything_and_a_second_press_is_stale(bot: Bot) -> None:
    await follow_two(bot)
    await bot.ask_one(USER, "/unsubscribe")
    question = bot.last(USER).message_id
    unfollow, _ = buttons(bot, USER)

    await press(bot, USER, question, unfollow["callback_data"])

    await bot.until(lambda: bot.telegram.edits)
    assert bot.telegram.edits[-1].text == ("✅ This chat no longer follows Dezun Dong, Yemao Xu.")
    assert bot.chats.subscribed_ids(USER) == []
    await bot.ask(USER, "/subscribe")  # one follow again: the old question no longer counts
    await press(bot, USER, question, unfollow["callback_data"])
    assert bot.telegram.callback_answers[-1].text == STALE
    assert len(bot.chats.subscribed_ids(USER)) == 1


async def test_a_press_after_the_follows_changed_is_stale_and_changes_nothing(bot: Bot) -> None:
    await bot.ask(USER, "/subscribe")
    await bot.ask_one(USER, "/unsubscribe")
    question = bot.last(USER).message_id
    unfollow, _ = buttons(bot, USER)
    assert unfollow["text"] == "Unfollow it"  # issue 30, item 5: not "Unfollow all 1"
    await bot.ask(USER, "/subscribe Yemao Xu")

    await press(bot, USER, question, unfollow["callback_data"])

    assert bot.telegram.callback_answers[-1].text == STALE
    assert len(bot.chats.subscribed_ids(USER)) == 2
    await press(bot, USER, question, "u:all:forged")
    assert bot.telegram.callback_answers[-1].text == STALE


async def test_in_a_group_only_administrators_may_press(bot: Bot) -> None:
    admin, member = 5, 7
    bot.telegram.add_chat(GROUP, chat_type="group", title="Reading group")
    bot.telegram.set_admins(GROUP, [admin])
    await bot.ask(GROUP, "/subscribe", user_id=admin)
    await bot.ask_one(GROUP, "/unsubscribe", user_id=admin)
    question = bot.last(GROUP).message_id
    unfollow, _ = buttons(bot, GROUP)

    await press(bot, GROUP, question, unfollow["callback_data"], user_id=member)

    assert bot.telegram.callback_answers[-1].text == (
        "Only this group's administrators can change what it follows."
    )
    assert len(bot.chats.subscribed_ids(GROUP)) == 1


async def test_unsubscribe_alone_when_nothing_is_followed_says_so(bot: Bot) -> None:
    answer = await bot.ask_one(USER, "/unsubscribe")

    assert answer == (
        "This chat follows nobody, so there is nothing to stop.\n"
        "Follow someone with: /subscribe Dezun Dong"
    )
    assert bot.last(USER).reply_markup is None
