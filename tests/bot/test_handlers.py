"""The bot's commands end to end: the real Application long-polls the fake Bot API over HTTP,
asks the real store (SQLite or PostgreSQL) and fetches from the fake arXiv.

Each test talks to the bot the way a user does (`user_sends`, `channel_post`, `press_button`)
and asserts on the text the fake Telegram received. Different chats are served concurrently,
but one chat's updates are handled one at a time in the order sent, so "nothing was answered"
is checked by sending a sentinel command afterwards in the same chat, or by `Bot.settled()`.
"""

from __future__ import annotations

import logging
import re
from datetime import UTC, datetime
from typing import Any

import pytest
from sqlalchemy import Engine

from bot.app import PerChatUpdates
from bot.handlers import COMMANDS, HELP, SORRY, CommandBudget
from bot.handlers.common import fit_reply
from bot.ratelimit import TelegramRateLimiter
from tests.fakes.corpus import make_record
from tests.fakes.telegram import Fault
from tests.fakes.telegram.html_markup import parse_html, utf16_length
from tests.harness.bots import (
    ADMIN_CHAT,
    BOT,
    GROUP,
    USER,
    Bot,
    running_bot,
    running_front_end,
)
from watcher.followed import Followed
from watcher.records import Record
from watcher.store import MatchedRecord
from watcher.store.chats import MAX_SUBSCRIPTIONS

CHANNEL = -1001234567890


def is_active(bot: Bot, chat_id: int) -> bool:
    info = bot.chats.get(chat_id)
    return info is not None and info.active


def dezun_count(bot: Bot) -> int:
    followed = bot.store.find_followed("Dezun Dong")
    assert followed is not None
    return followed.record_count


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


async def test_help_lists_every_command_with_an_example(bot: Bot) -> None:
    answer = await bot.ask_one(USER, "/help")

    for command in COMMANDS:
        assert f"/{command.command}" in answer
    for example in (
        "/subscribe Dezun Dong",
        "/recent 10",
        "/subject cs.DC 5",
        "/paper 2604.01234",
        "/digest daily 08:00",
        "/digest weekly mon 08:00",
        "/timezone Europe/Berlin",
        "/timezone UTC+8",
    ):
        assert example in answer
    assert (
        "In groups, only administrators can change what the group follows (/subscribe, "
        "/unsubscribe, /revisions, /digest, /timezone); anyone can ask. In a forum group each "
        "topic follows its own authors, and their papers (and digests) are posted in that topic."
        in answer
    )
    assert answer.endswith(
        "An author id is exact (the person's own arXiv author page), but lists only the papers "
        "the person claimed on arXiv."
    )


async def test_unknown_command_and_plain_text_point_at_help(bot: Bot) -> None:
    assert await bot.ask_one(USER, "/frobnicate now") == (
        "I do not know /frobnicate. /help lists the commands."
    )
    assert await bot.ask_one(USER, "hello there") == "I answer commands only. /help lists them."


async def test_in_a_group_only_commands_for_this_bot_are_answered(bot: Bot) -> None:
    group: dict[str, Any] = {"chat_type": "group", "user_id": 7}
    bot.telegram.user_sends(GROUP, "/frobnicate", **group)
    bot.telegram.user_sends(GROUP, "/recent@some_other_bot", **group)
    bot.telegram.user_sends(GROUP, "just chatting", **group)

    answers = await bot.ask(GROUP, f"/frobnicate@{BOT}", **group)

    assert answers == [f"I do not know /frobnicate@{BOT}. /help lists the commands."]


async def test_commands_work_with_the_bot_name_suffix(bot: Bot) -> None:
    answer = await bot.ask_one(USER, f"/recent@{BOT} 2")

    assert f"(1–2 of {dezun_count(bot)})" in answer


# --- /subscribe, /unsubscribe, /subscriptions -------------------------------------------------


async def test_subscribe_without_a_name_follows_the_watched_authors(bot: Bot) -> None:
    answer = await bot.ask_one(USER, "/subscribe")

    assert answer == (
        f"✅ This chat now follows Dezun Dong ({dezun_count(bot)} papers on record). "
        "New papers will be posted here."
    )
    dezun = bot.store.find_followed("Dezun Dong")
    assert dezun is not None
    assert bot.chats.subscribed_ids(USER) == [dezun.id]
    again = await bot.ask_one(USER, "/subscribe")
    assert again.startswith("This chat already follows Dezun Dong.")


