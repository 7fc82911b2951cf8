"""Property: whatever text a record holds, the store gives it back as it was, after a revision
too, on SQLite and on PostgreSQL. The one change allowed is documented in `watcher.store`: NUL
characters are dropped (PostgreSQL cannot hold them; XML, and so arXiv, cannot send them).

The text is hostile on purpose: control characters, right-to-left marks, emoji, quotes, SQL and
HTML fragments, and fields of 100 KB. Each example uses its own arXiv id, so one database serves
them all.
"""

from __future__ import annotations

import dataclasses
import itertools
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sqlalchemy import Engine

from tests.fakes.corpus import make_record
from watcher.arxiv.parse import normalise_whitespace
from watcher.arxiv.records import Author, Record
from watcher.store import MatchedRecord, Store

_SPECIAL = [
    "\x00", "\x01", "\x08", "\x1b[31m", "\x7f", "\x85", "\u200f", "\u202e", "\u2066", "\ufeff",
    "عربي", "עברית", "🚀", "👩\u200d🔬", "𝔸", "<b>&amp;</b>", "'; DROP TABLE paper; --", "\\",
    "%_", "\r\n", "\t",
]  # fmt: skip
_HUGE = 100_000

_piece = st.one_of(
    st.text(st.characters(exclude_categories=("Cs",)), max_size=30),
    st.sampled_from(_SPECIAL),
)
_small = st.lists(_piece, max_size=6).map("".join)
_huge = st.tuples(_piece.filter(bool), _small).map(
    lambda parts: (parts[0] * (_HUGE // len(parts[0]) + 1))[:_HUGE] + parts[1]
)
_text = st.one_of(_small, _small, _small, _huge)
_optional = st.one_of(st.none(), _text)
# Affiliations are stored one a line; the parser hands them over whitespace-normalised, never
# empty, so no line break can be inside one.
_affiliation = _text.map(normalise_whitespace).filter(bool)
_author = st.builds(Author, _text, st.lists(_affiliation, max_size=3).map(tuple))
_category = st.from_regex(r"[a-z]{2,8}(-[a-z]{2,4})?(\.[A-Za-z]{1,6})?", fullmatch=True)
_moment = st.datetimes(
    min_value=datetime(1991, 8, 14), max_value=datetime(2100, 1, 1), timezones=st.just(UTC)
)


@st.composite
def _version(draw: st.DrawFn, *, arxiv_id: str, version: int, published: datetime) -> Record:
    categories = draw(st.lists(_category, min_size=1, max_size=5, unique=True))
    return Record(
        arxiv_id=arxiv_id,
        version=version,
        title=draw(_text),
        abstract=draw(_text),
        authors=tuple(draw(st.lists(_author, max_size=6))),
        primary_category=categories[0],
        categories=tuple(categories),
        published=published,
        updated=published + timedelta(days=draw(st.integers(0, 3000)), seconds=version),
        abs_url=draw(_text),
        pdf_url=draw(_text),
        comment=draw(_optional),
        journal_ref=draw(_optional),
        doi=draw(_optional),
        acm_class=draw(_optional),
        msc_class=draw(_optional),
    )


@st.composite
def _paper_and_revision(draw: st.DrawFn) -> tuple[Record, Record]:
    published = draw(_moment)
    first = draw(_version(arxiv_id="", version=1, published=published))
    later = draw(_version(arxiv_id="", version=draw(st.integers(2, 99)), published=published))
    return first, later


def without_nul(value: Any) -> Any:
    """`value` with every NUL taken out of every string in it, however deeply nested; an
    affiliation that was NULs alone is gone."""
    if isinstance(value, str):
        return value.replace("\x00", "")
    if isinstance(value, Author):
        affiliations = tuple(a for a in without_nul(value.affiliations) if a)
        return Author(without_nul(value.name), affiliations)
    if isinstance(value, tuple):
        return tuple(without_nul(item) for item in value)
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        fields = {f.name: without_nul(getattr(value, f.name)) for f in dataclasses.fields(value)}
        return dataclasses.replace(value, **fields)
    return value


_ids = (f"2612.{n:05d}" for n in itertools.count(1))


@settings(
    max_examples=25,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(versions=_paper_and_revision())
def test_any_text_is_stored_and_revised_as_it_was(
    engine: Engine, versions: tuple[Record, Record]
) -> None:
    store = Store(engine)
    followed, _ = store.follow(["Dezun Dong"])
    arxiv_id = next(_ids)
    first, later = (dataclasses.replace(v, arxiv_id=arxiv_id) for v in versions)

    for version in (first, later):
        saved = store.save_records(
            [MatchedRecord(version, frozenset({followed.id}))], announce_for=frozenset()
        )
        assert saved.silent == 1
        assert store.paper(arxiv_id) == without_nul(version)


def test_an_affiliation_of_nul_alone_is_no_affiliation(engine: Engine) -> None:
    store = Store(engine)
    followed, _ = store.follow(["Dezun Dong"])
    record = dataclasses.replace(
        make_record(arxiv_id=next(_ids)), authors=(Author("Dezun Dong", ("\x00", "NUDT\x00")),)
    )
    store.save_records([MatchedRecord(record, frozenset({followed.id}))], announce_for=frozenset())
    stored = store.paper(record.arxiv_id)
    assert stored is not None and stored.authors == (Author("Dezun Dong", ("NUDT",)),)


_TEXT_FIELDS = ["title", "abstract", "abs_url", "pdf_url", "comment", "journal_ref", "doi",
                "acm_class", "msc_class"]  # fmt: skip


@pytest.mark.parametrize("where", [*_TEXT_FIELDS, "author", "affiliation", "category"])
def test_a_nul_in_any_one_text_is_dropped(engine: Engine, where: str) -> None:
    """A record is copied without its NULs only when one of its texts holds one: each is
    looked at."""
    store = Store(engine)
    followed, _ = store.follow(["Dezun Dong"])
    record = make_record(arxiv_id=next(_ids), authors=["Dezun Dong"])
    if where in _TEXT_FIELDS:
        spoiled = dataclasses.replace(record, **{where: "A\x00B"})
        expected = dataclasses.replace(record, **{where: "AB"})
    elif where == "author":
        spoiled = dataclasses.replace(record, authors=(Author("Dezun\x00 Dong"),))
        expected = dataclasses.replace(record, authors=(Author("Dezun Dong"),))
    elif where == "affiliation":
        spoiled = dataclasses.replace(record, authors=(Author("Dezun Dong", ("NU\x00DT",)),))
        expected = dataclasses.replace(record, authors=(Author("Dezun Dong", ("NUDT",)),))
    else:
        spoiled = dataclasses.replace(record, categories=("cs.DC", "cs.\x00NI"))
        expected = dataclasses.replace(record, categories=("cs.DC", "cs.NI"))
    store.save_records([MatchedRecord(spoiled, frozenset({followed.id}))], announce_for=frozenset())
    assert store.paper(record.arxiv_id) == expected
