"""While arXiv is asked on a chat's behalf, the chat sees that the bot is at work (issue 30,
item 8): a "typing…" status (sendChatAction) for /subscribe NAME, /subscribe AUTHOR-ID and
/paper, and a /subscribe of several names shows each name's answer as it is decided when arXiv
is slow, not all at the end. End to end: the real Application, the fake Bot API and arXiv."""

from __future__ import annotations

import pytest

from bot.handlers import growing_answer
from tests.harness.bots import USER, Bot
from tests.harness.patience import PATIENCE


async def test_subscribe_and_paper_show_typing_while_arxiv_is_asked(bot: Bot) -> None:
    await bot.ask_one(USER, "/subscribe Yemao Xu")
    await bot.ask_one(USER, "/paper 2609.99999")
    await bot.ask_one(USER, "/subscribe https://arxiv.org/a/nobody_x_1")

    shown = bot.telegram.chat_actions(USER)
    assert [a.action for a in shown] == ["typing"] * 3
    assert all(a.message_thread_id is None for a in shown)


async def test_each_name_is_answered_before_the_last_is_decided(bot: Bot) -> None:
    bot.arxiv.hold_queries("Atall")  # arXiv is slow for the last name only
    bot.telegram.user_sends(USER, "/subscribe Yemao Xu; Nobody Atall")
    try:
        await bot.until(lambda: bot.telegram.sent(USER))
        first = bot.telegram.sent(USER)[0].text
        assert bot.arxiv.query_held.is_set()  # the last name is not decided yet
    finally:
        bot.arxiv.release_queries()

    assert first.startswith("✅ This chat now follows Yemao Xu: arXiv lists 3 papers"), first
    assert first.endswith("⏳ Checking 1 more name with arXiv…"), first
    await bot.until(lambda: bot.telegram.edits)
    (edit,) = bot.telegram.edits
    assert edit.text is not None
    lines = edit.text.split("\n")
    assert len(lines) == 2 and lines[0] == first.split("\n")[0], edit.text
    assert lines[1].startswith("arXiv lists no papers by Nobody Atall"), edit.text
    await bot.settled()
    assert len(bot.telegram.sent(USER)) == 1  # one message, edited as names were decided


async def test_names_decided_quickly_make_one_message_with_no_edit(
    bot: Bot, monkeypatch: pytest.MonkeyPatch
) -> None:
    # "Quickly" is within SHOW_AFTER; on a loaded machine the fake arXiv's answers can take
    # longer than its half second, so here quick means within the tests' patience.
    monkeypatch.setattr(growing_answer, "SHOW_AFTER", PATIENCE)
    answer = await bot.ask_one(USER, "/subscribe Yemao Xu; Nobody Atall")

    assert len(answer.split("\n")) == 2, answer
    await bot.settled()
    assert bot.telegram.edits == []
