"""/search WORDS [in CATEGORY] (issue 30), end to end: the real Application long-polls the fake
Bot API over HTTP and reads the real store's full-text index (SQLite FTS5 or PostgreSQL's
tsvector, migration 0027), which the database keeps in step with every save.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from tests.fakes.corpus import make_record
from tests.harness.bots import USER, Bot
from watcher.arxiv.records import Record
from watcher.store import MatchedRecord
from watcher.store.search import MAX_FOUND

# Six papers with the word (one of them in its plural, in the title), newest first; two without.
_WITH = [
    ("2605.00106", "Faster AllReduce for GPU clusters", "We speed up collectives.", "cs.DC"),
    ("2605.00105", "Ring collectives", "An allreduce over a torus network.", "cs.NI"),
    ("2605.00104", "Allreduces at scale", "Collectives of many kinds.", "cs.DC"),
    ("2605.00103", "Gradient compression", "Compressed gradients cut allreduce traffic.", "cs.LG"),
    ("2605.00102", "Topology-aware ALLREDUCE", "Rings and trees.", "cs.NI"),
    ("2605.00101", "In-network aggregation", "Switches perform the allreduce.", "cs.DC"),
]
_WITHOUT = [
    ("2605.00108", "Graph colouring", "Planar graphs, reduced.", "cs.DM"),
    ("2605.00107", "All reduced models", "Model order reduction for all.", "math.NA"),
]


def _store(bot: Bot) -> list[Record]:
    dezun = bot.store.find_followed("Dezun Dong")
    assert dezun is not None
    records = [
        make_record(
            arxiv_id=arxiv_id,
            published=datetime(2026, 5, int(arxiv_id[-2:]), 12, tzinfo=UTC),
            title=title,
            abstract=abstract,
            primary_category=category,
            categories=(category, "cs.AR"),
        )
        for arxiv_id, title, abstract, category in _WITH + _WITHOUT
    ]
    matched = [MatchedRecord(record, frozenset({dezun.id})) for record in records]
    bot.store.save_records(matched, announce_for=frozenset())
    return records


def _ids(text: str, month: str = "2605.") -> list[str]:
    return [word[:10] for word in text.split() if word.startswith(month)]


async def test_search_finds_the_stored_papers_with_the_word_newest_first_and_pages(
    bot: Bot,
) -> None:
    _store(bot)

    answer = await bot.ask_one(USER, "/search allreduce")

    assert answer.split("\n")[0] == "Search · allreduce · 6"
    assert _ids(answer) == [arxiv_id for arxiv_id, *_ in _WITH[:5]]
    listing = bot.last(USER)
    assert listing.reply_markup == {
        "inline_keyboard": [[{"text": "Older ▶", "callback_data": "f::allreduce:1"}]]
    }

    bot.telegram.press_button(USER, listing.message_id, "f::allreduce:1")
    await bot.until(lambda: bot.telegram.edits and bot.telegram.callback_answers)

    edit = bot.telegram.edits[-1]
    assert edit.message_id == listing.message_id and edit.text is not None
    assert edit.text.split("\n")[0] == "Search · allreduce · 6–6 of 6"
    assert _ids(edit.text) == ["2605.00101"]


async def test_search_in_a_category_keeps_the_papers_in_it(bot: Bot) -> None:
    _store(bot)

    answer = await bot.ask_one(USER, "/search Allreduce in cs.ni")

    assert answer.split("\n")[0] == "Search · allreduce in cs.NI · 2"
    assert _ids(answer) == ["2605.00105", "2605.00102"]
    cross_listed = await bot.ask_one(USER, "/search allreduce in cs.AR")
    assert len(_ids(cross_listed)) == 5  # every one, by its cross-list


async def test_a_search_without_matches_says_what_is_searched(bot: Bot) -> None:
    _store(bot)

    answer = await bot.ask_one(USER, "/search allreduce colouring")

    assert answer.startswith(
        "No stored paper holds every word of allreduce colouring in its title or abstract."
    )


@pytest.mark.parametrize(
    ("arguments", "wrong"),
    [
        ("", "Give at least one word to look for."),
        ("of the", "Those are all common words that every paper has; add a rarer one."),
        ("interconnection networks for chiplets", "Too long: at most 32 letters of words in all."),
        ("allreduce in cs.XY", "'cs.XY' is not an arXiv category"),
        # issue 32: not read as "rdma infiniband" (or is a stop word)
        ("rdma OR infiniband", "/search finds the papers with every word, and has no OR"),
    ],
)
async def test_bad_searches_get_one_sentence_and_an_example(
    bot: Bot, arguments: str, wrong: str
) -> None:
    answer = await bot.ask_one(USER, f"/search {arguments}".strip())

    first, example = answer.split("\n")
    assert first.startswith(wrong), first
    assert example == "For example: /search allreduce in cs.DC"


async def test_a_search_finding_more_than_a_thousand_pages_the_newest_thousand(bot: Bot) -> None:
    """Many matches are read by walking the newest papers (SQLite; PostgreSQL's planner picks
    its own way), and counted only up to 1,000: the order is the same as for a few."""
    dezun = bot.store.find_followed("Dezun Dong")
    assert dezun is not None
    records = [
        make_record(
            arxiv_id=f"2604.{index:05d}",
            published=datetime(2026, 4, 1, tzinfo=UTC) + timedelta(minutes=index),
            title=f"Allreduce variant {index}",
            categories=("cs.DC",) if index % 500 else ("cs.DC", "cs.NI"),
        )
        for index in range(1, MAX_FOUND + 4)
    ]
    bot.store.save_records(
        [MatchedRecord(record, frozenset({dezun.id})) for record in records],
        announce_for=frozenset(),
    )

    answer = await bot.ask_one(USER, "/search allreduce in cs.dc")

    assert answer.split("\n")[0] == f"Search · allreduce in cs.DC · the newest · {MAX_FOUND}"
    assert _ids(answer, "2604.") == [f"2604.{index:05d}" for index in range(1003, 998, -1)]
    bot.telegram.press_button(USER, bot.last(USER).message_id, f"f:cs.DC:allreduce:{199}")
    await bot.until(lambda: bot.telegram.edits)
    last_page = bot.telegram.edits[-1].text
    assert last_page is not None
    assert _ids(last_page, "2604.") == [f"2604.{index:05d}" for index in range(8, 3, -1)]
    assert "Older" not in str(bot.telegram.edits[-1].reply_markup)
    few = await bot.ask_one(USER, "/search allreduce in cs.NI")
    assert _ids(few, "2604.") == ["2604.01000", "2604.00500"]


async def test_a_new_version_is_searched_by_its_own_words(bot: Bot) -> None:
    """The database re-indexes a paper whose revision changed its title: no code of ours does."""
    dezun = bot.store.find_followed("Dezun Dong")
    assert dezun is not None
    first = make_record(arxiv_id="2605.00201", title="Allreduce on rings", abstract="Rings.")
    second = make_record(arxiv_id="2605.00201", version=2, title="Broadcast on rings")
    for record in (first, second):
        bot.store.save_records(
            [MatchedRecord(record, frozenset({dezun.id}))], announce_for=frozenset()
        )

    gone = await bot.ask_one(USER, "/search allreduce")
    found = await bot.ask_one(USER, "/search broadcasts")

    assert gone.startswith("No stored paper holds every word of allreduce")
    assert _ids(found) == ["2605.00201"]
