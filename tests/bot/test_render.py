"""Tests for the pure renderers in `bot.render`: content, Telegram HTML validity, and length bounds.

Records are built by hand or from the real ones in `tests/data/followed-author-records.json`.
Every HTML message goes through `telegram_html_text`, a strict checker written for these tests
that accepts only what Telegram's HTML parse mode accepts and returns the visible text.
"""

from __future__ import annotations

import html
import json
import re
from collections.abc import Callable
from dataclasses import replace
from datetime import UTC, datetime

import pytest

from bot.latex import latex_to_text
from bot.render import (
    MAX_MESSAGE_LENGTH,
    MAX_PER_PAGE,
    Button,
    Message,
    page_from_callback,
    render_paper,
    render_paper_list,
    render_paper_lookup,
    render_summary,
    visible_length,
)
from tests.harness.paths import DATA
from watcher.names import is_same_person
from watcher.records import Author, Record
from watcher.taxonomy import category_name

RECORDS_FILE = DATA / "followed-author-records.json"
FOLLOWED = ["Dezun Dong"]


def follows(name: str) -> bool:
    return is_same_person(name, FOLLOWED)


def nobody(name: str) -> bool:
    return False


# --- a strict checker of Telegram HTML ------------------------------------------------------

_ENTITY = re.compile(r"&(?:lt|gt|amp|quot|#[0-9]+|#x[0-9a-fA-F]+);")
_OPEN_TAG = re.compile(r'<(b|i|u|code|blockquote|a)((?: [a-z]+(?:="[^"<>]*")?)*)>')
_CLOSE_TAG = re.compile(r"</(b|i|u|code|blockquote|a)>")
_ATTRIBUTE = re.compile(r' ([a-z]+)(?:="([^"<>]*)")?')
_ALLOWED_ATTRIBUTES = {"a": {"href"}, "blockquote": {"expandable"}}


def telegram_html_text(message: str) -> str:
    """The visible text of `message`; fails the test on anything Telegram would refuse."""
    visible: list[str] = []
    open_tags: list[tuple[str, int]] = []  # each open tag, and how much text preceded it
    position = 0
    while position < len(message):
        character = message[position]
        if character == "<":
            if closing := _CLOSE_TAG.match(message, position):
                assert open_tags, f"closing {closing.group()} with nothing open"
                tag, text_before = open_tags.pop()
                assert tag == closing.group(1), f"misnested at {position}"
                assert len(visible) > text_before, f"empty <{tag}> at {position}"
                position = closing.end()
                continue
            opening = _OPEN_TAG.match(message, position)
            assert opening, f"not an allowed tag: {message[position : position + 30]!r}"
            tag = opening.group(1)
            attributes = dict(_ATTRIBUTE.findall(opening.group(2)))
            assert set(attributes) <= _ALLOWED_ATTRIBUTES.get(tag, set()), opening.group()
            if tag == "a":
                assert html.unescape(attributes["href"]).startswith("https://"), opening.group()
            if tag == "blockquote":
                assert attributes.get("expandable", "") == "", opening.group()
            assert tag not in [open_tag for open_tag, _ in open_tags], f"{tag} inside itself"
            open_tags.append((tag, len(visible)))
            position = opening.end()
        elif character == "&":
            entity = _ENTITY.match(message, position)
            assert entity, f"bare & at {position}: {message[position : position + 20]!r}"
            visible.append(html.unescape(entity.group()))
            position = entity.end()
        else:
            assert character != ">", f"bare > at {position}"
            visible.append(character)
            position += 1
    assert not open_tags, f"left open: {open_tags}"
    return "".join(visible)


def utf16_units(text: str) -> int:
    return len(text.encode("utf-16-le")) // 2


def check_message(message: Message) -> str:
    """Valid HTML within the length limit (with our margin); returns the visible text."""
    text = telegram_html_text(message.html)
    assert visible_length(message.html) == utf16_units(text)
    assert utf16_units(text) <= 4000 < MAX_MESSAGE_LENGTH
    return text


# --- records ----------------------------------------------------------------------------------


def make_record(
    *,
    arxiv_id: str = "2604.01234",
    version: int = 1,
    title: str = "A paper",
    abstract: str = "An abstract.",
    authors: tuple[str, ...] = ("Dezun Dong",),
    primary_category: str = "cs.DC",
    categories: tuple[str, ...] = ("cs.DC",),
    comment: str | None = None,
) -> Record:
    return Record(
        arxiv_id=arxiv_id,
        version=version,
        title=title,
        abstract=abstract,
        authors=tuple(Author(name) for name in authors),
        primary_category=primary_category,
        categories=categories,
        published=datetime(2026, 4, 3, 17, 59, tzinfo=UTC),
        updated=datetime(2026, 4, 10, 9, 0, tzinfo=UTC)
        if version > 1
        else datetime(2026, 4, 3, 17, 59, tzinfo=UTC),
        abs_url=f"https://arxiv.org/abs/{arxiv_id}v{version}",
        pdf_url=f"https://arxiv.org/pdf/{arxiv_id}v{version}",
        comment=comment,
    )


