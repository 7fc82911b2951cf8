"""Compact announcements as pure rendering (`bot.render.compact`): one line per paper, the
linked title, the followed authors ★ and the primary category; lines packed into messages that
each fit Telegram's 4096 limit, every paper in exactly one of them."""

from __future__ import annotations

from bot.render import MAX_MESSAGE_LENGTH, CompactEntry, render_compact, visible_length
from tests.fakes.corpus import make_record
from watcher.kinds import NewsKind


def followed(name: str) -> bool:
    return name == "Dezun Dong"


def test_a_line_holds_the_linked_title_the_followed_authors_and_the_category() -> None:
    record = make_record(
        arxiv_id="2611.00001",
        title="Routing <fast> & far",
        authors=["Ann Other", "Dezun Dong"],
        primary_category="cs.NI",
    )
    (page,) = render_compact([CompactEntry(record, NewsKind.NEW, followed)])

    assert page.message.plain == "Routing <fast> & far · ★ Dezun Dong · cs.NI"
    assert page.message.html == (
        '<a href="https://arxiv.org/abs/2611.00001v1">Routing &lt;fast&gt; &amp; far</a>'
        " · ★ <b>Dezun Dong</b> · cs.NI"
    )
    assert page.covers == (0,)


def test_a_revision_says_its_version_and_a_topic_hit_names_nobody() -> None:
    record = make_record(arxiv_id="2611.00002", version=3, title="T", authors=["Ann Other"])
    (page,) = render_compact([CompactEntry(record, NewsKind.REVISION, followed)])
    assert page.message.plain == "🔄 T (v3) · cs.DC"


def test_lines_past_the_limit_go_in_a_second_message_each_paper_once() -> None:
    title = "A long title about interconnection networks " * 4  # about 180 characters
    entries = [
        CompactEntry(
            make_record(arxiv_id=f"2611.{n:05d}", title=f"{n} {title}"), NewsKind.NEW, followed
        )
        for n in range(30)
    ]

    pages = render_compact(entries)

    assert len(pages) == 2
    assert [i for page in pages for i in page.covers] == list(range(30))
    for page in pages:
        assert visible_length(page.message.html) == len(page.message.plain) <= MAX_MESSAGE_LENGTH
    # The first message is full: the next line would not have fitted.
    first_of_second = len(pages[1].message.plain.split("\n")[0])
    assert len(pages[0].message.plain) + 1 + first_of_second > 4000
