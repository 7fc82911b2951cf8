"""Tests for the renderers of many papers in `bot.render`: the compact list with its page buttons
and callback data, and the summary for a chat that comes back, all within one message.

Every HTML message goes through `telegram_html_text` (`tests.harness.rendering`), a strict checker
that accepts only what Telegram's HTML parse mode accepts and returns the visible text.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import replace

import pytest

from bot.render import (
    MAX_PER_PAGE,
    Button,
    page_from_callback,
    render_paper,
    render_paper_list,
    render_summary,
)
from tests.harness.rendering import check_message, follows, lines_of, make_record, real_record
from watcher.arxiv.latex import latex_to_text
from watcher.arxiv.records import Record
from watcher.arxiv.taxonomy import category_name

# --- the compact list -----------------------------------------------------------------------


def page_of(count: int, *, start: int = 0) -> list[Record]:
    return [
        real_record(index % 15, authors=("Enda Yu", "Dezun Dong"))
        for index in range(start, start + count)
    ]


def test_middle_page_of_a_list() -> None:
    records = page_of(5, start=5)
    message = render_paper_list(
        records, title="Newest papers", page=1, per_page=5, total=23, callback_prefix="recent"
    )
    text = check_message(message)
    lines = lines_of(text)
    assert lines[0] == "Newest papers · 6–10 of 23"
    assert message.html.startswith("<b>Newest papers</b> · 6–10 of 23\n")
    assert lines[2] == (
        "6. Cohet: A CXL-Driven Coherent Heterogeneous Computing Framework with "
        "Hardware-Calibrated Full-System Simulation"
    )
    assert lines[3] == "   Enda Yu et al. · 2026-04-03 · cs.AR · 2604.00006v1"
    assert '<a href="https://arxiv.org/abs/2604.00006v1">2604.00006v1</a>' in message.html
    assert "\n6. <b>Cohet: A CXL-Driven Coherent" in message.html
    assert len([line for line in lines if re.match(r"\d+\. ", line)]) == 5
    assert message.buttons == (
        (
            Button("◀ Newer", callback_data="recent:0"),
            Button("Older ▶", callback_data="recent:2"),
        ),
    )


def test_first_and_last_pages_have_one_button() -> None:
    first = render_paper_list(
        page_of(5), title="cs.DC", page=0, per_page=5, total=8, callback_prefix="subj:cs.DC"
    )
    assert first.buttons == ((Button("Older ▶", callback_data="subj:cs.DC:1"),),)
    last = render_paper_list(
        page_of(3), title="cs.DC", page=1, per_page=5, total=8, callback_prefix="subj:cs.DC"
    )
    assert last.buttons == ((Button("◀ Newer", callback_data="subj:cs.DC:0"),),)
    assert lines_of(check_message(last))[0] == "cs.DC · 6–8 of 8"


def test_single_page_and_empty_lists_have_no_buttons() -> None:
    single = render_paper_list(
        page_of(2), title="Newest papers", page=0, per_page=5, total=2, callback_prefix="r"
    )
    assert single.buttons == ()
    empty = render_paper_list(
        [], title="Newest papers", page=0, per_page=5, total=0, callback_prefix="r"
    )
    assert check_message(empty) == "Newest papers · none yet"
    assert empty.buttons == ()


def test_a_note_is_shown_in_italics_under_the_title() -> None:
    message = render_paper_list(
        page_of(2),
        title="Newest papers",
        page=0,
        per_page=5,
        total=2,
        callback_prefix="r",
        note="Authors I watch & <you> don't follow",
    )
    lines = lines_of(check_message(message))
    assert lines[:3] == ["Newest papers · 2", "Authors I watch & <you> don't follow", ""]
    assert "\n<i>Authors I watch &amp; &lt;you&gt; don't follow</i>\n" in message.html
    assert render_paper_list(
        page_of(2),
        title="Newest papers",
        page=0,
        per_page=5,
        total=2,
        callback_prefix="r",
        note=" ",
    ) == render_paper_list(
        page_of(2), title="Newest papers", page=0, per_page=5, total=2, callback_prefix="r"
    )


def test_list_title_is_bold_shortened_and_escaped() -> None:
    record = make_record(title="Sort &amp; <merge> " + "very long " * 40, authors=("A <B>",))
    message = render_paper_list(
        [record], title="<cs.DC> & more", page=0, per_page=1, total=1, callback_prefix="r"
    )
    lines = lines_of(check_message(message))
    assert lines[0] == "<cs.DC> & more · 1"
    assert lines[2].startswith("1. Sort &amp; <merge> very long")
    assert lines[2].endswith("long…")
    assert len("1. ") + 100 < len(lines[2]) <= len("1. ") + 120
    assert lines[3].startswith("   A <B> · 2026-04-03")


def test_full_page_of_adversarial_records_stays_within_bounds() -> None:
    record = make_record(
        arxiv_id="&" * 100,
        title="😀&" * 1000,
        authors=("<" * 500,) * 3,
        primary_category="&" * 100,
    )
    message = render_paper_list(
        [record] * MAX_PER_PAGE,
        title="&" * 1000,
        page=3,
        per_page=MAX_PER_PAGE,
        total=10_000,
        callback_prefix="p",
    )
    check_message(message)


@pytest.mark.parametrize("per_page", [10, MAX_PER_PAGE])
def test_worst_case_page_far_down_a_huge_list_fits_one_message(per_page: int) -> None:
    records = [
        make_record(
            arxiv_id=f"{index}" + "&" * 100,
            title="😀&<" * 1000,
            authors=("<" * 500, "Dezun Dong"),
            primary_category="&" * 100,
        )
        for index in range(per_page)
    ]
    message = render_paper_list(
        records,
        title="😀&" * 1000,
        page=9_999,  # the furthest page a button may ask for (bot.arguments.list_button)
        per_page=per_page,
        total=10**9,
        callback_prefix="p",
        note="&😀" * 1000,
    )
    lines = lines_of(check_message(message))
    numbered = [line for line in lines if re.match(r"\d+\. ", line)]
    assert len(numbered) == per_page
    assert numbered[-1].startswith(f"{10_000 * per_page}. 😀&<")
    assert all(len(line) > len("199999. ") + 20 for line in numbered)  # titles still say something
    assert message.html.count('<a href="https://arxiv.org/abs/') == per_page


def test_twenty_real_papers_fit_one_message_with_their_titles_whole() -> None:
    records = page_of(MAX_PER_PAGE)
    message = render_paper_list(
        records,
        title="Newest papers of Dezun Dong",
        page=0,
        per_page=MAX_PER_PAGE,
        total=40,
        callback_prefix="r:20",
    )
    lines = lines_of(check_message(message))
    assert lines[0] == "Newest papers of Dezun Dong · 40"
    for number, record in enumerate(records, start=1):
        assert f"{number}. {latex_to_text(record.title)}" in lines
    assert lines[-1] == "   Enda Yu et al. · 2026-04-03 · cs.CR · 2604.00005v1"
    assert message.buttons == ((Button("Older ▶", callback_data="r:20:1"),),)


def test_a_crowded_page_cuts_the_first_author_shorter() -> None:
    record = make_record(authors=("Firstname " + "Verylongsurname " * 10, "Dezun Dong"))

    def author_part(per_page: int) -> str:
        message = render_paper_list(
            [record], title="t", page=0, per_page=per_page, total=1, callback_prefix="r"
        )
        details = lines_of(check_message(message))[3]
        return details.strip().split(" · ")[0]

    roomy, crowded = author_part(10), author_part(11)
    assert roomy.endswith("… et al.")
    assert crowded.endswith("… et al.")
    assert 30 + len(" et al.") < len(roomy) <= 60 + len(" et al.")
    assert len(crowded) <= 30 + len(" et al.")
    assert roomy.startswith(crowded.removesuffix("… et al."))


@pytest.mark.parametrize(
    ("arguments", "problem"),
    [
        ({"per_page": MAX_PER_PAGE + 1}, "per_page"),
        ({"per_page": 0}, "per_page"),
        ({"page": -1}, "page"),
        ({"total": -1}, "page"),
        ({"records": page_of(6)}, "page"),
        ({"callback_prefix": "x" * 63}, "callback"),
        ({"callback_prefix": "é" * 32}, "callback"),
    ],
)
def test_list_refuses_bad_arguments(arguments: dict[str, object], problem: str) -> None:
    call: dict[str, object] = {
        "records": page_of(5),
        "title": "Newest",
        "page": 0,
        "per_page": 5,
        "total": 23,
        "callback_prefix": "recent",
    }
    call.update(arguments)
    records = call.pop("records")
    assert isinstance(records, list)
    with pytest.raises(ValueError, match=problem):
        render_paper_list(records, **call)  # type: ignore[arg-type]


def test_callback_data_up_to_64_bytes_is_accepted() -> None:
    prefix = "x" * 62  # "x…x:1" is 64 bytes
    message = render_paper_list(
        page_of(5), title="t", page=0, per_page=5, total=6, callback_prefix=prefix[:62]
    )
    [[older]] = message.buttons
    assert older.callback_data == prefix + ":1"
    assert older.callback_data is not None
    assert len(older.callback_data.encode()) == 64


def test_callback_round_trip() -> None:
    message = render_paper_list(
        page_of(5), title="t", page=2, per_page=5, total=30, callback_prefix="subj:cs.DC"
    )
    pages = [
        page_from_callback(button.callback_data or "", callback_prefix="subj:cs.DC")
        for row in message.buttons
        for button in row
    ]
    assert pages == [1, 3]
    assert page_from_callback("subj:cs.DC:7", callback_prefix="recent") is None
    assert page_from_callback("recent:-1", callback_prefix="recent") is None
    assert page_from_callback("recent:", callback_prefix="recent") is None
    assert page_from_callback("recent:٣", callback_prefix="recent") is None
    assert page_from_callback("recent:12", callback_prefix="recent") == 12


@pytest.mark.parametrize(
    "make",
    [
        lambda: Button("neither"),
        lambda: Button("both", url="https://x.org", callback_data="a"),
        lambda: Button("empty", callback_data=""),
        lambda: Button("long", callback_data="x" * 65),
    ],
)
def test_invalid_buttons_are_refused(make: Callable[[], Button]) -> None:
    with pytest.raises(ValueError, match=r"button|callback_data"):
        make()


def test_acm_and_msc_classes_have_lines_of_their_own_never_among_the_categories() -> None:
    record = replace(
        make_record(categories=("cs.DC", "math.CO")),
        msc_class="Primary 05C50 & 15A18; Secondary <05C85>",
        acm_class="C.2.4; " + "H.5.4; " * 100,
    )
    message = render_paper(record, marked=follows, category_name=category_name)
    text = check_message(message)
    lines = lines_of(text)
    assert "📂 cs.DC — Distributed, Parallel, and Cluster Computing · also math.CO" in lines
    assert "🏷 MSC: Primary 05C50 & 15A18; Secondary <05C85>" in lines
    assert "🏷 MSC: Primary 05C50 &amp; 15A18; Secondary &lt;05C85&gt;" in message.html
    (acm,) = [line for line in lines if line.startswith("🏷 ACM: C.2.4; H.5.4;")]
    assert len(acm.removeprefix("🏷 ACM: ")) <= 200 and acm.endswith("…")


# --- the summary for a chat that comes back -------------------------------------------------


def test_a_summary_counts_the_papers_and_links_each_title() -> None:
    papers = [
        (make_record(arxiv_id=f"2611.0000{n}", title=f"Paper <{n}> & friends"), "new")
        for n in range(6)
    ]
    message = render_summary(papers)  # type: ignore[arg-type]

    text = check_message(message)
    assert text.splitlines() == ["📬 While you were away: 6 new papers"] + [
        f"• Paper <{n}> & friends" for n in range(6)
    ]
    assert "<b>While you were away: 6 new papers</b>" in message.html
    assert '<a href="https://arxiv.org/abs/2611.00003v1">Paper &lt;3&gt; &amp; friends</a>' in (
        message.html
    )
    assert message.buttons == ()
    assert message.plain == text


def test_a_summary_names_revisions_with_their_version() -> None:
    papers = [
        (make_record(arxiv_id="2611.00001", title="Fresh"), "new"),
        (make_record(arxiv_id="2611.00002", title="Revised", version=3), "revision"),
    ]
    text = check_message(render_summary(papers))  # type: ignore[arg-type]

    assert text.splitlines() == [
        "📬 While you were away: 1 new paper and 1 updated",
        "• Fresh",
        "• Revised (v3)",
    ]


def test_a_long_summary_is_cut_to_one_message_with_how_many_more() -> None:
    long_title = "Interconnection " * 40  # 640 characters, cut to fit
    papers = [
        (make_record(arxiv_id=f"2611.{n:05d}", title=f"{n} {long_title}"), "new")
        for n in range(300)
    ]
    message = render_summary(papers)  # type: ignore[arg-type]

    text = check_message(message)
    lines = text.splitlines()
    assert lines[0] == "📬 While you were away: 300 new papers"
    shown = len(lines) - 2
    assert 20 < shown < 300
    assert lines[-1] == f"… and {300 - shown} more"
    assert all(line.startswith("• ") and line.endswith("…") for line in lines[1:-1])
