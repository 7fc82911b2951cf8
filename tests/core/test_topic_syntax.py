"""Tests for OR in topics (issue 32, item 3): what `watcher.follows.topic_syntax` reads, the
canonical form, the refusals, matching, the index by one word, and the arXiv query."""

from __future__ import annotations

import random

import pytest

from tests.fakes.arxiv_api.query import parse_search_query
from tests.fakes.corpus import make_record
from watcher.follows.stemming import stem
from watcher.follows.topic_syntax import OR_EXAMPLE
from watcher.follows.topics import (
    MAX_TERMS,
    Topic,
    TopicError,
    TopicIndex,
    parse_topic,
    topic_from_stored,
)

EITHER = parse_topic("rdma OR infiniband in cs.DC")
GNN = parse_topic('"graph neural" (gpu OR fpga) -survey in cs.LG')


def record(title: str, abstract: str, category: str) -> object:
    return make_record(
        title=title, abstract=abstract, primary_category=category, categories=(category,)
    )


# ---------------------------------------------------------------- reading and the canonical form


def test_the_issues_two_examples_are_read_into_groups_of_alternatives() -> None:
    assert EITHER.required == () and EITHER.excluded == ()
    assert EITHER.alternatives == ((("infiniband",), ("rdma",)),)
    assert str(EITHER) == "(infiniband OR rdma) in cs.DC"
    assert GNN.required == (("graph", "neural"),)
    assert GNN.alternatives == ((("fpga",), ("gpu",)),)
    assert GNN.excluded == (("survey",),)
    assert str(GNN) == '"graph neural" (fpga OR gpu) -survey in cs.LG'
    assert not EITHER.whole and not GNN.whole


@pytest.mark.parametrize(
    ("typed", "same_as"),
    [
        ("(InfiniBand OR RDMA) in cs.dc", EITHER),
        ("infiniband OR rdma OR RDMA in cs.DC", EITHER),
        ("((rdma OR infiniband)) in cs.DC", EITHER),
        ("(rdma OR (infiniband)) in cs.DC", EITHER),
        ('-survey "Graph Neural" fpga OR gpu in cs.LG', GNN),  # OR binds closer than a space
        ('"graph neural" (gpu OR fpga) (fpga OR gpu OR gpu) -survey in cs.LG', GNN),
        ('"graph neural" (gpu OR fpga) (gpu OR fpga OR tpu) -survey in cs.LG', GNN),  # implied
        ("“graph neural” (GPU OR FPGA) -(survey) in cs.LG", GNN),
    ],
)
def test_equivalent_inputs_give_one_canonical_topic(typed: str, same_as: Topic) -> None:
    topic = parse_topic(typed)
    assert topic == same_as and topic.rule_key == same_as.rule_key


def test_a_group_holding_a_required_term_is_implied_and_excluded_groups_are_each_word() -> None:
    assert parse_topic("rdma (rdma OR infiniband) in cs.DC") == parse_topic("rdma in cs.DC")
    assert parse_topic("rdma -(survey OR review) in cs.DC") == parse_topic(
        "rdma -review -survey in cs.DC"
    )


def test_the_stored_text_gives_the_same_topic_back() -> None:
    for topic in (EITHER, GNN, parse_topic('(a OR "b c") (d OR e) f -g in cs.DC')):
        assert topic_from_stored(topic.text, topic.categories) == topic
    assert parse_topic('(a OR "b c") (d OR e) f -g in cs.DC').text == '("b c" OR a) (d OR e) f -g'


def test_a_lower_case_or_typed_is_refused_and_a_stored_one_stays_the_word() -> None:
    with pytest.raises(TopicError, match="write OR in capitals for either of two words") as no:
        parse_topic("rdma or infiniband in cs.DC")
    assert no.value.example == OR_EXAMPLE
    # Quoted, it is a word of a phrase; a topic stored before OR was an operator is read as it was.
    assert parse_topic('"rdma or infiniband" in cs.DC').required == (("rdma", "or", "infiniband"),)
    stored = topic_from_stored("infiniband or rdma", ["cs.DC"])
    assert stored.required == (("infiniband",), ("or",), ("rdma",)) and not stored.alternatives


