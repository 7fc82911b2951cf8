"""A follow that only fails is reported to the chats that follow it (issue 29), through the
front end's bot (its rate limiter) on the fake Bot API and the fake arXiv, on both databases:
each chat and forum topic that follows it gets one short message naming it, arXiv's answer and
what to do, once; paused, parked and inactive destinations are skipped; a chat that refuses
(403) is logged and not retried; a 429 is waited out once; more than the cap are logged as not
told.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator

import pytest
from sqlalchemy import Engine

from bot.failing_notice import FailingNotices
from tests.fakes.telegram.faults import Fault
from tests.harness.bots import ADMIN_CHAT, USER, Bot, running_front_end
from watcher.follows.identity import Identity
from watcher.polling.failing_groups import ALONE_AFTER
from watcher.polling.failures import UNHEALTHY_FAILURES

FORUM = -1001
PAUSED, PARKED, GONE, BLOCKED = 51, 52, 53, 54


@pytest.fixture
async def front_end(engine: Engine, database_url: str) -> AsyncIterator[Bot]:
    async with running_front_end(engine, database_url) as bot:
        yield bot


def texts(bot: Bot, chat_id: int) -> list[str]:
    return [m.text for m in bot.telegram.sent(chat_id)]


async def cycles(bot: Bot, notices: FailingNotices, count: int) -> None:
    for _ in range(count):
        await notices.tell(bot.app.bot, bot.service, await bot.service.poller.poll(force=True))


async def test_the_chats_following_a_failing_follow_are_told_once(
    front_end: Bot, caplog: pytest.LogCaptureFixture
) -> None:
    bot = front_end
    gone, _ = bot.store.follow_identity(Identity("arxiv", "gone_g_1"), name="Gone Person")
    topic = bot.telegram.create_topic(FORUM, "Papers")
    bot.chats.seen(FORUM, kind="supergroup")
    for chat_id in (USER, PAUSED, PARKED, GONE, BLOCKED):
        bot.chats.seen(chat_id, kind="private")
    for chat_id in (USER, PAUSED, PARKED, GONE, BLOCKED):
        bot.chats.subscribe(chat_id, gone.id)
    bot.chats.subscribe(FORUM, gone.id, thread_id=topic)
    bot.chats.speaking.set_language(FORUM, topic, "zh-Hans")  # issue 31: told in its language
    bot.chats.speaking.pause(PAUSED, 0)
    bot.chats.parking.park(PARKED, 0, reason="not enough rights", first_retry=3600)
    bot.chats.deactivate(GONE, reason="blocked")
    bot.telegram.block(BLOCKED)  # still active here: its send answers 403
    # The administrators' message passes; the first chat's send meets a 429, waited out once.
    bot.telegram.inject(Fault.slow(0), Fault.flood(1))

    notices = FailingNotices()
    with caplog.at_level(logging.INFO, logger="bot.failing_notice"):
        await cycles(bot, notices, UNHEALTHY_FAILURES)

    (told,) = texts(bot, USER)
    assert told.splitlines() == [
        "⚠️ Gone Person (arxiv:gone_g_1) is failing: arXiv knows no author id gone_g_1.",
        "No papers come from this author id. Send /unsubscribe arxiv:gone_g_1 to stop it, or "
        "follow them by name.",
    ]
    (in_topic,) = bot.telegram.sent(FORUM)
    assert in_topic.message_thread_id == topic
    assert "arxiv:gone_g_1" in in_topic.text and "失败" in in_topic.text, in_topic.text
    assert in_topic.link_preview_options == {"is_disabled": True}  # issue 33: never a preview
    for skipped in (PAUSED, PARKED, GONE, BLOCKED):
        assert texts(bot, skipped) == []
    refused = [r for r in bot.telegram.requests if r.params.get("chat_id") == str(BLOCKED)]
    assert len(refused) == 1  # a 403 is not retried
    assert "chat 54 not told of a failing follow: Forbidden: bot was blocked" in caplog.text
    assert "told 2 of 3 chat(s) that Gone Person (arxiv:gone_g_1) fails on its own" in caplog.text
    assert len(texts(bot, ADMIN_CHAT)) == 1

    await cycles(bot, notices, 2)  # never again while it keeps failing
    assert len(texts(bot, USER)) == 1 and len(bot.telegram.sent(FORUM)) == 1


async def test_a_failing_name_is_told_with_arxivs_answer_and_a_cap(
    front_end: Bot, caplog: pytest.LogCaptureFixture
) -> None:
    bot = front_end
    failing, _ = bot.store.follow(["Always Fails"], watched=False)
    for chat_id in (61, 62, 63):
        bot.chats.seen(chat_id, kind="private")
        bot.chats.subscribe(chat_id, failing.id)
    bot.arxiv.fail_queries('au:"Always Fails"', "500")

    notices = FailingNotices(max_chats=2)
    with caplog.at_level(logging.INFO, logger="bot.failing_notice"):
        await cycles(bot, notices, ALONE_AFTER + 1)  # once it is polled alone, still failing

    (told,) = texts(bot, 61)
    first, second = told.splitlines()
    assert first.startswith("⚠️ Always Fails is failing: arXiv's answer to ")
    assert "polls in a row was: arXiv answered HTTP 500" in first
    assert second == (
        "The bot keeps retrying; send /unsubscribe Always Fails to stop it (/subscriptions "
        "shows its state)."
    )
    assert len(texts(bot, 62)) == 1 and texts(bot, 63) == []
    assert (
        "Always Fails fails on its own: 1 of the 3 destinations following it are not told "
        "(at most 2 a follow)" in caplog.text
    )
