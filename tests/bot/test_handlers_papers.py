"""The commands that show papers, end to end: /recent and its paging buttons, /subject and
/subjects, /paper, and how stored data (categories, author names) is escaped and marked in the
replies. The real Application long-polls the fake Bot API over HTTP and asks the real store
(SQLite or PostgreSQL); see `tests.harness.bots`.
"""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from tests.fakes.corpus import make_record
from tests.harness.bots import GROUP, USER, Bot, dezun_count
from watcher.arxiv.records import Record
from watcher.store import MatchedRecord

# --- /recent and paging -----------------------------------------------------------------------


async def test_recent_lists_the_newest_papers_compactly(bot: Bot) -> None:
    newest = bot.store.recent(limit=5)
    total = dezun_count(bot)

    answer = await bot.ask_one(USER, "/recent")

    assert answer.startswith(
        f"Newest · the watched authors · {total}\n"
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
    assert f"Newest · the watched authors · 4–6 of {total}\n" in edit.text
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

    assert answer.startswith(f"Newest · the watched authors · {total}\n")
    assert all(record.versioned_id in answer for record in newest[:20])
    assert newest[20].versioned_id not in answer
    assert bot.last(USER).reply_markup == {
        "inline_keyboard": [[{"text": "Older ▶", "callback_data": "r:20:1"}]]
    }
    bot.telegram.press_button(USER, bot.last(USER).message_id, "r:20:1")
    await bot.until(lambda: bot.telegram.edits)
    edit = bot.telegram.edits[-1].text or ""
    assert f" · 21–{min(total, 40)} of {total}\n" in edit
    assert newest[20].versioned_id in edit


async def test_subject_20_shows_twenty_papers_in_one_message(bot: Bot) -> None:
    newest = store_long_papers(bot, 22)
    in_category = bot.store.count_category("cs.DC")

    answer = await bot.ask_one(USER, "/subject cs.DC 20")

    assert answer.startswith(f"cs.DC · the watched authors · {in_category}\n")
    assert all(record.versioned_id in answer for record in newest[:20])
    assert bot.last(USER).reply_markup == {
        "inline_keyboard": [[{"text": "Older ▶", "callback_data": "s:cs.DC:20:1"}]]
    }


@pytest.mark.parametrize(
    ("text", "answer"),
    [
        (
            "/recent abc",
            "'abc' is not a number.\nFor example: /recent 10",
        ),
        (
            "/recent 0",
            "N must be from 1 to 20.\nFor example: /recent 10",
        ),
        (
            "/recent 99",
            "N must be from 1 to 20.\nFor example: /recent 10",
        ),
        (
            "/recent 1 2",
            "One number at most.\nFor example: /recent 10",
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

    assert answer.startswith(f"cs.DC · the watched authors · {in_category}\n")
    assert all(record.versioned_id in answer for record in newest)
    assert bot.last(USER).reply_markup == {
        "inline_keyboard": [[{"text": "Older ▶", "callback_data": "s:cs.DC:2:1"}]]
    }

    bot.telegram.press_button(USER, bot.last(USER).message_id, "s:cs.DC:2:1")
    await bot.until(lambda: bot.telegram.edits)
    assert f"cs.DC · the watched authors · 3–4 of {in_category}" in (
        bot.telegram.edits[-1].text or ""
    )


async def test_subject_unknown_category_names_close_matches(bot: Bot) -> None:
    answer = await bot.ask_one(USER, "/subject cs.dcc")

    assert answer == (
        "'cs.dcc' is not an arXiv category; did you mean cs.DC, cs.CC or cs.SD?\n"
        "For example: /subject cs.DC,cs.NI 5"
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
        "No category given.\nFor example: /subject cs.DC,cs.NI 5"
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
        "arXiv: 2604.03117",  # as references print it
        "2604.03117 v1",  # as people type it
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
    assert [button.get("url") for button in buttons["inline_keyboard"][0]] == [
        record.abs_url,
        record.pdf_url,
        f"https://arxiv.org/html/{record.arxiv_id}",
    ]
    assert [button["text"] for button in buttons["inline_keyboard"][1]] == [
        "❝ Cite", "🔖 Save", "↗ Share", "📋 Copy id",
    ]  # fmt: skip
    assert len(buttons["inline_keyboard"]) == 2  # no Unfollow under a paper looked up


async def test_paper_answers_for_unknown_and_malformed_ids(bot: Bot) -> None:
    assert await bot.ask_one(USER, "/paper 2609.99999v4") == (
        # Issue 30, item 5: no well-formed id "looks like" another to the reader.
        "arXiv has no paper arXiv:2609.99999. Check its digits; a paper announced this evening "
        "reaches arXiv's API only after midnight US Eastern."
    )
    assert await bot.ask_one(USER, "/paper hello") == (
        "'hello' is not an arXiv id.\nFor example: /paper 2604.01234"
    )
    assert (await bot.ask_one(USER, "/paper")).startswith("No paper given.\nFor example: /paper")
    asked = await bot.ask_one(USER, "/paper 2604.03117v3")
    assert asked.endswith("(arXiv has no v3 of this paper; this is v1, the newest I know.)")


@pytest.mark.parametrize(
    "sent",
    ["2604.03117", "arXiv:2604.03117v1", "https://arxiv.org/abs/2604.03117", "2604.03117 v1"],
)
async def test_an_id_or_link_sent_alone_in_private_is_answered_as_paper(
    bot: Bot, sent: str
) -> None:
    """It was answered "I answer commands only"."""
    answer = await bot.ask_one(USER, sent)
    assert answer.startswith("📄 Paper · arXiv:2604.03117v1\n")


async def test_other_plain_text_and_ids_in_groups_are_not_taken_for_papers(bot: Bot) -> None:
    assert await bot.ask_one(USER, "see 2604.03117 please") == (
        "I answer commands only. /help lists them."
    )
    bot.telegram.user_sends(GROUP, "2604.03117", chat_type="group")  # a group's own talk
    await bot.settled()
    assert bot.telegram.sent(GROUP) == []


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


async def test_subject_takes_several_categories_as_watch_does(bot: Bot) -> None:
    in_either = {
        r.arxiv_id
        for category in ("cs.DC", "cs.NI")
        for r in bot.store.by_category(category, limit=100)
    }
    assert bot.store.count_category(("cs.DC", "cs.NI")) == len(in_either) > 2

    answer = await bot.ask_one(USER, "/subject cs.DC,cs.NI 2")

    assert answer.startswith(f"cs.DC, cs.NI · the watched authors · {len(in_either)}\n")
    assert bot.last(USER).reply_markup == {
        "inline_keyboard": [[{"text": "Older ▶", "callback_data": "s:cs.DC,.NI:2:1"}]]
    }
    bot.telegram.press_button(USER, bot.last(USER).message_id, "s:cs.DC,.NI:2:1")
    await bot.until(lambda: bot.telegram.edits)
    assert f" · 3–4 of {len(in_either)}\n" in (bot.telegram.edits[-1].text or "")
    spaced = await bot.ask_one(USER, "/subject cs.dc cs.ni 2")
    assert spaced == answer


async def test_subject_with_one_wrong_category_among_several_names_that_one(bot: Bot) -> None:
    answer = await bot.ask_one(USER, "/subject cs.DC,cs.NX")

    assert answer.startswith("'cs.NX' is not an arXiv category; did you mean cs.NI")
