"""The core's refusals are typed sentences the bot says in the chat's language (issue 31).

Each error the core raises at a person's bad input (a follow rule, a topic, an excluded word, an
author id, a search, a category, a time, a zone, quiet hours, an imported setting, a file, a line
of a file) is raised here with real bad input, then:
- `str(error)` is the English as before (the command line and the logs show it);
- `say(error.sentence)` in Simplified Chinese is Chinese, and keeps what is never translated
  (commands, category codes, syntax words such as OR and HH:MM, the person's own input);
- in the pseudo-locale no English is left outside the translated sentences but the person's own
  input (so no part of the message escaped the catalog, nested sentences included).
The bot's argument parsers then show the Chinese, not the English (`bot.arguments`).
"""

from __future__ import annotations

import html
import re
from collections.abc import Callable
from dataclasses import dataclass

import pytest

from bot import arguments
from bot.handlers.takeout import ask
from bot.handlers.topics import WATCH_EXAMPLE, topic_argument
from bot.i18n import say, speaking
from tests.harness.pseudo_locale import english_left, install_pseudo
from watcher.arxiv.taxonomy import resolve_category
from watcher.calendars.quiet_hours import parse_quiet
from watcher.calendars.schedule import canonical_zone, parse_wall_time, parse_weekdays
from watcher.core.takeout import ImportPlan, read_file
from watcher.follows.excluded_words import parse_excluded
from watcher.follows.follow_list import Skipped, read_text
from watcher.follows.identity import Identity, parse_identity
from watcher.follows.names import check_person_name
from watcher.follows.rules import parse_categories, parse_person, parse_watched
from watcher.follows.search_words import parse_search
from watcher.follows.topics import parse_topic
from watcher.sentences import SaysSentence, Sentence, sentence
from watcher.store.exported_settings import parse_digest

_CJK = re.compile(r"[\u4e00-\u9fff]")


@dataclass(frozen=True)
class Case:
    """A call that refuses, the English it refuses with, what the Chinese keeps as it is, and
    the texts that are the person's own (or a parser's technical detail)."""

    name: str
    call: Callable[[], object]
    english: str
    kept: tuple[str, ...] = ()
    own: tuple[str, ...] = ()