async def test_subscribe_a_name_answers_at_once_and_the_poller_fetches_its_history(
    bot: Bot,
) -> None:
    asked = len(bot.arxiv.api_requests())

    answer = await bot.ask_one(USER, "/subscribe  yemao   XU")

    assert answer == (
        "✅ This chat now follows yemao XU: arXiv lists 3 papers under that name. Their history "
        "is being fetched; new papers will be posted here."
    )
    (lookup,) = bot.arxiv.api_requests()[asked:]  # the answer cost one request, no poll
    assert lookup.params["max_results"] == "100"  # the count, and a sample's categories
    followed = bot.store.find_followed("Yemao Xu")
    assert followed is not None
    assert not followed.backfilled and not followed.watched
    assert bot.chats.subscribed_ids(USER) == [followed.id]

    report = await bot.service.poller.poll()  # the scheduler's next round

    assert report.backfilled == 3 and report.new == []
    followed = bot.store.find_followed("Yemao Xu")
    assert followed is not None and followed.backfilled and followed.record_count == 3
    recent = await bot.ask_one(USER, "/recent")
    assert "Newest papers of yemao XU (1–3 of 3)" in recent
    assert "OD-SGD" in recent


async def test_subscribe_an_author_already_fetched_needs_no_arxiv_request(bot: Bot) -> None:
    requests = len(bot.arxiv.api_requests())

    answer = await bot.ask_one(USER, "/subscribe Dong Dezun")

    assert answer.startswith(f"✅ This chat now follows Dezun Dong: {dezun_count(bot)} papers")
    assert len(bot.arxiv.api_requests()) == requests


async def test_subscribe_a_person_in_categories_follows_only_their_papers_there(bot: Bot) -> None:
    plain = bot.store.find_followed("Dezun Dong")
    assert plain is not None
    papers = [bot.store.paper(r.arxiv_id) for r in bot.store.recent(limit=100)]
    in_dc = {p.arxiv_id for p in papers if p is not None and "cs.DC" in p.categories}
    assert 0 < len(in_dc) < plain.record_count  # the author has papers in and out of cs.DC

    answer = await bot.ask_one(USER, "/subscribe dong dezun IN cs.dc")
    # arXiv's loose author search lists look-alikes too; the poll keeps only the person's papers.
    assert answer.startswith("✅ This chat now follows dong dezun in cs.DC: arXiv lists ")
    assert "AND (cat:cs.DC)" in bot.arxiv.api_requests()[-1].params["search_query"]
    await bot.service.poller.poll()

    narrowed = bot.store.find_followed("Dezun Dong", categories=["cs.DC"])
    assert narrowed is not None and narrowed.id != plain.id
    assert narrowed.record_count == len(in_dc)
    assert bot.chats.subscribed_ids(USER) == [narrowed.id]
    again = await bot.ask_one(USER, "/subscribe Dezun Dong in cs.DC")
    assert again.startswith("This chat already follows dong dezun in cs.DC.")
    gone = await bot.ask_one(USER, "/unsubscribe Dezun Dong in cs.DC")
    assert gone == "✅ This chat no longer follows dong dezun in cs.DC."


async def test_a_slow_arxiv_answer_does_not_hold_up_other_chats(
    engine: Engine, database_url: str
) -> None:
    async with running_bot(engine, database_url, arxiv_timeout=5) as bot:
        bot.arxiv.inject("timeout")  # arXiv holds the first request until the client gives up

        bot.telegram.user_sends(USER, "/subscribe Yemao Xu")
        await bot.until(lambda: bot.arxiv.api_requests())
        other = await bot.ask_one(USER + 1, "/help")
        mine = await bot.ask_one(USER, "/subscriptions")  # the same chat is served meanwhile

        assert other.startswith("Commands")
        assert mine.startswith("This chat follows nobody yet.")
        await bot.until(lambda: len(bot.telegram.sent(USER)) == 2)
        assert bot.last(USER).text.startswith("✅ This chat now follows Yemao Xu: arXiv lists 3")


