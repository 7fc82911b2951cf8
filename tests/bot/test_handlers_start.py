"""The bot's first contact and its chats, end to end: /start, /help, unknown input, commands
addressed to this bot in groups, administrators and channels, and a chat that blocks the bot and
comes back. The real Application long-polls the fake Bot API over HTTP, asks the real store
(SQLite or PostgreSQL) and fetches from the fake arXiv; see `tests.harness.bots`.
"""

from __future__ import annotations

from typing import Any

import pytest
from sqlalchemy import Engine

from bot.arguments import DEFAULT_COUNT, MAX_COUNT, MAX_FOLLOWS_AT_ONCE
from bot.handlers import commands_menu
from tests.fakes.corpus import make_record
from tests.harness.bots import BOT, GROUP, USER, Bot, dezun_count, running_front_end
from watcher.follows.rules import MAX_RULE_CATEGORIES
from watcher.follows.topics import MAX_CATEGORIES as MAX_TOPIC_CATEGORIES
from watcher.follows.topics import MAX_TERMS
from watcher.store import MatchedRecord
from watcher.store.chats import MAX_SUBSCRIPTIONS

CHANNEL = -1001234567890
ONLY_ADMINS = (
    "Only this group's administrators can change what it follows.\nAnyone can ask: /subscriptions"
)


def is_active(bot: Bot, chat_id: int) -> bool:
    info = bot.chats.get(chat_id)
    return info is not None and info.active


# --- /start, /help, unknown input -------------------------------------------------------------


async def test_start_says_what_whom_and_how_and_reactivates_the_chat(bot: Bot) -> None:
    bot.chats.seen(USER, kind="private")
    bot.chats.deactivate(USER, reason="the user blocked the bot")

    answer = await bot.ask_one(USER, "/start")

    assert "I watch arXiv for new papers" in answer
    assert "I watch Dezun Dong." in answer
    assert "/subscribe: follow the authors I watch" in answer
    assert "/subscribe NAME" in answer
    info = bot.chats.get(USER)
    assert info is not None
    assert info.active
    assert bot.last(USER).link_preview_options == {"is_disabled": True}
    assert bot.last(USER).parse_mode == "HTML"


async def test_start_counts_authors_and_topics_apart(bot: Bot) -> None:
    """Issue 30, item 4: 1 author and 2 topics were "3 authors"."""
    assert (await bot.ask_one(USER, "/subscribe")).startswith("✅")
    assert (await bot.ask_one(USER, "/watch in cs.DC")).startswith("✅")
    assert (await bot.ask_one(USER, "/watch allreduce in cs.NI")).startswith("✅")

    answer = await bot.ask_one(USER, "/start")

    assert "This chat follows 1 author and 2 topics: see /subscriptions." in answer
    assert (await bot.ask_one(USER, "/unsubscribe Dezun Dong")).startswith("✅")
    assert "This chat follows 2 topics: see /subscriptions." in await bot.ask_one(USER, "/start")


async def test_help_is_one_short_line_per_command_in_three_groups(bot: Bot) -> None:
    answer = await bot.ask_one(USER, "/help")

    lines = answer.split("\n")
    assert lines[0] == "Commands"
    for group in ("Following", "Reading", "Settings"):
        assert group in lines
    for command in commands_menu():
        (line,) = [
            line for line in lines[:-1] if line.split(":")[0].split()[:1] == [f"/{command.command}"]
        ]
        assert len(line) <= 60, line
    assert lines.index("Following") < lines.index("/subscribe NAME: follow an author")
    assert lines.index("Reading") < lines.index("/recent [N]: the newest papers")
    assert lines.index("Settings") < lines.index(
        "/digest daily|weekly|off: one message a day or a week"
    )
    assert lines[-1] == "/help COMMAND shows one in full, with examples: /help watch"
    assert (
        len(answer) < 1300
    )  # 1000 until /search, /authors, /saved, /exclude, /preview and /suggest took a line each
    assert "homonym" not in answer and "field" not in answer


