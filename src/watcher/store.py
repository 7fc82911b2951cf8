"""The store: papers, followed authors and their poll state, and the questions asked of them.

Storage answers with what is new. `save_records` is idempotent on the arXiv id: a record
stored at the same version announces nothing (other metadata at that version, a DOI or a
journal reference added later, is stored over the old, silently), a newer version is a
*revision*, and only a paper the store did not have is *new*. A revision replaces everything
the new version carries: title, abstract, authors, categories, ACM/MSC classes, links. In the
same transaction it queues one delivery per subscribed chat (see `watcher.outbox`), so a paper
can never be stored without its announcements.

Text is stored as arXiv sent it, with one exception: NUL characters are dropped, because
PostgreSQL cannot hold them in text (and XML cannot carry them, so arXiv never means one).
Every other control character, emoji and right-to-left mark is kept.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date, datetime

from sqlalchemy import Engine, Select, delete, func
from sqlalchemy import select as sql_select
from sqlmodel import Session, col, select

from watcher import records
from watcher.match import name_key
from watcher.models import (
    FollowedAuthor,
    HarvestedPaper,
    HarvestState,
    Paper,
    PaperCategory,
    PaperMatch,
    PollState,
    Subscription,
)
from watcher.outbox import enqueue_deliveries
from watcher.rows import load_records
from watcher.saving import write_batch


@dataclass(frozen=True, slots=True)
class Followed:
    """A followed author with its poll state, as the CLI and the bot show it."""

    id: int
    name: str
    aliases: tuple[str, ...]
    record_count: int
    last_attempt: datetime | None
    last_success: datetime | None
    last_error: str | None
    consecutive_failures: int
    next_poll: datetime | None
    watched: bool = True
    subscribers: int = 0

    @property
    def names(self) -> tuple[str, ...]:
        return (self.name, *self.aliases)

    @property
    def polled(self) -> bool:
        """Whether anyone wants its papers: the operator watches it, or a chat subscribes."""
        return self.watched or self.subscribers > 0

    @property
    def backfilled(self) -> bool:
        """Whether its history has been fetched once; until then nothing of it is announced."""
        return self.last_success is not None


@dataclass(frozen=True, slots=True)
class MatchedRecord:
    """A record and the followed authors (by id) it belongs to."""

    record: records.Record
    followed_ids: frozenset[int]


@dataclass(slots=True)
class SaveResult:
    """What a save changed: papers the store did not have, and newer versions of ones it had.

    `silent` counts the new papers and revisions stored without a word: those found by a
    followed author's first poll (its backfill).
    """

    new: list[records.Record] = field(default_factory=list)
    revisions: list[records.Record] = field(default_factory=list)
    silent: int = 0


def key_of(name: str) -> str:
    return " ".join(name_key(name))


def storable(record: records.Record) -> records.Record:
    """`record` as the store keeps it: every text without NUL characters."""

    def clean(text: str) -> str:
        return text.replace("\x00", "")

    def clean_optional(text: str | None) -> str | None:
        return None if text is None else clean(text)

    return dataclasses.replace(
        record,
        title=clean(record.title),
        abstract=clean(record.abstract),
        authors=tuple(
            records.Author(clean(a.name), tuple(clean(x) for x in a.affiliations))
            for a in record.authors
        ),
        primary_category=clean(record.primary_category),
        categories=tuple(clean(c) for c in record.categories),
        abs_url=clean(record.abs_url),
        pdf_url=clean(record.pdf_url),
        comment=clean_optional(record.comment),
        journal_ref=clean_optional(record.journal_ref),
        doi=clean_optional(record.doi),
        acm_class=clean_optional(record.acm_class),
        msc_class=clean_optional(record.msc_class),
    )


class Store:
    """Every read and write of papers and followed authors. Each method is one transaction."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine

    # -- followed authors ------------------------------------------------------------------

    def follow(self, names: Sequence[str], *, watched: bool = True) -> tuple[Followed, bool]:
        """Follow a person (display name first, then aliases). Returns it and whether it is new.

        `watched`: the operator's (WATCH_AUTHORS, `arxiv-watcher follow`), polled whoever
        subscribes. A chat's `/subscribe` passes False: polled while some chat subscribes.
        Following never turns a watched author into an unwatched one.
        """
        display, *aliases = names
        with Session(self.engine) as session:
            followed = session.exec(
                select(FollowedAuthor).where(col(FollowedAuthor.name_key) == key_of(display))
            ).first()
            created = followed is None
            if followed is None:
                followed = FollowedAuthor(name=display, name_key=key_of(display), watched=watched)
                session.add(followed)
                session.flush()
                assert followed.id is not None
                session.add(PollState(followed_author_id=followed.id))
            followed.watched = followed.watched or watched
            known = {key_of(name) for name in followed.alias_list} | {followed.name_key}
            extra = [alias for alias in aliases if key_of(alias) not in known]
            if extra:
                followed.aliases = "|".join([*followed.alias_list, *extra])
            session.commit()
            assert followed.id is not None
            return self._followed(session, [followed.id])[0], created

    def find_followed(self, name: str) -> Followed | None:
        """The followed author called `name` (or having it as an alias)."""
        key = key_of(name)
        for followed in self.followed():
            if any(key_of(known) == key for known in followed.names):
                return followed
        return None

    def unfollow(self, followed_id: int) -> None:
        """Stop following; the papers stay, as they may belong to others or be asked for."""
        with Session(self.engine) as session:
            session.exec(delete(FollowedAuthor).where(col(FollowedAuthor.id) == followed_id))
            session.commit()

    def followed(self, ids: Iterable[int] | None = None) -> list[Followed]:
        """Followed authors with their poll state and record counts, by name."""
        with Session(self.engine) as session:
            return self._followed(session, None if ids is None else list(ids))

    def _followed(self, session: Session, ids: list[int] | None) -> list[Followed]:
        counts = (
            select(PaperMatch.followed_author_id, func.count().label("n"))
            .group_by(col(PaperMatch.followed_author_id))
            .subquery()
        )
        subscribers = (
            select(Subscription.followed_author_id, func.count().label("n"))
            .group_by(col(Subscription.followed_author_id))
            .subquery()
        )
        query = (
            select(FollowedAuthor, PollState, counts.c.n, subscribers.c.n)
            .join(PollState, col(PollState.followed_author_id) == col(FollowedAuthor.id))
            .outerjoin(counts, counts.c.followed_author_id == col(FollowedAuthor.id))
            .outerjoin(subscribers, subscribers.c.followed_author_id == col(FollowedAuthor.id))
            .order_by(col(FollowedAuthor.name))
        )
        if ids is not None:
            query = query.where(col(FollowedAuthor.id).in_(ids))
        return [
            Followed(
                id=author.id or 0,
                name=author.name,
                aliases=tuple(author.alias_list),
                record_count=count or 0,
                last_attempt=state.last_attempt,
                last_success=state.last_success,
                last_error=state.last_error,
                consecutive_failures=state.consecutive_failures,
                next_poll=state.next_poll,
                watched=author.watched,
                subscribers=chats or 0,
            )
            for author, state, count, chats in session.exec(query).all()
        ]

    # -- poll state ------------------------------------------------------------------------

    def due_for_poll(self, now: datetime) -> list[Followed]:
        """Followed authors whose next poll time has come (or who were never polled)."""
        return [f for f in self.followed() if f.next_poll is None or f.next_poll <= now]

    def record_poll_success(
        self, followed_ids: Iterable[int], *, now: datetime, next_poll: datetime
    ) -> None:
        self._update_poll_state(
            followed_ids,
            last_attempt=now,
            last_success=now,
            last_error=None,
            consecutive_failures=0,
            next_poll=next_poll,
        )

    def record_poll_failure(
        self, followed_ids: Iterable[int], *, error: str, now: datetime, next_poll: datetime
    ) -> None:
        with Session(self.engine) as session:
            for state in session.exec(
                select(PollState).where(col(PollState.followed_author_id).in_(list(followed_ids)))
            ):
                state.last_attempt = now
                state.last_error = error
                state.consecutive_failures += 1
                state.next_poll = next_poll
            session.commit()

    def _update_poll_state(self, followed_ids: Iterable[int], **values: object) -> None:
        with Session(self.engine) as session:
            for state in session.exec(
                select(PollState).where(col(PollState.followed_author_id).in_(list(followed_ids)))
            ):
                for name, value in values.items():
                    setattr(state, name, value)
            session.commit()

    # -- saving records --------------------------------------------------------------------

    def linked_versions(
        self, arxiv_ids: Iterable[str], followed_ids: Iterable[int]
    ) -> dict[tuple[str, int], int]:
        """For each stored paper of `arxiv_ids` already matched to one of `followed_ids`:
        (arXiv id, followed id) → the version that author's last complete poll saw."""
        with Session(self.engine) as session:
            rows = session.exec(
                select(Paper.arxiv_id, PaperMatch.followed_author_id, PaperMatch.version)
                .join(PaperMatch, col(PaperMatch.paper_id) == col(Paper.id))
                .where(
                    col(Paper.arxiv_id).in_(list(arxiv_ids)),
                    col(PaperMatch.followed_author_id).in_(list(followed_ids)),
                )
            ).all()
            return {(arxiv_id, followed_id): version for arxiv_id, followed_id, version in rows}

    def save_records(
        self, matched: Sequence[MatchedRecord], *, announce_for: frozenset[int]
    ) -> SaveResult:
        """Store `matched` in one transaction and say what was new and what was revised.

        New and revised are judged per followed author: a paper another author's poll stored
        first is still new to this author's subscribers, and a version this author's poll has
        not seen is a revision for them. Deliveries are queued only for the authors in
        `announce_for`, those whose history was fetched once; a first poll stores silently.
        """
        result = SaveResult()
        batch = [(storable(item.record), item.followed_ids) for item in matched]
        with Session(self.engine) as session:
            for (record, _), linked in zip(batch, write_batch(session, batch), strict=True):
                changed = False
                for kind, followed_ids, found in (
                    ("new", linked.new_for, result.new),
                    ("revision", linked.revised_for, result.revisions),
                ):
                    announced = followed_ids & announce_for
                    if announced:
                        found.append(record)
                        enqueue_deliveries(
                            session,
                            paper_id=linked.paper_id,
                            version=record.version,
                            kind=kind,
                            followed_ids=announced,
                        )
                    changed = changed or bool(followed_ids)
                if changed and not (linked.new_for | linked.revised_for) & announce_for:
                    result.silent += 1
            session.commit()
        return result

    # -- the harvest -----------------------------------------------------------------------

    def harvest_state(self, scope: str) -> HarvestState | None:
        """The harvest's high-water mark and health for `scope` (None: never harvested)."""
        with Session(self.engine) as session:
            state = session.get(HarvestState, scope)
            if state is not None:
                session.expunge(state)
            return state

    def record_harvest_success(
        self, scope: str, *, through: date | None, now: datetime, next_attempt: datetime
    ) -> None:
        """A window is stored whole: move the high-water mark to `through` (never back)."""
        with Session(self.engine) as session:
            state = session.get(HarvestState, scope) or HarvestState(scope=scope)
            if through is not None and (
                state.harvested_through is None or through > state.harvested_through
            ):
                state.harvested_through = through
            state.last_attempt = state.last_success = now
            state.last_error, state.consecutive_failures = None, 0
            state.next_attempt = next_attempt
            session.add(state)
            session.commit()

    def record_harvest_failure(
        self, scope: str, *, error: str, now: datetime, next_attempt: datetime
    ) -> int:
        """Count a failed harvest; the mark stays. Returns the failures in a row."""
        with Session(self.engine) as session:
            state = session.get(HarvestState, scope) or HarvestState(scope=scope)
            state.last_attempt, state.last_error, state.next_attempt = now, error, next_attempt
            state.consecutive_failures += 1
            session.add(state)
            session.commit()
            return state.consecutive_failures

    def harvested_datestamps(self, arxiv_ids: Iterable[str]) -> dict[str, date]:
        """The datestamp each of these papers had when the harvest last stored it."""
        with Session(self.engine) as session:
            rows = session.exec(
                select(HarvestedPaper).where(col(HarvestedPaper.arxiv_id).in_(list(arxiv_ids)))
            ).all()
            return {row.arxiv_id: row.datestamp for row in rows}

    def mark_harvested(self, datestamps: Mapping[str, date]) -> None:
        """Remember the datestamps of papers just stored, so an unchanged one costs nothing."""
        with Session(self.engine) as session:
            known = {
                row.arxiv_id: row
                for row in session.exec(
                    select(HarvestedPaper).where(col(HarvestedPaper.arxiv_id).in_(list(datestamps)))
                )
            }
            for arxiv_id, datestamp in datestamps.items():
                row = known.get(arxiv_id)
                if row is None:
                    session.add(HarvestedPaper(arxiv_id=arxiv_id, datestamp=datestamp))
                elif datestamp > row.datestamp:
                    row.datestamp = datestamp
            session.commit()

    # -- questions -------------------------------------------------------------------------
    #
    # Newest first is (published DESC, arxiv_id DESC) everywhere. A list of a category or of
    # some authors is read in two steps, each served by an index (bench/README.md says which):
    # the v1 date of the last paper the page needs comes from the link table's
    # (key, published, paper_id) index, then only the papers from that date on are fetched and
    # ordered. So a page costs about the same at a million papers as at a thousand.

    def recent(
        self, *, limit: int, offset: int = 0, followed_ids: Iterable[int] | None = None
    ) -> list[records.Record]:
        """Stored papers, newest first by their v1 date."""
        return self._newest(limit=limit, offset=offset, category=None, followed_ids=followed_ids)

    def count(self, *, followed_ids: Iterable[int] | None = None) -> int:
        if followed_ids is None:
            return self._scalar(select(func.count()).select_from(Paper))
        return self._count_links(_links(category=None, followed_ids=list(followed_ids)))

    def by_category(
        self,
        category: str,
        *,
        limit: int,
        offset: int = 0,
        followed_ids: Iterable[int] | None = None,
    ) -> list[records.Record]:
        """Stored papers having `category`, as primary or cross-list, newest first."""
        return self._newest(
            limit=limit, offset=offset, category=category, followed_ids=followed_ids
        )

    def count_category(self, category: str, *, followed_ids: Iterable[int] | None = None) -> int:
        ids = None if followed_ids is None else list(followed_ids)
        return self._count_links(_links(category=category, followed_ids=ids))

    def category_counts(
        self, *, followed_ids: Iterable[int] | None = None
    ) -> list[tuple[str, int]]:
        """Each category of the stored papers with its paper count, most papers first."""
        query = select(PaperCategory.category, func.count().label("n"))
        if followed_ids is not None:
            query = query.where(
                col(PaperCategory.paper_id).in_(
                    select(PaperMatch.paper_id).where(
                        col(PaperMatch.followed_author_id).in_(list(followed_ids))
                    )
                )
            )
        query = query.group_by(col(PaperCategory.category)).order_by(
            func.count().desc(), col(PaperCategory.category)
        )
        with Session(self.engine) as session:
            return [(category, n) for category, n in session.exec(query).all()]

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
        category: str | None,
        followed_ids: Iterable[int] | None,
    ) -> list[records.Record]:
        query = select(Paper).order_by(*_NEWEST_FIRST).limit(limit).offset(offset)
        with Session(self.engine) as session:
            if category is not None or followed_ids is not None:
                links = _links(
                    category=category,
                    followed_ids=None if followed_ids is None else list(followed_ids),
                )
                nth = _nth_newest_date(links, offset + limit, per_author=followed_ids is not None)
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

    def _scalar(self, query: Select[int]) -> int:
        with Session(self.engine) as session:
            return int(session.execute(query).scalar_one())


_NEWEST_FIRST = (col(Paper.published).desc(), col(Paper.arxiv_id).desc())


def _links(*, category: str | None, followed_ids: list[int] | None) -> Select[int, datetime]:
    """(paper_id, published) of the papers in `category` and of `followed_ids`, read from the
    link tables' newest-first indexes. A paper of several of the authors comes once per author."""
    if followed_ids is None:
        assert category is not None
        return sql_select(col(PaperCategory.paper_id), col(PaperCategory.published)).where(
            col(PaperCategory.category) == category
        )
    query = sql_select(col(PaperMatch.paper_id), col(PaperMatch.published)).where(
        col(PaperMatch.followed_author_id).in_(followed_ids)
    )
    if category is not None:
        # EXISTS, not a join: SQLite, which has no statistics unless ANALYZE ran, would
        # otherwise walk every paper of the category and probe the chat's links.
        query = query.where(
            sql_select(col(PaperCategory.paper_id))
            .where(
                col(PaperCategory.paper_id) == col(PaperMatch.paper_id),
                col(PaperCategory.category) == category,
            )
            .exists()
        )
    return query


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
