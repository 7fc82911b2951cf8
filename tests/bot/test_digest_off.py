"""`/digest off` says what it does with the papers it held, and does it (issue 30, item 2):
under quiet hours they come when the quiet hours end, on the chat's clock, once; in a forum
topic it counts and lets go that topic's papers only: the other topics keep their digests. The
whole front end (commands and sender) on the fake Bot API, the real store, and a clock the test
turns (`tests.harness.clocks`)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from datetime import time, timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest
from sqlalchemy import Engine

from bot.digest import render_digest_parts
from bot.handlers.common import local_time
from tests.fakes.corpus import make_record
from tests.harness.bots import USER, Bot, running_front_end
from tests.harness.clocks import TurnedClock
from watcher.calendars.schedule import DigestSchedule
from watcher.store import MatchedRecord

EARLY = 1.0  # seconds of the running sender watched for a message sent too early
SHANGHAI = ZoneInfo("Asia/Shanghai")  # UTC+8 all year
FORUM, ADMIN = -1007777777777, 77


@pytest.fixture
async def turned(
    engine: Engine, database_url: str, tmp_path: Path
) -> AsyncIterator[tuple[Bot, TurnedClock]]:
    clock = TurnedClock(tmp_path / "clock")
    async with running_front_end(engine, database_url, clock=clock) as bot:
        yield bot, clock


def publish(bot: Bot, *arxiv_ids: str) -> None:
    """New papers by Dezun Dong, whom every running bot watches: queued for his followers."""
    followed = bot.store.find_followed("Dezun Dong")
    assert followed is not None
    ids = frozenset({followed.id})
    records = [
        make_record(arxiv_id=arxiv_id, title=f"Held paper {arxiv_id}", authors=["Dezun Dong"])
        for arxiv_id in arxiv_ids
    ]
    saved = bot.store.save_records([MatchedRecord(r, ids) for r in records], announce_for=ids)
    assert saved.new == records


def digests(bot: Bot, chat_id: int, thread_id: int | None = None) -> list[str]:
    return [
        m.text
        for m in bot.telegram.sent(chat_id)
        if m.text.startswith("📚") and m.message_thread_id == thread_id
    ]


async def test_digest_off_in_quiet_hours_says_when_and_the_digest_comes_then_once(
    turned: tuple[Bot, TurnedClock],
) -> None:
    bot, clock = turned
    await bot.ask(USER, "/subscribe")
    await bot.ask(USER, "/timezone Asia/Shanghai")
    local = clock().astimezone(SHANGHAI)
    start, end = local - timedelta(hours=1), local + timedelta(hours=2)
    await bot.ask(USER, f"/quiet {start:%H:%M}-{end:%H:%M}")
    await bot.ask(USER, f"/digest daily {local + timedelta(hours=6):%H:%M}")
    publish(bot, "2612.00001", "2612.00002", "2612.00003", "2612.00004")
    assert "(4 papers waiting)" in await bot.ask_one(USER, "/digest")
    until = bot.chats.speaking.settings(USER, 0).quiet_until
    assert until is not None and until > clock()

    answer = await bot.ask_one(USER, "/digest off")

    assert answer == (
        "✅ Digest off: each new paper is its own message again. The 4 papers waiting come as "
        f"one digest at {local_time(until, SHANGHAI)}, when the quiet hours end."
    )
    assert local_time(until, SHANGHAI).endswith(" CST")  # the chat's clock, not UTC
    await asyncio.sleep(EARLY)
    assert digests(bot, USER) == []  # still quiet
    clock.turn_to(until)
    await bot.until(lambda: digests(bot, USER))
    await asyncio.sleep(EARLY)  # and nothing more
    (digest,) = digests(bot, USER)
    assert digest.startswith("📚 4 new papers since")
    for n in range(1, 5):
        assert digest.count(f"Held paper 2612.0000{n}") == 1


async def test_digest_off_in_a_forum_topic_counts_and_sends_that_topics_papers_only(
    turned: tuple[Bot, TurnedClock],
) -> None:
    bot, clock = turned
    first = bot.telegram.create_topic(FORUM, "Papers")
    second = bot.telegram.create_topic(FORUM, "Talk")
    bot.telegram.set_admins(FORUM, [ADMIN])
    admin = {"user_id": ADMIN}
    # Set up through the store: a group's replies are spaced 3 s apart; /digest off is asked.
    followed = bot.store.find_followed("Dezun Dong")
    assert followed is not None
    bot.chats.seen(FORUM, kind="supergroup")
    bot.chats.subscribe(FORUM, followed.id, thread_id=first)
    for topic in (first, second):
        bot.chats.digests.set_schedule(
            FORUM,
            DigestSchedule(time(8, 0)),
            render=render_digest_parts,
            thread_id=topic,
            now=clock(),
        )
    publish(bot, "2612.00011", "2612.00012", "2612.00013")
    bot.chats.subscribe(FORUM, followed.id, thread_id=second)
    publish(bot, "2612.00014")  # the first topic has 4 waiting, the second 1

    answer = await bot.ask_one(FORUM, "/digest off", thread_id=second, **admin)

    assert answer == (
        "✅ Digest off: each new paper is its own message again. The 1 paper waiting in this "
        "topic goes out now, as one digest."
    )
    await bot.until(lambda: digests(bot, FORUM, second))
    assert digests(bot, FORUM, second)[0].startswith("📚 1 new paper since")
    await asyncio.sleep(EARLY)
    assert digests(bot, FORUM, first) == []  # its digest is still on, and holds its papers
    kept = bot.chats.digests.settings(FORUM, first)
    assert kept.schedule is not None and kept.held == 4


async def test_digest_off_while_paused_says_the_digest_comes_at_resume_and_it_does(
    turned: tuple[Bot, TurnedClock],
) -> None:
    bot, _clock = turned
    await bot.ask(USER, "/subscribe")
    await bot.ask(USER, "/digest daily 08:00")
    publish(bot, "2612.00021", "2612.00022")
    await bot.ask(USER, "/pause")

    answer = await bot.ask_one(USER, "/digest off")

    assert answer == (
        "✅ Digest off: each new paper is its own message again. The 2 papers waiting come as "
        "one digest when you /resume."
    )
    await asyncio.sleep(EARLY)
    assert digests(bot, USER) == []  # still paused
    await bot.ask(USER, "/resume")
    await bot.until(lambda: digests(bot, USER))
    await asyncio.sleep(EARLY)  # and nothing more
    (digest,) = digests(bot, USER)
    assert digest.startswith("📚 2 new papers since")
