"""The messages of suggestions owed (`suggestion`), as the sender drains them, a digest takes
them, and the daily prune clears them (issue 32).

A message is queued by `watcher.store.suggesting` once per (destination, mailing). The sender
reads the due ones (`due`: of active chats, destinations neither paused nor in their quiet hours,
a parked destination's only when its probe is due), sends, and marks each sent only once
Telegram confirmed it (`mark_sent`): a crash in between sends it again at most, never skips it.
A passing fault retries later, a refusal fails it for good, as the outbox's deliveries do.

A destination taking digests has its message held; the digest's claim takes the newest held
one into its content (`take_held`, in the claim's transaction) and marks it sent with the
digest: it goes out once, in that digest. A digest with no paper sends nothing, and the
suggestions wait for the next one (a newer batch's replace them).

A group that becomes a supergroup takes its messages, its profile and what went into it along
(`move_suggestions`, in the migration's transaction).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date, datetime, timedelta

from sqlalchemy import Engine, and_, case, delete, func, or_, update
from sqlmodel import Session, col, select

from watcher.store import profiles
from watcher.store.destinations import DestinationSetting
from watcher.store.rows import load_records
from watcher.store.suggestion_tables import (
    PaperTerms,
    ProfilePaper,
    Suggestion,
    SuggestionBatch,
    SuggestionCandidate,
    SuggestionProfile,
    SuggestionStatus,
)
from watcher.store.tables import Chat, Paper, ParkedDestination
from watcher.suggestions.scoring import Explanation
from watcher.suggestions.shown import SuggestedPaper

KEEP_BATCHES = timedelta(days=7)  # a mailing's kept papers, for /suggest's top now
KEEP_UNSTORED_TERMS = timedelta(days=14)  # terms of papers a batch counted, never stored
_SETTLED = [SuggestionStatus.SENT, SuggestionStatus.FAILED, SuggestionStatus.DROPPED]


@dataclass(frozen=True, slots=True)
class PendingSuggestion:
    """One suggestion message owed to a destination (chat, forum topic): the papers of the
    batch of `mailing`, best first. `id` names it in `mark_sent`, `retry_later` and
    `mark_failed`; `attempts` counts the failed tries; `probing`: its destination is parked,
    and this send tests whether it still is (as `PendingDelivery.probing`)."""

    id: int
    chat_id: int
    thread_id: int
    mailing: date
    attempts: int
    papers: tuple[SuggestedPaper, ...]
    probing: bool = False


def suggested_papers(session: Session, stored: Sequence[str]) -> list[tuple[SuggestedPaper, ...]]:
    """Messages' papers (`suggestion.papers` JSON each) with their records, one read for all."""
    decoded = [json.loads(papers) for papers in stored]
    ids = {entry[0] for papers in decoded for entry in papers}
    rows = session.exec(select(Paper).where(col(Paper.id).in_(ids))).all() if ids else []
    records = dict(zip([p.id for p in rows], load_records(session, list(rows)), strict=True))
    return [
        tuple(
            SuggestedPaper(
                record=records[paper_id],
                reason=Explanation(like=like, shared=tuple(shared)),
                score=score,
            )
            for paper_id, score, like, shared in papers
            if paper_id in records
        )
        for papers in decoded
    ]


def held_papers(session: Session, chat_id: int, thread_id: int) -> tuple[SuggestedPaper, ...]:
    """Inside a digest's claim: the papers of the destination's newest held message (none: an
    empty tuple). Nothing changes until `take_held`, once the digest rendered."""
    held = session.exec(
        select(Suggestion.papers)
        .where(
            col(Suggestion.chat_id) == chat_id,
            col(Suggestion.thread_id) == thread_id,
            col(Suggestion.status) == SuggestionStatus.HELD,
        )
        .order_by(col(Suggestion.mailing).desc())
        .limit(1)
    ).first()
    return () if held is None else suggested_papers(session, [held])[0]


def take_held(session: Session, chat_id: int, thread_id: int, *, now: datetime) -> None:
    """Inside a digest's claim, its parts rendered with `held_papers`: every held message of
    the destination marked sent (the newest goes out in this digest; older ones never will)."""
    session.execute(
        update(Suggestion)
        .where(
            col(Suggestion.chat_id) == chat_id,
            col(Suggestion.thread_id) == thread_id,
            col(Suggestion.status) == SuggestionStatus.HELD,
        )
        .values(status=SuggestionStatus.SENT, sent=now)
    )


def move_suggestions(session: Session, *, old_id: int, new_id: int) -> None:
    """Inside the caller's transaction, before the old chat's row goes (its rows go with it): a
    group became a supergroup. Its messages move, except one for a topic and batch the
    supergroup has already; its profile and what went into it move if the supergroup has none."""
    have = set(
        session.exec(
            select(col(Suggestion.thread_id), col(Suggestion.mailing)).where(
                col(Suggestion.chat_id) == new_id
            )
        ).all()
    )
    for message in session.exec(select(Suggestion).where(col(Suggestion.chat_id) == old_id)).all():
        if (message.thread_id, message.mailing) not in have:
            message.chat_id = new_id
            session.add(message)
    old = session.get(SuggestionProfile, old_id)
    if old is None or session.get(SuggestionProfile, new_id) is not None:
        return
    session.add(SuggestionProfile(**{**old.model_dump(), "chat_id": new_id}))
    for went_in in session.exec(
        select(ProfilePaper).where(col(ProfilePaper.chat_id) == old_id)
    ).all():
        session.add(ProfilePaper(**{**went_in.model_dump(), "chat_id": new_id}))


