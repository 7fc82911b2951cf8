"""/search over the stored papers: the database's own full-text index, never a scan in Python.

Migrations 0027 and 0030 made the index, which the database itself keeps in step with every save
(triggers): on SQLite the FTS5 table `paper_search` (Porter stems), on PostgreSQL the table
`paper_search` of `tsvector`s (`to_tsvector('english', ...)`, Snowball English stems) under a GIN
index. Beside the words, each holds the paper's categories (primary and cross-lists) as terms,
so "in CATEGORY" is one more term, never a join. A query's words
(`watcher.follows.search_words.SearchQuery`, letters and digits only, so nothing can break out of
a quote) must all be in the title or the abstract. Newest first is (published DESC, arxiv_id
DESC), as in /recent.

So that a page costs about the same at a million papers as at a thousand (`bench/queries.py`;
`bench/README.md` has the figures), matches are counted up to `MAX_FOUND` only (a search
finding more shows the newest `MAX_FOUND`), and a page is read from the newest matches down,
stopping after it: on SQLite the index's own order is newest first (its rowid is the paper's
search key); on PostgreSQL, whose GIN index has no order, from the matches of the newest months
(below).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from math import ceil
from typing import Any

from sqlalchemy import Engine, text
from sqlmodel import Session, col, select

from watcher.arxiv import records
from watcher.follows.search_words import SearchQuery
from watcher.store.rows import load_records
from watcher.store.tables import Paper

MAX_FOUND = 1000

# PostgreSQL (migration 0030): `paper_search` holds each paper's terms (its words' stems, and
# capitalised terms of its categories, year and month) under a GIN index, and the order's
# columns. A GIN index knows no order, so a page of many matches is read from a window of the
# newest months (their terms ORed in the query): the newest month first, then as many months as
# the matches found in it say the page needs, until the window holds the page or every month.
_POSTGRES_COUNT = (
    "SELECT count(*) FROM (SELECT 1 FROM paper_search WHERE terms @@ ({query}) LIMIT :most) AS m"
)
_POSTGRES_PAGE = (
    "SELECT paper_id, count(*) OVER () FROM paper_search WHERE terms @@ ({query}) "
    "ORDER BY published DESC, arxiv_id DESC LIMIT :limit"
)
_POSTGRES_WORDS = "plainto_tsquery('english', :words)"
_POSTGRES_WORDS_AND = "plainto_tsquery('english', :words) && CAST(:terms AS tsquery)"
_POSTGRES_SPAN = "SELECT min(published), max(published) FROM paper"
_MONTHS_MARGIN = 1.5  # a window this much wider than the matches found so far say
_GROWTH = 8  # a window grows at most this many times from one try to the next

# SQLite (migration 0030): the index's rowid is the paper's search key, (second of published,
# id), so its own order is newest first to the second: the (offset + limit)-th newest match's
# key gives a floor, and the matches from that second on (the page, and any papers that share
# its second) are ordered exactly. Both stop early in the index, whatever the word's share.
_SQLITE_COUNT = (
    "SELECT count(*) FROM (SELECT 1 FROM paper_search WHERE paper_search MATCH :match "
    "LIMIT :most) AS m"
)
_SQLITE_CUT = (
    "SELECT rowid FROM paper_search WHERE paper_search MATCH :match "
    "ORDER BY rowid DESC LIMIT 1 OFFSET :last"
)
_SQLITE_PAGE = (
    "SELECT p.id FROM paper_search s CROSS JOIN paper p ON p.id = (s.rowid & :ids) "
    "WHERE paper_search MATCH :match AND s.rowid >= :floor "
    "ORDER BY p.published DESC, p.arxiv_id DESC LIMIT :limit OFFSET :offset"
)
_ID_BITS = 31  # a search key's low bits: the paper's id (migration 0030)


def category_term(category: str) -> str:
    """The term that stands for `category` in SQLite's index (as migration 0030 writes it): one
    word of letters and digits that the tokenizer keeps whole and the stemmer leaves alone."""
    return category.lower().replace(".", "0").replace("-", "1") + "9"


def sqlite_match(query: SearchQuery) -> str:
    """The FTS5 query: every word in the title or the abstract (each quoted, so FTS5 reads it as
    a term, never an operator, and stems it), and the category's term among the categories."""
    words = " ".join(f'"{word}"' for word in query.words)
    match = f"{{title abstract}} : ({words})"
    if query.category is not None:
        match += f' AND categories : "{category_term(query.category)}"'
    return match


