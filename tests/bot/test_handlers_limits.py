"""The bot's limits, end to end: answers too long for one Telegram message are cut and counted,
a flooding chat is slowed down without holding up the others, and a failing handler logs and
apologises. The real Application long-polls the fake Bot API over HTTP and asks the real store
(SQLite or PostgreSQL); see `tests.harness.bots`.
"""

from __future__ import annotations

import logging
import re
from datetime import UTC, datetime

import pytest
from sqlalchemy import Engine

from bot.app import PerChatUpdates
from bot.handlers import SORRY, CommandBudget, help_overview
from bot.handlers.common import fit_reply
from bot.ratelimit import TelegramRateLimiter
from tests.fakes.telegram import Fault
from tests.fakes.telegram.html_markup import parse_html, utf16_length
from tests.harness.bots import ADMIN_CHAT, BOT, USER, Bot, running_bot
from watcher.follows.followed import Followed
from watcher.store.chats import MAX_SUBSCRIPTIONS

# --- answers too long for one message --------------------------------------------------------

TELEGRAM_LIMIT = 4096


def many_authors(bot: Bot, count: int, *, failing: int) -> list[Followed]:
    """`count` followed authors with 100-character names, the last `failing` of them with a
    long poll error."""
    now = datetime.now(UTC)
    made = []
    for number in range(count):
        given = "".join(chr(ord("a") + int(digit)) for digit in f"{number:03d}")
        name = (f"Given{given} Family" + "n" * 100)[:100]
        followed, _ = bot.store.follow([name])
        if number >= count - failing:
            bot.store.record_poll_failure(
                [followed.id], error="arXiv answered 503: " + "overloaded " * 40, now=now,
                next_poll=now,
            )  # fmt: skip
        made.append(followed)
    return made


def more_count(answer: str, pattern: str) -> int:
    found = re.search(pattern, answer, re.MULTILINE)
    assert found is not None, answer
    return int(found[1])


async def test_stats_of_sixty_authors_fits_one_message_failing_ones_first(bot: Bot) -> None:
    many_authors(bot, 60, failing=5)

    answer = await bot.ask_one(ADMIN_CHAT, "/stats")

    assert answer != SORRY
    assert utf16_length(answer) <= TELEGRAM_LIMIT
    listed = [line for line in answer.split("\n") if line.startswith("• ")]
    left_out = more_count(answer, r"^… and (\d+) more \(arxiv-watcher authors lists them all\)\.$")
    assert len(listed) + left_out == 61  # and Dezun Dong
    assert all("5 failed in a row" not in line for line in listed)
    assert all("1 failed in a row, last: arXiv answered 503" in line for line in listed[:5])
    assert "failed in a row" not in listed[5]


async def test_subscriptions_of_fifty_failing_authors_fits_one_message(bot: Bot) -> None:
    bot.chats.seen(USER, kind="private")
    for followed in many_authors(bot, MAX_SUBSCRIPTIONS, failing=MAX_SUBSCRIPTIONS):
        bot.chats.subscribe(USER, followed.id)

    answer = await bot.ask_one(USER, "/subscriptions")

    assert utf16_length(answer) <= TELEGRAM_LIMIT
    assert answer.startswith(f"This chat follows {MAX_SUBSCRIPTIONS} authors:\n• Givenaaa Family")
    assert answer.endswith("\nNew versions of papers: off (/revisions on to change).")
    listed = [line for line in answer.split("\n") if line.startswith("• ")]
    assert all(line.endswith("(⚠️ the last try failed; retrying)") for line in listed)
    assert len(listed) + more_count(answer, r"^… and (\d+) more\.$") == MAX_SUBSCRIPTIONS


async def test_unsubscribe_from_fifty_authors_names_ten_and_counts_the_rest(bot: Bot) -> None:
    bot.chats.seen(USER, kind="private")
    authors = many_authors(bot, MAX_SUBSCRIPTIONS, failing=0)
    for followed in authors:
        bot.chats.subscribe(USER, followed.id)

    question = await bot.ask_one(USER, "/unsubscribe")
    markup = bot.last(USER).reply_markup
    assert markup is not None
    unfollow = markup["inline_keyboard"][0][0]
    assert unfollow["text"] == f"Unfollow all {MAX_SUBSCRIPTIONS}", question
    bot.telegram.press_button(USER, bot.last(USER).message_id, unfollow["callback_data"])
    await bot.until(lambda: bot.telegram.edits)

    first_ten = ", ".join(followed.name for followed in authors[:10])
    assert bot.telegram.edits[-1].text == f"✅ This chat no longer follows {first_ten} and 40 more."
    assert bot.chats.subscribed_ids(USER) == []


def lines_of(count: int, template: str) -> str:
    return "\n".join(template.format(number) for number in range(count))