CASES = [
    Case(
        "a one-word name",
        lambda: parse_person("Li"),
        "'Li': a name needs a given name and a family name, as arXiv lists the author",
        own=("Li",),
    ),
    Case(
        "four categories",
        lambda: parse_categories(["cs.DC", "cs.NI", "cs.LG", "math.CO"]),
        "4 categories given; at most 3",
        kept=("4", "3"),
    ),
    Case(
        "no name before in",
        lambda: parse_person("| in cs.DC"),
        "'| in cs.DC' has no name in it; write a given and a family name, e.g. Dezun Dong",
        kept=("Dezun Dong",),
        own=("| in cs.DC",),
    ),
    Case(
        "a wrong ORCID iD in WATCH_AUTHORS",
        lambda: parse_watched("0000-0002-1825-0098"),
        "0000-0002-1825-0098 is not a valid ORCID iD: its check digit (the last character) does "
        "not fit the other digits, so copy it from your ORCID record.",
        kept=("0000-0002-1825-0098", "ORCID iD"),
    ),
    Case(
        "a topic without a category",
        lambda: parse_topic("rdma"),
        "at least one category is required (in cs.DC, for example), so that a topic cannot "
        "bring all of arXiv",
        kept=("in cs.DC", "arXiv"),
    ),
    Case(
        "a lower-case or",
        lambda: parse_topic("gpu or fpga in cs.LG"),
        'write OR in capitals for either of two words, or quote a "phrase with or"',
        kept=("OR",),
    ),
    Case(
        "AND in a topic",
        lambda: parse_topic("gpu AND fpga in cs.LG"),
        "AND is not needed: words side by side must all appear; OR (in capitals) joins "
        "alternatives",
        kept=("AND", "OR"),
    ),
    Case(
        "a parenthesis left open",
        lambda: parse_topic("(gpu OR fpga in cs.LG"),
        "a ( is not closed: close each group of alternatives with )",
        kept=("(", ")"),
    ),
    Case(
        "an unknown category in a topic",
        lambda: parse_topic("rdma in cs.XX"),
        "'cs.XX' is not an arXiv category; did you mean cs.SY, cs.SI, cs.SE?",
        kept=("'cs.XX'", "cs.SY, cs.SI, cs.SE"),
        own=("cs.XX",),
    ),
    Case(
        "a term both ways",
        lambda: parse_topic("network -networks in cs.NI"),
        "'networks' is a form of 'network', which is required: keep one of them",
        kept=("'networks'", "'network'"),
        own=("networks", "network"),
    ),
    Case(
        "a too long topic",
        lambda: parse_topic("rdma " * 30 + "in cs.DC"),
        "that topic is too long (158 characters; at most 100)",
        kept=("158", "100"),
    ),
    Case(
        "an empty excluded word",
        lambda: parse_excluded('""'),
        'give a word or a "quoted phrase" to hold back',
    ),
    Case(
        "a bad arXiv author page",
        lambda: parse_identity("https://arxiv.org/a/Dong"),
        "https://arxiv.org/a/Dong is not an arXiv author id: it is the end of your arXiv author "
        "page's address, like https://arxiv.org/a/dong_d_1 (surname, initial, number).",
        kept=("https://arxiv.org/a/Dong", "https://arxiv.org/a/dong_d_1"),
    ),
    Case(
        "neither a name nor an id",
        lambda: parse_identity("dong:1"),
        "dong:1 is neither a name nor an author id; an author id is the end of an arXiv author "
        "page's address, like https://arxiv.org/a/dong_d_1, and an ORCID iD looks like "
        "0000-0002-1825-0097.",
        kept=("dong:1", "https://arxiv.org/a/dong_d_1", "0000-0002-1825-0097"),
        own=("dong:1",),
    ),
    Case(
        "common words only",
        lambda: parse_search("the of and"),
        "Those are all common words that every paper has; add a rarer one.",
    ),
    Case(
        "OR in a search",
        lambda: parse_search("rdma OR infiniband"),
        "/search finds the papers with every word, and has no OR; a topic has one, for new "
        "papers: /watch rdma OR infiniband in cs.DC.",
        kept=("/search", "/watch rdma OR infiniband in cs.DC"),
    ),
    Case(
        "an unknown category",
        lambda: resolve_category("cs.XX"),
        "Unknown arXiv category 'cs.XX'. Did you mean cs.SY, cs.SI, cs.SE?",
        kept=("'cs.XX'", "cs.SY, cs.SI, cs.SE"),
        own=("cs.XX",),
    ),
    Case(
        "a time of day that is none",
        lambda: parse_wall_time("25:00"),
        "'25:00' is not a time of day; use HH:MM from 00:00 to 23:59, or 8am",
        kept=("'25:00'", "HH:MM", "8am"),
    ),
    Case(
        "a weekday that is none",
        lambda: parse_weekdays("someday"),
        "'someday' is not a day of the week; use one of mon, tue, wed, thu, fri, sat, sun",
        kept=("mon, tue, wed, thu, fri, sat, sun",),
        own=("someday",),
    ),
    Case(
        "a zone near a known one",
        lambda: canonical_zone("Europe/Berlim"),
        "'Europe/Berlim' is not a time zone I know; did you mean Europe/Berlin? Or use an IANA "
        "name such as Europe/Berlin, a city such as Berlin, or an offset such as +8",
        kept=("'Europe/Berlim'", "Europe/Berlin", "+8"),
        own=("Europe/Berlim",),
    ),
    Case(
        "an offset not in use",
        lambda: canonical_zone("UTC+15"),
        "UTC+15 is not an offset in use; offsets go from UTC-12:00 to UTC+14:00",
        kept=("UTC+15", "UTC-12:00", "UTC+14:00"),
    ),
    Case(
        "quiet hours ending as they start",
        lambda: parse_quiet("22:00-22:00"),
        "the quiet hours must end at another time than they start",
    ),
    DIGEST := Case(
        "an imported digest",
        lambda: parse_digest("sometimes"),
        "a digest is off, daily HH:MM, weekdays HH:MM or weekly DAY HH:MM",
        kept=("daily HH:MM", "weekly DAY HH:MM"),
    ),
    Case(
        "an imported digest at no time",
        lambda: parse_digest("daily 25:00"),
        "'25:00' is not a time of day; use HH:MM from 00:00 to 23:59, or 8am",
        kept=("'25:00'",),
    ),
    Case(
        "a file that is no text",
        lambda: read_file(b"\x00\x01"),
        "That is not a text file; send the .txt or .opml file /export made.",
        kept=(".txt", ".opml", "/export"),
    ),
    Case(
        "an OPML file of another root",
        lambda: read_file(b"<rss><channel/></rss>"),
        "That OPML file cannot be read: its root element is <rss>, not <opml>.",
        kept=("<rss>", "<opml>"),
    ),
    Case(
        "a file that is no XML",
        lambda: read_file(b"<opml><body>"),
        "That OPML file cannot be read: it is not well-formed XML (no element found: line 1, "
        "column 12).",
        own=("no element found: line 1, column 12",),
    ),
]


