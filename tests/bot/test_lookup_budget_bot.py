"""A chat's budget of new follows, the way a person meets it (real bot, fake Bot API, fake arXiv,
a real database): a first session of ten new names and topics is never refused; a typo, a refused
name or one already followed costs nothing; names and topics are refused in one wording; and the
budget is the same after a restart (a new bot on the same database)."""

from __future__ import annotations

import string

from sqlalchemy import Engine

from tests.fakes.corpus import make_record
from tests.harness.bots import USER, Bot, running_bot
from watcher.core.subscribing import FIRST_ALLOWANCE
from watcher.store.offers import OfferStore

REFUSED = "This chat has asked for enough new names and topics for now; try again in 12 minutes."


def person(number: int) -> str:
    letters = string.ascii_lowercase
    return f"Tester {letters[number // 26].upper()}{letters[number % 26]}mo"


def publish(bot: Bot, count: int) -> None:
    """One paper each for `count` invented people, on the fake arXiv."""
    for number in range(count):
        bot.arxiv.add(make_record(arxiv_id=f"2611.{number + 1:05d}", authors=[person(number)]))


async def test_a_first_session_of_ten_follows_passes_and_misses_cost_nothing(
    engine: Engine, database_url: str
) -> None:
    async with running_bot(engine, database_url) as bot:
        publish(bot, FIRST_ALLOWANCE + 1)
        # What a person tries on the first day besides: a typo, a one-word name (refused before
        # arXiv), the watched author (kept already), and asking twice for the same name.
        typo = await bot.ask_one(USER, "/subscribe Tester Aamoo")
        assert typo.startswith("arXiv lists no papers by Tester Aamoo, so this chat does not")
        word = await bot.ask_one(USER, "/subscribe Tester")
        assert word != REFUSED and not word.startswith("✅")
        kept = await bot.ask_one(USER, "/subscribe Dezun Dong")
        assert kept.startswith("✅ This chat now follows Dezun Dong")
        answers = [await bot.ask_one(USER, f"/subscribe {person(n)}") for n in range(8)]
        again = await bot.ask_one(USER, f"/subscribe {person(0)}")
        assert again.startswith(f"This chat already follows {person(0)}.")
        answers.append(await bot.ask_one(USER, "/watch rdma in cs.DC"))
        answers.append(await bot.ask_one(USER, f"/subscribe {person(8)}"))

        assert len(answers) == FIRST_ALLOWANCE
        assert all(a.startswith("✅") for a in answers), answers
        # The eleventh new follow is refused, a name and a topic in the same words.
        assert await bot.ask_one(USER, f"/subscribe {person(9)}") == REFUSED
        assert await bot.ask_one(USER, "/watch infiniband in cs.NI") == REFUSED
        assert bot.store.find_followed(person(9)) is None
        # Names followed already, here or elsewhere, still cost nothing.
        assert (await bot.ask_one(USER + 1, f"/subscribe {person(10)}")).startswith("✅")
        await bot.service.poller.poll(force=True)  # now it is kept up to date
        assert (await bot.ask_one(USER, f"/subscribe {person(10)}")).startswith("✅")


async def test_several_names_beyond_the_budget_name_each_refused_one(bot: Bot) -> None:
    """Issue 30, item 5: "…try again in 12 minutes." twice, without saying for which names."""
    publish(bot, FIRST_ALLOWANCE + 3)
    for number in range(FIRST_ALLOWANCE - 2):
        assert (await bot.ask_one(USER, f"/subscribe {person(number)}")).startswith("✅")
    names = [person(n) for n in range(FIRST_ALLOWANCE - 2, FIRST_ALLOWANCE + 3)]

    answer = await bot.ask_one(USER, "/subscribe " + "; ".join(names))

    lines = answer.split("\n")
    assert [line.startswith("✅") for line in lines] == [True, True, False, False, False], answer
    assert lines[2:] == [f"⏳ {name}: {REFUSED}" for name in names[2:]]


async def test_the_budget_is_the_same_after_a_restart(engine: Engine, database_url: str) -> None:
    async with running_bot(engine, database_url) as bot:
        publish(bot, FIRST_ALLOWANCE + 1)
        for number in range(FIRST_ALLOWANCE):
            answer = await bot.ask_one(USER, f"/subscribe {person(number)}")
            assert answer.startswith("✅"), answer

    async with running_bot(engine, database_url) as restarted:
        publish(restarted, FIRST_ALLOWANCE + 1)
        asked = len(restarted.arxiv.api_requests())

        answer = await restarted.ask_one(USER, f"/subscribe {person(FIRST_ALLOWANCE)}")

        assert answer == REFUSED
        assert len(restarted.arxiv.api_requests()) == asked  # arXiv was not asked
        assert restarted.store.find_followed(person(FIRST_ALLOWANCE)) is None


async def test_a_homonym_button_pressed_with_the_budget_spent_says_when(bot: Bot) -> None:
    for index, category in enumerate(["cs.DC", "cs.DC", "math.OC", "hep-th"]):
        bot.arxiv.add(
            make_record(
                arxiv_id=f"2605.{index + 1:05d}",
                authors=["Wei Wang"],
                primary_category=category,
                categories=(category,),
            )
        )
    publish(bot, FIRST_ALLOWANCE)
    assert "several people" in await bot.ask_one(USER, "/subscribe Wei Wang")  # costs no follow
    question = bot.last(USER)
    for number in range(FIRST_ALLOWANCE):
        assert (await bot.ask_one(USER, f"/subscribe {person(number)}")).startswith("✅")
    assert question.reply_markup is not None
    (in_dc,) = question.reply_markup["inline_keyboard"][0]

    bot.telegram.press_button(USER, question.message_id, in_dc["callback_data"])
    await bot.until(lambda: bot.telegram.callback_answers)

    assert bot.telegram.callback_answers[-1].text == REFUSED
    assert bot.store.find_followed("Wei Wang", categories=("cs.DC",)) is None
    assert bot.telegram.edits == []
    assert OfferStore(bot.chats.engine).count() == 1  # the question stays, to be answered later