def test_a_parenthesis_inside_a_word_is_the_words_and_in_within_parentheses_is_a_word() -> None:
    assert parse_topic("O(n) sorting in cs.DS").required == (("o", "n"), ("sorting",))
    topic = parse_topic("games (in OR on) learning in cs.GT")
    assert topic.alternatives == ((("in",), ("on",)),) and topic.categories == ("cs.GT",)


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("rdma OR in cs.DC", "OR needs a word or phrase on each side"),
        ("OR rdma in cs.DC", "OR needs a word or phrase on each side"),
        ("rdma OR OR infiniband in cs.DC", "OR needs a word or phrase on each side"),
        ("(rdma OR) x in cs.DC", "OR needs a word or phrase on each side"),
        ("rdma OR + in cs.DC", "OR needs a word or phrase on each side"),
        ("(rdma OR infiniband in cs.DC", "a ( is not closed"),
        ("rdma OR infiniband) in cs.DC", "a ) closes no ("),
        ("O(n log n) in cs.DS", 'quote a term such as "O(n)"'),
        ("() rdma in cs.DC", "empty parentheses"),
        ("(+ &) rdma in cs.DC", "put OR between the alternatives"),
        ("(+) rdma in cs.DC", "the parentheses hold no word"),
        ("(rdma infiniband) in cs.DC", "put OR between the alternatives"),
        ("(rdma OR infiniband roce) in cs.DC", "put OR between the alternatives"),
        ("rdma OR -infiniband in cs.DC", "an excluded word is no alternative"),
        ("-(rdma OR infiniband) OR roce in cs.DC", "an excluded word is no alternative"),
        ("(rdma OR -infiniband) in cs.DC", "an excluded word is no alternative"),
        ("rdma AND infiniband in cs.DC", "AND is not needed"),
        ("rdma NOT infiniband in cs.DC", "NOT is written -word here"),
        ("rdma Or infiniband in cs.DC", "write OR in capitals"),
    ],
)
def test_bad_or_and_parentheses_are_refused_in_one_line_with_an_example_of_or(
    text: str, says: str
) -> None:
    with pytest.raises(TopicError) as refused:
        parse_topic(text)
    assert says in str(refused.value) and "\n" not in str(refused.value)
    assert refused.value.example == OR_EXAMPLE
    parse_topic(refused.value.example)  # the example itself is a topic


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("(rdma OR infiniband) -rdma in cs.DC", "'rdma' is both an alternative and excluded"),
        ("(network OR graph) -networks in cs.NI", "'networks' is a form of 'network', an alter"),
        ("-(rdma OR infiniband) in cs.DC", "excluded words only"),
        (
            " OR ".join(f"w{i}" for i in range(MAX_TERMS)) + " x in cs.DC",
            f"at most {MAX_TERMS} words and phrases, each alternative one ({MAX_TERMS + 1} given)",
        ),
        # typed with its categories, 100 characters at most
        ("(rdma OR infiniband) " + "x" * 71 + " in cs.DC", "too long (101 characters"),
    ],
)
def test_the_limits_and_contradictions_count_alternatives(text: str, says: str) -> None:
    with pytest.raises(TopicError, match=says.replace("(", r"\(").replace(")", r"\)")):
        parse_topic(text)


# ---------------------------------------------------------------- matching


@pytest.mark.parametrize(
    ("topic", "title", "abstract", "matches"),
    [
        (EITHER, "RDMA transports", "for clusters", True),
        (EITHER, "Transports", "over InfiniBand fabrics", True),
        (EITHER, "Transports", "over RoCE", False),
        (EITHER, "RDMAX transports", "over InfiniBandX", False),  # whole words only
        (GNN, "Graph Neural Networks on a GPU", "training at scale", True),
        (GNN, "Graph neural networks", "an FPGA accelerator", True),
        (GNN, "Graph neural networks", "a TPU accelerator", False),  # neither alternative
        (GNN, "Neural graph networks on GPUs", "", False),  # the phrase keeps its order
        (GNN, "Graph neural networks on GPUs: a survey", "", False),  # excluded
    ],
)
def test_a_topic_with_alternatives_needs_one_of_each_group(
    topic: Topic, title: str, abstract: str, matches: bool
) -> None:
    assert topic.matches(title, abstract, topic.categories) is matches
    assert not topic.matches(title, abstract, ["math.CO"])