def _destination_holds(now: datetime) -> object:
    """A suggestion whose destination is paused, or inside its quiet window, at `now`."""
    return (
        select(DestinationSetting.chat_id)
        .where(
            col(DestinationSetting.chat_id) == col(Suggestion.chat_id),
            col(DestinationSetting.thread_id) == col(Suggestion.thread_id),
            or_(col(DestinationSetting.paused), col(DestinationSetting.quiet_from) <= now),
        )
        .exists()
    )


def _parking() -> object:
    return and_(
        col(ParkedDestination.chat_id) == col(Suggestion.chat_id),
        col(ParkedDestination.thread_id) == col(Suggestion.thread_id),
    )


class SuggestionOutbox:
    """The sender's reads and writes of the suggestion messages; one transaction each."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine

    def due(self, *, limit: int, now: datetime) -> list[PendingSuggestion]:
        with Session(self.engine) as session:
            rows = session.exec(
                select(Suggestion, col(ParkedDestination.chat_id).is_not(None))
                .join(Chat, col(Chat.id) == col(Suggestion.chat_id))
                .outerjoin(ParkedDestination, _parking())  # type: ignore[arg-type]
                .where(
                    col(Suggestion.status) == SuggestionStatus.PENDING,
                    col(Suggestion.next_attempt) <= now,
                    col(Chat.active),
                    or_(
                        col(ParkedDestination.chat_id).is_(None),
                        col(ParkedDestination.retry_at) <= now,
                    ),
                    ~_destination_holds(now),  # type: ignore[operator]
                )
                .order_by(col(Suggestion.next_attempt), col(Suggestion.id))
                .limit(limit)
            ).all()
            papers = suggested_papers(session, [row.papers for row, _ in rows])
            return [
                PendingSuggestion(
                    id=row.id or 0,
                    chat_id=row.chat_id,
                    thread_id=row.thread_id,
                    mailing=row.mailing,
                    attempts=row.attempts,
                    papers=shown,
                    probing=bool(parked),
                )
                for (row, parked), shown in zip(rows, papers, strict=True)
            ]

    def next_due(self, *, now: datetime) -> datetime | None:
        """When the earliest pending message of an active chat falls due (a parked
        destination's: its probe), if any."""
        with Session(self.engine) as session:
            later = case(
                (col(ParkedDestination.retry_at) > col(Suggestion.next_attempt),
                 col(ParkedDestination.retry_at)),
                else_=col(Suggestion.next_attempt),
            )  # fmt: skip
            earliest: datetime | None = session.exec(
                select(func.min(later))
                .select_from(Suggestion)
                .join(Chat, col(Chat.id) == col(Suggestion.chat_id))
                .outerjoin(ParkedDestination, _parking())  # type: ignore[arg-type]
                .where(
                    col(Suggestion.status) == SuggestionStatus.PENDING,
                    col(Chat.active),
                    ~_destination_holds(now),  # type: ignore[operator]
                )
            ).one()
            return earliest

    def mark_sent(self, confirmed: Sequence[tuple[int, int | None]], *, now: datetime) -> None:
        if not confirmed:
            return
        with Session(self.engine) as session:
            for suggestion_id, message_id in confirmed:
                session.execute(
                    update(Suggestion)
                    .where(
                        col(Suggestion.id) == suggestion_id,
                        col(Suggestion.status) == SuggestionStatus.PENDING,
                    )
                    .values(status=SuggestionStatus.SENT, sent=now, message_id=message_id)
                )
            session.commit()

    def retry_later(self, ids: Sequence[int], *, error: str, at: datetime) -> None:
        self._update(ids, attempts=Suggestion.attempts + 1, last_error=error, next_attempt=at)

    def mark_failed(self, ids: Sequence[int], *, error: str) -> None:
        self._update(ids, status=SuggestionStatus.FAILED, last_error=error)

    def _update(self, ids: Sequence[int], **values: object) -> None:
        with Session(self.engine) as session:
            session.execute(
                update(Suggestion)
                .where(
                    col(Suggestion.id).in_(list(ids)),
                    col(Suggestion.status) == SuggestionStatus.PENDING,
                )
                .values(**values)
            )
            session.commit()

    def prune(self, *, now: datetime, older_than: datetime) -> int:
        """The daily step: what went into profiles 365 days ago comes out
        (`profiles.prune`); settled messages created before `older_than` go, as do the batches
        older than `KEEP_BATCHES` and the terms of papers a batch counted but the store never
        kept. Returns how many profile entries were taken out."""
        taken = profiles.prune(self.engine, now=now)
        with Session(self.engine) as session:
            session.execute(
                delete(Suggestion).where(
                    col(Suggestion.status).in_(_SETTLED), col(Suggestion.created) < older_than
                )
            )
            old = select(col(SuggestionBatch.mailing)).where(
                col(SuggestionBatch.read_at) < now - KEEP_BATCHES
            )
            session.execute(
                delete(SuggestionCandidate).where(col(SuggestionCandidate.mailing).in_(old))
            )
            session.execute(delete(SuggestionBatch).where(col(SuggestionBatch.mailing).in_(old)))
            stored = select(Paper.id).where(col(Paper.arxiv_id) == col(PaperTerms.arxiv_id))
            session.execute(
                delete(PaperTerms).where(
                    col(PaperTerms.counted_at) < now - KEEP_UNSTORED_TERMS, ~stored.exists()
                )
            )
            session.commit()
        return taken


__all__ = ["PendingSuggestion", "SuggestionOutbox", "suggested_papers", "take_held"]
