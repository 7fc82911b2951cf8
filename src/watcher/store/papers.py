"""Saving papers: what is new, what is a revision, and the harvest's high-water mark.

Storage answers with what is new. `save_records` is idempotent on the arXiv id: a record
stored at the same version announces nothing (other metadata at that version, a DOI or a
journal reference added later, is stored over the old, silently), a newer version is a
*revision*, and a paper is *new* to a follow only when it is linked to that follow for the first
time and arXiv announced it after the follow began: its id is newer than the follow's horizon,
the newest id the store held when the follow started (a person's or topic's first successful
poll, `PollState.started`; see `horizon_on_start`). arXiv gives the id at announcement, so this
is arXiv's own order (`records.announced_after`): a submission held in moderation for a week
and announced after the follow began is new, however old its v1 date; a paper announced before
is not, whatever brings it now (a new version, a DOI added, a person claiming it in their arXiv
account): it is linked silently. A paper new to a follow at a later version than a chat was
told of it through another follow is, for that chat, a revision (told if it asked for
revisions). An old-style id (hep-th/9901001) is never new. Where a source
says when a paper was announced (the listing's mailing, an OAI datestamp), it narrows
`announce_for` before the save (`watcher.polling.sources.harvest.Announced`). A revision replaces
everything the new version carries: title, abstract, authors, categories, ACM/MSC classes,
links. In the same transaction it queues one delivery per subscribed chat that was not told
of the paper yet (see `watcher.store.announce`), so a paper can never be stored without its
announcements.

Text is stored as arXiv sent it, with one exception: NUL characters are dropped, because
PostgreSQL cannot hold them in text (and XML cannot carry them, so arXiv never means one).
Every other control character, emoji and right-to-left mark is kept.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date, datetime
from typing import Any

from sqlalchemy import Date, Engine, String, and_, bindparam, case, func, literal, text
from sqlmodel import Session, col, select

from watcher.arxiv import records
from watcher.arxiv.records import announced_after, announcement_order
from watcher.kinds import NewsKind
from watcher.store.announce import Announcements, Owed, move_waiting
from watcher.store.saving import write_batch
from watcher.store.tables import (
    HarvestedPaper,
    HarvestState,
    Paper,
    PaperMatch,
    PollState,
)

# The same statement on SQLite and PostgreSQL; in key order, so two writers cannot deadlock.
_MARK_HARVESTED = text(
    "INSERT INTO harvested_paper (arxiv_id, datestamp) VALUES (:arxiv_id, :datestamp) "
    "ON CONFLICT (arxiv_id) DO UPDATE SET datestamp = excluded.datestamp "
    "WHERE excluded.datestamp > harvested_paper.datestamp"
).bindparams(bindparam("datestamp", type_=Date))


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


def storable(record: records.Record) -> records.Record:
    """`record` as the store keeps it: every text without NUL characters (the record itself
    when it has none, as nearly every record: a copy would only cost time and memory)."""
    if not any("\x00" in text for text in _texts(record)):
        return record

    def clean(text: str) -> str:
        return text.replace("\x00", "")

    def clean_optional(text: str | None) -> str | None:
        return None if text is None else clean(text)

    return dataclasses.replace(
        record,
        title=clean(record.title),
        abstract=clean(record.abstract),
        authors=tuple(
            # An affiliation of NULs alone is none at all (the parser never hands over empty ones).
            records.Author(clean(a.name), tuple(x for x in map(clean, a.affiliations) if x))
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


def _texts(record: records.Record) -> Iterator[str]:
    yield from (record.title, record.abstract, record.primary_category, *record.categories)
    yield from (record.abs_url, record.pdf_url)
    for author in record.authors:
        yield author.name
        yield from author.affiliations
    optional = (record.comment, record.journal_ref, record.doi, record.acm_class, record.msc_class)
    yield from (text for text in optional if text is not None)


def _horizons(session: Session, followed_ids: Iterable[int]) -> dict[int, str]:
    """The horizon of each of these follows that started: the newest id the store held at its
    start, or, when it held none as new (a fresh install), the first id of the year before the
    start's (`records.start_floor`): whichever arXiv announced later. A person never polled has
    no horizon, and every new-style id is new to it; but no source announces for it before
    that poll, which stores what it finds silently."""
    ids = sorted(followed_ids)
    if not ids:
        return {}
    rows = session.exec(
        select(PollState.followed_author_id, PollState.started, PollState.horizon).where(
            col(PollState.followed_author_id).in_(ids), col(PollState.started).is_not(None)
        )
    ).all()
    horizons: dict[int, str] = {}
    for followed_id, started, horizon in rows:
        assert started is not None
        floor = records.start_floor(started)
        if horizon is None or records.announced_after(floor, horizon):
            horizon = floor
        horizons[followed_id] = horizon
    return horizons


_DIGITS = list("0123456789")


def newest_known_id(session: Session) -> str | None:
    """The newest new-style arXiv id the store holds, in arXiv's order (None: none). Two
    aggregates over the ids, each compared as text only where that is arXiv's order whatever
    the database's collation: the YYMM prefixes (four digits), then the ids of the newest
    month (one width of number: YYMM.NNNN until 1412, YYMM.NNNNN since). An old-style id
    begins with a letter, even one with a subject class shaped like a new one ("math.GT/...")."""
    new_style = and_(
        col(Paper.arxiv_id).like("____.%"), func.substr(Paper.arxiv_id, 1, 1).in_(_DIGITS)
    )
    month = session.exec(select(func.max(func.substr(Paper.arxiv_id, 1, 4))).where(new_style)).one()
    if month is None:
        return None
    return session.exec(
        select(func.max(Paper.arxiv_id)).where(col(Paper.arxiv_id).like(f"{month}.%"))
    ).one()


def horizon_on_start(engine: Engine, followed_ids: Sequence[int]) -> dict[str, Any]:
    """The poll-state values that set `horizon` where a successful poll sets `started` (the
    first since the follow was created or came back): the newest id the store holds now, the
    poll's own answer included. Nothing when every one of these follows has started already,
    so a routine poll costs one indexed look-up."""
    with Session(engine) as session:
        starting = session.exec(
            select(PollState.followed_author_id)
            .where(
                col(PollState.followed_author_id).in_(list(followed_ids)),
                col(PollState.started).is_(None),
            )
            .limit(1)
        ).first()
        if starting is None:
            return {}
        newest = newest_known_id(session)
    return {
        "horizon": case(
            (col(PollState.started).is_(None), literal(newest, String)),
            else_=col(PollState.horizon),
        )
    }


class PaperStore:
    """Saving records and the harvest's state. Each method is one transaction."""

    engine: Engine

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

    def stored_classes(self, arxiv_ids: Iterable[str]) -> dict[str, tuple[str | None, str | None]]:
        """For each stored paper of `arxiv_ids` with an ACM or MSC class: (ACM, MSC)."""
        with Session(self.engine) as session:
            rows = session.exec(
                select(Paper.arxiv_id, Paper.acm_class, Paper.msc_class).where(
                    col(Paper.arxiv_id).in_(list(arxiv_ids)),
                    (col(Paper.acm_class).is_not(None)) | (col(Paper.msc_class).is_not(None)),
                )
            ).all()
            return {arxiv_id: (acm, msc) for arxiv_id, acm, msc in rows}

    def save_records(
        self, matched: Sequence[MatchedRecord], *, announce_for: frozenset[int]
    ) -> SaveResult:
        """Store `matched` in one transaction and say what was new and what was revised.

        New and revised are judged per followed author: a paper another author's poll stored
        first is still new to this author's subscribers, and a version this author's poll has
        not seen is a revision for them. Deliveries are queued only for the authors in
        `announce_for`, those whose history was fetched once; a first poll stores silently.
        A paper arXiv announced before the follow began (not after its horizon) is never new
        to it: its first link is stored silently, and only its later versions are revisions.
        """
        result = SaveResult()
        batch = [(storable(item.record), item.followed_ids) for item in matched]
        with Session(self.engine) as session:
            horizons = _horizons(
                session, announce_for & {f for item in matched for f in item.followed_ids}
            )
            linked_batch = write_batch(session, batch)
            # A paper stored at a newer version: its waiting deliveries will carry that one,
            # whichever follow's save it was (one that owes nobody anything included).
            newest: dict[int, int] = {}
            for (record, _), linked in zip(batch, linked_batch, strict=True):
                if linked.raised:
                    newest[linked.paper_id] = max(newest.get(linked.paper_id, 0), record.version)
            move_waiting(session, newest)
            announcements = Announcements(session)
            earlier: set[int] = set()  # the papers of the records before this one
            for (record, _), linked in zip(batch, linked_batch, strict=True):
                # New to a follow: linked to it for the first time, and announced after it
                # began (its id newer than the follow's horizon); an older paper is linked
                # silently. The one rule of "new", whichever source brought the paper.
                new_for = {
                    f for f in linked.new_for & announce_for
                    if announcement_order(record.arxiv_id) is not None
                    and (f not in horizons or announced_after(record.arxiv_id, horizons[f]))
                }  # fmt: skip
                revised_for = linked.revised_for & announce_for
                # New to a follow past v1, a paper stored before: a destination may have been
                # told an older version through another follow. For it this version is a
                # revision (queued if it asked for revisions); the others get the "new".
                told_before = record.version > 1 and (linked.stored or linked.paper_id in earlier)
                for kind, followed_ids in (
                    (NewsKind.NEW, new_for),
                    (NewsKind.REVISION, revised_for | (new_for if told_before else set())),
                ):
                    if followed_ids:
                        owed = Owed(linked.paper_id, record.version, frozenset(followed_ids))
                        announcements.owe(kind, owed)
                if new_for:
                    result.new.append(record)
                if revised_for:
                    result.revisions.append(record)
                if (linked.new_for or linked.revised_for) and not (new_for or revised_for):
                    result.silent += 1
                earlier.add(linked.paper_id)
            announcements.flush()
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
                select(col(HarvestedPaper.arxiv_id), col(HarvestedPaper.datestamp)).where(
                    col(HarvestedPaper.arxiv_id).in_(list(arxiv_ids))
                )
            ).all()
            return dict(rows)

    def mark_harvested(self, datestamps: Mapping[str, date]) -> None:
        """Remember the datestamps of papers just stored, so an unchanged one costs nothing.
        One upsert for all of them; a datestamp never moves back."""
        if not datestamps:
            return
        with Session(self.engine) as session:
            session.execute(
                _MARK_HARVESTED,
                [{"arxiv_id": a, "datestamp": d} for a, d in sorted(datestamps.items())],
            )
            session.commit()
