"""/search's index at the store (issue 30, migration 0030), on both databases: the index is read
newest first and stops after the page, yet the order stays exactly (published DESC, arxiv_id
DESC), papers of one second included; "in CATEGORY" is a term of the index that follows every
change of a paper's categories; and many matches spread over months page as few do.
"""

from __future__ import annotations

import random
from datetime import UTC, datetime, timedelta

from tests.fakes.corpus import make_record
from watcher.arxiv.records import Record
from watcher.follows.search_words import parse_search
from watcher.store import MatchedRecord, Store

_MOMENT = datetime(2026, 5, 1, 12, tzinfo=UTC)


def _save(store: Store, followed_id: int, records: list[Record]) -> None:
    store.save_records(
        [MatchedRecord(record, frozenset({followed_id})) for record in records],
        announce_for=frozenset(),
    )


def _found(store: Store, words: str, *, offset: int = 0, limit: int = 5) -> list[str]:
    found = store.search(parse_search(words), limit=limit, offset=offset)
    return [record.arxiv_id for record in found.records]


def test_papers_of_one_second_page_in_arxiv_id_order(store: Store, followed_id: int) -> None:
    """Twelve papers published in the same second, stored in a shuffled order (so the stored
    rows' order is not theirs), between a newer and an older one: every page boundary falls
    among them, and each page holds the right ones in the right order."""
    same = [f"2605.{index:05d}" for index in range(1, 13)]
    shuffled = random.Random(3).sample(same, len(same))
    for arxiv_id in shuffled:  # one save each: the rows are numbered in this order
        _save(store, followed_id, [make_record(arxiv_id=arxiv_id, published=_MOMENT)])
    _save(store, followed_id, [
        make_record(arxiv_id="2605.00050", published=_MOMENT + timedelta(seconds=1)),
        make_record(arxiv_id="2604.00001", published=_MOMENT - timedelta(seconds=1)),
    ])  # fmt: skip

    pages = [_found(store, "interconnection", offset=offset) for offset in (0, 5, 10)]
    three = [_found(store, "interconnection networks", offset=o, limit=3) for o in (0, 3, 6, 9)]

    expected = ["2605.00050", *sorted(same, reverse=True), "2604.00001"]
    assert [arxiv_id for page in pages for arxiv_id in page] == expected
    assert [arxiv_id for page in three for arxiv_id in page] == expected[:12]


def test_a_category_search_follows_every_change_of_the_categories(
    store: Store, followed_id: int
) -> None:
    """Categories whose ids share words ("cond-mat.stat-mech", "cond-mat.mes-hall") are told
    apart; a revision that drops a cross-list and adds another moves the paper between them."""
    _save(store, followed_id, [
        make_record(arxiv_id="2605.00001", primary_category="cond-mat.stat-mech",
                    categories=("cond-mat.stat-mech", "hep-th"), published=_MOMENT),
        make_record(arxiv_id="2605.00002", primary_category="cond-mat.mes-hall",
                    categories=("cond-mat.mes-hall",), published=_MOMENT),
        make_record(arxiv_id="2605.00003", primary_category="hep-th",
                    categories=("hep-th", "cs.DC"), published=_MOMENT),
    ])  # fmt: skip

    assert _found(store, "networks in cond-mat.stat-mech") == ["2605.00001"]
    assert _found(store, "networks in cond-mat.mes-hall") == ["2605.00002"]
    assert _found(store, "networks in hep-th") == ["2605.00003", "2605.00001"]
    assert _found(store, "networks in cs.DC") == ["2605.00003"]
    assert _found(store, "networks in math.NA") == []

    revised = make_record(
        arxiv_id="2605.00001", version=2, primary_category="cond-mat.stat-mech",
        categories=("cond-mat.stat-mech", "math.NA"), published=_MOMENT,
        title="Interconnection networks, revised",
    )  # fmt: skip
    _save(store, followed_id, [revised])

    assert _found(store, "networks in hep-th") == ["2605.00003"]
    assert _found(store, "networks in math.NA") == ["2605.00001"]
    assert _found(store, "revised in cond-mat.stat-mech") == ["2605.00001"]
    assert _found(store, "revised in hep-th") == []
    assert _found(store, "networks") == ["2605.00003", "2605.00002", "2605.00001"]


def test_many_matches_over_years_page_in_order_wherever_the_newest_ones_are(
    store: Store, followed_id: int
) -> None:
    """1,100 papers with the word over four years, unevenly: one in the newest month, none in
    the months before it, then about one a day. Every page, the deep ones too, holds exactly the
    papers of that rank, and a category cuts them the same way."""
    rng = random.Random(5)
    when = [_MOMENT]
    start = _MOMENT - timedelta(days=120)
    when += [start - timedelta(days=index * 1.3, seconds=rng.randrange(86_400)) for index in
             range(1_099)]  # fmt: skip
    records = [
        make_record(
            arxiv_id=f"{moment:%y%m}.{index:05d}",
            published=moment,
            categories=("cs.DC", "cs.NI") if index % 7 == 0 else ("cs.DC",),
        )
        for index, moment in enumerate(when)
    ]
    _save(store, followed_id, records)
    newest_first = [
        r.arxiv_id for r in sorted(records, key=lambda r: (r.published, r.arxiv_id), reverse=True)
    ]
    in_ni = [r.arxiv_id for r in records if "cs.NI" in r.categories]
    in_ni.sort(key=lambda a: newest_first.index(a))

    for offset in (0, 5, 250, 500, 995):
        assert _found(store, "interconnection", offset=offset) == newest_first[offset:][:5]
    assert _found(store, "interconnection in cs.NI", offset=100) == in_ni[100:105]
    found = store.search(parse_search("interconnection"), limit=5)
    assert (found.total, found.more) == (1000, True)
