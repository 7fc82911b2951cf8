"""/subscribe is bounded: a name too broad is refused with its count, each chat may look up a few
new names an hour, and a flood of made-up names costs few arXiv requests and holds up neither
the scheduled poll nor other chats. Real bot, fake Bot API, fake arXiv, a real database."""

from __future__ import annotations

import asyncio
import string
from datetime import UTC, datetime, timedelta

from sqlalchemy import Engine

from bot.handlers.budget import BackfillBudget
from tests.fakes.corpus import make_record
from tests.harness.bots import USER, Bot, running_bot
from watcher.homonyms import SURVEY_SAMPLE

OTHER = USER + 1
GENEROUS = 5.0  # seconds: a wait, never a measure of speed


def made_up(number: int) -> str:
    letters = string.ascii_lowercase
    return f"Nobody {letters[number // 26].upper()}{letters[number % 26]}qx"


def lookups(bot: Bot) -> int:
    """The look-ups of made-up names (`ApiSource.survey`: a page of the name's newest papers)."""
    return sum(
        1
        for r in bot.arxiv.api_requests()
        if "Nobody" in r.params.get("search_query", "")
        and r.params.get("max_results") == str(SURVEY_SAMPLE)
    )


async def test_a_name_with_more_results_than_the_limit_is_offered_only_its_categories(
    bot: Bot,
) -> None:
    moment = datetime(2026, 6, 1, tzinfo=UTC)
    for number in range(2345):
        bot.arxiv.add(
            make_record(
                arxiv_id=f"2606.{number:05d}",
                published=moment - timedelta(hours=number),
                authors=["Y. Wang", "Someone Else"],
            )
        )
    papers, asked = bot.store.count(), len(bot.arxiv.api_requests())

    answer = await bot.ask_one(USER, "/subscribe Y. Wang")

    # The homonym guard asks which one; past BACKFILL_LIMIT there is no "Subscribe anyway".
    assert answer == (
        "🤔 arXiv lists 2,345 papers under Y. Wang: that looks like several people. Follow the "
        "one in a category (their papers listed in it, primary or cross-list), or give a fuller "
        "name: that many papers cannot be followed whole."
    )
    markup = bot.last(USER).reply_markup
    assert markup is not None
    assert [[b["text"] for b in row] for row in markup["inline_keyboard"]] == [["cs.DC"]]
    assert len(bot.arxiv.api_requests()) == asked + 1
    assert bot.store.find_followed("Y. Wang") is None
    assert bot.chats.subscribed_ids(USER) == []
    await bot.service.poller.poll(force=True)
    assert bot.store.count() == papers  # nothing of it stored, then or later


async def test_a_chats_sixth_new_name_within_an_hour_is_refused(bot: Bot) -> None:
    for number in range(5):
        answer = await bot.ask_one(USER, f"/subscribe {made_up(number)}")
        assert answer.startswith("arXiv lists no papers by")
    asked = len(bot.arxiv.api_requests())

    sixth = await bot.ask_one(USER, "/subscribe Yemao Xu")

    assert sixth == (
        "This chat has looked up 5 new names on arXiv within the last hour, the most allowed. "
        "Try again in 60 minutes; authors I already follow can be added now."
    )
    assert len(bot.arxiv.api_requests()) == asked
    assert bot.store.find_followed("Yemao Xu") is None
    # An author followed already costs arXiv nothing, so it is still allowed; other chats too.
    known = await bot.ask_one(USER, "/subscribe Dezun Dong")
    assert known.startswith("✅ This chat now follows Dezun Dong:")
    elsewhere = await bot.ask_one(OTHER, "/subscribe Yemao Xu")
    assert elsewhere.startswith("✅ This chat now follows Yemao Xu: arXiv lists 3 papers")


