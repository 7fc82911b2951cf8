"""The messages a ranked page of "Suggested for you" owes (issue 32), queued inside the
transaction of `watcher.store.suggesting.SuggestionStore.page`: the papers shown that the store
lacks are stored first, as the batch kept them (`suggestion_candidate`), without a follow
(stored, never announced); then one message a destination, unique on (chat, thread, mailing),
so that a page queued twice (a crash, a second process) queues nothing twice.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import date, datetime

from sqlalchemy import update
from sqlmodel import Session, col, select

from watcher.arxiv.records import Record
from watcher.store.dialects import upsert_into
from watcher.store.kept_records import record_of
from watcher.store.papers import storable
from watcher.store.saving import write_batch
from watcher.store.suggestion_tables import Suggestion, SuggestionCandidate, SuggestionStatus
from watcher.store.tables import Paper
from watcher.suggestions.scoring import Explanation

_PER_READ = 500  # ids per IN (...): well below the databases' bound parameters


@dataclass(frozen=True, slots=True)
class Shown:
    """A paper a destination is shown: its arXiv id, score and why."""

    arxiv_id: str
    score: float
    reason: Explanation


@dataclass(frozen=True, slots=True)
class Queued:
    """The message owed to one destination: its papers, best first."""

    chat_id: int
    thread_id: int
    digest: bool
    papers: tuple[Shown, ...]


def papers_json(papers: Sequence[tuple[int, Shown]]) -> str:
    """A message's papers as `suggestion.papers` keeps them (paper id, score, like, shared)."""
    return json.dumps(
        [
            [paper_id, round(shown.score, 4), shown.reason.like, list(shown.reason.shared)]
            for paper_id, shown in papers
        ],
        separators=(",", ":"),
    )


def queue_in(
    session: Session,
    mailing: date,
    queued: Sequence[Queued],
    *,
    positions: Mapping[str, int],
    now: datetime,
) -> int:
    """Inside the caller's transaction: queue each destination's message for `mailing`, unless
    it has one; returns how many were new. Its papers the store lacks are stored first, as the
    batch kept them (`positions`: each paper's position in the batch). A destination taking
    digests gets it held for its next digest, where it replaces an older one still held."""
    if not queued:
        return 0
    shown = sorted({paper.arxiv_id for one in queued for paper in one.papers})
    ids = stored_ids(session, shown)
    missing = [positions[arxiv_id] for arxiv_id in shown if arxiv_id not in ids]
    if missing:
        ids.update(_store_new(session, _candidates_at(session, mailing, missing)))
    dialect = session.get_bind().dialect.name
    table = Suggestion.__table__  # type: ignore[attr-defined]
    rows = [
        {
            "chat_id": one.chat_id,
            "thread_id": one.thread_id,
            "mailing": mailing,
            "status": SuggestionStatus.HELD if one.digest else SuggestionStatus.PENDING,
            "papers": papers_json([(ids[p.arxiv_id], p) for p in one.papers]),
            "attempts": 0,
            "next_attempt": now,
            "created": now,
        }
        for one in queued
    ]
    insert = (
        upsert_into(dialect, table)
        .on_conflict_do_nothing(index_elements=["chat_id", "thread_id", "mailing"])
        .returning(table.c.chat_id, table.c.thread_id, table.c.status)
    )
    inserted = session.execute(insert, rows).all()
    for chat_id, thread_id, status in inserted:
        if status == SuggestionStatus.HELD:
            session.execute(
                update(Suggestion)
                .where(
                    col(Suggestion.chat_id) == chat_id,
                    col(Suggestion.thread_id) == thread_id,
                    col(Suggestion.status) == SuggestionStatus.HELD,
                    col(Suggestion.mailing) < mailing,
                )
                .values(status=SuggestionStatus.DROPPED)
            )
    return len(inserted)


def stored_ids(session: Session, arxiv_ids: Sequence[str]) -> dict[str, int]:
    """The paper id of each of these papers the store holds, by arXiv id."""
    ids = sorted(set(arxiv_ids))
    found: dict[str, int] = {}
    for start in range(0, len(ids), _PER_READ):
        for paper_id, arxiv_id in session.exec(
            select(Paper.id, Paper.arxiv_id).where(
                col(Paper.arxiv_id).in_(ids[start : start + _PER_READ])
            )
        ):
            assert paper_id is not None
            found[arxiv_id] = paper_id
    return found


def _candidates_at(session: Session, mailing: date, positions: Sequence[int]) -> list[Record]:
    """The papers of the batch of `mailing` at these positions, as read."""
    return [
        record_of(stored)
        for start in range(0, len(positions), _PER_READ)
        for stored in session.exec(
            select(SuggestionCandidate.record).where(
                col(SuggestionCandidate.mailing) == mailing,
                col(SuggestionCandidate.position).in_(positions[start : start + _PER_READ]),
            )
        )
    ]


def store_papers(session: Session, records: Sequence[Record]) -> dict[str, int]:
    """Inside the caller's transaction: store those of `records` the store lacks, without a
    follow; the paper id of each."""
    ids = stored_ids(session, [record.arxiv_id for record in records])
    ids.update(_store_new(session, [r for r in records if r.arxiv_id not in ids]))
    return ids


def _store_new(session: Session, records: Sequence[Record]) -> dict[str, int]:
    """Store `records`, which the store was just found to lack, without a follow (never
    announced); the paper id of each."""
    rows = [(storable(record), frozenset[int]()) for record in records]
    return {
        record.arxiv_id: linked.paper_id
        for linked, (record, _) in zip(write_batch(session, rows), rows, strict=True)
    }
