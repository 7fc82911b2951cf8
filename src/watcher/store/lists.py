"""The questions asked of the stored papers: /recent, /subject, /subjects, /paper and counts,
and how many papers a week a whole category brings (`category_week`, for /watch in CATEGORY).

Newest first is (published DESC, arxiv_id DESC) everywhere. A list of a category or of some
authors is read in two steps, each served by an index (bench/README.md says which): the v1 date
of the last paper the page needs comes from the link table's (key, published, paper_id) index,
then only the papers from that date on are fetched and ordered. So a page costs about the same
at a million papers as at a thousand. Counts over all papers (of a category, or every paper)
read `paper_count`, which the save path keeps; a chat's questions within a category read
`paper_match_category`, which it keeps too.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import datetime, timedelta

from sqlalchemy import Engine, Select, func, text
from sqlalchemy import select as sql_select
from sqlmodel import Session, col, select

from watcher.arxiv import records
from watcher.kinds import FollowKind
from watcher.store.rows import load_records
from watcher.store.tables import (
    ALL_PAPERS,
    FollowedAuthor,
    Paper,
    PaperCategory,
    PaperCount,
    PaperMatch,
    PaperMatchCategory,
    PollState,
)

WEEK = timedelta(days=7)


class QuestionStore:
    """Read-only questions about the stored papers. Each method is one transaction."""

    engine: Engine

    def recent(
        self, *, limit: int, offset: int = 0, followed_ids: Iterable[int] | None = None
    ) -> list[records.Record]:
        """Stored papers, newest first by their v1 date."""
        return self._newest(limit=limit, offset=offset, category=None, followed_ids=followed_ids)

    def count(self, *, followed_ids: Iterable[int] | None = None) -> int:
        if followed_ids is None:
            return self._kept_count(ALL_PAPERS)
        return self._count_links(_links(category=None, followed_ids=list(followed_ids)))

    def by_category(
        self,
        category: str | Sequence[str],
        *,
        limit: int,
        offset: int = 0,
        followed_ids: Iterable[int] | None = None,
    ) -> list[records.Record]:
        """Stored papers having `category` (or one of several), as primary or cross-list,
        newest first."""
        return self._newest(
            limit=limit, offset=offset, category=category, followed_ids=followed_ids
        )

    def count_category(
        self, category: str | Sequence[str], *, followed_ids: Iterable[int] | None = None
    ) -> int:
        """How many stored papers have `category` (or one of several), each counted once."""
        if followed_ids is None and isinstance(category, str):
            return self._kept_count(category)
        return self._count_links(
            _links(
                category=category,
                followed_ids=None if followed_ids is None else list(followed_ids),
            )
        )

    def category_counts(
        self, *, followed_ids: Iterable[int] | None = None
    ) -> list[tuple[str, int]]:
        """Each category of the stored papers with its paper count, most papers first."""
        if followed_ids is None:
            kept = (
                select(PaperCount.scope, PaperCount.papers)
                .where(col(PaperCount.scope) != ALL_PAPERS, col(PaperCount.papers) > 0)
                .order_by(col(PaperCount.papers).desc(), col(PaperCount.scope))
            )
            with Session(self.engine) as session:
                return [(scope, papers) for scope, papers in session.exec(kept).all()]
        # A paper of two of the chat's authors has its categories once per author: counted once.
        papers = func.count(col(PaperMatchCategory.paper_id).distinct())
        query = (
            select(PaperMatchCategory.category, papers.label("n"))
            .where(col(PaperMatchCategory.followed_author_id).in_(list(followed_ids)))
            .group_by(col(PaperMatchCategory.category))
            .order_by(papers.desc(), col(PaperMatchCategory.category))
        )
        with Session(self.engine) as session:
            return [(category, n) for category, n in session.exec(query).all()]

    def category_week(self, categories: Sequence[str], *, now: datetime) -> int | None:
        """How many stored papers of `categories` (each counted once) have a v1 date in the
        week before `now`; None when the store cannot know it: it holds a category's every
        paper only while a whole-category topic of it (`watcher.follows.topics`, no words) is
        polled, so each category must have one whose last success is within that week (a first poll
        reads `POLL_WINDOW_DAYS` back, a week or more)."""
        since = now - WEEK
        whole = (
            select(FollowedAuthor.categories)
            .join(PollState, col(PollState.followed_author_id) == col(FollowedAuthor.id))
            .where(
                # As written in the partial index's WHERE (a literal), so that it serves.
                text("followed_author.topic = ''"),
                col(FollowedAuthor.kind) == FollowKind.TOPIC,
                col(PollState.last_success) >= since,
            )
        )
        with Session(self.engine) as session:
            covered = {c for row in session.exec(whole).all() for c in row.split(",")}
        if not set(categories) <= covered:
            return None
        links = _links(category=list(categories), followed_ids=None)
        published = col(PaperCategory.published)
        return self._count_links(links.where(published >= since, published <= now))

    def paper(self, arxiv_id: str) -> records.Record | None:
        with Session(self.engine) as session:
            papers = session.exec(select(Paper).where(col(Paper.arxiv_id) == arxiv_id)).all()
            found = load_records(session, papers)
        return found[0] if found else None

    def paper_followed_ids(self, arxiv_id: str) -> set[int]:
        """The followed authors a stored paper belongs to."""
        with Session(self.engine) as session:
            return set(
                session.exec(
                    select(PaperMatch.followed_author_id)
                    .join(Paper, col(Paper.id) == col(PaperMatch.paper_id))
                    .where(col(Paper.arxiv_id) == arxiv_id)
                )
            )

    def _newest(
        self,
        *,
        limit: int,
        offset: int,
        category: str | Sequence[str] | None,
        followed_ids: Iterable[int] | None,
    ) -> list[records.Record]:
        query = select(Paper).order_by(*_NEWEST_FIRST).limit(limit).offset(offset)
        with Session(self.engine) as session:
            if category is not None or followed_ids is not None:
                links = _links(
                    category=category,
                    followed_ids=None if followed_ids is None else list(followed_ids),
                )
                # A paper may come once per author, or once per category of several.
                repeats = followed_ids is not None or not isinstance(category, str | None)
                nth = _nth_newest_date(links, offset + limit, per_author=repeats)
                cutoff = session.execute(nth).scalar()
                if cutoff is not None:
                    links = links.where(links.selected_columns.published >= cutoff)
                paper_ids = links.with_only_columns(links.selected_columns.paper_id)
                query = query.where(col(Paper.id).in_(paper_ids))
            papers = session.exec(query).all()
            return load_records(session, papers)

    def _count_links(self, links: Select[int, datetime]) -> int:
        paper_ids = links.selected_columns.paper_id
        return self._scalar(links.with_only_columns(func.count(paper_ids.distinct())))

    def _kept_count(self, scope: str) -> int:
        """All papers (ALL_PAPERS) or a category's, from `paper_count`: one row."""
        query = select(PaperCount.papers).where(col(PaperCount.scope) == scope)
        with Session(self.engine) as session:
            return int(session.exec(query).first() or 0)

    def _scalar(self, query: Select[int]) -> int:
        with Session(self.engine) as session:
            return int(session.execute(query).scalar_one())