def test_the_index_files_a_topic_of_alternatives_under_each_one() -> None:
    assert EITHER.key_stems == (stem("infiniband"), stem("rdma"))
    assert GNN.key_stems == (stem("neural"),)  # a required word is enough
    # the group with the fewest alternatives is the most selective
    narrow = parse_topic("(a OR b OR c) (networking OR routing) in cs.NI")
    assert narrow.key_words == ("networking", "routing")
    index = TopicIndex([(1, EITHER), (2, GNN)])
    assert index.match("RDMA", "", ["cs.DC"]) == {1}
    assert index.match("Fabrics", "InfiniBand and RDMA", ["cs.DC"]) == {1}
    assert index.match("Fabrics", "RoCE", ["cs.DC"]) == frozenset()
    assert index.match("Graph neural nets", "FPGA", ["cs.LG"]) == {2}


def test_the_index_finds_every_matching_topic_with_alternatives_and_no_other() -> None:
    rng = random.Random(32)
    vocabulary = [f"word{i}" for i in range(40)] + ["rdma", "memory", "graph", "gpus", "gpu"]
    categories = ["cs.DC", "cs.NI", "cs.LG"]
    topics: list[Topic] = []
    while len(topics) < 400:
        terms = [
            " OR ".join(rng.sample(vocabulary, rng.randint(1, 3)))
            if rng.random() < 0.6
            else rng.choice(vocabulary)
            for _ in range(rng.randint(1, 3))
        ]
        if len(terms) > 1 and rng.random() < 0.5:
            terms[0] = f"({terms[0]})"
        if rng.random() < 0.2:
            terms.append("-" + rng.choice(vocabulary))
        try:
            topics.append(parse_topic(f"{' '.join(terms)} in {rng.choice(categories)}"))
        except TopicError:
            continue  # a word drawn both wanted and excluded, or too many terms
    assert sum(bool(t.alternatives) for t in topics) > 100
    index = TopicIndex(enumerate(topics))
    matched = 0
    for _ in range(300):
        title = " ".join(rng.choices(vocabulary, k=4))
        abstract = " ".join(rng.choices(vocabulary, k=12))
        paper = rng.sample(categories, rng.randint(1, 2))
        expected = {i for i, topic in enumerate(topics) if topic.matches(title, abstract, paper)}
        assert index.match(title, abstract, paper) == expected
        matched += bool(expected)
    assert matched > 100


# ---------------------------------------------------------------- the API query


def test_the_api_query_uses_or_between_alternatives_and_the_fake_arxiv_reads_it() -> None:
    assert EITHER.query == (
        '(ti:"infiniband" OR abs:"infiniband" OR ti:"rdma" OR abs:"rdma") AND (cat:cs.DC)'
    )
    assert GNN.query == (
        '(ti:"graph neural" OR abs:"graph neural") AND '
        '(ti:"fpga" OR abs:"fpga" OR ti:"gpu" OR abs:"gpu") AND (cat:cs.LG) ANDNOT '
        '(ti:"survey" OR abs:"survey")'
    )
    either = parse_search_query(EITHER.query)
    assert either(record("RDMA transports", "for clusters", "cs.DC"))
    assert either(record("Transports", "over InfiniBand", "cs.DC"))
    assert not either(record("Transports", "over RoCE", "cs.DC"))
    assert not either(record("RDMA transports", "over InfiniBand", "cs.NI"))
    gnn = parse_search_query(GNN.query)
    assert gnn(record("Graph neural networks", "on an FPGA", "cs.LG"))
    assert gnn(record("Graph neural networks on a GPU", "fast", "cs.LG"))
    assert not gnn(record("Graph neural networks on a GPU", "a survey", "cs.LG"))
    assert not gnn(record("Graph neural networks", "on a TPU", "cs.LG"))
