"""/exclude (issue 32, item 4) through the fake Bot API on the real database: an excluded word
holds back a followed author's paper in that chat only (another chat following the same author
gets it), counted in /subscriptions' 🔇 line; /exclude lists them numbered, /exclude off N or
WORD takes one off; the 21st, an empty and a too long entry are refused, and so is an unknown
number; in a group only administrators change the list, anyone lists it."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from bot.handlers.exclude import EMPTY
from tests.fakes.corpus import make_record
from tests.harness.bots import GROUP, USER, Bot, wake_sender, with_sender
from watcher.arxiv.records import Record
from watcher.follows.excluded_words import MAX_EXCLUDED, MAX_EXCLUDED_LENGTH
from watcher.store import MatchedRecord

OTHER = 43
SURVEY = make_record(
    arxiv_id="2612.03201",
    title="Interconnection Networks for Exascale: A Survey",
    abstract="We review the field.",
    authors=["Dezun Dong"],
)
PLAIN = make_record(
    arxiv_id="2612.03202",
    title="Adaptive Routing in Dragonfly Networks",
    abstract="A new routing algorithm.",
    authors=["Dezun Dong"],
)
LLM = make_record(
    arxiv_id="2612.03203",
    title="Serving Models Fast",
    abstract="We serve Large Language Models on RDMA clusters.",
    authors=["Dezun Dong"],
)


@pytest.fixture
async def front(bot: Bot) -> AsyncIterator[Bot]:
    """The running bot, with a delivery sender on its own Bot (woken by `publish`)."""
    async with with_sender(bot):
        yield bot


def publish(bot: Bot, *records: Record) -> None:
    found = bot.store.find_followed("Dezun Dong")
    assert found is not None
    followed = frozenset({found.id})
    bot.store.save_records([MatchedRecord(r, followed) for r in records], announce_for=followed)
    wake_sender(bot)


def told(bot: Bot, chat_id: int, record: Record) -> bool:
    return any(record.arxiv_id in m.text for m in bot.telegram.sent(chat_id))


async def test_an_excluded_word_holds_back_the_paper_in_that_chat_only(front: Bot) -> None:
    bot = front
    await bot.ask(USER, "/subscribe")
    await bot.ask(OTHER, "/subscribe")
    added = await bot.ask_one(USER, "/exclude surveys")
    assert added.startswith("🔇 Papers saying surveys will no longer be sent here.")
    phrase = await bot.ask_one(USER, '/exclude "large language model"')
    assert phrase.startswith('🔇 Papers saying "large language model" will no longer')

    publish(bot, SURVEY, LLM, PLAIN)
    await bot.until(lambda: told(bot, USER, PLAIN))
    await bot.until(lambda: all(told(bot, OTHER, r) for r in (SURVEY, LLM, PLAIN)))
    await bot.settled()
    assert not told(bot, USER, SURVEY)  # "surveys" holds back "Survey": stems, whole words
    assert not told(bot, USER, LLM)  # the phrase, in the abstract, word by word
    assert bot.store.paper(SURVEY.arxiv_id) is not None  # still stored

    listing = await bot.ask_one(USER, "/subscriptions")
    assert "🔇 2 papers held back this week by 2 excluded words (/exclude lists them)." in listing
    assert "🔇" not in await bot.ask_one(OTHER, "/subscriptions")

    # Found again (another save of the same papers): neither sent nor counted twice.
    publish(bot, SURVEY, LLM)
    await bot.settled()
    assert not told(bot, USER, SURVEY)
    assert "🔇 2 papers held back" in await bot.ask_one(USER, "/subscriptions")


async def test_listing_and_taking_off_by_number_or_word(bot: Bot) -> None:
    await bot.ask(USER, "/start")
    assert await bot.ask_one(USER, "/exclude") == EMPTY
    await bot.ask(USER, "/exclude survey")
    await bot.ask(USER, "/exclude “Large Language Model”")
    await bot.ask(USER, "/exclude review")
    again = await bot.ask_one(USER, "/exclude Survey")
    assert again.startswith("survey is excluded here already.")

    listing = await bot.ask_one(USER, "/exclude")
    assert listing == (
        f"🔇 Papers saying any of these are not sent here (3 of {MAX_EXCLUDED}):\n"
        '1. survey\n2. "large language model"\n3. review\n'
        "/exclude off N takes one off."
    )
    assert await bot.ask_one(USER, "/exclude off 2") == (
        '✅ Papers saying "large language model" will be sent here again.'
    )
    assert await bot.ask_one(USER, "/exclude off SURVEY") == (
        "✅ Papers saying survey will be sent here again."
    )
    unknown = await bot.ask_one(USER, "/exclude off 5")
    assert unknown == (
        "5 is not this chat's one excluded word: /exclude shows it.\nFor example: /exclude off 1"
    )
    assert (await bot.ask_one(USER, "/exclude")).count("\n") == 2  # review alone


async def test_the_limits_are_refused_saying_what_would_do(bot: Bot) -> None:
    await bot.ask(USER, "/start")
    for n in range(MAX_EXCLUDED):
        await bot.ask(USER, f"/exclude word{n}")
    full = await bot.ask_one(USER, "/exclude one more")
    assert full == (
        f"This chat excludes {MAX_EXCLUDED} words already, the most it may: take one off "
        "first.\nFor example: /exclude off 1"
    )
    assert f"({MAX_EXCLUDED} of {MAX_EXCLUDED})" in await bot.ask_one(USER, "/exclude")
    empty = await bot.ask_one(USER, '/exclude "" -')
    assert empty.startswith('Not excluded: give a word or a "quoted phrase" to hold back.')
    long = await bot.ask_one(USER, "/exclude " + "a" * (MAX_EXCLUDED_LENGTH + 1))
    assert long.startswith(
        f"Not excluded: that is too long ({MAX_EXCLUDED_LENGTH + 1} characters; at most "
        f"{MAX_EXCLUDED_LENGTH})."
    )
    assert (await bot.ask_one(USER, "/exclude off")).startswith("Say which word to take off")


async def test_in_a_group_only_admins_change_the_list_and_anyone_lists_it(bot: Bot) -> None:
    admin, member = 5, 7
    bot.telegram.add_chat(GROUP, chat_type="group", title="Reading group")
    bot.telegram.set_admins(GROUP, [admin])
    await bot.ask(GROUP, "/start", user_id=admin)
    refused = await bot.ask_one(GROUP, "/exclude survey", user_id=member)
    assert refused.startswith("Only this group's administrators can change its excluded words.")
    assert await bot.ask_one(GROUP, "/exclude", user_id=member) == EMPTY
    await bot.ask(GROUP, "/exclude survey", user_id=admin)
    assert "1. survey" in await bot.ask_one(GROUP, "/exclude", user_id=member)
    refused = await bot.ask_one(GROUP, "/exclude off 1", user_id=member)
    assert refused.startswith("Only this group's administrators")
    assert "1. survey" in await bot.ask_one(GROUP, "/exclude", user_id=member)


async def test_help_tells_exclude_in_full(bot: Bot) -> None:
    assert "/exclude WORD: never send papers with this word" in (await bot.ask_one(USER, "/help"))
    full = await bot.ask_one(USER, "/help exclude")
    assert "in a forum it holds for every topic" in full
    assert f"At most {MAX_EXCLUDED} a chat" in full


async def test_export_then_import_in_another_chat_carries_the_excluded_words(front: Bot) -> None:
    bot = front
    await bot.ask(USER, "/subscribe")
    await bot.ask(USER, "/exclude survey")
    await bot.ask(USER, '/exclude "large language model"')
    before = len(bot.telegram.documents(USER))
    bot.telegram.user_sends(USER, "/export")
    await bot.until(lambda: len(bot.telegram.documents(USER)) > before)
    exported = bot.telegram.documents(USER)[-1]
    lines = exported.data.decode().splitlines()
    assert [line for line in lines if line.startswith("exclude ")] == [
        "exclude survey",
        'exclude "large language model"',
    ]

    await bot.ask(OTHER, "/exclude survey")  # there already: not added twice
    sent = len(bot.telegram.sent(OTHER))
    bot.telegram.user_sends_document(
        OTHER, exported.data, caption="/import", file_name=exported.file_name
    )
    await bot.until(lambda: len(bot.telegram.sent(OTHER)) > sent)
    question = bot.last(OTHER)
    assert '🔇 It will exclude "large language model" in this chat (/exclude).' in question.text
    assert question.reply_markup is not None
    go = question.reply_markup["inline_keyboard"][0][0]["callback_data"]
    answered = len(bot.telegram.callback_answers)
    bot.telegram.press_button(OTHER, question.message_id, go)
    await bot.until(lambda: len(bot.telegram.callback_answers) > answered)
    await bot.settled()
    listing = await bot.ask_one(OTHER, "/exclude")
    assert '1. survey\n2. "large language model"\n' in listing
