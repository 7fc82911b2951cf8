"""/subscribe is bounded: a name too broad is offered only its categories, and a flood of made-up
names costs a bounded number of arXiv requests (a chat's look-ups: `LOOKUPS_PER_FOLLOW` times its
first allowance of new follows) and holds up neither the scheduled poll nor other chats. Real
bot, fake Bot API, fake arXiv, a real database. (The first allowance as a person meets it:
`test_lookup_budget_bot`.)"""

from __future__ import annotations

import asyncio
import string
from datetime import UTC, datetime, timedelta

from sqlalchemy import Engine

from tests.fakes.corpus import make_record
from tests.harness.bots import USER, Bot, running_bot
from watcher.follows.homonyms import SURVEY_SAMPLE
from watcher.store.budgets import FIRST_ALLOWANCE, LOOKUPS_PER_FOLLOW

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
        "🤔 The name Y. Wang looks like several people: arXiv lists 2,345 papers under it. Pick "
        "one by category below (their papers listed there, primary or cross-list), or send a "
        "fuller name: that many papers cannot be followed whole."
    )
    markup = bot.last(USER).reply_markup
    assert markup is not None
    assert [[b["text"] for b in row] for row in markup["inline_keyboard"]] == [
        ["Y. Wang in cs.DC · 100 of the newest 100"]
    ]
    assert len(bot.arxiv.api_requests()) == asked + 1
    assert bot.store.find_followed("Y. Wang") is None
    assert bot.chats.subscribed_ids(USER) == []
    await bot.service.poller.poll(force=True)
    assert bot.store.count() == papers  # nothing of it stored, then or later


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
        # A name not found costs no follow, but its look-up counts: at most `bound` of them.
        # (Fewer when more look-ups than the chat's follows are in flight at once: each holds
        # a follow until arXiv answered.)
        bound = FIRST_ALLOWANCE * LOOKUPS_PER_FOLLOW
        asked = lookups(bot)
        assert FIRST_ALLOWANCE <= asked <= bound
        assert requests <= bound + 1, f"{requests} arXiv requests"
        texts = [m.text for m in bot.telegram.sent(USER)]
        assert sum(t.startswith("arXiv lists no papers by") for t in texts) == asked
        assert sum(t.startswith("This chat has asked for enough new") for t in texts) == 50 - asked
        assert [f.name for f in bot.store.followed()] == ["Dezun Dong"]


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