def _refusal(case: Case) -> SaysSentence:
    with pytest.raises(SaysSentence) as raised:
        case.call()
    return raised.value


@pytest.mark.parametrize("case", CASES, ids=[case.name for case in CASES])
def test_the_english_of_a_refusal_is_as_before(case: Case) -> None:
    error = _refusal(case)
    assert str(error) == case.english
    assert str(error.sentence) == case.english


@pytest.mark.parametrize("case", CASES, ids=[case.name for case in CASES])
def test_a_refusal_is_said_in_chinese(case: Case) -> None:
    error = _refusal(case)
    with speaking("zh-Hans"):
        said = say(error.sentence)
    assert _CJK.search(said), said
    for kept in case.kept:
        assert kept in said, (kept, said)


@pytest.mark.parametrize("case", CASES, ids=[case.name for case in CASES])
def test_no_english_is_left_of_a_refusal(case: Case) -> None:
    error = _refusal(case)
    with speaking(install_pseudo()):
        said = say(error.sentence)
    assert english_left(said, exempt=case.own) == []


def test_a_name_that_cannot_be_followed_says_why_in_chinese() -> None:
    problem = check_person_name("Li")
    assert isinstance(problem, Sentence)
    assert str(problem) == "a name needs a given name and a family name, as arXiv lists the author"
    with speaking("zh-Hans"):
        assert _CJK.search(say(problem))


def test_an_author_id_arxiv_does_not_know_is_told_in_chinese() -> None:
    unknown = Identity("orcid", "0000-0002-1825-0097").unknown
    assert str(unknown) == (
        "arXiv knows no author with ORCID iD 0000-0002-1825-0097 (only those their owners "
        "linked to arXiv), so try their arXiv author id"
    )
    with speaking("zh-Hans"):
        said = say(unknown)
    assert _CJK.search(said) and "0000-0002-1825-0097" in said


def test_the_lines_a_file_skips_say_where_and_why_in_chinese() -> None:
    read = read_text("Dezun Dong\nLi\nsave 2604.1\nwatch rdma\n")
    skipped = [(str(s.where), s.text, str(s.reason)) for s in read.skipped]
    assert skipped == [
        (
            "line 2",
            "Li",
            "'Li': a name needs a given name and a family name, as arXiv lists the author",
        ),
        ("line 3", "save 2604.1", "'2604.1' is not an arXiv id"),
        (
            "line 4",
            "watch rdma",
            "at least one category is required (in cs.DC, for example), "
            "so that a topic cannot bring all of arXiv",
        ),
    ]
    with speaking("zh-Hans"):
        said = [(say(s.where), say(s.reason)) for s in read.skipped]
    assert said[0][0] == "第 2 行"
    assert all(_CJK.search(why) for _where, why in said)
    with speaking(install_pseudo()):
        for s in read.skipped:
            assert english_left(say(s.where) + " " + say(s.reason), exempt=["Li", "2604.1"]) == []


