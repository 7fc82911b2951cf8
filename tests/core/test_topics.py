"""Tests for topics: parsing what a user asks to watch, matching papers, the API query."""

from __future__ import annotations

import random

import pytest

from tests.fakes.arxiv_api.query import parse_search_query
from tests.fakes.corpus import make_record as corpus_record
from watcher.arxiv.records import Record
from watcher.follows.stemming import stem
from watcher.follows.topics import (
    MAX_CATEGORIES,
    MAX_TERMS,
    MAX_TOPIC_LENGTH,
    Topic,
    TopicError,
    TopicIndex,
    parse_topic,
    topic_from_stored,
    words_of,
)

RDMA = parse_topic('"remote direct memory access" RDMA -ethernet in cs.DC,cs.NI')


def make_record(title: str, abstract: str, categories: tuple[str, ...] = ("cs.DC",)) -> Record:
    return corpus_record(
        title=title, abstract=abstract, primary_category=categories[0], categories=categories
    )


# ---------------------------------------------------------------- parsing


def test_a_topic_is_parsed_into_phrases_words_exclusions_and_categories() -> None:
    assert RDMA.phrases == (("remote", "direct", "memory", "access"),)
    assert RDMA.words == ("rdma",)
    assert RDMA.excluded == (("ethernet",),)
    assert RDMA.categories == ("cs.DC", "cs.NI")


def test_one_topic_has_one_canonical_text_whatever_the_order_case_and_quotes() -> None:
    same = [
        '"remote direct memory access" RDMA -ethernet in cs.DC,cs.NI',
        "RDMA   “Remote Direct Memory Access” -Ethernet in cs.ni, cs.dc",
        '-ethernet rdma "remote direct memory access" rdma in cs.NI cs.DC cs.DC',
    ]
    topics = {parse_topic(text) for text in same}
    assert topics == {RDMA}
    assert RDMA.text == '"remote direct memory access" rdma -ethernet'
    assert RDMA.rule_key == 'topic:"remote direct memory access" rdma -ethernet in cs.DC,cs.NI'
    assert str(RDMA) == '"remote direct memory access" rdma -ethernet in cs.DC,cs.NI'


def test_the_stored_text_gives_the_same_topic_back() -> None:
    assert topic_from_stored(RDMA.text, RDMA.categories) == RDMA
    accented = parse_topic('"Schrödinger équation" in quant-ph')
    assert topic_from_stored(accented.text, ["quant-ph"]) == accented


def test_the_last_bare_in_starts_the_categories_and_a_quoted_in_is_a_word() -> None:
    topic = parse_topic('"learning in games" in cs.GT')
    assert topic.phrases == (("learning", "in", "games"),)
    assert topic.categories == ("cs.GT",)
    assert parse_topic("learning in games in cs.GT").words == ("games", "in", "learning")


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("", "the topic is empty"),
        ("+ & in cs.DC", "the topic is empty"),
        ("-ethernet -wifi in cs.NI", "excluded words only"),
        ("RDMA", "at least one category is required (in cs.DC, for example)"),
        ("RDMA in", "at least one category is required"),
        ("RDMA in cs.DC,cs.NI,cs.OS,cs.AR", f"4 categories given; at most {MAX_CATEGORIES}"),
        ("RDMA in cs.XX", "'cs.XX' is not an arXiv category; did you mean"),
        ("RDMA in networking", "'networking' is not an arXiv category"),
        ("RDMA AND InfiniBand in cs.DC", "AND is not needed"),
        ('"remote direct in cs.DC', "a quote is not closed"),
        ("rdma -RDMA in cs.DC", "both required and excluded"),
        (" ".join(f"w{i}" for i in range(MAX_TERMS + 1)) + " in cs.DC", "at most 10 words"),
        ("x" * (MAX_TOPIC_LENGTH + 1) + " in cs.DC", "too long"),
        # 89 characters typed, 109 as stored: each "x0-y-zzz" is the phrase "x0 y zzz"
        (" ".join(f"x{i}-y-zzz" for i in range(MAX_TERMS)) + " in cs.DC", "as stored"),
    ],
)
def test_bad_topics_are_refused_in_one_line_that_says_what_would_do(text: str, says: str) -> None:
    with pytest.raises(TopicError) as refused:
        parse_topic(text)
    message = str(refused.value)
    assert says in message
    assert "\n" not in message


def test_an_unknown_category_suggests_the_nearest_ones() -> None:
    with pytest.raises(TopicError, match=r"did you mean .*cs\.DS"):
        parse_topic("RDMA in cs.DX")
    with pytest.raises(TopicError, match=r"did you mean cs\.DC"):
        parse_topic("RDMA in cs.dcc")


