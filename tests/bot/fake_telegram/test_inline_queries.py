"""The fake's inline mode (tests/fakes/telegram/inline.py says where each rule comes from): the
`inline_query` update reads whole in python-telegram-bot, and `answerInlineQuery` refuses what
Telegram refuses: over 50 results, a result id empty, over 64 bytes or repeated, an article
without its title or message, a message text empty or over 4096 characters, a query answered
twice, unknown or too old.
"""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest
from telegram import (
    Bot,
    InlineQueryResultArticle,
    InputTextMessageContent,
    Update,
)
from telegram.error import BadRequest

from tests.bot.fake_telegram.test_shapes import _differences, _raw
from tests.fakes.telegram import FakeTelegram
from tests.harness.fake_telegram_ids import ALICE

TOO_OLD = "(?i)query is too old and response timeout expired or query id is invalid"


def article(result_id: str, text: str = "A paper") -> InlineQueryResultArticle:
    return InlineQueryResultArticle(result_id, "Title", InputTextMessageContent(text))


async def test_an_inline_query_reads_whole_in_ptb(fake: FakeTelegram, bot: Bot) -> None:
    fake.inline_query(ALICE, "2412.01234", language_code="zh-hans")
    fake.inline_query(ALICE, "", offset="10", chat_type="supergroup")
    fake.inline_query(ALICE, "Dezun Dong", chat_type=None)

    updates = await _raw(fake, "getUpdates", allowed_updates=["inline_query"])

    assert [u["inline_query"]["query"] for u in updates] == ["2412.01234", "", "Dezun Dong"]
    for update in updates:
        assert _differences(update, Update.de_json(update, bot).to_dict()) == [], update
    read = Update.de_json(updates[0], bot).inline_query
    assert read is not None
    assert (read.from_user.id, read.from_user.language_code, read.chat_type) == (
        ALICE,
        "zh-hans",
        "sender",
    )


async def test_an_answer_is_recorded_once_and_a_second_is_too_old(
    fake: FakeTelegram, bot: Bot
) -> None:
    query_id = fake.inline_query(ALICE, "graphs")

    assert await bot.answer_inline_query(
        query_id, [article("1", "<b>A</b> paper")], cache_time=30, is_personal=True
    )

    answer = fake.inline_answer(query_id)
    assert answer is not None
    assert (answer.user_id, answer.query, answer.cache_time, answer.is_personal) == (
        ALICE,
        "graphs",
        30,
        True,
    )
    assert answer.results[0]["id"] == "1"
    with pytest.raises(BadRequest, match=TOO_OLD):
        await bot.answer_inline_query(query_id, [article("1")])
    with pytest.raises(BadRequest, match=TOO_OLD):
        await bot.answer_inline_query("12345", [article("1")])
    old = fake.inline_query(ALICE, "graphs")
    fake.expire_inline_query(old)
    with pytest.raises(BadRequest, match=TOO_OLD):
        await bot.answer_inline_query(old, [article("1")])
    assert len(fake.inline_answers) == 1


@pytest.mark.parametrize(
    ("results", "error"),
    [
        ([article(str(n)) for n in range(51)], "Results_too_much"),
        ([article("same"), article("same")], "Result_id_duplicate"),
        ([article("x" * 65)], "Result_id_invalid"),
        ([article("é" * 33)], "Result_id_invalid"),  # 66 bytes of UTF-8
        ([article("1", " ")], "Message_empty"),
        ([article("1", "x" * 4097)], "Message_too_long"),
    ],
)
async def test_answers_telegram_refuses_are_refused(
    fake: FakeTelegram, bot: Bot, results: list[InlineQueryResultArticle], error: str
) -> None:
    query_id = fake.inline_query(ALICE, "graphs")
    with pytest.raises(BadRequest, match=f"(?i){error}"):
        await bot.answer_inline_query(query_id, results)
    assert fake.inline_answers == []
    # Refused, the query may still be answered.
    assert await bot.answer_inline_query(query_id, [article("1", "x" * 4096)])


@pytest.mark.parametrize("missing", ["id", "title", "input_message_content"])
async def test_an_article_without_a_required_field_is_refused(
    fake: FakeTelegram, missing: str
) -> None:
    query_id = fake.inline_query(ALICE, "graphs")
    result: dict[str, Any] = {
        "type": "article",
        "id": "1",
        "title": "Title",
        "input_message_content": {"message_text": "A paper"},
    }
    del result[missing]
    async with httpx.AsyncClient() as client:
        answer = await client.post(
            f"{fake.base_url}{fake.token}/answerInlineQuery",
            data={"inline_query_id": query_id, "results": json.dumps([result])},
        )
    assert answer.status_code == 400
    assert answer.json()["description"] == (
        f"Bad Request: can't parse inline query result: Can't find field \"{missing}\""
    )
