"""Tests for the match step: who counts as the followed author, and the queries sent to arXiv."""

from __future__ import annotations

import itertools
import unicodedata
from datetime import datetime
from urllib.parse import quote

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.fakes.corpus import make_record as corpus_record
from tests.fakes.day import LOOKALIKE_NAMES, realistic_day
from watcher.arxiv.queries import author_query, group_queries
from watcher.arxiv.records import Record
from watcher.follows.folding import UNDECOMPOSED_LETTERS, fold
from watcher.follows.match import record_matches
from watcher.follows.names import (
    _ascii_name_key,
    _general_name_key,
    check_person_name,
    is_same_person,
    name_key,
)

DEZUN = ["Dezun Dong", "De-Zun Dong"]


def make_record(
    *author_names: str, title: str = "A paper", abstract: str = "An abstract."
) -> Record:
    return corpus_record(authors=list(author_names), title=title, abstract=abstract)


# --- name_key ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "key"),
    [
        ("Dezun Dong", ("dezun", "dong")),
        ("Dong Dezun", ("dezun", "dong")),
        ("Dong, Dezun", ("dezun", "dong")),
        ("  DEZUN   DONG ", ("dezun", "dong")),
        ("Dézun Dong", ("dezun", "dong")),
        ("De-Zun Dong", ("dezun", "dong")),
        ("De\u2010Zun Dong", ("dezun", "dong")),  # Unicode hyphen
        ("D. Dong", ("d", "dong")),
        ("Dezun Dong Li", ("dezun", "dong", "li")),
        ("Ken-ichi Iwata", ("iwata", "kenichi")),
        ("Peter H. N. de With", ("de", "h", "n", "peter", "with")),
        ("Dirk Wübben", ("dirk", "wubben")),
        ("José Raúl Romero", ("jose", "raul", "romero")),
        ("Søren Łukasz", ("lukasz", "soren")),
        ("Conor O'Brien", ("conor", "obrien")),
        ("Dezun Dong (NUDT)", ("dezun", "dong", "nudt")),
        ("董德尊", ("董德尊",)),
        ("", ()),
        (" .,- ", ()),
    ],
)
def test_name_key(name: str, key: tuple[str, ...]) -> None:
    assert name_key(name) == key


# The fast path for plain-ASCII names must give exactly the general path's keys.
SPELLINGS = [
    "Dezun Dong", "Dong, Dezun", "  DEZUN   DONG ", "De-Zun Dong", "Ken-ichi Iwata",
    "Conor O'Brien", "O`Neil Smith", "J. R. R. Tolkien", "Peter H. N. de With",
    "Dezun Dong (NUDT)", "van der Berg, Jan-Willem", "Smith Jr., John", "A.B. Carter-Jones",
    "x|y z", "Tab\tSeparated\nName", "Al-Hassan, Omar", "D'Angelo--Rossi", "Name_With_Underscore",
    "Ruiz; Maria", "Li/Wang Yu", "2nd Author 3", "", " .,- ", "''", "a-'-b",
    "Dirk W\u00fcbben", "Jos\u00e9 Ra\u00fal Romero", "S\u00f8ren \u0141ukasz",
    "De\u2010Zun Dong", "Conor O\u2019Brien", "\u00c9mile Zola",
    "Fran\u00e7ois Fa\u00e7ade-D\u2019Or", "Dezun\u00a0Dong", "\u00df-Stra\u00dfe",
]  # fmt: skip


PLAIN_PUNCTUATION = str.maketrans({"\u2010": "-", "\u2019": "'", "\u00a0": " "})


@pytest.mark.parametrize("name", SPELLINGS)
def test_the_ascii_spelling_of_a_name_has_the_general_paths_key(name: str) -> None:
    # An accented name goes the general way; its accents folded away, it goes the fast way, and
    # both ways must agree on it (and on the name itself when it was ASCII already).
    ascii_spelling = fold(name).translate(PLAIN_PUNCTUATION)
    assert ascii_spelling.isascii(), ascii_spelling
    assert _ascii_name_key(ascii_spelling) == _general_name_key(ascii_spelling)
    assert name_key(ascii_spelling) == _general_name_key(name) or not ascii_spelling.strip()