# ---------------------------------------------------------------- matching


def test_words_fold_case_accents_and_split_at_punctuation() -> None:
    assert words_of("Schrödinger's RDMA-based Ørsted, İstanbul; x_y") == [
        "schrodinger",
        "s",
        "rdma",
        "based",
        "orsted",
        "istanbul",
        "x",
        "y",
    ]


@pytest.mark.parametrize(
    ("title", "abstract", "matches"),
    [
        ("RDMA over InfiniBand", "Using remote direct memory access at scale.", True),
        ("rdma-based storage", "REMOTE DIRECT MEMORY ACCESS, again.", True),
        ("A study", "Rémote dïrect memory áccess with RDMA.", True),  # accents ignored
        ("RDMAX storage", "remote direct memory access", False),  # whole words only
        ("RDMA storage", "remote direct memory accesses", True),  # a word form: its stem
        ("RDMA storage", "remote memory direct access", False),  # a phrase keeps its order
        ("RDMA storage remote direct", "memory access", False),  # no phrase across title/abstract
        ("RDMA over Ethernet", "remote direct memory access", False),  # excluded
        ("RDMA", "remote direct memory access, not ethernets", False),  # forms excluded too
        ("RDMA", "remote direct memory access, not ethernetx", True),  # whole-word exclusion
    ],
)
def test_a_topic_matches_whole_words_ignoring_case_and_accents(
    title: str, abstract: str, matches: bool
) -> None:
    assert RDMA.matches(title, abstract, ["cs.DC"]) is matches


NETWORKS = (
    "Adaptive Routing for Low-Latency Interconnection Networks",
    "Interconnection networks …",
)


def test_words_match_by_their_stems_and_phrases_stem_by_stem() -> None:
    topic = parse_topic("interconnection network in cs.NI")
    assert topic.matches(*NETWORKS, ["cs.NI"])
    assert parse_topic('"interconnection network" in cs.NI').matches(*NETWORKS, ["cs.NI"])
    assert parse_topic('"interconnection networks" in cs.NI').matches(
        "An Interconnection Network for Chiplets", "", ["cs.NI"]
    )
    assert not parse_topic('"network interconnection" in cs.NI').matches(*NETWORKS, ["cs.NI"])
    # "routing" finds "route" only because the Snowball stemmer gives both one stem.
    assert parse_topic("routing in cs.NI").matches("Route planning", "", ["cs.NI"]) is (
        stem("routing") == stem("route")
    )
    assert not parse_topic("router in cs.NI").matches("Route planning", "", ["cs.NI"])


@pytest.mark.parametrize("text", ["RDMAX", "RDMAXs", "rdmax-based", "xRDMA", "RDMA2"])
def test_a_stem_is_of_one_whole_word_so_rdma_never_matches_a_longer_word(text: str) -> None:
    assert not parse_topic("RDMA in cs.DC").matches(text, f"{text} transports", ["cs.DC"])
    index = TopicIndex([(1, parse_topic("RDMA in cs.DC"))])
    assert index.match(text, f"{text} transports", ["cs.DC"]) == frozenset()
    assert index.match("RDMA", "", ["cs.DC"]) == {1}


def test_the_canonical_text_and_api_query_keep_the_words_not_their_stems() -> None:
    topic = parse_topic("Interconnection Networks routing in cs.NI")
    assert topic.text == "interconnection networks routing"
    assert topic_from_stored(topic.text, topic.categories) == topic
    assert topic.key_words == ("interconnection",)
    assert topic.key_stems == (stem("interconnection"),)
    assert topic.query == (
        '(ti:"interconnection" OR abs:"interconnection") AND '
        '(ti:"networks" OR abs:"networks") AND (ti:"routing" OR abs:"routing") AND (cat:cs.NI)'
    )
    # arXiv stems the query itself (the fake with another stemmer, Porter): still found.
    singular = parse_topic("interconnection network in cs.NI")
    assert parse_search_query(singular.query)(make_record(*NETWORKS, ("cs.NI",)))


def test_a_topic_stored_before_stems_matches_word_forms_as_read() -> None:
    stored = topic_from_stored('"interconnection network" -ethernet', ["cs.NI"])
    assert stored.text == '"interconnection network" -ethernet'
    assert stored.matches(*NETWORKS, ["cs.NI"])
    index = TopicIndex([(7, stored)])
    assert index.match(*NETWORKS, ["cs.NI"]) == {7}
    assert index.match(NETWORKS[0], "over Ethernets", ["cs.NI"]) == frozenset()


def test_requiring_and_excluding_two_forms_of_one_word_is_refused() -> None:
    with pytest.raises(TopicError, match="'networks' is a form of 'network', which is required"):
        parse_topic("network -networks in cs.NI")
    # a stored one is read, not refused
    assert topic_from_stored("network -networks", ["cs.NI"]).excluded == (("networks",),)