_NEWEST_FIRST = (col(Paper.published).desc(), col(Paper.arxiv_id).desc())


def _links(
    *, category: str | Sequence[str] | None, followed_ids: list[int] | None
) -> Select[int, datetime]:
    """(paper_id, published) of the papers in `category` (or one of several) and of
    `followed_ids`, read from the link tables' newest-first indexes. A paper of several of the
    authors comes once per author, and of several of the categories once per category."""
    if followed_ids is None:
        assert category is not None
        return sql_select(col(PaperCategory.paper_id), col(PaperCategory.published)).where(
            col(PaperCategory.category) == category
            if isinstance(category, str)
            else col(PaperCategory.category).in_(list(category))
        )
    if category is not None:
        # One range of `paper_match_category`'s primary key per author (and category).
        return sql_select(
            col(PaperMatchCategory.paper_id), col(PaperMatchCategory.published)
        ).where(
            col(PaperMatchCategory.followed_author_id).in_(followed_ids),
            col(PaperMatchCategory.category) == category
            if isinstance(category, str)
            else col(PaperMatchCategory.category).in_(list(category)),
        )
    return sql_select(col(PaperMatch.paper_id), col(PaperMatch.published)).where(
        col(PaperMatch.followed_author_id).in_(followed_ids)
    )


def _nth_newest_date(links: Select[int, datetime], n: int, *, per_author: bool) -> Select[datetime]:
    """The v1 date of the n-th newest distinct paper of `links` (no row if there are fewer).

    `per_author`: a paper may come once per author, so count it once. A category alone lists
    each paper once, and leaving out the grouping lets the index scan stop after n entries.
    """
    paper_id, published = links.selected_columns.paper_id, links.selected_columns.published
    query: Select[datetime] = links.with_only_columns(published)
    if per_author:
        query = query.group_by(paper_id, published)
    return query.order_by(published.desc()).offset(n - 1).limit(1)