SUBSCRIBE_USAGE = (
    "Usage: /subscribe, /subscribe NAME [in CATEGORY,...] (e.g. /subscribe Dezun Dong, or "
    "/subscribe Wei Wang in cs.DC,cs.NI), or /subscribe AUTHOR-ID (e.g. /subscribe "
    "https://arxiv.org/a/dong_d_1, or an ORCID iD)"
)


async def test_subscribe_a_single_word_is_refused_before_asking_arxiv(bot: Bot) -> None:
    asked = len(bot.arxiv.requests)

    answer = await bot.ask_one(USER, "/subscribe Li")

    assert answer == (
        "A name needs a given name and a family name, as arXiv lists the author. " + SUBSCRIBE_USAGE
    )
    assert len(bot.arxiv.requests) == asked
    assert bot.store.find_followed("Li") is None


async def test_subscribe_a_name_arxiv_does_not_know_leaves_nothing_behind(bot: Bot) -> None:
    asked = len(bot.arxiv.api_requests())

    answer = await bot.ask_one(USER, "/subscribe Nobody Atall")

    assert len(bot.arxiv.api_requests()) == asked + 1
    assert answer == (
        "No arXiv papers by Nobody Atall were found, so this chat does not follow that name. "
        "Check the spelling: the full name as arXiv lists it, e.g. /subscribe Dezun Dong."
    )
    assert bot.store.find_followed("Nobody Atall") is None
    assert bot.chats.subscribed_ids(USER) == []


async def test_subscribe_while_arxiv_fails_says_so_and_changes_nothing(bot: Bot) -> None:
    bot.arxiv.inject("503", times=10)

    answer = await bot.ask_one(USER, "/subscribe Yemao Xu")

    assert answer == (
        "⚠️ I could not reach arXiv just now (arXiv answered HTTP 503), so this chat does not "
        "follow Yemao Xu yet. Please try again in a few minutes."
    )
    assert bot.store.find_followed("Yemao Xu") is None
    assert bot.chats.subscribed_ids(USER) == []


@pytest.mark.parametrize(
    ("text", "answer"),
    [
        (
            "/subscribe " + "x" * 5000,
            "That name is too long (at most 100 characters). " + SUBSCRIBE_USAGE,
        ),
        (
            "/subscribe ?!... ---",
            "An author name has only letters, spaces and . - ' , in it. " + SUBSCRIBE_USAGE,
        ),
        (
            "/subscribe .. --",
            "That does not look like a name. " + SUBSCRIBE_USAGE,
        ),
        (
            "/subscribe Li",
            "A name needs a given name and a family name, as arXiv lists the author. "
            + SUBSCRIBE_USAGE,
        ),
        (
            "/subscribe Wei Wang in cs.DC,cs.NI,cs.AI,cs.LG",
            "4 categories given; at most 3, e.g. in cs.DC,cs.NI " + SUBSCRIBE_USAGE,
        ),
        (
            "/subscribe Wei Wang in cs.dcc",
            "Unknown arXiv category 'cs.dcc'. Did you mean cs.DC, cs.CC, cs.SD? " + SUBSCRIBE_USAGE,
        ),
        (  # only looked up, so any name; what was typed is echoed, escaped
            "/unsubscribe <b>x</b>",
            "This chat does not follow <b>x</b>. /subscriptions lists what it follows.",
        ),
    ],
)
async def test_bad_names_get_a_one_line_usage_answer(bot: Bot, text: str, answer: str) -> None:
    assert await bot.ask_one(USER, text) == answer
    assert len(bot.store.followed()) == 1


async def test_a_chat_follows_at_most_fifty_authors(bot: Bot) -> None:
    bot.chats.seen(USER, kind="private")
    for number in range(MAX_SUBSCRIPTIONS):
        followed, _ = bot.store.follow([f"Author {chr(ord('a') + number % 26)}{number // 26}x"])
        bot.chats.subscribe(USER, followed.id)

    answer = await bot.ask_one(USER, "/subscribe Yemao Xu")

    assert answer == (
        "This chat already follows 50 authors, the most allowed. Stop one first with "
        "/unsubscribe NAME."
    )
    assert bot.store.find_followed("Yemao Xu") is None


