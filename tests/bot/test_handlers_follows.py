"""/subscribe by arXiv identity and the homonym guard's buttons, end to end: the real
Application long-polls the fake Bot API, the real store, the fake arXiv (API and author feeds)."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest
from sqlalchemy import Engine

from bot.handlers.offers import STALE
from tests.fakes.corpus import dezun_dong_records, make_record
from tests.harness.bots import GROUP, USER, Bot, running_bot
from watcher.follows.followed import Followed

DONG_FEED = "dong_d_1"


@pytest.fixture
async def bot(engine: Engine, database_url: str) -> AsyncIterator[Bot]:
    async with running_bot(engine, database_url) as running:
        running.arxiv.claim(DONG_FEED, [r.arxiv_id for r in dezun_dong_records()])
        yield running


def identity_follow(bot: Bot, key: str) -> Followed | None:
    return next((f for f in bot.store.followed() if f.identity == key), None)


# --- a person by arXiv identity ----------------------------------------------------------------


@pytest.mark.parametrize("given", ["https://arxiv.org/a/dong_d_1", "arxiv:dong_d_1"])
async def test_subscribe_an_author_id_reads_its_feed_once_and_follows_it(
    bot: Bot, given: str
) -> None:
    feeds = len(bot.arxiv.author_requests())

    answer = await bot.ask_one(USER, f"/subscribe {given}")

    total = len(dezun_dong_records())
    assert answer == (
        f"✅ This chat now follows Dezun Dong (arxiv:dong_d_1): arXiv lists {total} papers they "
        "claimed. Their history is being fetched; new papers will be posted here (only those "
        "they claim on arXiv)."
    )
    assert len(bot.arxiv.author_requests()) == feeds + 1
    followed = identity_follow(bot, "arxiv:dong_d_1")
    assert followed is not None and not followed.backfilled
    assert followed.id in bot.chats.subscribed_ids(USER)

    report = await bot.service.poller.poll()  # the next round: its history, silently

    assert report.new == [] and report.backfilled >= 0
    followed = identity_follow(bot, "arxiv:dong_d_1")
    assert followed is not None and followed.backfilled and followed.record_count == total
    listed = await bot.ask_one(USER, "/subscriptions")
    assert f"• Dezun Dong (arxiv:dong_d_1): {total} papers, last checked " in listed
    again = await bot.ask_one(USER, "/subscribe arxiv:dong_d_1")
    assert again.startswith("This chat already follows Dezun Dong (arxiv:dong_d_1).")
    gone = await bot.ask_one(USER, "/unsubscribe https://arxiv.org/a/dong_d_1")
    assert gone == "✅ This chat no longer follows Dezun Dong (arxiv:dong_d_1)."


@pytest.mark.parametrize("status", [400, 404])
async def test_an_author_id_arxiv_does_not_know_gets_a_clear_answer(bot: Bot, status: int) -> None:
    bot.arxiv.unknown_author_status = status
    before = bot.store.followed()

    answer = await bot.ask_one(USER, "/subscribe arxiv:dong_d_9")

    assert answer == (
        "arXiv knows no author id dong_d_9; the id is the end of an arXiv author page's "
        "address.\nFor example: /subscribe https://arxiv.org/a/dong_d_1"
    )
    assert bot.store.followed() == before
    assert bot.chats.subscribed_ids(USER) == []
    # The example's own id, unknown to arXiv: the example does not offer it again.
    bot.arxiv.author_claims.pop(DONG_FEED)
    example_id = await bot.ask_one(USER, "/subscribe https://arxiv.org/a/dong_d_1")
    assert example_id == (
        "arXiv knows no author id dong_d_1; the id is the end of an arXiv author page's "
        "address.\nFor example: /subscribe Dezun Dong"
    )


async def test_an_orcid_with_a_wrong_check_digit_is_refused_before_asking_arxiv(bot: Bot) -> None:
    feeds = len(bot.arxiv.author_requests())

    answer = await bot.ask_one(USER, "/subscribe 0000-0002-1825-0098")

    assert answer == (
        "0000-0002-1825-0098 is not a valid ORCID iD: its check digit (the last character) does "
        "not fit the other digits, so copy it from your ORCID record.\n"
        "For example: /subscribe NNNN-NNNN-NNNN-NNNN"
    )
    assert len(bot.arxiv.author_requests()) == feeds
    # Issue 30, item 5: no real iD offered, least of all one arXiv knows no author by.
    unknown = await bot.ask_one(USER, "/subscribe 0000-0002-1825-0097")
    assert unknown.startswith("arXiv knows no author with ORCID iD 0000-0002-1825-0097"), unknown
    again = await bot.ask_one(USER, "/subscribe 0000-0002-1825-0098")
    assert "0000-0002-1825-0097" not in again
    assert bot.chats.subscribed_ids(USER) == []


async def test_an_orcid_is_followed_through_arxivs_feed_of_it(bot: Bot) -> None:
    bot.arxiv.claim("0000-0002-1825-0097", [dezun_dong_records()[0].arxiv_id])

    answer = await bot.ask_one(USER, "/subscribe https://orcid.org/0000-0002-1825-0097")

    assert "now follows Dezun Dong (ORCID 0000-0002-1825-0097)" in answer
    assert bot.arxiv.author_requests()[-1].path == "/a/0000-0002-1825-0097.atom"


# --- the homonym guard -------------------------------------------------------------------------


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


async def test_a_name_of_several_people_gets_category_buttons(bot: Bot) -> None:
    add_namesakes(bot)
    asked = len(bot.arxiv.api_requests())

    answer = await bot.ask_one(USER, "/subscribe Wei Wang")

    assert "looks like several people" in answer
    assert len(bot.arxiv.api_requests()) == asked + 1  # one request for count and categories
    assert bot.chats.subscribed_ids(USER) == []  # nothing yet
    markup = bot.last(USER).reply_markup
    assert markup is not None
    rows = markup["inline_keyboard"]
    # One a row, each with the name and its papers (all 7 were in the sample: exact counts).
    assert [[b["text"] for b in row] for row in rows] == [
        ["Wei Wang in cs.DC · 3 papers"],
        ["Wei Wang in cs.NI · 2 papers"],
        ["Wei Wang in hep-th · 1 paper"],
        ["Wei Wang in any category · 7 papers"],
    ]
    assert answer.startswith("🤔 The name Wei Wang looks like several people:")
    question = bot.last(USER)

    bot.telegram.press_button(USER, question.message_id, rows[0][0]["callback_data"])
    await bot.until(lambda: bot.telegram.edits)

    edit = bot.telegram.edits[-1]
    assert edit.message_id == question.message_id
    assert edit.text is not None and "now follows" in edit.text and "cs.DC" in edit.text
    (followed_id,) = bot.chats.subscribed_ids(USER)
    (followed,) = bot.store.followed([followed_id])
    assert followed.categories == ("cs.DC",)

    # The question is answered: its other buttons are stale now.
    bot.telegram.press_button(USER, question.message_id, rows[3][0]["callback_data"])
    await bot.until(lambda: len(bot.telegram.callback_answers) >= 2)
    assert bot.telegram.callback_answers[-1].text == STALE
    assert bot.chats.subscribed_ids(USER) == [followed_id]


async def test_subscribe_anyway_follows_the_plain_name(bot: Bot) -> None:
    add_namesakes(bot)
    await bot.ask_one(USER, "/subscribe Wei Wang")
    question = bot.last(USER)
    assert question.reply_markup is not None
    (anyway,) = question.reply_markup["inline_keyboard"][-1]

    bot.telegram.press_button(USER, question.message_id, anyway["callback_data"])
    await bot.until(lambda: bot.telegram.edits)

    followed = bot.store.find_followed("Wei Wang")
    assert followed is not None and followed.categories == ()
    assert bot.chats.subscribed_ids(USER) == [followed.id]


async def test_a_forged_or_foreign_button_changes_nothing(bot: Bot) -> None:
    add_namesakes(bot)
    await bot.ask_one(USER, "/subscribe Wei Wang")
    question = bot.last(USER)
    assert question.reply_markup is not None
    data = question.reply_markup["inline_keyboard"][0][0]["callback_data"]

    bot.telegram.press_button(USER, question.message_id, "h:forged:0")
    await bot.until(lambda: bot.telegram.callback_answers)
    assert bot.telegram.callback_answers[-1].text == STALE
    await bot.ask_one(GROUP, "/recent")  # another chat pressing this chat's data
    bot.telegram.press_button(GROUP, bot.last(GROUP).message_id, data)
    await bot.until(lambda: len(bot.telegram.callback_answers) >= 2)

    assert bot.chats.subscribed_ids(USER) == []
    assert bot.chats.subscribed_ids(GROUP) == []
    assert bot.telegram.edits == []


async def test_a_name_of_one_person_is_followed_without_a_question(bot: Bot) -> None:
    answer = await bot.ask_one(USER, "/subscribe Yemao Xu")
    assert answer.startswith("✅ This chat now follows Yemao Xu")
    assert bot.last(USER).reply_markup is None