@pytest.mark.parametrize("asked", ["watch", "/watch", "WATCH", f"/watch@{BOT}"])
async def test_help_command_shows_that_command_in_full(bot: Bot, asked: str) -> None:
    answer = await bot.ask_one(USER, f"/help {asked}")

    assert answer.startswith("/watch TOPIC in CATEGORY: follow a topic\n")
    assert f"in 1 to {MAX_TOPIC_CATEGORIES} categories" in answer
    assert f"at most {MAX_TERMS} terms" in answer
    assert "network also finds networks, RDMA never RDMAX" in answer  # word forms, issue 30
    assert '<code>/watch "remote direct memory access" RDMA in cs.DC</code>' in bot.last(USER).html
    assert "OR (in capitals) between words or phrases wants either one" in answer  # issue 32
    assert "<code>/watch rdma OR infiniband in cs.DC</code>" in bot.last(USER).html


async def test_help_of_every_command_holds_its_limits_from_the_constants(bot: Bot) -> None:
    for command in commands_menu():
        answer = await bot.ask_one(USER, f"/help {command.command}")
        assert answer.startswith(f"/{command.command}"), answer
    recent = await bot.ask_one(USER, "/help recent")
    assert f"(default {DEFAULT_COUNT}, at most {MAX_COUNT})" in recent
    subscribe = await bot.ask_one(USER, "/help subscribe")
    assert f"up to {MAX_FOLLOWS_AT_ONCE} names" in subscribe
    assert f"in up to {MAX_RULE_CATEGORIES} categories" in subscribe
    assert f"at most {MAX_SUBSCRIPTIONS} authors and topics" in subscribe


async def test_help_of_an_unknown_command_says_so_with_an_example(bot: Bot) -> None:
    answer = await bot.ask_one(USER, "/help frobnicate")

    assert answer == "I have no command frobnicate; /help lists them.\nFor example: /help watch"


async def test_unknown_command_and_plain_text_point_at_help(bot: Bot) -> None:
    assert await bot.ask_one(USER, "/frobnicate now") == (
        "I do not know /frobnicate.\nSee them with: /help"
    )
    assert await bot.ask_one(USER, "hello there") == "I answer commands only. /help lists them."
    # Issue 30, item 5: a mistyped command gets a "did you mean".
    assert await bot.ask_one(USER, "/subscibe Dezun Dong") == (
        "I do not know /subscibe. Did you mean /subscribe?\nSee them with: /help"
    )
    assert (await bot.ask_one(USER, "/Unwach")).startswith(
        "I do not know /Unwach. Did you mean /unwatch?"
    )


async def test_in_a_group_only_commands_for_this_bot_are_answered(bot: Bot) -> None:
    group: dict[str, Any] = {"chat_type": "group", "user_id": 7}
    bot.telegram.user_sends(GROUP, "/frobnicate", **group)
    bot.telegram.user_sends(GROUP, "/recent@some_other_bot", **group)
    bot.telegram.user_sends(GROUP, "just chatting", **group)

    answers = await bot.ask(GROUP, f"/frobnicate@{BOT}", **group)

    assert answers == [f"I do not know /frobnicate@{BOT}.\nSee them with: /help"]


async def test_commands_work_with_the_bot_name_suffix(bot: Bot) -> None:
    answer = await bot.ask_one(USER, f"/recent@{BOT} 2")

    assert answer.startswith(f"Newest · the watched authors · {dezun_count(bot)}\n")


# --- groups and channels ----------------------------------------------------------------------