def real_record(index: int, *, authors: tuple[str, ...] | None = None) -> Record:
    data = json.loads(RECORDS_FILE.read_text(encoding="utf-8"))[index]
    return make_record(
        arxiv_id=f"2604.{index + 1:05d}",
        title=data["title"],
        abstract=data["abstract"],
        authors=authors if authors is not None else tuple(data["authors_known"]),
        primary_category=data["primary_category"],
        categories=(data["primary_category"], "cs.LG", "cs.AR"),
    )


def lines_of(text: str) -> list[str]:
    return text.split("\n")


# --- one paper: content -----------------------------------------------------------------------


def test_new_paper_from_a_real_record() -> None:
    record = real_record(0)
    message = render_paper(record, marked=follows, category_name=category_name)
    text = check_message(message)

    assert lines_of(text)[:5] == [
        "🆕 New paper · arXiv:2604.00001v1",
        "Physically Partitioned KVCache Format for CPU–GPU Load Balancing in MoE Inference",
        "👥 ★ Dezun Dong",
        "📂 cs.DC — Distributed, Parallel, and Cluster Computing · also cs.LG, cs.AR",
        "📅 Submitted 2026-04-03",
    ]
    assert (
        "<b>Physically Partitioned KVCache Format for CPU–GPU Load Balancing in MoE Inference</b>"
        in message.html
    )
    assert "<code>2604.00001v1</code>" in message.html
    assert "★ <b><u>Dezun Dong</u></b>" in message.html
    abstract = re.search(r"<blockquote expandable>(.*)</blockquote>", message.html)
    assert abstract is not None
    assert abstract.group(1).startswith("Single-GPU long-context inference")
    assert "Mixtral-8×7B) with a 32 GB VRAM budget" in abstract.group(1)
    assert "speedups of 1.5×–2.5× on A100" in abstract.group(1)
    assert abstract.group(1).endswith("validates composition with native sparse attention.")
    assert "shortened" not in text
    assert message.buttons == (
        (
            Button("📄 Abstract", url="https://arxiv.org/abs/2604.00001v1"),
            Button("📥 PDF", url="https://arxiv.org/pdf/2604.00001v1"),
        ),
    )


@pytest.mark.parametrize("index", range(15))
def test_every_real_record_renders_valid_html_with_the_author_marked(index: int) -> None:
    record = real_record(index)
    message = render_paper(record, marked=follows, category_name=category_name)
    text = check_message(message)
    assert text == message.plain
    assert message.html.count("<u>") == 1
    assert "★ <b><u>Dezun Dong</u></b>" in message.html
    assert "$" not in text
    assert "\\" not in text


def test_revision_says_which_version_and_both_dates() -> None:
    record = make_record(version=2)
    text = check_message(render_paper(record, marked=follows, kind="revision"))
    assert lines_of(text)[0] == "🔄 Updated to v2 · arXiv:2604.01234v2"
    assert "📅 v1 2026-04-03 · v2 2026-04-10" in lines_of(text)
    assert "New paper" not in text


def test_a_looked_up_paper_is_headed_as_a_paper_not_as_news() -> None:
    first = make_record()
    message = render_paper_lookup(first, marked=follows)
    text = check_message(message)
    assert message.html.startswith("📄 <b>Paper</b> · arXiv:<code>2604.01234v1</code>\n")
    assert lines_of(text)[0] == "📄 Paper · arXiv:2604.01234v1"
    assert "📅 Submitted 2026-04-03" in lines_of(text)
    assert text == message.plain

    revised = check_message(render_paper_lookup(make_record(version=3), marked=follows))
    assert lines_of(revised)[0] == "📄 Paper · arXiv:2604.01234v3"
    assert "📅 v1 2026-04-03 · v3 2026-04-10" in lines_of(revised)
    assert "Updated" not in revised
    assert "New paper" not in revised


def test_empty_fields_leave_no_empty_tags() -> None:
    record = make_record(title=" ", abstract="\n", authors=("", "Dezun Dong"), comment="  ")
    text = check_message(render_paper(record, marked=lambda name: True))
    assert lines_of(text) == [
        "🆕 New paper · arXiv:2604.01234v1",
        "(no title)",
        "👥 ★ Dezun Dong",
        "📂 cs.DC",
        "📅 Submitted 2026-04-03",
    ]


