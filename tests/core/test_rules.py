"""Follow rules as people write them: a person, maybe only in some categories."""

from __future__ import annotations

import pytest

from watcher.arxiv.queries import person_query
from watcher.errors import UnknownCategory
from watcher.follows.followed import Followed
from watcher.follows.match import FollowRules, in_categories
from watcher.follows.rules import BadRule, PersonRule, parse_person, rule_key, split_categories


@pytest.mark.parametrize(
    ("text", "rule"),
    [
        ("Dezun Dong", PersonRule(("Dezun Dong",))),
        ("  Dezun   Dong  ", PersonRule(("Dezun Dong",))),
        ("Dezun Dong|De-Zun Dong", PersonRule(("Dezun Dong", "De-Zun Dong"))),
        ("Wei Wang in cs.DC,cs.NI", PersonRule(("Wei Wang",), ("cs.DC", "cs.NI"))),
        ("Wei Wang IN cs.dc , CS.NI", PersonRule(("Wei Wang",), ("cs.DC", "cs.NI"))),
        ("Wei Wang in cs.DC,cs.DC", PersonRule(("Wei Wang",), ("cs.DC",))),
        ("Wei Wang in hep-th", PersonRule(("Wei Wang",), ("hep-th",))),
        # "In" is a family name too: a tail that is no category list stays part of the name.
        ("Kim In", PersonRule(("Kim In",))),
        ("Sook In Kim", PersonRule(("Sook In Kim",))),
        ("Jae in Kim", PersonRule(("Jae in Kim",))),
    ],
)
def test_person_rules_are_read(text: str, rule: PersonRule) -> None:
    assert parse_person(text) == rule


def test_more_than_three_categories_are_refused_with_the_limit() -> None:
    with pytest.raises(BadRule, match="4 categories given; at most 3"):
        parse_person("Wei Wang in cs.DC,cs.NI,cs.AI,cs.LG")


def test_an_unknown_category_is_refused_with_suggestions() -> None:
    with pytest.raises(UnknownCategory) as raised:
        parse_person("Wei Wang in cs.dcc")
    assert "cs.DC" in raised.value.suggestions


@pytest.mark.parametrize("text", ["", " | ", "Li", "Wei Wang!", "x" * 101, "in cs.DC"])
def test_a_bad_name_is_refused_in_one_line(text: str) -> None:
    with pytest.raises(BadRule) as raised:
        parse_person(text)
    assert "\n" not in str(raised.value)
    assert len(str(raised.value)) < 200


def test_the_key_ignores_name_order_and_category_order() -> None:
    assert rule_key("Dong, Dezun") == rule_key("Dezun Dong") == "dezun dong"
    assert rule_key("Wei Wang", ["cs.NI", "cs.DC"]) == rule_key("Wang Wei", ["cs.DC", "cs.NI"])
    assert rule_key("Wei Wang", ["cs.DC"]) != rule_key("Wei Wang")
    assert str(parse_person("Wei Wang in cs.NI,cs.DC")) == "Wei Wang in cs.NI,cs.DC"


def test_split_categories_leaves_a_plain_name_alone() -> None:
    assert split_categories("Dezun Dong") == ("Dezun Dong", ())
    assert split_categories("Wei Wang in cs.DC") == ("Wei Wang", ("cs.DC",))


def test_a_person_in_categories_matches_only_papers_in_one_of_them() -> None:
    rules = FollowRules()
    rules.add(1, ["Wei Wang"])
    rules.add(2, ["Wei Wang"], ["cs.DC", "cs.NI"])
    assert rules.match_authors(["Wang, Wei"], ["math.CO"]) == {1}
    assert rules.match_authors(["Wei Wang"], ["cs.AI", "cs.NI"]) == {1, 2}  # a cross-list counts
    assert rules.match_authors(["Wei Wong"], ["cs.DC"]) == frozenset()
    assert in_categories(["cs.DC"], []) and not in_categories(["cs.DC"], ["cs.NI"])


def test_the_query_of_a_person_in_categories_is_narrowed_to_them() -> None:
    assert person_query(["Wei Wang"]) == 'au:"Wei Wang"'
    assert person_query(["Wei Wang"], ["cs.DC", "cs.NI"]) == (
        '(au:"Wei Wang") AND (cat:cs.DC OR cat:cs.NI)'
    )


def test_an_unreadable_stored_topic_is_skipped_and_the_other_follows_still_match(
    caplog: pytest.LogCaptureFixture,
) -> None:
    def follow(
        id: int, kind: str, name: str, topic: str | None, categories: tuple[str, ...]
    ) -> Followed:
        return Followed(
            id=id, name=name, aliases=(), record_count=0, last_attempt=None, last_success=None,
            last_error=None, consecutive_failures=0, next_poll=None, kind=kind,
            categories=categories, topic=topic,
        )  # fmt: skip

    rules = FollowRules.of(
        [
            follow(1, "topic", "rdma", "rdma", ("cs.DC",)),
            follow(2, "topic", "broken", "AND", ("cs.DC",)),  # no longer a topic
            follow(3, "topic", "gone", "rdma", ("cs.GONE",)),  # a category since dropped
            follow(4, "person", "Dezun Dong", None, ()),
        ]
    )
    found = rules.match(["Dezun Dong"], ["cs.DC"], title="RDMA at scale", abstract="")
    assert found == {1, 4}
    assert rules.match([], ["cs.GONE"], title="RDMA", abstract="") == {3}
    assert "topic #2 'AND' cannot be read" in caplog.text