def test_a_topic_matches_only_papers_in_one_of_its_categories_primary_or_cross_list() -> None:
    title, abstract = "RDMA", "remote direct memory access"
    assert RDMA.matches(title, abstract, ["cs.NI"])
    assert RDMA.matches(title, abstract, ["cs.OS", "cs.DC"])  # a cross-list
    assert not RDMA.matches(title, abstract, ["cs.OS"])
    assert not RDMA.matches(title, abstract, [])


def test_the_index_finds_every_matching_topic_and_no_other() -> None:
    rng = random.Random(9)
    vocabulary = [f"word{i}" for i in range(60)] + ["rdma", "memory", "graph", "quantum"]
    categories = ["cs.DC", "cs.NI", "cs.LG", "quant-ph"]
    topics: list[Topic] = []
    for _ in range(300):
        terms = rng.sample(vocabulary, rng.randint(1, 3))
        text = " ".join(
            f'"{terms[0]} {terms[-1]}"' if len(terms) > 2 and rng.random() < 0.5 else term
            for term in terms
        )
        if rng.random() < 0.2:
            text += " -" + rng.choice(vocabulary)
        if rng.random() < 0.05:
            text = ""  # a whole category
        try:
            topics.append(parse_topic(f"{text} in {rng.choice(categories)}"))
        except TopicError:
            continue  # a word drawn both required and excluded
    index = TopicIndex(enumerate(topics))
    assert len(index) == len(topics)
    for _ in range(300):
        title = " ".join(rng.choices(vocabulary, k=6))
        abstract = " ".join(rng.choices(vocabulary, k=40))
        paper_categories = rng.sample(categories, rng.randint(1, 2))
        expected = {
            i for i, topic in enumerate(topics) if topic.matches(title, abstract, paper_categories)
        }
        assert index.match(title, abstract, paper_categories) == expected
    assert any(index.match("rdma memory graph", " ".join(vocabulary), categories))


def test_a_topic_of_categories_alone_is_every_paper_of_them() -> None:
    whole = parse_topic("in cs.NI, cs.dc")
    assert whole.whole and whole.text == "" and whole.categories == ("cs.DC", "cs.NI")
    assert str(whole) == "all of cs.DC,cs.NI" and whole.rule_key == "topic:all of cs.DC,cs.NI"
    assert topic_from_stored("", ("cs.NI", "cs.DC")) == whole
    assert whole.matches("Anything", "at all", ["math.CO", "cs.NI"])
    assert not whole.matches("RDMA", "remote direct memory access", ["cs.OS"])
    assert whole.query == "(cat:cs.DC OR cat:cs.NI)"
    predicate = parse_search_query(whole.query)
    assert predicate(make_record("Anything", "at all", ("math.CO", "cs.NI")))
    assert not predicate(make_record("Anything", "at all", ("cs.OS",)))
    index = TopicIndex([(1, whole), (2, RDMA)])
    assert index.match("RDMA", "remote direct memory access", ["cs.NI"]) == {1, 2}
    assert index.match("Other", "words", ["cs.DC"]) == {1}
    assert not parse_topic("rdma in cs.DC").whole


# ---------------------------------------------------------------- the API query


def test_the_api_query_finds_what_the_topic_matches_on_the_fake_arxiv() -> None:
    """The query as arXiv's query language reads it (the fake implements it), on the cases the
    local matcher decides; the local check stays the last word."""
    predicate = parse_search_query(RDMA.query)
    assert predicate(make_record("RDMA at scale", "remote direct memory access", ("cs.DC",)))
    assert predicate(make_record("Remote direct memory access", "RDMA", ("cs.OS", "cs.NI")))
    assert not predicate(make_record("RDMA at scale", "remote direct memory access", ("cs.OS",)))
    assert not predicate(make_record("RDMA over Ethernet", "remote direct memory access"))
    assert not predicate(make_record("RDMA", "remote memory"))
    assert RDMA.query == (
        '(ti:"remote direct memory access" OR abs:"remote direct memory access") AND '
        '(ti:"rdma" OR abs:"rdma") AND (cat:cs.DC OR cat:cs.NI) ANDNOT '
        '(ti:"ethernet" OR abs:"ethernet")'
    )


def test_nothing_a_user_types_breaks_out_of_the_query_quotes() -> None:
    topic = parse_topic('"a) OR au:x (" b:c ti:"y" in cs.DC')
    query = topic.query
    assert "au:" not in query.replace("abs:", "")
    parse_search_query(query)  # arXiv's grammar accepts it
