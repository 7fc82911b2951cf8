"""Tests for the rendering of one paper in `bot.render`: its content, how its authors are
shortened and marked, escaping, length bounds and the plain fallback, and `visible_length`.

Records are built by hand or from the real ones in `tests/data/followed-author-records.json`.
Every HTML message goes through `telegram_html_text` (`tests.harness.rendering`), a strict checker
that accepts only what Telegram's HTML parse mode accepts and returns the visible text.
"""

from __future__ import annotations

import re
from dataclasses import replace

import pytest

from bot.render import MAX_MESSAGE_LENGTH, Button, render_paper, render_paper_lookup, visible_length
from tests.harness.rendering import (
    check_message,
    follows,
    lines_of,
    make_record,
    nobody,
    real_record,
    utf16_units,
)
from watcher.arxiv.taxonomy import category_name

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
            Button("🌐 HTML", url="https://arxiv.org/html/2604.00001"),
        ),
        (
            Button("❝ Cite", callback_data="a:c:2604.00001"),
            Button("🔖 Save", callback_data="a:s:2604.00001"),
            Button("↗ Share", share_query="2604.00001"),
            Button("📋 Copy id", copy_text="arXiv:2604.00001"),
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
    record = replace(make_record(arxiv_id="2311.00001"), pdf_url="")  # and has no HTML page
    message = render_paper(record, marked=follows)
    assert message.buttons == (
        (Button("📄 Abstract", url=record.abs_url),),
        (
            Button("❝ Cite", callback_data="a:c:2311.00001"),
            Button("🔖 Save", callback_data="a:s:2311.00001"),
            Button("↗ Share", share_query="2311.00001"),
            Button("📋 Copy id", copy_text="arXiv:2311.00001"),
        ),
    )


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