async def test_fifty_made_up_names_cost_few_requests_and_hold_up_nobody(
    engine: Engine, database_url: str
) -> None:
    # arXiv's pace slowed to 0.1 s a request, so that requests queued behind a flood would show.
    async with running_bot(engine, database_url, arxiv_min_interval=0.1) as bot:
        before = len(bot.arxiv.api_requests())
        for number in range(50):
            bot.telegram.user_sends(USER, f"/subscribe {made_up(number)}")
        await bot.until(lambda: bot.telegram.sent(USER))  # the flood is being handled
        scheduled = asyncio.create_task(bot.service.poller.poll(force=True))  # its round is due
        other = await asyncio.wait_for(bot.ask_one(OTHER, "/subscriptions"), GENEROUS)
        report = await asyncio.wait_for(scheduled, GENEROUS)
        await bot.until(lambda: len(bot.telegram.sent(USER)) == 50)

        requests = len(bot.arxiv.api_requests()) - before
        print(f"\narXiv requests for 50 /subscribe of made-up names and one poll: {requests}")
        assert other.startswith("This chat follows nobody yet.")
        assert report.polled == ["Dezun Dong"] and report.failures == {}
        assert lookups(bot) == 5
        assert requests <= 5 + 1, f"{requests} arXiv requests"
        texts = [m.text for m in bot.telegram.sent(USER)]
        assert sum(t.startswith("arXiv lists no papers by") for t in texts) == 5
        assert sum(t.startswith("This chat has looked up 5 new names") for t in texts) == 45
        assert [f.name for f in bot.store.followed()] == ["Dezun Dong"]


def test_the_look_up_budget_rolls_over_and_forgets_idle_chats() -> None:
    now = [0.0]
    budget = BackfillBudget(per_hour=2, clock=lambda: now[0], max_chats=3)

    assert [budget.take(1), budget.take(1)] == [None, None]
    assert budget.take(1) == 3600.0
    now[0] = 1800.0
    assert budget.take(1) == 1800.0
    now[0] = 3600.0
    assert budget.take(1) is None  # the first start is an hour old
    for chat in range(2, 100):
        now[0] += 3600.0
        assert budget.take(chat) is None
    assert budget.chats <= 3


async def test_commands_are_answered_while_a_big_backfill_is_being_saved(bot: Bot) -> None:
    moment = datetime(2026, 6, 1, tzinfo=UTC)
    for number in range(1500):
        bot.arxiv.add(
            make_record(
                arxiv_id=f"2606.{number:05d}",
                published=moment - timedelta(hours=number),
                authors=["Yu Wang"],
            )
        )
    # In a category: 1,500 papers under a bare name would get the homonym question first.
    await bot.ask_one(USER, "/subscribe Yu Wang in cs.DC")
    followed = bot.store.find_followed("Yu Wang", categories=["cs.DC"])
    assert followed is not None

    def stored() -> int:
        return bot.store.count(followed_ids=[followed.id])

    backfill = asyncio.create_task(bot.service.poller.poll())  # the scheduler's next round
    await bot.until(lambda: stored() > 0)  # the save has begun

    answer = await bot.ask_one(OTHER, "/subscriptions")

    during = stored()
    print(f"\nanswered with {during} of 1500 papers stored")
    assert answer.startswith("This chat follows nobody yet.")
    assert during < 1500, "the command waited for the whole save"
    report = await backfill
    assert report.backfilled == 1500


async def test_a_chat_is_not_kept_waiting_while_arxiv_is_slow_to_count_a_name(
    engine: Engine, database_url: str
) -> None:
    async with running_bot(engine, database_url, arxiv_timeout=30, lookup_patience=1) as bot:
        bot.arxiv.inject("timeout")  # arXiv sits on the request far longer than a chat may wait

        answer = await bot.ask_one(USER, "/subscribe Yemao Xu")

        assert answer == (
            "⚠️ arXiv is slow to answer just now, so this chat does not follow Yemao Xu yet. "
            "Please try again in a few minutes."
        )
        assert bot.store.find_followed("Yemao Xu") is None
        assert bot.chats.subscribed_ids(USER) == []