@pytest.mark.parametrize(
    ("parse", "words", "english"),
    [
        (
            arguments.search,
            ["the", "of"],
            "Those are all common words that every paper has; add a rarer one.",
        ),
        (arguments.subject, ["cs.DC,cs.NI,cs.LG,math.CO"], "4 categories given; at most 3."),
        (
            arguments.quiet,
            ["22:00-22:00"],
            "The quiet hours must end at another time than they start.",
        ),
        (
            arguments.zone_name,
            ["UTC+15"],
            "UTC+15 is not an offset in use; offsets go from UTC-12:00 to UTC+14:00.",
        ),
        (
            arguments.digest_schedule,
            ["daily", "25:00"],
            "'25:00' is not a time of day; use HH:MM from 00:00 to 23:59, or 8am.",
        ),
        (
            arguments.identity,
            ["0000-0002-1825-0098"],
            "0000-0002-1825-0098 is not a valid ORCID "
            "iD: its check digit (the last character) does not fit the other digits, so copy it "
            "from your ORCID record.",
        ),
        (
            arguments.person_rule,
            ["Li"],
            "A name needs a given name and a family name, as arXiv lists the author.",
        ),
        (
            lambda args: topic_argument(args, example=WATCH_EXAMPLE),
            ["rdma"],
            "At least one "
            "category is required (in cs.DC, for example), so that a topic cannot bring all of "
            "arXiv.",
        ),
    ],
)
def test_the_bot_refuses_arguments_with_the_core_s_sentence_in_the_chat_s_language(
    parse: Callable[[list[str]], object], words: list[str], english: str
) -> None:
    with pytest.raises(arguments.Refused) as in_english:
        parse(words)
    assert in_english.value.wrong == english
    with speaking("zh-Hans"), pytest.raises(arguments.Refused) as in_chinese:
        parse(words)
    wrong = in_chinese.value.wrong
    assert _CJK.search(wrong), wrong
    assert wrong.endswith(("。", "？")), wrong
    with speaking(install_pseudo()), pytest.raises(arguments.Refused) as in_pseudo:
        parse(words)
    assert english_left(in_pseudo.value.wrong, exempt=words) == []


def test_an_import_question_lists_the_skipped_lines_in_the_chat_s_language() -> None:
    read = read_text("# digest: sometimes\nDezun Dong\nLi\nwatch rdma in cs.XX\n")
    plan = ImportPlan(
        read.entries,
        read.skipped,
        {},
        (Skipped(sentence("header"), "digest: sometimes", _refusal(DIGEST).sentence),),
        0,
    )
    with speaking("zh-Hans"):
        shown = ask(plan, "This chat").html.split("\n")
    bullets = [html.unescape(line) for line in shown if "•" in line]
    assert bullets[0].startswith("• 第 3 行, <b>Li</b>: 'Li'：姓名需要有名和姓")
    assert bullets[1].startswith("• 第 4 行, <b>watch rdma in cs.XX</b>: 'cs.XX' 不是 arXiv 分类")
    assert bullets[2].startswith(
        "• 文件头, <b>digest: sometimes</b>: 日报的写法是 off、daily HH:MM"
    )
    with speaking(install_pseudo()):
        bullets = [line for line in ask(plan, "This chat").html.split("\n") if "•" in line]
    own = ["Li", "watch rdma in cs.XX", "digest: sometimes"]
    assert [english_left(line, exempt=own) for line in bullets] == [[], [], []]
