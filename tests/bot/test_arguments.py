"""Argument parsing of the bot's commands: tables of what users type and what they get back."""

from __future__ import annotations

import pytest

from bot import arguments
from bot.arguments import ListButton, PaperArguments, SubjectArguments
from watcher.errors import UsageError
from watcher.follows.rules import PersonRule


@pytest.mark.parametrize(
    ("words", "expected"),
    [
        ([], None),
        (["Dezun", "Dong"], "Dezun Dong"),
        (["  Dezun ", "", "Dong"], "Dezun Dong"),
        (["Dong,", "Dezun"], "Dong, Dezun"),
        (["Jean-Luc", "O'Brien"], "Jean-Luc O'Brien"),
        (["J.", "R.", "R.", "Tolkien"], "J. R. R. Tolkien"),
        (["Dézun", "Dōng"], "Dézun Dōng"),
        (["李", "明"], "李 明"),
        (["a" * 49, "b" * 50], "a" * 49 + " " + "b" * 50),
    ],
)
def test_person_rule_accepts_names(words: list[str], expected: str | None) -> None:
    rule = arguments.person_rule(words)
    assert (rule and rule.display) == expected
    assert rule is None or rule.categories == ()


def test_person_rule_reads_categories() -> None:
    rule = arguments.person_rule(["Wei", "Wang", "in", "cs.dc,", "cs.NI"])
    assert rule == PersonRule(("Wei Wang",), ("cs.DC", "cs.NI"))


@pytest.mark.parametrize(
    ("words", "complaint"),
    [
        (["a" * 101], "That name is too long (at most 100 characters)."),
        (["x" * 5000], "That name is too long"),
        (["!!!", "..."], "An author name has only letters, spaces and . - ' , in it."),
        (["...", "-", "'"], "That does not look like a name."),
        (["Li"], "A name needs a given name and a family name, as arXiv lists the author."),
        (["D."], "A name needs a given name and a family name"),
        (["a" * 100], "A name needs a given name and a family name"),
        (['Dezun"', "OR", 'all:"x'], "only letters, spaces"),
        (["Dezun|Dong"], "only letters, spaces"),
        (["<b>Dong</b>"], "only letters, spaces"),
        (["Dong", "2"], "only letters, spaces"),
        (["Wei", "Wang", "in", "cs.DC,cs.NI,cs.AI,cs.LG"], "4 categories given; at most 3"),
        (["Wei", "Wang", "in", "cs.dcc"], "'cs.dcc' is not an arXiv category; did you mean cs.DC"),
    ],
)
def test_person_rule_refuses_what_cannot_be_followed_in_one_line(
    words: list[str], complaint: str
) -> None:
    with pytest.raises(arguments.Refused) as caught:
        arguments.person_rule(words, command="subscribe")
    assert complaint in caught.value.wrong
    assert "\n" not in caught.value.wrong
    assert caught.value.example.startswith("/subscribe ")


@pytest.mark.parametrize("words", [["Li"], ["!!!"], ["Dong", "2"], ["a" * 100]])
def test_unsubscribe_takes_any_name_a_chat_may_follow(words: list[str]) -> None:
    # Only looked up, never searched on arXiv: a name followed before the rule can be stopped.
    rule = arguments.person_rule(words, command="unsubscribe")
    assert rule is not None and rule.display == " ".join(words)


def test_unsubscribe_refuses_only_names_too_long() -> None:
    with pytest.raises(arguments.Refused) as caught:
        arguments.person_rule(["a" * 101], command="unsubscribe")
    assert caught.value.wrong == "That name is too long (at most 100 characters)."
    assert caught.value.example == "/unsubscribe Dezun Dong"


@pytest.mark.parametrize(
    ("words", "expected"),
    [([], 5), (["1"], 1), (["7"], 7), (["20"], 20), (["05"], 5)],
)
def test_count(words: list[str], expected: int) -> None:
    assert arguments.count(words) == expected


@pytest.mark.parametrize(
    ("words", "complaint"),
    [
        (["abc"], "'abc' is not a number"),
        (["0"], "from 1 to 20"),
        (["21"], "from 1 to 20"),
        (["99"], "from 1 to 20"),
        (["-3"], "not a number"),
        (["2.5"], "not a number"),
        (["٣"], "not a number"),  # an Arabic-Indic digit: isdigit() but not what we mean
        (["3", "4"], "One number at most."),
    ],
)
def test_count_refuses(words: list[str], complaint: str) -> None:
    with pytest.raises(arguments.Refused) as caught:
        arguments.count(words)
    assert complaint in caught.value.wrong
    assert caught.value.example == "/recent 10"


@pytest.mark.parametrize(
    ("words", "expected"),
    [
        (["cs.DC"], SubjectArguments(("cs.DC",), 5)),
        (["cs.dc", "3"], SubjectArguments(("cs.DC",), 3)),
        (["CS.NI", "20"], SubjectArguments(("cs.NI",), 20)),
        (["quant-ph"], SubjectArguments(("quant-ph",), 5)),
        (["cs.DC,cs.NI"], SubjectArguments(("cs.DC", "cs.NI"), 5)),
        (["cs.dc,", "CS.ni", "cs.DC", "7"], SubjectArguments(("cs.DC", "cs.NI"), 7)),
        (["cs.DC", "cs.NI", "math.CO"], SubjectArguments(("cs.DC", "cs.NI", "math.CO"), 5)),
    ],
)
def test_subject(words: list[str], expected: SubjectArguments) -> None:
    assert arguments.subject(words) == expected


