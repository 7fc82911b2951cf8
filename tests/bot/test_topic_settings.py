"""A forum topic's /digest, /timezone and /revisions are its own (issue 30, item 3): set in one
topic, they leave the chat's other topics and General as they were; the topic's digest goes to
it alone, at its local time; a new version goes to the topic that asked for revisions only; and
/subscriptions, /export, /import and /help say so. The whole front end (commands and sender) on
the fake Bot API, the real store, and a clock the test turns (`tests.harness.clocks`)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from datetime import timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest
from sqlalchemy import Engine

from tests.fakes.corpus import make_record
from tests.harness.bots import USER, Bot, running_front_end
from tests.harness.clocks import TurnedClock
from watcher.arxiv.records import Record
from watcher.store import MatchedRecord
from watcher.store.tables import NO_THREAD

EARLY = 1.0  # seconds of the running sender watched for a message sent too early
SHANGHAI = ZoneInfo("Asia/Shanghai")  # UTC+8 all year
FORUM, ADMIN = -1007777777001, 71
ADMIN_SAYS = {"user_id": ADMIN}


@pytest.fixture
async def turned(
    engine: Engine, database_url: str, tmp_path: Path
) -> AsyncIterator[tuple[Bot, TurnedClock]]:
    clock = TurnedClock(tmp_path / "clock")
    async with running_front_end(engine, database_url, clock=clock) as bot:
        yield bot, clock


def forum_following(bot: Bot) -> tuple[int, int]:
    """A forum whose General and two topics (returned) follow Dezun Dong; ADMIN administers it."""
    first = bot.telegram.create_topic(FORUM, "Papers")
    second = bot.telegram.create_topic(FORUM, "Talk")
    bot.telegram.set_admins(FORUM, [ADMIN])
    followed = bot.store.find_followed("Dezun Dong")
    assert followed is not None
    bot.chats.seen(FORUM, kind="supergroup")
    for thread_id in (NO_THREAD, first, second):
        bot.chats.subscribe(FORUM, followed.id, thread_id=thread_id)
    return first, second


def publish(bot: Bot, record: Record) -> None:
    followed = bot.store.find_followed("Dezun Dong")
    assert followed is not None
    ids = frozenset({followed.id})
    bot.store.save_records([MatchedRecord(record, ids)], announce_for=ids)


def paper(version: int = 1) -> Record:
    title = "Topic routing" if version == 1 else "Topic routing, revised"
    return make_record(arxiv_id="2612.07001", version=version, title=title, authors=["Dezun Dong"])


def texts(bot: Bot, thread_id: int) -> list[str]:
    """What the bot sent into one destination of the forum (General: no thread)."""
    thread = None if thread_id == NO_THREAD else thread_id
    return [m.text for m in bot.telegram.sent(FORUM) if m.message_thread_id == thread]


def about_papers(bot: Bot, thread_id: int) -> list[str]:
    return [t for t in texts(bot, thread_id) if "Topic routing" in t]


async def test_a_topics_digest_zone_and_revisions_leave_the_other_topics_and_general_as_they_were(
    turned: tuple[Bot, TurnedClock],
) -> None:
    bot, clock = turned
    first, second = forum_following(bot)
    local = clock().astimezone(SHANGHAI)
    at = (local + timedelta(hours=2)).replace(second=0, microsecond=0)

    await bot.ask_one(FORUM, "/timezone Asia/Shanghai", thread_id=first, **ADMIN_SAYS)
    digest_on = await bot.ask_one(FORUM, f"/digest daily {at:%H:%M}", thread_id=first, **ADMIN_SAYS)
    await bot.ask_one(FORUM, "/revisions on", thread_id=first, **ADMIN_SAYS)

    assert digest_on.startswith(f"✅ Digest: daily at {at:%H:%M}")
    assert "Times are in Asia/Shanghai" in digest_on
    listing = await bot.ask_one(FORUM, "/subscriptions", thread_id=second)
    assert "Digest: off, one message per paper (/digest)." in listing
    assert "Time zone: UTC (/timezone)." in listing
    assert "New versions of papers: off" in listing
    here = bot.chats.digests.settings(FORUM, first)
    assert here.zone_name == "Asia/Shanghai" and here.next_at == at
    for other in (second, NO_THREAD):
        kept = bot.chats.digests.settings(FORUM, other)
        assert (kept.zone_name, kept.schedule, kept.next_at) == ("UTC", None, None)
        assert not bot.chats.wants_revisions(FORUM, thread_id=other)
    assert bot.chats.wants_revisions(FORUM, thread_id=first)

    # A paper: the other topics and General are told at once; the first topic holds it for its
    # digest, which comes at its own local time, to it alone.
    publish(bot, paper())
    await bot.until(lambda: about_papers(bot, second) and about_papers(bot, NO_THREAD))
    clock.turn_to(at - timedelta(minutes=1))
    await asyncio.sleep(EARLY)
    assert about_papers(bot, first) == []  # held: 08:00 there is not yet
    clock.turn_to(at)
    await bot.until(lambda: about_papers(bot, first))
    await asyncio.sleep(EARLY)  # and nothing more
    (digest,) = about_papers(bot, first)
    assert digest.startswith("📚 1 new paper since")
    assert not any(t.startswith("📚") for t in texts(bot, second) + texts(bot, NO_THREAD))
    assert len(about_papers(bot, second)) == len(about_papers(bot, NO_THREAD)) == 1


async def test_a_new_version_goes_to_the_topic_that_asked_for_revisions_only(
    turned: tuple[Bot, TurnedClock],
) -> None:
    bot, _clock = turned
    first, second = forum_following(bot)
    answer = await bot.ask_one(FORUM, "/revisions on", thread_id=second, **ADMIN_SAYS)
    assert answer == "✅ This topic will now be told about new versions of papers."
    publish(bot, paper())
    await bot.until(lambda: all(about_papers(bot, place) for place in (first, second, NO_THREAD)))

    publish(bot, paper(version=2))

    await bot.until(lambda: len(about_papers(bot, second)) == 2)
    await asyncio.sleep(EARLY)  # and nowhere else
    assert "Updated to v2" in about_papers(bot, second)[1]
    assert len(about_papers(bot, first)) == len(about_papers(bot, NO_THREAD)) == 1


async def test_an_export_in_a_topic_carries_its_settings_and_an_import_sets_them_in_another(
    turned: tuple[Bot, TurnedClock],
) -> None:
    bot, _clock = turned
    first, second = forum_following(bot)
    await bot.ask_one(FORUM, "/timezone Europe/Berlin", thread_id=first, **ADMIN_SAYS)
    await bot.ask_one(FORUM, "/revisions on", thread_id=first, **ADMIN_SAYS)

    bot.telegram.user_sends(FORUM, "/export", thread_id=first, **ADMIN_SAYS)
    await bot.until(lambda: bot.telegram.documents(FORUM))
    (sent,) = bot.telegram.documents(FORUM)
    assert "# timezone: Europe/Berlin\n# digest: off\n# revisions: on\n" in sent.data.decode()
    before = len(bot.telegram.sent(FORUM))
    bot.telegram.user_sends_document(
        FORUM, sent.data, caption="/import", thread_id=second, **ADMIN_SAYS
    )
    await bot.until(lambda: len(bot.telegram.sent(FORUM)) > before)
    assert "timezone Europe/Berlin, revisions on" in bot.last(FORUM).text
    markup = bot.last(FORUM).reply_markup
    assert markup is not None
    go = markup["inline_keyboard"][0][0]["callback_data"]
    answered = len(bot.telegram.callback_answers)
    bot.telegram.press_button(FORUM, bot.last(FORUM).message_id, go, **ADMIN_SAYS)
    await bot.until(lambda: len(bot.telegram.callback_answers) > answered)

    here = await bot.ask_one(FORUM, "/subscriptions", thread_id=second)
    assert "Time zone: Europe/Berlin (/timezone)." in here
    assert "New versions of papers: on" in here
    general = await bot.ask_one(FORUM, "/subscriptions")  # General: as it was
    assert "Time zone: UTC (/timezone)." in general
    assert "New versions of papers: off" in general


@pytest.mark.parametrize("command", ["digest", "timezone", "revisions"])
async def test_help_says_a_forum_topics_setting_is_its_own(
    turned: tuple[Bot, TurnedClock], command: str
) -> None:
    bot, _clock = turned
    answer = await bot.ask_one(USER, f"/help {command}")
    assert (
        "In a forum each topic has its own: sent in a topic, it shows and changes that topic's, "
        "and the other topics (and General) keep theirs."
    ) in answer
