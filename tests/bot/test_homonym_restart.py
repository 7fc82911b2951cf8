"""The homonym question's buttons outlive the bot (real bot, fake Bot API, fake arXiv, a real
database): a press after a restart follows the choice; a press on an expired question is told
which command to send again, and nothing changes."""

from __future__ import annotations

from datetime import timedelta

from sqlalchemy import Engine

from bot.handlers.offers import expired, question
from tests.fakes.corpus import make_record
from tests.fakes.telegram import FakeTelegram, RateLimits
from tests.harness.bots import BOT, USER, Bot, running_bot
from watcher.core.homonym_question import HomonymQuestions
from watcher.core.subscribing import NeedsChoice
from watcher.follows.homonyms import NameSurvey
from watcher.store.offers import OFFER_LIFETIME, OfferStore
from watcher.store.tables import utcnow


def add_namesakes(bot: Bot) -> None:
    """ "Wei Wang" on papers in cs, math and physics: several people."""
    categories = ["cs.DC", "cs.DC", "cs.NI", "math.OC", "hep-th", "cs.DC", "cs.NI"]
    for index, category in enumerate(categories):
        bot.arxiv.add(
            make_record(
                arxiv_id=f"2605.{index + 1:05d}",
                authors=["Wei Wang", "Someone Else"],
                primary_category=category,
                categories=(category,),
            )
        )


async def test_a_button_pressed_after_a_restart_follows_the_choice(
    engine: Engine, database_url: str
) -> None:
    # One fake Bot API across the restart: Telegram keeps the question and its buttons.
    with FakeTelegram(rate_limits=RateLimits.disabled(), bot_username=BOT) as telegram:
        async with running_bot(engine, database_url, telegram=telegram) as bot:
            add_namesakes(bot)
            answer = await bot.ask_one(USER, "/subscribe Wei Wang")
            assert answer.startswith("🤔 The name Wei Wang looks like several people")
            question = bot.last(USER)
        assert question.reply_markup is not None
        (in_dc,) = question.reply_markup["inline_keyboard"][0]
        assert in_dc["text"] == "Wei Wang in cs.DC · 3 papers"

        async with running_bot(engine, database_url, telegram=telegram) as restarted:
            await pressed_after_restart(restarted, question.message_id, in_dc["callback_data"])


async def pressed_after_restart(restarted: Bot, message_id: int, data: str) -> None:
    """Press a button of the question `message_id` asked before the restart: it works."""
    restarted.telegram.press_button(USER, message_id, data)
    await restarted.until(lambda: restarted.telegram.edits)

    edit = restarted.telegram.edits[-1]
    assert edit.message_id == message_id
    assert edit.text is not None and edit.text.startswith("✅ This chat now follows Wei Wang")
    (followed_id,) = restarted.chats.subscribed_ids(USER)
    (followed,) = restarted.store.followed([followed_id])
    assert followed.categories == ("cs.DC",)
    assert restarted.telegram.callback_answers[-1].text is None


async def test_an_expired_button_is_told_what_to_send_and_changes_nothing(bot: Bot) -> None:
    made = utcnow() - OFFER_LIFETIME - timedelta(minutes=1)
    survey = NameSurvey(total=7, categories=(("cs.DC", 3), ("cs.NI", 2), ("hep-th", 1)))
    questions = HomonymQuestions(OfferStore(bot.chats.engine, clock=lambda: made))
    old = question(questions.ask(USER, 0, ("Wei Wang",), NeedsChoice(survey, anyway=True)))
    await bot.ask_one(USER, "/subscriptions")  # a message to press the old button under
    (in_dc,) = old.buttons[0]
    assert in_dc.callback_data is not None

    bot.telegram.press_button(USER, bot.last(USER).message_id, in_dc.callback_data)
    await bot.until(lambda: bot.telegram.callback_answers)

    text = bot.telegram.callback_answers[-1].text
    assert text == expired("Wei Wang")
    assert text == "This question has expired; send /subscribe Wei Wang to be asked again."
    assert bot.chats.subscribed_ids(USER) == []
    assert bot.store.find_followed("Wei Wang", categories=("cs.DC",)) is None
    assert bot.telegram.edits == []
