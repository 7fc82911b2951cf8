"""/search over the stored papers: the database's own full-text index, never a scan in Python.

Migration 0028 made the index and keeps it in step with every save by the database itself:
on SQLite the FTS5 table `paper_search` (Porter stems, triggers on `paper`), on PostgreSQL the
generated `paper.search_words` (`to_tsvector('english', ...)`, Snowball English stems) under a
GIN index. A query's words (`watcher.search.SearchQuery`, letters and digits only, so nothing can
break out of a quote) must all be in the title or the abstract; with a category, the paper is
in it (primary or cross-list). Newest first is (published DESC, arxiv_id DESC), as in /recent.
Each database's planner chooses between walking the matches and walking the newest papers.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sqlalchemy import Engine, text
from sqlmodel import Session, col, select

from watcher import records
from watcher.search import SearchQuery
from watcher.store.rows import load_records
from watcher.store.tables import Paper

_SQLITE_MATCHES = "p.id IN (SELECT rowid FROM paper_search WHERE paper_search MATCH :words)"
_POSTGRES_MATCHES = "p.search_words @@ plainto_tsquery('english', :words)"
_NEWEST_PAGE = "ORDER BY p.published DESC, p.arxiv_id DESC LIMIT :limit OFFSET :offset"
_IN_CATEGORY = (
    " AND EXISTS (SELECT 1 FROM paper_category c "
    "WHERE c.paper_id = p.id AND c.category = :category)"
)


@dataclass(frozen=True, slots=True)
class Found:
    """One page of a search: `records`, newest first, of `total` matching papers."""

    records: tuple[records.Record, ...]
    total: int


class SearchStore:
    """/search's reads. Each method is one transaction."""

    engine: Engine

    def search(self, query: SearchQuery, *, limit: int, offset: int = 0) -> Found:
        """Page (`limit` from `offset`) of the stored papers matching `query`, and their count."""
        where, values = self._where(query)  # constant fragments only; the words are values
        page = text(f"SELECT p.id FROM paper p WHERE {where} {_NEWEST_PAGE}")  # noqa: S608
        count = text(f"SELECT count(*) FROM paper p WHERE {where}")  # noqa: S608
        with Session(self.engine) as session:
            total = int(session.execute(count, values).scalar_one())
            if total <= offset:
                return Found((), total)
            ids = [
                row[0]
                for row in session.execute(page, {**values, "limit": limit, "offset": offset})
            ]
            papers = {
                paper.id: paper
                for paper in session.exec(select(Paper).where(col(Paper.id).in_(ids))).all()
            }
            ordered = [papers[paper_id] for paper_id in ids if paper_id in papers]
            return Found(tuple(load_records(session, ordered)), total)

    def _where(self, query: SearchQuery) -> tuple[str, dict[str, Any]]:
        if self.engine.dialect.name == "sqlite":
            # Each word quoted: FTS5 reads it as a term (never an operator) and stems it.
            where, words = _SQLITE_MATCHES, " ".join(f'"{word}"' for word in query.words)
        else:
            where, words = _POSTGRES_MATCHES, query.text
        values: dict[str, Any] = {"words": words}
        if query.category is not None:
            where += _IN_CATEGORY
            values["category"] = query.category
        return where, values