async def test_unsubscribe_one_author_then_everything(bot: Bot) -> None:
    await bot.ask(USER, "/subscribe")
    await bot.ask(USER, "/subscribe Yemao Xu")

    assert await bot.ask_one(USER, "/unsubscribe yemao xu") == (
        "✅ This chat no longer follows Yemao Xu."
    )
    assert await bot.ask_one(USER, "/unsubscribe Yemao Xu") == (
        "This chat does not follow Yemao Xu. /subscriptions lists what it follows."
    )
    assert await bot.ask_one(USER, "/unsubscribe") == "✅ This chat no longer follows Dezun Dong."
    assert bot.chats.subscribed_ids(USER) == []
    assert await bot.ask_one(USER, "/unsubscribe") == "This chat follows nobody; nothing to stop."


async def test_subscriptions_lists_counts_and_last_poll(bot: Bot) -> None:
    assert (await bot.ask_one(USER, "/subscriptions")).startswith("This chat follows nobody yet.")
    await bot.ask(USER, "/subscribe")
    dezun = bot.store.find_followed("Dezun Dong")
    assert dezun is not None
    assert dezun.last_success is not None

    answer = await bot.ask_one(USER, "/subscriptions")

    assert answer == (
        "This chat follows 1 author:\n"
        f"• Dezun Dong: {dezun.record_count} papers, "
        f"last checked {dezun.last_success:%Y-%m-%d %H:%M} UTC\n"
        "New versions of papers: off (/revisions on to change)."
    )


# --- groups and channels ----------------------------------------------------------------------


async def test_in_a_group_only_administrators_subscribe_but_anyone_asks(bot: Bot) -> None:
    bot.telegram.set_admins(GROUP, [7], creator_id=8)
    member: dict[str, Any] = {"chat_type": "group", "title": "Readers", "user_id": 9}

    refused = await bot.ask_one(GROUP, "/subscribe", **member)
    assert refused == "Only this group's administrators can change what it follows."
    assert bot.chats.subscribed_ids(GROUP) == []
    listing = await bot.ask_one(GROUP, "/recent 1", **member)
    assert f"(1–1 of {dezun_count(bot)})" in listing

    admin = {**member, "user_id": 7}
    accepted = await bot.ask_one(GROUP, "/subscribe", **admin)
    assert accepted.startswith("✅ This chat now follows Dezun Dong")
    refused_too = await bot.ask_one(GROUP, "/unsubscribe", **member)
    assert refused_too == "Only this group's administrators can change what it follows."
    creator = {**member, "user_id": 8}
    assert await bot.ask_one(GROUP, "/unsubscribe", **creator) == (
        "✅ This chat no longer follows Dezun Dong."
    )
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


# --- /recent and paging -----------------------------------------------------------------------


async def test_recent_lists_the_newest_papers_compactly(bot: Bot) -> None:
    newest = bot.store.recent(limit=5)
    total = dezun_count(bot)

    answer = await bot.ask_one(USER, "/recent")

    assert answer.startswith(
        f"Newest papers of Dezun Dong (1–5 of {total})\n"
        "This chat follows nobody, so these are the authors I watch; /subscribe follows them "
        "here.\n\n1. "
    )
    positions = [answer.index(record.versioned_id) for record in newest]
    assert positions == sorted(positions)
    assert bot.store.recent(limit=1, offset=5)[0].versioned_id not in answer
    buttons = bot.last(USER).reply_markup
    assert buttons == {"inline_keyboard": [[{"text": "Older ▶", "callback_data": "r:5:1"}]]}


