"""A revision's message (`bot.render.paper`) says what changed, each field on its own, and shows
the abstract again only when it changed; a paper whose changes are unknown shows it as before;
the topics that found a paper are named. Pure rendering: no database."""

from __future__ import annotations

from dataclasses import replace

import pytest

from bot.render import render_paper
from bot.render.actions import Cause, html_url, parse_action
from tests.harness.rendering import check_message, follows, lines_of, make_record
from watcher.arxiv.records import CHANGEABLE
from watcher.kinds import NewsKind

SHOWN = {
    "title": "title", "authors": "authors", "abstract": "abstract", "categories": "categories",
    "comment": "comments", "journal_ref": "journal reference", "doi": "DOI",
}  # fmt: skip
ABSTRACT = "We study something carefully and report what we found."


@pytest.mark.parametrize("field", CHANGEABLE)
def test_each_changed_field_is_named(field: str) -> None:
    record = replace(make_record(abstract=ABSTRACT), version=2, changes=frozenset({field}))

    text = check_message(render_paper(record, marked=follows, kind=NewsKind.REVISION))

    assert f"✏️ Changed: {SHOWN[field]}" in lines_of(text)
    if field == "abstract":
        assert ABSTRACT in text and "Abstract unchanged" not in text
    else:
        assert ABSTRACT not in text
        assert lines_of(text)[-1] == "📝 Abstract unchanged: on the abstract page."


def test_several_changes_in_order_none_and_unknown() -> None:
    record = replace(make_record(abstract=ABSTRACT), version=3)
    several = replace(record, changes=frozenset({"doi", "title", "authors"}))
    text = check_message(render_paper(several, marked=follows, kind=NewsKind.REVISION))
    assert "✏️ Changed: title, authors, DOI" in lines_of(text)

    none = replace(record, changes=frozenset())
    text = check_message(render_paper(none, marked=follows, kind=NewsKind.REVISION))
    assert "✏️ Same title, authors and abstract: the changes are in the paper itself." in text

    unknown = check_message(render_paper(record, marked=follows, kind=NewsKind.REVISION))
    assert "✏️" not in unknown and ABSTRACT in unknown
    # A new paper never says what changed, whatever its record carries.
    new = check_message(render_paper(several, marked=follows, kind=NewsKind.NEW))
    assert "✏️" not in new and ABSTRACT in new


def test_topics_are_named_and_the_cause_gets_its_button() -> None:
    record = replace(make_record(arxiv_id="2611.00001"), journal_ref="J. Par. Dist. 9 (2027)")
    message = render_paper(
        record,
        marked=follows,
        topics=["rdma in cs.DC", "<b>x</b> & y in cs.NI"],
        cause=Cause(17, "A Very Long Person Name That Goes On and On"),
    )
    text = check_message(message)

    assert lines_of(text)[1:3] == ["🔎 rdma in cs.DC", "🔎 <b>x</b> & y in cs.NI"]
    assert "📰 J. Par. Dist. 9 (2027)" in lines_of(text)
    unfollow = message.buttons[-1][-1]
    assert unfollow.text == "🔕 Unfollow A Very Long Person Name…"
    assert unfollow.callback_data == "a:u:17:2611.00001"
    assert parse_action("a:u:17:2611.00001") is not None
    topic = render_paper(record, marked=follows, cause=Cause(3, "rdma in cs.DC", topic=True))
    assert topic.buttons[-1][-1].text == "🔕 Mute topic"


@pytest.mark.parametrize(
    ("arxiv_id", "has_html"),
    [("2312.00001", True), ("2604.12345", True), ("2311.99999", False), ("hep-th/9901001", False)],
)
def test_html_pages_for_papers_since_december_2023(arxiv_id: str, has_html: bool) -> None:
    url = html_url(make_record(arxiv_id=arxiv_id))
    assert url == (f"https://arxiv.org/html/{arxiv_id}" if has_html else None)


@pytest.mark.parametrize("data", ["a:", "a:c:", "a:u:x:2611.1", "a:u:1:", "a:k:x", "r:1", ""])
def test_callback_data_no_button_makes_is_refused(data: str) -> None:
    assert parse_action(data) is None