def test_the_ascii_path_agrees_on_every_author_of_a_generated_day() -> None:
    names = {a.name for r in realistic_day(datetime(2026, 6, 1).date()) for a in r.authors}
    names |= set(LOOKALIKE_NAMES)
    assert len(names) > 1000
    for name in names:
        if name.isascii():
            assert _ascii_name_key(name) == _general_name_key(name), name


@given(st.text(alphabet=st.characters(max_codepoint=127), max_size=40))
def test_the_ascii_path_agrees_on_any_ascii_text(name: str) -> None:
    assert _ascii_name_key(name) == _general_name_key(name)


@given(st.lists(st.sampled_from("abzAZ09 .,-'`;()_/|\t\"&"), max_size=30).map("".join))
def test_the_ascii_path_agrees_on_name_like_text(name: str) -> None:
    assert _ascii_name_key(name) == _general_name_key(name)


# --- is_same_person ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "author_name",
    [
        "Dezun Dong",
        "Dong Dezun",
        "Dézun Dong",
        "DEZUN DONG",
        "dezun dong",
        "Dong, Dezun",
        "De-Zun Dong",
        "De-zun Dong",
        "Dong De-Zun",
        "Dezun  Dong",
        "Dezun\u00a0Dong",
    ],
)
def test_these_names_are_dezun_dong(author_name: str) -> None:
    assert is_same_person(author_name, DEZUN)


@pytest.mark.parametrize(
    "author_name",
    [
        "D. Dong",  # initials only
        "D Dong",
        "Dong D",
        "Daoyi Dong",
        "Dezhun Dong",  # a different spelling
        "Dezun Dong Li",  # an extra name word: a different person is the safe default
        "Dezun",
        "Dong",
        "Wang Dezun",
        "Li Dong",
        "De Zun Dong",  # split differently: needs its own alias
        "",
        "   ",
    ],
)
def test_these_names_are_not_dezun_dong(author_name: str) -> None:
    assert not is_same_person(author_name, DEZUN)


def test_aliases_count_and_only_given_names_count() -> None:
    assert is_same_person("De Zun Dong", ["Dezun Dong", "De Zun Dong"])
    assert not is_same_person("De-Zun Dong", ["Daoyi Dong"])
    assert not is_same_person("Dezun Dong", [])
    assert not is_same_person("", ["", " "])  # empty names never match one another


# --- record_matches ---------------------------------------------------------------------------


def test_record_with_the_author_among_several_matches() -> None:
    record = make_record("Ziyu Wang", "Fei Lei", "Dezun Dong")
    assert record_matches(record, DEZUN)


def test_record_with_the_author_in_another_form_matches() -> None:
    assert record_matches(make_record("Enda Yu", "Dong, Dézun", "Yemao Xu"), DEZUN)
    assert record_matches(make_record("De-Zun Dong"), ["Dezun Dong", "De-Zun Dong"])


def test_name_split_across_two_authors_does_not_match() -> None:
    assert not record_matches(make_record("Wang Dezun", "Li Dong"), DEZUN)


def test_name_in_title_or_abstract_only_does_not_match() -> None:
    record = make_record(
        "Daoyi Dong",
        "D. Dong",
        title="Revisiting Dezun Dong's HyperX networks",
        abstract="We extend the work of Dezun Dong on multi-plane networks.",
    )
    assert not record_matches(record, DEZUN)


def test_record_without_authors_does_not_match() -> None:
    assert not record_matches(make_record(), DEZUN)


