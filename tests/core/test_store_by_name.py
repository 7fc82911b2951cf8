"""Inline mode's name look-up in the store (`watcher.store.by_name`): a person's newest papers,
exact matches only, through the `author` rows of every spelling of the name (`key_digest`: case,
accents, punctuation and word order aside, as `name_key` says) and each one's newest papers:
the newest papers of that person as the whole store ordered says, never a look-alike's.
(The follow's path: tests/bot/test_inline.py.)
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy import Engine

from tests.fakes.corpus import make_record
from watcher.arxiv.records import Record
from watcher.follows.names import is_same_person
from watcher.store import MatchedRecord, Store

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
    records += [paper(n + 400, ["Zoey Park", "Zoe Parks"]) for n in range(3)]  # look-alikes
    store.save_records([MatchedRecord(r, frozenset()) for r in records], announce_for=frozenset())
    return store


def test_a_name_gives_the_newest_papers_of_exactly_that_person(store: Store) -> None:
    for name in ("ann lee", "Lee, Ann", "Bo Chen", "Old Timer", "Ann Leeds"):
        found = [p.arxiv_id for p in store.papers_by_name(name, limit=10)]
        assert found == newest_of(store, name) != [], name
    assert store.papers_by_name("Nobody Here", limit=10) == []


def test_accents_left_out_find_the_person_and_never_a_look_alike(store: Store) -> None:
    """arXiv wrote "Zoë Park" only: typed with or without the accent, her papers, and never
    the newer ones of "Zoey Park" and "Zoe Parks", other people (nor theirs hers)."""
    hers = newest_of(store, "Zoë Park")
    assert hers == ["2001.00302", "2001.00301", "2001.00300"]
    for typed in ("zoë park", "Zoe Park", "PARK, ZOE", "zoe park"):
        assert [p.arxiv_id for p in store.papers_by_name(typed, limit=10)] == hers, typed
    others = ["2001.00402", "2001.00401", "2001.00400"]
    for typed in ("Zoey Park", "zoe parks"):
        assert [p.arxiv_id for p in store.papers_by_name(typed, limit=10)] == others, typed


def test_every_spelling_of_a_prolific_person_is_merged_newest_first(engine: Engine) -> None:
    """Three spellings with 12 papers each, interleaved in time, and a look-alike's newer
    papers: the newest 10 of the three, one answer."""
    store = Store(engine)
    spellings = ["Zoë Müller", "Müller, Zoë", "ZOE MULLER"]
    records = [paper(n, [spellings[n % 3], "Bo Chen"]) for n in range(36)]
    records += [paper(100 + n, ["Zoey Müller"]) for n in range(5)]
    records += [paper(200 + n, ["Zoe Mueller"]) for n in range(5)]
    store.save_records([MatchedRecord(r, frozenset()) for r in records], announce_for=frozenset())
    expected = [f"2001.{n:05d}" for n in range(35, 25, -1)]
    assert [p.arxiv_id for p in store.papers_by_name("zoe muller", limit=10)] == expected
    assert [p.arxiv_id for p in store.papers_by_name("Zoe Muller", limit=40)] == [
        f"2001.{n:05d}" for n in range(35, -1, -1)
    ]