async def test_recent_pages_by_editing_its_message(bot: Bot) -> None:
    total = dezun_count(bot)
    await bot.ask(USER, "/recent 3")
    listing = bot.last(USER)

    bot.telegram.press_button(USER, listing.message_id, "r:3:1")
    await bot.until(lambda: bot.telegram.edits and bot.telegram.callback_answers)

    edit = bot.telegram.edits[-1]
    assert edit.message_id == listing.message_id
    assert edit.text is not None
    assert f"(4–6 of {total})" in edit.text
    assert bot.store.recent(limit=1, offset=3)[0].versioned_id in edit.text
    assert edit.reply_markup == {
        "inline_keyboard": [
            [
                {"text": "◀ Newer", "callback_data": "r:3:0"},
                {"text": "Older ▶", "callback_data": "r:3:2"},
            ]
        ]
    }
    assert bot.telegram.callback_answers[-1].text is None
    assert len(bot.telegram.sent(USER)) == 1  # paged in place, no new message


async def test_a_stale_button_is_answered_not_ignored(bot: Bot) -> None:
    await bot.ask(USER, "/recent 3")

    bot.telegram.press_button(USER, bot.last(USER).message_id, "something-old")
    await bot.until(lambda: bot.telegram.callback_answers)

    assert bot.telegram.callback_answers[-1].text == (
        "This button no longer works; send the command again."
    )
    assert bot.telegram.edits == []


def store_long_papers(bot: Bot, count: int) -> list[Record]:
    """`count` more papers of Dezun Dong, newest first, with titles and names as long as they
    come, stored silently as a first poll would."""
    dezun = bot.store.find_followed("Dezun Dong")
    assert dezun is not None
    records = [
        make_record(
            arxiv_id=f"2605.{count - index:05d}",
            published=datetime(2026, 5, 28 - index, 12, tzinfo=UTC),
            title=f"Paper {count - index}: " + "Scalable & <Low-Latency> Interconnects " * 8,
            authors=["Maximiliana Alexandrovna Konstantinopoulou-Worthington", "Dezun Dong"],
            primary_category="cs.DC",
            categories=("cs.DC", "cs.NI"),
        )
        for index in range(count)
    ]
    matched = [MatchedRecord(record, frozenset({dezun.id})) for record in records]
    assert bot.store.save_records(matched, announce_for=frozenset()).silent == count
    return records


async def test_recent_20_shows_twenty_papers_in_one_message_and_pages_on(bot: Bot) -> None:
    newest = store_long_papers(bot, 25)
    total = dezun_count(bot)

    answer = await bot.ask_one(USER, "/recent 20")

    assert f"(1–20 of {total})" in answer
    assert all(record.versioned_id in answer for record in newest[:20])
    assert newest[20].versioned_id not in answer
    assert bot.last(USER).reply_markup == {
        "inline_keyboard": [[{"text": "Older ▶", "callback_data": "r:20:1"}]]
    }
    bot.telegram.press_button(USER, bot.last(USER).message_id, "r:20:1")
    await bot.until(lambda: bot.telegram.edits)
    edit = bot.telegram.edits[-1].text or ""
    assert f"(21–{min(total, 40)} of {total})" in edit
    assert newest[20].versioned_id in edit


async def test_subject_20_shows_twenty_papers_in_one_message(bot: Bot) -> None:
    newest = store_long_papers(bot, 22)
    in_category = bot.store.count_category("cs.DC")

    answer = await bot.ask_one(USER, "/subject cs.DC 20")

    assert f"(1–20 of {in_category})" in answer
    assert all(record.versioned_id in answer for record in newest[:20])
    assert bot.last(USER).reply_markup == {
        "inline_keyboard": [[{"text": "Older ▶", "callback_data": "s:cs.DC:20:1"}]]
    }


@pytest.mark.parametrize(
    ("text", "answer"),
    [
        (
            "/recent abc",
            "'abc' is not a number. Usage: /recent [N], N from 1 to 20 (e.g. /recent 10)",
        ),
        (
            "/recent 0",
            "N must be from 1 to 20. Usage: /recent [N], N from 1 to 20 (e.g. /recent 10)",
        ),
        (
            "/recent 99",
            "N must be from 1 to 20. Usage: /recent [N], N from 1 to 20 (e.g. /recent 10)",
        ),
        (
            "/recent 1 2",
            "One number at most. Usage: /recent [N], N from 1 to 20 (e.g. /recent 10)",
        ),
    ],
)
async def test_recent_refuses_bad_numbers(bot: Bot, text: str, answer: str) -> None:
    assert await bot.ask_one(USER, text) == answer


