"""The export file formats, read and written without a database (issue 21, item 5): the plain
list (`watcher.follows.follow_list`), OPML (`watcher.follows.follow_opml`) and the checks every file
passes first (`watcher.core.takeout.read_file`)."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from watcher.core.takeout import MAX_FILE_BYTES, FileRefused, read_file
from watcher.follows.follow_list import parse_rule, read_text, render_text, rule_line
from watcher.follows.follow_opml import feed_url, read_opml, render_opml
from watcher.follows.identity import Identity
from watcher.follows.rules import PersonRule
from watcher.follows.topics import parse_topic
from watcher.sentences import sentence

RULES = [
    PersonRule(("Dezun Dong", "De-Zun Dong")),
    PersonRule(("Wei Wang",), ("cs.DC", "cs.NI")),
    Identity("arxiv", "dong_d_1"),
    Identity("orcid", "0000-0002-1825-0097"),
    parse_topic('"remote direct memory access" RDMA -ethernet in cs.DC,cs.NI'),
    parse_topic('"graph neural" (gpu OR fpga) -survey in cs.LG'),  # issue 32: OR
    parse_topic("in cs.DC,cs.NI"),  # a whole category: shown "all of cs.DC,cs.NI"
]
SETTINGS = {
    "timezone": "Asia/Shanghai",
    "digest": "weekdays 08:00",
    "paused": "yes",
    "quiet": "22:00-07:00",
    "silent": "on",
    "format": "compact",
    "frob": "3",  # a key this version does not know
}
NOW = datetime(2026, 12, 3, 9, 40, tzinfo=UTC)


def test_each_kind_of_follow_is_one_line_read_back_as_itself() -> None:
    lines = [rule_line(rule) for rule in RULES]
    assert lines == [
        "subscribe Dezun Dong|De-Zun Dong",
        "subscribe Wei Wang in cs.DC,cs.NI",
        "subscribe arxiv:dong_d_1",
        "subscribe orcid:0000-0002-1825-0097",
        'watch "remote direct memory access" rdma -ethernet in cs.DC,cs.NI',
        'watch "graph neural" (fpga OR gpu) -survey in cs.LG',
        "watch in cs.DC,cs.NI",
    ]
    assert [parse_rule(line) for line in lines] == RULES


def test_a_list_carries_its_settings_and_reads_back_exactly() -> None:
    text = render_text([(rule, None) for rule in RULES], SETTINGS, title=sentence("chat 42"))
    assert "# paused: yes\n# quiet: 22:00-07:00\n# silent: on\n# format: compact\n" in text
    read = read_text(text)
    assert [entry.rule for entry in read.entries] == RULES
    assert dict(read.settings) == SETTINGS  # a key this version does not know is kept too
    assert read.skipped == ()


def test_a_hand_written_list_is_read_as_the_commands_and_watch_authors_read_it() -> None:
    read = read_text(
        "# note: kept as a setting, as it comes before the first follow\n"
        "Dezun Dong\n"
        "/subscribe@arxiv_watcher_bot Yemao Xu  # a comment\n"
        "https://arxiv.org/a/dong_d_1\n"
        "\n"
        "Li\n"
        "# digest: daily 09:00  (after a follow: only a comment)\n"
        "0000-0002-1825-0098\n"
        "watch rdma\n"
    )
    assert [entry.rule for entry in read.entries] == [
        PersonRule(("Dezun Dong",)),
        PersonRule(("Yemao Xu",)),
        Identity("arxiv", "dong_d_1"),
    ]
    assert [str(entry.where) for entry in read.entries] == ["line 2", "line 3", "line 4"]
    assert dict(read.settings) == {"note": "kept as a setting, as it comes before the first follow"}
    assert [(str(s.where), s.text) for s in read.skipped] == [
        ("line 6", "Li"),
        ("line 8", "0000-0002-1825-0098"),
        ("line 9", "watch rdma"),
    ]
    reasons = [str(s.reason) for s in read.skipped]
    assert "a name needs a given name and a family name" in reasons[0]
    assert "check digit" in reasons[1]
    assert reasons[2].startswith("at least one category is required")


def test_opml_points_readers_at_arxiv_feeds_and_reads_back_exactly() -> None:
    document = render_opml([(rule, None) for rule in RULES], SETTINGS, title="chat 42", now=NOW)
    text = document.decode("utf-8")
    assert text.startswith('<?xml version="1.0" encoding="UTF-8"?>\n<opml version="2.0">')
    assert 'xmlUrl="https://arxiv.org/a/dong_d_1.atom"' in text
    assert 'xmlUrl="https://arxiv.org/a/0000-0002-1825-0097.atom"' in text
    assert 'xmlUrl="https://rss.arxiv.org/rss/cs.DC+cs.NI"' in text  # arXiv's listing feed
    assert feed_url(RULES[1]) == (
        "https://export.arxiv.org/api/query?search_query=%28au%3A%22Wei+Wang%22%29+AND+"
        "%28cat%3Acs.DC+OR+cat%3Acs.NI%29&sortBy=submittedDate&sortOrder=descending"
    )
    read = read_opml(text)
    assert [entry.rule for entry in read.entries] == RULES
    assert dict(read.settings) == SETTINGS


def test_a_foreign_opml_of_arxiv_feeds_is_read_by_its_addresses() -> None:
    """Author feeds are those identities, one author's API query that name, and a category
    feed the whole category, as /watch in cs.DC follows it."""
    read = read_opml(
        """<opml version="1.1"><head/><body><outline text="Papers">
        <outline text="A" xmlUrl="https://arxiv.org/a/dong_d_1.atom2"/>
        <outline text="B" xmlUrl="http://arxiv.org/a/0000-0002-1825-0097"/>
        <outline text="C" xmlUrl="http://rss.arxiv.org/atom/cs.DC+cs.NI"/>
        <outline text="D" xmlUrl="https://export.arxiv.org/api/query?search_query=au:%22Yemao+Xu%22"/>
        <outline text="E" xmlUrl="https://export.arxiv.org/api/query?search_query=all:rdma"/>
        <outline text="F" xmlUrl="https://example.org/feed.xml"/>
        <outline text="G" xmlUrl="https://rss.arxiv.org/rss/cs.XX"/>
        <outline text="H" xmlUrl="https://export.arxiv.org/rss/math.CO/"/>
        <outline text="no feed at all"/>
        </outline></body></opml>"""
    )
    assert [entry.rule for entry in read.entries] == [
        Identity("arxiv", "dong_d_1"),
        Identity("orcid", "0000-0002-1825-0097"),
        parse_topic("in cs.DC,cs.NI"),
        PersonRule(("Yemao Xu",)),
        parse_topic("in math.CO"),
    ]
    assert [rule_line(entry.rule) for entry in read.entries][2::2] == [
        "watch in cs.DC,cs.NI",
        "watch in math.CO",
    ]
    assert [(str(s.where), s.text) for s in read.skipped] == [
        ("outline 5", "E"),
        ("outline 6", "F"),
        ("outline 7", "G"),
    ]
    assert str(read.skipped[0].reason) == "an arXiv API query other than one author's name"
    assert str(read.skipped[2].reason).startswith("'cs.XX' is not an arXiv category; did you mean")


BOMB = (
    b'<?xml version="1.0"?><!DOCTYPE b [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;">]>'
    b"<opml><body>&b;</body></opml>"
)
EXTERNAL = (
    b'<?xml version="1.0"?><!DOCTYPE o [<!ENTITY x SYSTEM "file:///etc/passwd">]>'
    b'<opml><body><outline text="&x;" xmlUrl="https://arxiv.org/a/dong_d_1.atom"/></body></opml>'
)


@pytest.mark.parametrize(
    ("data", "refusal"),
    [
        (b"x" * (MAX_FILE_BYTES + 1), "That file is too large (256 KB); a follow list is at most"),
        (b"\x89PNG\r\n\x1a\n\x00\x00", "That is not a text file"),
        ("Dézun Dong".encode("utf-16"), "That is not a text file"),
        ("Dézun Dong".encode("latin-1"), "That file is not UTF-8 text"),
        (b"<opml><body>", "That OPML file cannot be read: it is not well-formed XML"),
        (b"<rss><channel/></rss>", "its root element is <rss>, not <opml>"),
        (BOMB, "it declares XML entities or a DTD, which I refuse"),
        (EXTERNAL, "it declares XML entities or a DTD, which I refuse"),
    ],
)
def test_a_file_that_cannot_be_read_is_refused_in_one_sentence(data: bytes, refusal: str) -> None:
    with pytest.raises(FileRefused) as refused:
        read_file(data)
    assert refusal in str(refused.value)


def test_a_byte_order_mark_and_the_largest_file_are_fine() -> None:
    line = b"subscribe Dezun Dong\n"
    data = b"\xef\xbb\xbf" + line * ((MAX_FILE_BYTES - 3) // len(line))
    read = read_file(data)
    assert read.entries[0].rule == PersonRule(("Dezun Dong",))
    assert len(read.entries) == 1000  # the rest is one note, not thousands of lines
    assert str(read.skipped[-1].reason).endswith("more lines not read (at most 1000)")
