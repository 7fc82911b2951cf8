"""A paper's ACM and MSC classes, which the API lists as extra category terms, stay classes.

Issue 18, item 7: a one-word lowercase ACM class ("software") was taken for a category.
"""

from __future__ import annotations

import pytest

from tests.harness.paths import DATA
from watcher.arxiv.parse import parse_feed
from watcher.arxiv.records import Record
from watcher.arxiv.taxonomy import is_paper_category

TESTING_FEED = DATA / "arxiv-api" / "query_all-testing_start0_max10.xml"
CS_LG = b'<category term="cs.LG" scheme="http://arxiv.org/schemas/atom"/>'


def _first_record_with_extra_term(term: str) -> Record:
    extra = f'<category term="{term}" scheme="http://arxiv.org/schemas/atom"/>'.encode()
    body = TESTING_FEED.read_bytes().replace(CS_LG, CS_LG + b"\n    " + extra, 1)
    return parse_feed(body).records[0]


@pytest.mark.parametrize("term", ["software", "networks", "security"])
def test_a_one_word_acm_class_is_the_acm_class_not_a_category(term: str) -> None:
    record = _first_record_with_extra_term(term)
    assert record.categories == ("cs.SE", "cs.LG")
    assert record.acm_class == term


def test_a_lone_hyphenated_archive_is_still_a_category() -> None:
    record = _first_record_with_extra_term("quant-ph")
    assert record.categories == ("cs.SE", "cs.LG", "quant-ph")
    assert record.acm_class is None


@pytest.mark.parametrize(
    ("term", "expected"),
    [
        ("cs.DC", True),
        ("cs.XX", True),  # a future category
        ("hep-th", True),
        ("alg-geom", True),  # a retired archive, on old papers
        ("software", False),
        ("H.5.4", False),
        ("05C50", False),
    ],
)
def test_is_paper_category(term: str, expected: bool) -> None:
    assert is_paper_category(term) is expected