def test_no_authors_no_authors_line() -> None:
    text = check_message(render_paper(make_record(authors=(" ",)), marked=follows))
    assert not any(line.startswith("👥") for line in lines_of(text))


def test_unknown_kind_is_refused() -> None:
    with pytest.raises(ValueError, match="kind"):
        render_paper(make_record(), marked=follows, kind="deleted")  # type: ignore[arg-type]


def test_category_without_a_name_and_without_cross_lists() -> None:
    record = make_record(primary_category="xx.YY", categories=("xx.YY",))
    text = check_message(render_paper(record, marked=follows, category_name=category_name))
    assert "📂 xx.YY" in lines_of(text)


def test_comment_is_shown_in_italics_with_latex_made_readable() -> None:
    record = make_record(comment="12 pages, accepted at SC~2026 & <b>IPDPS</b>")
    message = render_paper(record, marked=follows)
    assert "💬 <i>12 pages, accepted at SC 2026 &amp; &lt;b&gt;IPDPS&lt;/b&gt;</i>" in message.html
    check_message(message)


def test_buttons_skip_a_missing_url() -> None:
    record = replace(make_record(), pdf_url="")
    message = render_paper(record, marked=follows)
    assert message.buttons == ((Button("📄 Abstract", url=record.abs_url),),)


# --- one paper: authors -----------------------------------------------------------------------


def authors_line(text: str) -> str:
    [line] = [line for line in lines_of(text) if line.startswith("👥 ")]
    return line.removeprefix("👥 ")


def test_name_variants_of_the_followed_author_are_marked_and_others_are_not() -> None:
    record = make_record(authors=("Daoyi Dong", "Dong Dezun", "D. Dong", "DÉZUN DONG"))
    message = render_paper(record, marked=follows)
    assert authors_line(check_message(message)) == "Daoyi Dong, ★ Dong Dezun, D. Dong, ★ DÉZUN DONG"
    assert message.html.count("★ <b><u>") == 2


def test_no_one_is_marked_when_the_caller_marks_no_one() -> None:
    record = make_record(authors=("Enda Yu", "Dezun Dong"))
    message = render_paper(record, marked=nobody)
    assert authors_line(check_message(message)) == "Enda Yu, Dezun Dong"
    assert "★" not in message.html


def test_long_author_list_is_shortened_but_keeps_the_marked_author() -> None:
    names = tuple(f"Author Number{i}" for i in range(100))
    names = (*names[:40], "Dezun Dong", *names[40:])
    text = check_message(render_paper(make_record(authors=names), marked=follows))
    assert authors_line(text) == (
        "Author Number0, Author Number1, Author Number2, Author Number3, Author Number4, …, "
        "★ Dezun Dong and 95 others"
    )


def test_short_author_list_is_shown_whole() -> None:
    names = tuple(f"Author {i}" for i in range(10))
    text = check_message(render_paper(make_record(authors=names), marked=follows))
    assert authors_line(text) == ", ".join(names)


def test_eleven_authors_show_five_and_a_count() -> None:
    names = tuple(f"Author {i}" for i in range(11))
    text = check_message(render_paper(make_record(authors=names), marked=follows))
    assert authors_line(text) == ", ".join(names[:5]) + " and 6 others"


def test_the_marked_author_after_a_gap_and_one_hidden_author() -> None:
    names = (*(f"A{i}" for i in range(5)), "Zed", *(["Dezun Dong"] * 5))
    text = check_message(render_paper(make_record(authors=names), marked=follows))
    assert (
        authors_line(text)
        == "A0, A1, A2, A3, A4, …, " + ", ".join(["★ Dezun Dong"] * 5) + " and 1 other"
    )


def test_the_marked_author_last_of_many() -> None:
    names = (*(f"A{i}" for i in range(11)), "Dezun Dong")
    text = check_message(render_paper(make_record(authors=names), marked=follows))
    assert authors_line(text) == "A0, A1, A2, A3, A4, …, ★ Dezun Dong and 6 others"


def test_five_hundred_marked_authors_stay_within_bounds() -> None:
    names = tuple(f"Dezun Dong <b>{i}</b> &amp;" for i in range(500))
    message = render_paper(make_record(authors=names), marked=lambda name: True)
    line = authors_line(check_message(message))
    assert line.startswith("★ Dezun Dong <b>0</b> &amp;, ★ Dezun Dong <b>1</b> &amp;, ")
    shown = line.count("★")
    assert 10 < shown < 500
    assert line.endswith(f" and {500 - shown} others")


# --- one paper: escaping and length -----------------------------------------------------------


