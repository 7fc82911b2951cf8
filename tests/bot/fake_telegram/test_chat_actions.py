"""The fake Bot API's sendChatAction, through PTB: a status is True and recorded, not a message;
an unknown action, a chat the bot may not write in and a missing topic are refused as sends are.
"""

from __future__ import annotations

import pytest
from telegram import Bot
from telegram.constants import ChatAction
from telegram.error import BadRequest, Forbidden

from tests.fakes.telegram import FakeTelegram
from tests.harness.fake_telegram_ids import ALICE


async def test_typing_is_true_and_recorded_not_a_message(fake: FakeTelegram, bot: Bot) -> None:
    assert await bot.send_chat_action(ALICE, ChatAction.TYPING) is True
    [shown] = fake.chat_actions(ALICE)
    assert (shown.chat_id, shown.action, shown.message_thread_id) == (ALICE, "typing", None)
    assert fake.sent(ALICE) == []


async def test_a_forum_topic_gets_its_own_status(fake: FakeTelegram, bot: Bot) -> None:
    forum = -1001234
    topic = fake.create_topic(forum, "Papers")
    await bot.send_chat_action(forum, ChatAction.TYPING, message_thread_id=topic)
    assert [a.message_thread_id for a in fake.chat_actions(forum)] == [topic]
    with pytest.raises(BadRequest, match="thread not found"):
        await bot.send_chat_action(forum, ChatAction.TYPING, message_thread_id=topic + 99)


async def test_unknown_action_and_blocked_chat_are_refused(fake: FakeTelegram, bot: Bot) -> None:
    with pytest.raises(BadRequest, match=r"(?i)wrong parameter action"):
        await bot.send_chat_action(ALICE, "dancing")
    fake.block(ALICE)
    with pytest.raises(Forbidden, match="blocked"):
        await bot.send_chat_action(ALICE, ChatAction.TYPING)
    assert fake.chat_actions() == []