@dataclass(frozen=True, slots=True)
class Found:
    """One page of a search: `records`, newest first, of `total` matching papers counted up to
    `MAX_FOUND` (`more`: there are more than that, and only the newest `MAX_FOUND` page)."""

    records: tuple[records.Record, ...]
    total: int
    more: bool = False


class SearchStore:
    """/search's reads. Each method is one transaction."""

    engine: Engine

    def search(self, query: SearchQuery, *, limit: int, offset: int = 0) -> Found:
        """Page (`limit` from `offset`) of the stored papers matching `query`, and their count."""
        with Session(self.engine) as session:
            if self.engine.dialect.name == "sqlite":
                found, ids = _sqlite_page(session, query, limit=limit, offset=offset)
            else:
                found, ids = _postgres_page(session, query, limit=limit, offset=offset)
            total = min(found, MAX_FOUND)
            papers = {
                paper.id: paper
                for paper in session.exec(select(Paper).where(col(Paper.id).in_(ids))).all()
            }
            ordered = [papers[paper_id] for paper_id in ids if paper_id in papers]
            return Found(tuple(load_records(session, ordered)), total, found > MAX_FOUND)


def _sqlite_page(
    session: Session, query: SearchQuery, *, limit: int, offset: int
) -> tuple[int, list[int]]:
    """The capped count of the matches, and the ids of the page's papers, newest first."""
    values: dict[str, Any] = {"match": sqlite_match(query), "most": MAX_FOUND + 1}
    found = int(session.execute(text(_SQLITE_COUNT), values).scalar_one())
    total = min(found, MAX_FOUND)
    if total <= offset:
        return found, []
    limit = min(limit, total - offset)
    cut = session.execute(text(_SQLITE_CUT), values | {"last": offset + limit - 1}).scalar_one()
    ids = (1 << _ID_BITS) - 1
    values |= {"ids": ids, "floor": cut - (cut & ids), "limit": limit, "offset": offset}
    return found, [row[0] for row in session.execute(text(_SQLITE_PAGE), values)]


def _postgres_page(
    session: Session, query: SearchQuery, *, limit: int, offset: int
) -> tuple[int, list[int]]:
    """The capped count of the matches, and the ids of the page's papers, newest first."""
    category = "" if query.category is None else f"'C{query.category}'"
    values: dict[str, Any] = {"words": query.text, "most": MAX_FOUND + 1}
    count = _POSTGRES_COUNT.format(query=_POSTGRES_WORDS_AND if category else _POSTGRES_WORDS)
    found = int(session.execute(text(count), values | {"terms": category}).scalar_one())
    total = min(found, MAX_FOUND)
    if total <= offset:
        return found, []
    wanted = offset + min(limit, total - offset)
    values["limit"] = wanted
    oldest, newest = session.execute(text(_POSTGRES_SPAN)).one()
    every = _month(newest) - _month(oldest) + 1
    months = 1 if found > MAX_FOUND else every  # a few: all of them at once
    while True:
        window = _window(_month(newest), months) if months < every else ""
        terms = " & ".join(f"({part})" for part in (category, window) if part)
        page = _POSTGRES_PAGE.format(query=_POSTGRES_WORDS_AND if terms else _POSTGRES_WORDS)
        rows = session.execute(text(page), values | {"terms": terms}).all()
        in_window = rows[0][1] if rows else 0
        if in_window >= wanted or months >= every:
            return found, [row[0] for row in rows[offset:]]
        # As many months again as the matches so far say the page needs, with a margin; at
        # least twice as many (a page's worth costs at most about twice the last window), at
        # most _GROWTH times (the newest month may have only begun: its share says little).
        months *= min(_GROWTH, max(2, ceil(wanted / max(in_window, 1) * _MONTHS_MARGIN)))


def _month(moment: datetime) -> int:
    """Months since year 0 of `moment` (UTC), so that months count across years."""
    moment = moment.astimezone(UTC)
    return moment.year * 12 + moment.month - 1


def _window(newest: int, months: int) -> str:
    """The terms of the `months` months up to `newest` (as `_month` counts), ORed: the partial
    years' months, and whole years' year terms."""
    first = newest - months + 1
    terms: list[str] = []
    month = first
    while month <= newest:
        year = month // 12
        if month % 12 == 0 and month + 11 <= newest:
            terms.append(f"'Y{year:04d}'")
            month += 12
        else:
            terms.append(f"'M{year:04d}{month % 12 + 1:02d}'")
            month += 1
    return " | ".join(terms)