# --- /subject and /subjects -------------------------------------------------------------------


async def test_subject_lists_papers_of_a_category_case_insensitively(bot: Bot) -> None:
    in_category = bot.store.count_category("cs.DC")
    newest = bot.store.by_category("cs.DC", limit=2)

    answer = await bot.ask_one(USER, "/subject CS.dc 2")

    assert answer.startswith(
        "Newest papers of Dezun Dong in cs.DC (Distributed, Parallel, and Cluster Computing) "
        f"(1–2 of {in_category})\n"
    )
    assert all(record.versioned_id in answer for record in newest)
    assert bot.last(USER).reply_markup == {
        "inline_keyboard": [[{"text": "Older ▶", "callback_data": "s:cs.DC:2:1"}]]
    }

    bot.telegram.press_button(USER, bot.last(USER).message_id, "s:cs.DC:2:1")
    await bot.until(lambda: bot.telegram.edits)
    assert f"(3–4 of {in_category})" in (bot.telegram.edits[-1].text or "")


async def test_subject_unknown_category_names_close_matches(bot: Bot) -> None:
    answer = await bot.ask_one(USER, "/subject cs.dcc")

    assert answer == (
        "'cs.dcc' is not an arXiv category. Did you mean cs.DC, cs.CC, cs.SD? /subjects lists "
        "the ones with papers."
    )


async def test_subject_without_papers_names_the_categories_that_have_some(bot: Bot) -> None:
    counts = bot.store.category_counts()

    answer = await bot.ask_one(USER, "/subject math.ag")

    assert answer.startswith(
        "No stored papers of Dezun Dong are in math.AG (Algebraic Geometry). "
        f"Categories with papers: {counts[0][0]} ({counts[0][1]}), "
    )


async def test_subject_without_arguments_gets_usage(bot: Bot) -> None:
    assert await bot.ask_one(USER, "/subject") == (
        "Which category? Usage: /subject CATEGORY [N], N from 1 to 20 (e.g. /subject cs.DC 5)"
    )


async def test_subjects_lists_categories_with_names_and_counts(bot: Bot) -> None:
    counts = dict(bot.store.category_counts())

    answer = await bot.ask_one(USER, "/subjects")

    assert answer.startswith("Categories of the papers of Dezun Dong:")
    assert f"• cs.DC Distributed, Parallel, and Cluster Computing: {counts['cs.DC']}" in answer
    assert f"• cs.LG Machine Learning: {counts['cs.LG']}" in answer
    assert answer.count("\n• ") == len(counts)


# --- /paper -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "given",
    [
        "2604.03117",
        "2604.03117v1",
        "arXiv:2604.03117",
        "https://arxiv.org/abs/2604.03117v1",
        "https://arxiv.org/pdf/2604.03117",
    ],
)
async def test_paper_shows_one_paper_in_full_from_any_id_form(bot: Bot, given: str) -> None:
    record = bot.store.paper("2604.03117")
    assert record is not None

    answer = await bot.ask_one(USER, f"/paper {given}")

    assert answer.startswith(
        "📄 Paper · arXiv:2604.03117v1\nPhysically Partitioned KVCache Format for CPU–GPU Load "
        "Balancing in MoE Inference\n"
    )
    assert "★ Dezun Dong" in answer
    assert record.abstract[:60] in answer
    buttons = bot.last(USER).reply_markup
    assert buttons is not None
    assert [button["url"] for button in buttons["inline_keyboard"][0]] == [
        record.abs_url,
        record.pdf_url,
    ]


async def test_paper_answers_for_unknown_and_malformed_ids(bot: Bot) -> None:
    assert await bot.ask_one(USER, "/paper 2609.99999v4") == (
        "arXiv:2609.99999 is not among the stored papers (I keep only papers of followed "
        "authors). arXiv has it at https://arxiv.org/abs/2609.99999 if it exists."
    )
    assert await bot.ask_one(USER, "/paper hello") == (
        "'hello' is not an arXiv id. Usage: /paper ID (e.g. /paper 2604.01234, 2604.01234v2 or "
        "an arxiv.org link)"
    )
    assert (await bot.ask_one(USER, "/paper")).startswith("Which paper? Usage: /paper ID")
    asked = await bot.ask_one(USER, "/paper 2604.03117v3")
    assert asked.endswith("(You asked for v3; I keep only v1.)")