def test_tag_lookalikes_and_entities_in_data_are_shown_as_typed() -> None:
    record = make_record(
        title="<b>Bold</b> claims & <script>alert(1)</script> &amp; A<B>C",
        abstract="latency < 200 µs, A&B, x > y, &lt;tag&gt; and &#65; stay literal",
        authors=("O'Brien <ob@x.org>", "Dezun Dong"),
    )
    message = render_paper(record, marked=follows)
    text = check_message(message)
    assert lines_of(text)[1] == "<b>Bold</b> claims & <script>alert(1)</script> &amp; A<B>C"
    assert authors_line(text) == "O'Brien <ob@x.org>, ★ Dezun Dong"
    assert "latency < 200 µs, A&B, x > y, &lt;tag&gt; and &#65; stay literal" in text
    assert "<script>" not in message.html


def test_huge_abstract_is_cut_at_a_word_boundary_with_a_pointer_to_arxiv() -> None:
    words = [f"w{i}&<x>" for i in range(2000)]  # every & and < grows fourfold in the HTML
    record = make_record(abstract=" ".join(words), title="T" * 1000)
    message = render_paper(record, marked=follows)
    text = check_message(message)
    assert len(message.html) > MAX_MESSAGE_LENGTH  # the bound is on what is visible
    lines = lines_of(text)
    shown = lines[-2]
    assert shown.endswith("…")
    assert " ".join(words).startswith(shown.removesuffix("…") + " ")
    assert utf16_units(text) > 3900  # the room was used, not wasted
    assert lines[-1] == "✂ Abstract shortened. Full text: https://arxiv.org/abs/2604.01234v1"
    assert lines[1] == "T" * 399 + "…"  # no space in it: cut where it has to be


def test_astral_characters_count_twice() -> None:
    record = make_record(abstract="😀 " * 5000)
    message = render_paper(record, marked=follows)
    text = check_message(message)
    # About 4000 UTF-16 units, but far fewer characters: each emoji counts two.
    assert 3900 < utf16_units(text) <= 4000
    assert len(text) < 2800
    assert lines_of(text)[-2].endswith("😀…")


def test_everything_huge_at_once_stays_within_bounds() -> None:
    record = make_record(
        arxiv_id="9" * 200,
        title="&" * 1000,
        abstract="& " * 10_000,
        authors=tuple("<" * 300 for _ in range(500)),
        categories=tuple(f"cat.{i}&" for i in range(500)),
        comment="💬" * 1000,
    )
    message = render_paper(record, marked=lambda name: True, category_name=lambda c: "&" * 500)
    text = check_message(message)
    plain = message.plain
    assert text == plain
    assert "✂ Abstract shortened" in text


def test_plain_fallback_has_the_same_text_and_no_markup() -> None:
    record = make_record(
        title="Fast $O(n^2)$ <sorting>", abstract="We sort & merge.", authors=("Dezun Dong",)
    )
    message = render_paper(record, marked=follows, kind="new", category_name=category_name)
    plain = message.plain
    assert plain == check_message(message)
    assert lines_of(plain) == [
        "🆕 New paper · arXiv:2604.01234v1",
        "Fast O(n²) <sorting>",
        "👥 ★ Dezun Dong",
        "📂 cs.DC — Distributed, Parallel, and Cluster Computing",
        "📅 Submitted 2026-04-03",
        "We sort & merge.",
    ]


# --- visible_length -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("markup", "length"),
    [
        ("plain", 5),
        ("<b>a&amp;b</b>", 3),
        ('<a href="https://x.org/?a=1&amp;b=2">link</a>', 4),
        ("&lt;b&gt;", 3),
        ("😀", 2),
        ("<blockquote expandable>é\n😀</blockquote>", 4),
    ],
)
def test_visible_length(markup: str, length: int) -> None:
    assert visible_length(markup) == length


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
    assert lines[0] == "Newest papers (6–10 of 23)"
    assert message.html.startswith("<b>Newest papers</b> (6–10 of 23)\n")
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
    assert lines_of(check_message(last))[0] == "cs.DC (6–8 of 8)"


def test_single_page_and_empty_lists_have_no_buttons() -> None:
    single = render_paper_list(
        page_of(2), title="Newest papers", page=0, per_page=5, total=2, callback_prefix="r"
    )
    assert single.buttons == ()
    empty = render_paper_list(
        [], title="Newest papers", page=0, per_page=5, total=0, callback_prefix="r"
    )
    assert check_message(empty) == "Newest papers (none yet)"
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
    assert lines[:3] == ["Newest papers (1–2 of 2)", "Authors I watch & <you> don't follow", ""]
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
    assert lines[0] == "<cs.DC> & more (1–1 of 1)"
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
    assert lines[0] == "Newest papers of Dezun Dong (1–20 of 40)"
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
