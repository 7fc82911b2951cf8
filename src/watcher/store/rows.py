"""Turning stored paper rows back into domain `Record`s, authors and categories in order."""

from __future__ import annotations

from collections.abc import Sequence

from sqlmodel import Session, col, select

from watcher.arxiv import records
from watcher.store.tables import Author, Paper, PaperAuthor, PaperCategory


def load_records(session: Session, papers: Sequence[Paper]) -> list[records.Record]:
    """Domain records for `papers`, with their ordered authors and categories (3 queries)."""
    ids = [paper.id for paper in papers]
    authors: dict[int, list[records.Author]] = {paper_id: [] for paper_id in ids if paper_id}
    for paper_id, name, affiliations in session.exec(
        select(PaperAuthor.paper_id, Author.name, PaperAuthor.affiliations)
        .join(Author, col(Author.id) == col(PaperAuthor.author_id))
        .where(col(PaperAuthor.paper_id).in_(ids))
        .order_by(col(PaperAuthor.paper_id), col(PaperAuthor.position))
    ).all():
        split = tuple(affiliations.split("\n")) if affiliations else ()
        authors[paper_id].append(records.Author(name=name, affiliations=split))
    categories: dict[int, list[str]] = {paper_id: [] for paper_id in ids if paper_id}
    for paper_id, category in session.exec(
        select(PaperCategory.paper_id, PaperCategory.category)
        .where(col(PaperCategory.paper_id).in_(ids))
        .order_by(col(PaperCategory.paper_id), col(PaperCategory.position))
    ).all():
        categories[paper_id].append(category)
    return [
        records.Record(
            arxiv_id=paper.arxiv_id,
            version=paper.version,
            title=paper.title,
            abstract=paper.abstract,
            authors=tuple(authors[paper.id or 0]),
            primary_category=paper.primary_category,
            categories=tuple(categories[paper.id or 0]),
            published=paper.published,
            updated=paper.updated,
            abs_url=paper.abs_url,
            pdf_url=paper.pdf_url,
            comment=paper.comment,
            journal_ref=paper.journal_ref,
            doi=paper.doi,
            acm_class=paper.acm_class,
            msc_class=paper.msc_class,
            changes=None if paper.changes is None else changes_of(paper.changes),
        )
        for paper in papers
    ]


def changes_of(stored: str) -> frozenset[str]:
    """The names a `paper.changes` column holds."""
    return frozenset(name for name in stored.split(",") if name)