# --- /revisions and /stats --------------------------------------------------------------------


async def test_revisions_is_a_setting_off_by_default(bot: Bot) -> None:
    assert await bot.ask_one(USER, "/revisions") == (
        "New versions of papers are off for this chat. /revisions on changes that."
    )
    assert await bot.ask_one(USER, "/revisions on") == (
        "✅ This chat will now be told about new versions of papers."
    )
    info = bot.chats.get(USER)
    assert info is not None
    assert info.notify_revisions
    assert await bot.ask_one(USER, "/revisions") == (
        "New versions of papers are on for this chat. /revisions off changes that."
    )
    assert await bot.ask_one(USER, "/revisions maybe") == (
        "'maybe' is neither on nor off. Usage: /revisions on, or /revisions off"
    )
    await bot.ask(USER, "/revisions off")
    info = bot.chats.get(USER)
    assert info is not None
    assert not info.notify_revisions


async def test_stats_only_for_admin_chats(bot: Bot) -> None:
    assert await bot.ask_one(USER, "/stats") == "Sorry, /stats is not allowed here: admins only."
    await bot.ask(USER, "/subscribe")
    dezun = bot.store.find_followed("Dezun Dong")
    assert dezun is not None

    answer = await bot.ask_one(ADMIN_CHAT, "/stats")

    assert "Chats: 2 (2 active); subscriptions: 1" in answer
    assert f"Papers stored: {bot.store.count()}" in answer
    assert "Deliveries: 0 pending, 0 parked, 0 held for digests, 0 sent, 0 failed" in answer
    assert (
        f"• Dezun Dong: {dezun.record_count} papers, "
        f"last success {dezun.last_success:%Y-%m-%d %H:%M} UTC"
    ) in answer


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

    answer = await bot.ask_one(USER, "/unsubscribe")

    first_ten = ", ".join(followed.name for followed in authors[:10])
    assert answer == f"✅ This chat no longer follows {first_ten} and 40 more."
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

        assert (await bot.ask_one(USER + 1, "/recent 1")).startswith("Newest papers")
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
        assert bot.telegram.sent(USER + 1)[0].html == HELP
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


# --- what the stored data may hold --------------------------------------------------------------


async def test_category_strings_are_escaped_in_replies(bot: Bot) -> None:
    """A category is data: "<" or "&" in one (an older store held ACM/MSC terms as categories)
    must not break the reply's HTML."""
    ann, _ = bot.store.follow(["Ann Other"])
    bot.chats.seen(GROUP, kind="group")
    bot.chats.subscribe(GROUP, ann.id)
    odd = make_record(arxiv_id="2611.00901", authors=["Ann Other"], categories=("cs.DC", "x<y&z"))
    bot.store.save_records([MatchedRecord(odd, frozenset({ann.id}))], announce_for=frozenset())

    answer = await bot.ask_one(GROUP, "/subject math.ag")

    assert answer.endswith("Categories with papers: cs.DC (1), x<y&z (1).")


async def test_paper_marks_only_the_authors_this_chat_is_about(bot: Bot) -> None:
    ann, _ = bot.store.follow(["Ann Other"])
    bot.chats.seen(GROUP, kind="group")
    bot.chats.subscribe(GROUP, ann.id)  # another chat follows Ann Other
    dezun = bot.store.find_followed("Dezun Dong")
    assert dezun is not None
    record = make_record(arxiv_id="2611.00902", authors=["Ann Other", "Dezun Dong"])
    both = frozenset({ann.id, dezun.id})
    bot.store.save_records([MatchedRecord(record, both)], announce_for=frozenset())

    mine = await bot.ask_one(USER, "/paper 2611.00902")  # USER follows nobody: the watched
    theirs = await bot.ask_one(GROUP, "/paper 2611.00902")

    assert "👥 Ann Other, ★ Dezun Dong" in mine
    assert "👥 ★ Ann Other, Dezun Dong" in theirs