@pytest.mark.parametrize(
    ("typed", "suggested"), [("cs.dcc", "cs.DC"), ("quantph", "quant-ph"), ("distributed", "cs.DC")]
)
def test_subject_unknown_category_names_close_matches(typed: str, suggested: str) -> None:
    with pytest.raises(UsageError) as caught:
        arguments.subject([typed])
    message = str(caught.value)
    assert f"{typed!r} is not an arXiv category; did you mean {suggested}" in message


@pytest.mark.parametrize(
    ("words", "complaint"),
    [
        ([], "No category given."),
        (["cs.DC", "0"], "from 1 to 20"),
        (["cs.DC", "many"], "'many' is not an arXiv category"),
        (["cs.DC", "2", "3"], "A number comes last, once."),
        (["nonsense-category"], "not an arXiv category"),
        (["cs.DC,cs.NI,cs.OS,cs.AR"], "4 categories given; at most 3"),
        (["cs.DC,cs.NX"], "'cs.NX' is not an arXiv category; did you mean cs.NI"),
    ],
)
def test_subject_refuses(words: list[str], complaint: str) -> None:
    with pytest.raises(UsageError) as caught:
        arguments.subject(words)
    assert complaint in str(caught.value)


@pytest.mark.parametrize(
    ("word", "expected"),
    [
        ("2604.01234", PaperArguments("2604.01234", None)),
        ("2604.01234v2", PaperArguments("2604.01234", 2)),
        ("https://arxiv.org/abs/2604.01234v3", PaperArguments("2604.01234", 3)),
        ("https://arxiv.org/pdf/2604.01234", PaperArguments("2604.01234", None)),
        ("arXiv:2604.01234", PaperArguments("2604.01234", None)),
        ("astro-ph/0601001", PaperArguments("astro-ph/0601001", None)),
    ],
)
def test_paper(word: str, expected: PaperArguments) -> None:
    assert arguments.paper([word]) == expected


@pytest.mark.parametrize(
    ("words", "complaint"),
    [
        ([], "No paper given."),
        (["2604.01234", "2604.01235"], "One paper at a time."),
        (["hello"], "'hello' is not an arXiv id"),
        (["https://example.com/abs/2604.01234"], "is not an arXiv id"),
    ],
)
def test_paper_refuses(words: list[str], complaint: str) -> None:
    with pytest.raises(UsageError) as caught:
        arguments.paper(words)
    assert complaint in str(caught.value)


@pytest.mark.parametrize(
    ("words", "expected"),
    [([], None), (["on"], True), (["ON"], True), (["off"], False), (["no"], False)],
)
def test_on_off(words: list[str], expected: bool | None) -> None:
    assert arguments.on_off(words) is expected


@pytest.mark.parametrize(
    ("words", "complaint"),
    [
        (["maybe"], "'maybe' is neither on nor off."),
        (["on", "off"], "Just one word, on or off."),
        (["2"], "'2' is neither on nor off."),
    ],
)
def test_on_off_refuses(words: list[str], complaint: str) -> None:
    with pytest.raises(UsageError, match=r"For example: /revisions on") as caught:
        arguments.on_off(words)
    assert str(caught.value).startswith(complaint)


@pytest.mark.parametrize(
    ("categories", "per_page", "page"),
    [
        (None, 5, 0),
        (None, 10, 3),
        (("cs.DC",), 5, 1),
        (("cond-mat.mtrl-sci",), 10, 12),
        (("cs.DC", "cs.NI"), 20, 7),
        (("cond-mat.stat-mech", "cond-mat.quant-gas", "cond-mat.mtrl-sci"), 20, 10_000),
        (("cond-mat.stat-mech", "physics.class-ph", "astro-ph.HE"), 20, 10_000),
    ],
)
def test_list_buttons_round_trip(
    categories: tuple[str, ...] | None, per_page: int, page: int
) -> None:
    data = f"{arguments.list_prefix(categories, per_page)}:{page}"
    assert len(data.encode()) <= 64
    assert arguments.list_button(data) == ListButton(categories, per_page, page)


@pytest.mark.parametrize(
    "data",
    [
        "",
        "r",
        "r:5",
        "r:x:1",
        "r:5:-1",
        "r:0:1",
        "r:99:1",
        "s:cs.DC:5",
        "s:not-a-category:5:1",
        "s:.DC:5:1",
        "s:cs.DC,cs.NI,cs.OS,cs.AR:5:1",
        "x:5:1",
        "r:5:1:extra",
    ],
)
def test_list_button_refuses_other_data(data: str) -> None:
    assert arguments.list_button(data) is None


def test_search_reads_words_and_a_category_and_refuses_in_one_sentence() -> None:
    wanted = arguments.search(["The", "Allreduce", "of", "GPUs", "in", "CS.dc"])
    assert (wanted.words, wanted.category) == (("allreduce", "gpus"), "cs.DC")
    in_words = arguments.search(["routing", "in", "practice"])  # "in practice": no category
    assert (in_words.words, in_words.category) == (("routing", "practice"), None)
    with pytest.raises(arguments.Refused, match="not an arXiv category"):
        arguments.search(["allreduce", "in", "hep-xx"])
    with pytest.raises(arguments.Refused, match="at most 8"):
        arguments.search([f"w{n}" for n in range(9)])
    assert arguments.search_button("f:cs.DC:allreduce gpus:3") == (wanted, 3)
    assert arguments.search_button("f:cs.XX:allreduce:3") is None
    assert arguments.search_button("f::the:3") is None