# --- author_query -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("names", "query"),
    [
        (["Dezun Dong"], 'au:"Dezun Dong"'),
        (["Dezun Dong", "De-Zun Dong"], 'au:"Dezun Dong" OR au:"De-Zun Dong"'),
        (["  Dezun   Dong "], 'au:"Dezun Dong"'),
        (["Dézun Dong"], 'au:"Dézun Dong"'),
        (["Conor O'Brien"], 'au:"Conor O\'Brien"'),
        (["Peter H. N. de With"], 'au:"Peter H. N. de With"'),
        (["Dezun Dong", "dezun dong", "DEZUN DONG"], 'au:"Dezun Dong"'),
        (['Dezun "DZ" Dong'], 'au:"Dezun DZ Dong"'),
        (['Dezun Dong" OR all:"x'], 'au:"Dezun Dong OR all x"'),
        (["Dong_D"], 'au:"Dong D"'),
        (["Dezun (NUDT) Dong"], 'au:"Dezun NUDT Dong"'),
        (["Dong, Dezun"], 'au:"Dong Dezun"'),
        (["Dezun\\Dong"], 'au:"Dezun Dong"'),
        (["", "Dezun Dong"], 'au:"Dezun Dong"'),
    ],
)
def test_author_query(names: list[str], query: str) -> None:
    assert author_query(names) == query


@pytest.mark.parametrize("names", [[], [""], ['""', "()", "  "]])
def test_author_query_without_a_usable_name_refuses(names: list[str]) -> None:
    with pytest.raises(ValueError, match="no usable author name"):
        author_query(names)


def test_author_query_never_leaves_a_stray_quote() -> None:
    query = author_query(['a"b', 'c"d"e', '"'])
    assert query == 'au:"a b" OR au:"c d e"'
    assert query.count('"') == 4


# --- group_queries ----------------------------------------------------------------------------


def encoded_length(query: str) -> int:
    return len(quote(query, safe=""))


def group_query(name_lists: list[list[str]], group: list[int]) -> str:
    return author_query([name for index in group for name in name_lists[index]])


def test_small_authors_share_one_group() -> None:
    name_lists = [["Dezun Dong", "De-Zun Dong"], ["Ziyu Wang"], ["Fei Lei"]]
    assert group_queries(name_lists) == [[0, 1, 2]]
    assert group_query(name_lists, [0, 1, 2]) == (
        'au:"Dezun Dong" OR au:"De-Zun Dong" OR au:"Ziyu Wang" OR au:"Fei Lei"'
    )


def test_groups_split_exactly_at_the_limit() -> None:
    name_lists = [["Alice Smith"], ["Bob Jones"], ["Carol King"]]
    two = encoded_length('au:"Alice Smith" OR au:"Bob Jones"')
    assert two == 54
    assert group_queries(name_lists, max_query_length=two) == [[0, 1], [2]]
    # One under: Alice no longer fits with Bob, but Bob with Carol is one character shorter.
    assert encoded_length('au:"Bob Jones" OR au:"Carol King"') == two - 1
    assert group_queries(name_lists, max_query_length=two - 1) == [[0], [1, 2]]
    assert group_queries(name_lists, max_query_length=two - 2) == [[0], [1], [2]]
    three = encoded_length(group_query(name_lists, [0, 1, 2]))
    assert group_queries(name_lists, max_query_length=three) == [[0, 1, 2]]


def test_every_group_respects_the_limit_and_keeps_every_author_once() -> None:
    name_lists = [[f"Author Number{index}", f"A. Number{index}-Alias"] for index in range(60)]
    limit = 300
    groups = group_queries(name_lists, max_query_length=limit)
    assert [index for group in groups for index in group] == list(range(60))
    assert len(groups) > 1
    for group in groups:
        assert encoded_length(group_query(name_lists, group)) <= limit
    # Greedy packing: the next author would not have fitted in the group before it.
    for group, following in itertools.pairwise(groups):
        assert encoded_length(group_query(name_lists, [*group, following[0]])) > limit


