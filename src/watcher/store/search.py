"""/search over the stored papers: the database's own full-text index, never a scan in Python.

Migration 0027 made the index and keeps it in step with every save by the database itself:
on SQLite the FTS5 table `paper_search` (Porter stems, triggers on `paper`), on PostgreSQL the
generated `paper.search_words` (`to_tsvector('english', ...)`, Snowball English stems) under a
GIN index. A query's words (`watcher.follows.search_words.SearchQuery`, letters and digits only, so
nothing can break out of a quote) must all be in the title or the abstract; with a category, the
paper is in it (primary or cross-list). Newest first is (published DESC, arxiv_id DESC), as in
/recent.

So that a page costs about the same at a million papers as at a thousand, matches are counted
up to `MAX_FOUND` only (a search finding more shows the newest `MAX_FOUND`), and a page is read
one of two ways, chosen by the capped count: a few matches are fetched from the index and
ordered; many are found by walking the newest papers and asking about each, which stops after
the page. (PostgreSQL's own estimate of a word's share is too rough for that choice: it walked
the newest papers for a word in 1 paper of 1,000, at 48 ms for 100,000 papers.)
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sqlalchemy import Engine, text
from sqlmodel import Session, col, select

from watcher.arxiv import records
from watcher.follows.search_words import SearchQuery
from watcher.store.rows import load_records
from watcher.store.tables import Paper

MAX_FOUND = 1000
# Below this many matches SQLite orders the index's matches; at or above it walks the newest.
_FEW = 1000

_IN_CATEGORY = (
    "EXISTS (SELECT 1 FROM paper_category c WHERE c.paper_id = p.id AND c.category = :category)"
)

_POSTGRES_MATCHES = "p.search_words @@ plainto_tsquery('english', :words)"
_POSTGRES_COUNT = "SELECT count(*) FROM (SELECT 1 FROM paper p WHERE {where} LIMIT :most) AS m"
_POSTGRES_FEW = (  # the matches first (the GIN index), then ordered: for a few
    "WITH m AS MATERIALIZED (SELECT p.id, p.published, p.arxiv_id FROM paper p WHERE {where}) "
    "SELECT id FROM m ORDER BY published DESC, arxiv_id DESC LIMIT :limit OFFSET :offset"
)
_POSTGRES_MANY = (  # the planner walks the newest papers, asking each: for many
    "SELECT p.id FROM paper p WHERE {where} "
    "ORDER BY p.published DESC, p.arxiv_id DESC LIMIT :limit OFFSET :offset"
)

# SQLite: the index's own matches (its rowid is the paper's id), then the two ways to a page.
# CROSS JOIN keeps the index's matches outermost: SQLite, knowing nothing of their number,
# walked a whole category and asked the index about each paper (1.1 s at a million papers).
_SQLITE_COUNT = (
    "SELECT count(*) FROM (SELECT 1 FROM paper_search WHERE paper_search MATCH :words "
    "LIMIT :most) AS m"
)
_SQLITE_COUNT_IN_CATEGORY = (
    "SELECT count(*) FROM (SELECT 1 FROM paper_search s CROSS JOIN paper_category c "
    "ON c.paper_id = s.rowid AND c.category = :category "
    "WHERE paper_search MATCH :words LIMIT :most) AS m"
)
_SQLITE_FEW = (
    "SELECT p.id FROM paper_search s CROSS JOIN paper p ON p.id = s.rowid "
    "WHERE paper_search MATCH :words AND {where} "
    "ORDER BY p.published DESC, p.arxiv_id DESC LIMIT :limit OFFSET :offset"
)
_SQLITE_MANY = (
    "SELECT p.id FROM paper p INDEXED BY ix_paper_newest WHERE {where} AND EXISTS "
    "(SELECT 1 FROM paper_search WHERE paper_search MATCH :words AND rowid = p.id) "
    "ORDER BY p.published DESC, p.arxiv_id DESC LIMIT :limit OFFSET :offset"
)


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
        values: dict[str, Any] = {"most": MAX_FOUND + 1}
        where = "1 = 1"
        if query.category is not None:
            where, values["category"] = _IN_CATEGORY, query.category
        sqlite = self.engine.dialect.name == "sqlite"
        if sqlite:
            # Each word quoted: FTS5 reads it as a term (never an operator) and stems it.
            values["words"] = " ".join(f'"{word}"' for word in query.words)
            count = _SQLITE_COUNT if query.category is None else _SQLITE_COUNT_IN_CATEGORY
        else:
            values["words"] = query.text
            where = f"{_POSTGRES_MATCHES} AND {where}"
            count = _POSTGRES_COUNT
        with Session(self.engine) as session:
            found = int(session.execute(text(count.format(where=where)), values).scalar_one())
            total = min(found, MAX_FOUND)
            if total <= offset:
                return Found((), total, found > MAX_FOUND)
            if found < _FEW:
                page = _SQLITE_FEW if sqlite else _POSTGRES_FEW
            else:
                page = _SQLITE_MANY if sqlite else _POSTGRES_MANY
            values |= {"limit": min(limit, total - offset), "offset": offset}
            ids = [row[0] for row in session.execute(text(page.format(where=where)), values)]
            papers = {
                paper.id: paper
                for paper in session.exec(select(Paper).where(col(Paper.id).in_(ids))).all()
            }
            ordered = [papers[paper_id] for paper_id in ids if paper_id in papers]
            return Found(tuple(load_records(session, ordered)), total, found > MAX_FOUND)