@pytest.mark.parametrize(
    ("text", "limit", "expected"),
    [
        ("<b>short</b>\nanswer", 50, "<b>short</b>\nanswer"),
        (
            lines_of(10, "<b>line {}</b> &lt;x&gt;"),
            100,
            lines_of(4, "<b>line {}</b> &lt;x&gt;")
            + "\n… (6 more lines not shown: too long for one message)",
        ),
        (  # never inside a block that spans lines
            "head\n<pre>" + lines_of(4, "code line") + "</pre>\n" + lines_of(5, "tail {}"),
            64,
            "head\n… (9 more lines not shown: too long for one message)",
        ),
        (  # nowhere to cut at a line end: plain text, escaped
            "<b>" + "a&lt;b " * 30 + "</b>",
            40,
            "a&lt;b " * 9 + "a&lt;b…",
        ),
        ("🙂" * 30, 21, "🙂" * 10 + "…"),  # an emoji counts two
    ],
)
def test_a_reply_too_long_is_cut_at_a_line_end_and_stays_valid_html(
    text: str, limit: int, expected: str
) -> None:
    cut = fit_reply(text, limit=limit)

    assert cut == expected
    assert utf16_length(parse_html(cut).text) <= limit


# --- flooding and failures --------------------------------------------------------------------


async def test_a_flooding_chat_is_slowed_down_without_holding_up_others(
    engine: Engine, database_url: str
) -> None:
    budget = CommandBudget(burst=3, refill_per_second=0.001)
    async with running_bot(engine, database_url, budget=budget) as bot:
        for _ in range(8):
            bot.telegram.user_sends(USER, "/help")

        assert (await bot.ask_one(USER + 1, "/recent 1")).startswith("Newest · ")
        await bot.settled()

        texts = [message.text for message in bot.telegram.sent(USER)]
        assert len(texts) == 4
        assert texts[3] == (
            "Slow down, please: too many commands at once. I will answer again in a few seconds."
        )
        assert all(text.startswith("Commands") for text in texts[:3])


async def test_a_script_sending_forty_commands_at_once_is_slowed_down(
    engine: Engine, database_url: str
) -> None:
    async with running_bot(engine, database_url, budget=CommandBudget()) as bot:
        for _ in range(40):
            bot.telegram.user_sends(USER, "/help")
        await bot.until(
            lambda: any(m.text.startswith("Slow down") for m in bot.telegram.sent(USER))
        )
        await bot.settled()

        texts = [message.text for message in bot.telegram.sent(USER)]
        assert texts[:12] == [texts[0]] * 12
        assert texts[0].startswith("Commands")
        assert texts[12].startswith("Slow down, please")
        assert len(texts) == 13


async def test_commands_for_another_bot_do_not_count_against_the_chat(
    engine: Engine, database_url: str
) -> None:
    budget = CommandBudget(burst=2, refill_per_second=0.001)
    async with running_bot(engine, database_url, budget=budget) as bot:
        for _ in range(5):
            bot.telegram.user_sends(USER, "/help@some_other_bot")

        first = await bot.ask(USER, "/help")
        second = await bot.ask(USER, f"/help@{BOT}")

        assert first[0].startswith("Commands") and second[0].startswith("Commands")
        await bot.settled()
        assert len(bot.telegram.sent(USER)) == 2


async def test_a_chat_waiting_for_its_send_slot_does_not_hold_up_other_chats(
    engine: Engine, database_url: str
) -> None:
    # Telegram's pace: one message a second to a private chat. The flooding chat's replies
    # queue behind its own send slot; the other chat's answer must not queue behind them.
    pace = TelegramRateLimiter(private_per_second=1)
    async with running_bot(engine, database_url, rate_limiter=pace) as bot:
        flood = ["/help", "/start"] * 3
        for command in flood:
            bot.telegram.user_sends(USER, command)
        bot.telegram.user_sends(USER + 1, "/help")

        await bot.until(lambda: len(bot.telegram.sent(USER)) == len(flood))
        await bot.until(lambda: len(bot.telegram.sent(USER + 1)) == 1)

        chats = [message.chat_id for message in bot.telegram.sent()]
        other_answered = chats.index(USER + 1)
        flood_done = max(at for at, chat_id in enumerate(chats) if chat_id == USER)
        assert other_answered < flood_done
        # ... and the flooding chat still got its answers in the order it asked.
        texts = [message.text for message in bot.telegram.sent(USER)]
        assert [text.startswith("Commands") for text in texts] == [True, False] * 3
        assert [text.startswith("👋 I watch arXiv") for text in texts] == [False, True] * 3
        assert bot.telegram.sent(USER + 1)[0].html == help_overview()
        await bot.settled()
        assert isinstance(bot.app.update_processor, PerChatUpdates)
        assert bot.app.update_processor.chats_in_progress == 0  # nothing kept once served


async def test_a_failure_is_logged_and_the_user_gets_a_short_apology(
    bot: Bot, caplog: pytest.LogCaptureFixture
) -> None:
    bot.telegram.inject(Fault.server_error(500))

    with caplog.at_level(logging.ERROR, logger="bot.handlers"):
        answer = await bot.ask_one(USER, "/help")

    assert answer == SORRY
    assert "handling an update failed" in caplog.text
    assert bot.telegram.token not in caplog.text
