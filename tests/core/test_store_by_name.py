"""Inline mode's name look-up in the store (`watcher.store.by_name`): a person's newest papers,
exact matches only, whichever path finds them: the stored spellings of a name nobody follows
(all links read), or a prolific person's found walking the newest papers (and, when their
papers are all older than the walk, all links after all): each path gives the newest papers of
that person as the whole store ordered says. (The follow's path: tests/bot/test_inline.py.)
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy import Engine

from tests.fakes.corpus import make_record
from watcher.arxiv.records import Record
from watcher.follows.names import is_same_person
from watcher.store import MatchedRecord, Store, by_name
from watcher.store.by_name import spellings

START = datetime(2020, 1, 1, tzinfo=UTC)


def paper(n: int, authors: list[str], *, hours: int | None = None) -> Record:
    published = START + timedelta(hours=n if hours is None else hours)
    return make_record(arxiv_id=f"2001.{n:05d}", authors=authors, published=published)


def newest_of(store: Store, name: str, limit: int = 10) -> list[str]:
    everything = store.recent(limit=10_000)
    mine = [p for p in everything if any(is_same_person(a.name, [name]) for a in p.authors)]
    return [p.arxiv_id for p in mine[:limit]]


@pytest.fixture
def store(engine: Engine) -> Store:
    store = Store(engine)
    records = [paper(n, ["Ann Lee", "Bo Chen"] if n % 3 else ["Ann Lee"]) for n in range(60)]
    records += [paper(100 + n, ["Old Timer"], hours=-100 + n) for n in range(15)]  # the oldest
    records += [paper(n + 200, ["Lee Ann", "Ann Leeds"]) for n in range(5)]
    records += [paper(n + 300, ["Zoë Park"]) for n in range(3)]
    store.save_records([MatchedRecord(r, frozenset()) for r in records], announce_for=frozenset())
    return store


@pytest.mark.parametrize(("walk_from", "window"), [(2000, 20_000), (0, 20_000), (0, 30)])
def test_every_path_gives_the_newest_papers_of_exactly_that_person(
    store: Store, monkeypatch: pytest.MonkeyPatch, walk_from: int, window: int
) -> None:
    monkeypatch.setattr(by_name, "WALK_FROM", walk_from)
    monkeypatch.setattr(by_name, "WINDOW", window)
    for name in ("ann lee", "Lee, Ann", "Bo Chen", "Old Timer", "Ann Leeds"):
        found = [p.arxiv_id for p in store.papers_by_name(name, limit=10)]
        assert found == newest_of(store, name) != [], name
    # Stored with an accent, a name nobody follows is found as written, and missed without it:
    # never confused with anyone else.
    assert [p.arxiv_id for p in store.papers_by_name("zoë park", limit=10)] == newest_of(
        store, "Zoë Park"
    )
    assert store.papers_by_name("Zoe Park", limit=10) == []
    assert store.papers_by_name("Nobody Here", limit=10) == []


def test_spellings_cover_case_order_and_the_comma_form() -> None:
    found = spellings("dezun dong")
    for spelling in ("dezun dong", "Dezun Dong", "Dong Dezun", "Dong, Dezun", "dong, dezun"):
        assert spelling in found
    assert "De-Zun Dong" in spellings("de-zun dong")
    assert len(spellings("a b c d e f g")) <= 4
