"""Lists of papers read well (issue 19, trap 8): a short header, `cs.DC · your follows · 13`, and
every entry marks the followed people with ★ as announcements do, even when they are not first.
Through the fake Bot API on the real store; and the renderer's worst case with marks."""

from __future__ import annotations

import re

import pytest

from bot.render import MAX_PER_PAGE, render_paper_list
from tests.harness.bots import USER, Bot
from tests.harness.rendering import check_message, lines_of, make_record

ENTRY_DETAILS = re.compile(r"^   (?P<who>.+) · \d{4}-\d{2}-\d{2} · ")


async def test_subject_header_is_short_and_every_entry_marks_the_followed_author(bot: Bot) -> None:
    await bot.ask(USER, "/subscribe")
    followed = bot.store.find_followed("Dezun Dong")
    assert followed is not None
    in_dc = bot.store.count_category("cs.DC", followed_ids=[followed.id])

    answer = await bot.ask_one(USER, f"/subject cs.DC {MAX_PER_PAGE}")

    lines = answer.split("\n")
    assert lines[0] == f"cs.DC · your follows · {in_dc}"
    authors = [m["who"] for line in lines if (m := ENTRY_DETAILS.match(line))]
    assert len(authors) == min(in_dc, MAX_PER_PAGE)
    assert all("★ " in who for who in authors), authors
    # A paper of his where he is not the first author names him too, after the first.
    assert any(re.match(r"^[^★]+, ★ (Dezun Dong|Dong Dezun)", who) for who in authors), authors
    assert "★ <b><u>" in bot.last(USER).html


async def test_recent_header_says_whose_papers_in_a_few_words(bot: Bot) -> None:
    watched = await bot.ask_one(USER, "/recent 2")
    assert watched.split("\n")[0].startswith("Newest · the watched authors · ")
    await bot.ask(USER, "/subscribe Dezun Dong; Yemao Xu")
    await bot.service.poller.poll()

    own = await bot.ask_one(USER, "/recent 2")

    header = own.split("\n")[0]
    assert re.fullmatch(r"Newest · your follows · \d+", header), header
    assert " in " not in header and "papers of" not in header


@pytest.mark.parametrize("per_page", [10, MAX_PER_PAGE])
def test_a_page_of_long_names_all_marked_still_fits_one_message(per_page: int) -> None:
    records = [
        make_record(
            arxiv_id=f"2604.{index:05d}",
            title="😀&<" * 1000,
            authors=("<" * 500, "Dezun Dong " + "Ö" * 300, "Dezun Dong", "x y", "Dong Dezun"),
            primary_category="&" * 100,
        )
        for index in range(per_page)
    ]
    message = render_paper_list(
        records,
        title="cs.DC · your follows",
        page=9_999,
        per_page=per_page,
        total=10**9,
        callback_prefix="p",
        marked=lambda name: True,
    )
    lines = lines_of(check_message(message))
    details = [line for line in lines if line.startswith("   ")]
    assert len(details) == per_page
    assert all(line.count("★ ") == 3 and " et al. · " in line for line in details)