async def test_in_a_group_only_administrators_subscribe_but_anyone_asks(bot: Bot) -> None:
    bot.telegram.set_admins(GROUP, [7], creator_id=8)
    member: dict[str, Any] = {"chat_type": "group", "title": "Readers", "user_id": 9}

    refused = await bot.ask_one(GROUP, "/subscribe", **member)
    assert refused == ONLY_ADMINS
    assert bot.chats.subscribed_ids(GROUP) == []
    listing = await bot.ask_one(GROUP, "/recent 1", **member)
    assert listing.startswith(f"Newest · the watched authors · {dezun_count(bot)}\n")

    admin = {**member, "user_id": 7}
    accepted = await bot.ask_one(GROUP, "/subscribe", **admin)
    assert accepted.startswith("✅ This chat now follows Dezun Dong")
    refused_too = await bot.ask_one(GROUP, "/unsubscribe", **member)
    assert refused_too == ONLY_ADMINS
    creator = {**member, "user_id": 8}
    assert await bot.ask_one(GROUP, "/unsubscribe", **creator) == (
        "Stop this chat's only follow? /unsubscribe NAME stops one."
    )
    markup = bot.last(GROUP).reply_markup
    assert markup is not None
    unfollow = markup["inline_keyboard"][0][0]["callback_data"]
    bot.telegram.press_button(GROUP, bot.last(GROUP).message_id, unfollow, user_id=8)
    await bot.until(lambda: bot.telegram.edits)
    assert bot.telegram.edits[-1].text == "✅ This chat no longer follows Dezun Dong."
    info = bot.chats.get(GROUP)
    assert info is not None
    assert (info.kind, info.title) == ("group", "Readers")


async def test_a_channel_is_subscribed_by_a_post_in_it(bot: Bot) -> None:
    bot.telegram.add_channel(CHANNEL, title="Papers", bot_is_admin=True)

    bot.telegram.channel_post(CHANNEL, "/subscribe", title="Papers")
    await bot.until(lambda: bot.telegram.sent(CHANNEL))

    assert bot.last(CHANNEL).text.startswith("✅ This chat now follows Dezun Dong")
    assert len(bot.chats.subscribed_ids(CHANNEL)) == 1
    info = bot.chats.get(CHANNEL)
    assert info is not None
    assert (info.kind, info.title) == ("channel", "Papers")


async def test_blocking_and_unblocking_the_bot_parks_and_resumes_the_chat(bot: Bot) -> None:
    await bot.ask(USER, "/subscribe")

    def active() -> bool:
        info = bot.chats.get(USER)
        return info is not None and info.active

    bot.telegram.my_chat_member(USER, "kicked")
    await bot.until(lambda: not active())
    bot.telegram.my_chat_member(USER, "member")
    await bot.until(active)
    assert len(bot.chats.subscribed_ids(USER)) == 1


@pytest.mark.parametrize("comes_back_by", ["/start", "unblocking the bot"])
async def test_a_chat_that_comes_back_gets_its_parked_paper_at_once(
    engine: Engine, database_url: str, monkeypatch: pytest.MonkeyPatch, comes_back_by: str
) -> None:
    # Left alone, the sender looks at the outbox again only after its idle recheck. Make that an
    # hour: the paper can then arrive within the test only because the chat's return woke it.
    monkeypatch.setattr("bot.delivery.sender.IDLE_RECHECK", 3600.0)
    async with running_front_end(engine, database_url) as bot:
        await bot.ask(USER, "/subscribe")
        dezun = bot.store.find_followed("Dezun Dong")
        assert dezun is not None
        bot.telegram.my_chat_member(USER, "kicked")
        await bot.until(lambda: not is_active(bot, USER))
        paper = make_record(arxiv_id="2606.00001", title="Parked While Blocked")
        saved = bot.store.save_records(
            [MatchedRecord(paper, frozenset({dezun.id}))], announce_for=frozenset({dezun.id})
        )
        assert saved.new == [paper]
        assert bot.service.outbox.stats().parked == 1

        if comes_back_by == "/start":
            bot.telegram.unblock(USER)
            bot.telegram.user_sends(USER, "/start")
        else:
            bot.telegram.my_chat_member(USER, "member")
        await bot.until(
            lambda: any("Parked While Blocked" in m.text for m in bot.telegram.sent(USER))
        )

        # Marked sent once Telegram's answer is in, a moment after the fake has the message.
        await bot.until(lambda: bot.service.outbox.stats().sent == 1)
        stats = bot.service.outbox.stats()
        assert (stats.parked, stats.pending) == (0, 0)
        assert is_active(bot, USER)