_REPEATED_NAMES = [
    "Ann Lee", "ANN LEE", "ann lee", "Bo Chen", "Cy Wu", "Dezun Dong", "De-Zun Dong",
    "Zoë Müller", 'Dan "Q" Li', "Longname Personofmanyletters",
]  # fmt: skip


@given(
    name_lists=st.lists(
        st.lists(st.sampled_from(_REPEATED_NAMES), min_size=1, max_size=4), max_size=30
    ),
    limit=st.integers(min_value=10, max_value=250),
)
def test_groups_fit_and_are_greedy_whatever_names_repeat(
    name_lists: list[list[str]], limit: int
) -> None:
    """The definition, checked against the query each group really sends: a name repeated
    within a group, in any case, is counted once, as `author_query` writes it once."""
    groups = group_queries(name_lists, max_query_length=limit)
    assert [index for group in groups for index in group] == list(range(len(name_lists)))
    for group in groups:
        assert len(group) == 1 or encoded_length(group_query(name_lists, group)) <= limit
    for group, following in itertools.pairwise(groups):
        assert encoded_length(group_query(name_lists, [*group, following[0]])) > limit


def test_an_author_too_long_for_the_limit_goes_alone() -> None:
    long_names = [f"Longname{index} Person" for index in range(20)]
    name_lists = [["Ann Lee"], long_names, ["Bo Chen"], ["Cy Wu"]]
    limit = 100
    assert encoded_length(author_query(long_names)) > limit
    assert group_queries(name_lists, max_query_length=limit) == [[0], [1], [2, 3]]


def test_an_author_without_usable_names_is_refused_by_index() -> None:
    with pytest.raises(ValueError, match="#1"):
        group_queries([["Dezun Dong"], ['""']])


def test_no_authors_no_groups() -> None:
    assert group_queries([]) == []


@pytest.mark.parametrize(
    "name",
    [
        "Dezun Dong",
        "Dong, Dezun",
        "D. Dong",
        "J. R. R. Tolkien",
        "Jean-Luc O'Brien",
        "Dézun Dōng",
        "李 明",
        "  Dezun   Dong  ",
        "A" * 49 + " " + "B" * 50,
    ],
)
def test_these_names_can_be_followed(name: str) -> None:
    assert check_person_name(name) is None
    author_query([name])  # and each makes an arXiv query


@pytest.mark.parametrize(
    ("name", "problem"),
    [
        ("", "no name given"),
        ("   ", "no name given"),
        ("Li", "a name needs a given name and a family name"),
        ("D.", "a name needs a given name and a family name"),
        ("De-Zun", "a name needs a given name and a family name"),  # joined into one word
        ("O'Brien", "a name needs a given name and a family name"),
        ("董德尊", "a name needs a given name and a family name"),
        ("a" * 100, "a name needs a given name and a family name"),
        ("...", "that does not look like a name"),
        (". - ' ,", "that does not look like a name"),
        ("!!!", "only letters, spaces and . - ' , in it"),
        ("Dezun Dong|De-Zun Dong", "only letters, spaces"),
        ('Dezun" OR all:"x', "only letters, spaces"),
        ("<b>Dezun Dong</b>", "only letters, spaces"),
        ("Dezun Dong 2", "only letters, spaces"),
        ("A" * 50 + " " + "B" * 50, "too long (at most 100 characters)"),
    ],
)
def test_these_names_cannot_be_followed(name: str, problem: str) -> None:
    found = check_person_name(name)
    assert found is not None
    assert problem in str(found)


@given(st.text(alphabet=st.characters(max_codepoint=127)))
def test_folding_ascii_text_takes_a_shortcut_to_what_the_full_fold_gives(text: str) -> None:
    decomposed = unicodedata.normalize("NFKD", text.casefold()).translate(UNDECOMPOSED_LETTERS)
    assert fold(text) == "".join(c for c in decomposed if not unicodedata.combining(c))
