"""The outbox: one row per announcement owed to one chat, until the far side confirms it.

This is how nothing is lost and nothing doubled. `enqueue_deliveries` runs inside the store's
transaction that saves a new paper, so a paper is never stored without its deliveries. A front
end then drains `due()` and calls `mark_sent` (or `mark_sent_many`, for many confirmations in one
transaction) only after the far side confirmed the message: a crash in between re-sends at most
what was in flight, and never skips anything.

A delivery goes to a chat and, in a forum, to the topic (`thread_id`) that subscribed. Deliveries
to a parked destination (`watcher.store.parking`) are not due until its `retry_at`; `due()`
marks those that are probes of a parked destination, so the sender can release it once one gets
through.

Bounds, so that the queue does not grow for ever (`prune`, run periodically by the service):
sent and failed rows older than the retention are deleted, in small batches; exactly-once does
not need them, since `paper_match` remembers which version each followed author's polls have
seen, and the store never calls a paper new (or a version a revision) twice for one author. A
chat inactive for longer than the retention (blocked the bot, deleted account) loses its queued
deliveries, counted and logged. Parked rows (those of inactive chats) are flagged `parked`, so
the idle checks (`due`, `next_due`) never visit them.

A chat (or forum topic) that takes digests (`watcher.store.digests`) gets its deliveries queued
"held": not due, and outside the due index, until its digest claims them into the messages of
one digest (`DigestPart`). Then they are pending, each naming its part, and a part goes out as
one message (`digest_part_for`) and is confirmed like a delivery.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import (
    Engine,
    Table,
    and_,
    bindparam,
    delete,
    false,
    func,
    or_,
    true,
    update,
)
from sqlalchemy.sql.elements import ColumnElement
from sqlmodel import Session, col, select
from sqlmodel.sql.expression import SelectOfScalar

from watcher.arxiv.records import Record
from watcher.kinds import NewsKind
from watcher.store.announce import record_sent_before_move
from watcher.store.destinations import held_now
from watcher.store.rows import load_records
from watcher.store.tables import (
    NO_THREAD,
    WAITING,
    Chat,
    Delivery,
    DeliveryStatus,
    DigestPart,
    Paper,
    ParkedDestination,
    utcnow,
)

log = logging.getLogger(__name__)

# The version bound of a confirmation that names none: any version is the one that went out.
_ANY_VERSION = 2**31 - 1
PRUNE_BATCH = 1000  # rows deleted per transaction: no prune holds the database for long
SUMMARY_MAX = 500  # deliveries one summary covers; a longer backlog takes a second summary


@dataclass(frozen=True, slots=True)
class PendingDelivery:
    id: int
    chat_id: int
    kind: NewsKind
    attempts: int
    record: Record
    queued: datetime  # the row's creation: when the paper was found (the delay metric)
    thread_id: int = NO_THREAD  # the forum topic it goes to
    probing: bool = False  # its destination is parked: this send tests whether it still is
    summarize: bool = False  # goes out in one summary with the topic's other waiting papers
    digest_part: int | None = None  # goes out in this message of a digest (`DigestPart`)


@dataclass(frozen=True, slots=True)
class PendingDigestPart:
    """One message of a digest and the pending deliveries it carries."""

    id: int
    position: int
    parts: int
    html: str
    plain: str
    delivery_ids: list[int]


@dataclass(frozen=True, slots=True)
class OutboxStats:
    pending: int
    parked: int  # pending, but for an inactive chat or a parked destination
    held: int  # waiting for their chat's digest
    sent: int
    failed: int


@dataclass(frozen=True, slots=True)
class PruneReport:
    settled: int  # sent and failed rows past the retention
    abandoned: int  # pending rows of chats inactive for longer than the retention


def _parking_of_delivery() -> ColumnElement[bool]:
    """The join condition of a delivery and its destination's parking, if parked."""
    return and_(
        col(ParkedDestination.chat_id) == col(Delivery.chat_id),
        col(ParkedDestination.thread_id) == col(Delivery.thread_id),
    )


class Outbox:
    """Reads and writes of the delivery queue. Each method is one short transaction."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine

    def due(self, *, limit: int, now: datetime | None = None) -> list[PendingDelivery]:
        """Pending deliveries whose time has come, for active chats and destinations not parked
        (or whose parking is due a probe), earliest due first.

        Read through `ix_delivery_due` (status, parked, next_attempt) in its own order, so the
        query stops after `limit` rows and never visits a row parked for an inactive chat.
        `Chats` sets and clears `parked` with the chat's `active`; a row found due for an
        inactive chat all the same is parked here, not sent. A parked destination (chat, topic)
        is an outer join: its rows are due only once its `retry_at` has come.
        """
        now = now or utcnow()
        with Session(self.engine) as session:
            rows = session.exec(
                select(Delivery, col(ParkedDestination.chat_id).is_not(None))
                .outerjoin(ParkedDestination, _parking_of_delivery())
                .where(
                    col(Delivery.status) == DeliveryStatus.PENDING,
                    col(Delivery.parked) == false(),
                    col(Delivery.next_attempt) <= now,
                    or_(
                        col(ParkedDestination.chat_id).is_(None),
                        col(ParkedDestination.retry_at) <= now,
                    ),
                    ~held_now(now),
                )
                .order_by(col(Delivery.next_attempt), col(Delivery.id))
                .limit(limit)
            ).all()
            deliveries = [delivery for delivery, _ in rows]
            probing = {delivery.id or 0 for delivery, parked in rows if parked}
            gone = _park_inactive(session, deliveries)
            return _pending(
                session, [d for d in deliveries if d.chat_id not in gone], probing=probing
            )

    def next_due(self, *, now: datetime | None = None) -> datetime | None:
        """When the earliest pending delivery of an active chat falls due, if any is pending
        (for a parked destination: when its parking is due a probe); `now` (the caller's clock,
        the wall clock by default) says which destinations are paused or quiet.

        Two reads, so that neither visits the rows parked for inactive chats: the earliest row
        of a destination not parked, in `ix_delivery_due`'s order (one row read when idle), and
        for each parked destination (there are few) the later of its retry time and its
        earliest row.
        """
        parking = select(ParkedDestination.chat_id).where(_parking_of_delivery()).exists()
        unparked = (
            col(Delivery.status) == DeliveryStatus.PENDING,
            col(Delivery.parked) == false(),
            ~held_now(now or utcnow()),  # paused or quiet: `watcher.store.quiet` says when it ends
        )
        with Session(self.engine) as session:
            earliest = session.exec(
                select(Delivery.next_attempt)
                .where(*unparked, ~parking)
                .order_by(col(Delivery.next_attempt))
                .limit(1)
            ).first()
            # Driven from the parkings: each one's earliest row is found through the delivery
            # unique key (chat, thread, ...), never by walking the pending rows.
            first_held = (
                select(func.min(Delivery.next_attempt))
                .where(*unparked, _parking_of_delivery())
                .scalar_subquery()
            )
            held = session.exec(select(ParkedDestination.retry_at, first_held)).all()
        candidates = [earliest] if earliest is not None else []
        candidates += [max(retry_at, first) for retry_at, first in held if first is not None]
        return min(candidates, default=None)

    def summary_for(
        self, chat_id: int, thread_id: int = NO_THREAD, *, limit: int = SUMMARY_MAX
    ) -> list[PendingDelivery]:
        """The pending deliveries of one destination (chat, forum topic) that go out together
        as one summary, oldest first: each topic gets its own papers in its own summary."""
        with Session(self.engine) as session:
            deliveries = session.exec(
                select(Delivery)
                .where(
                    col(Delivery.chat_id) == chat_id,
                    col(Delivery.thread_id) == thread_id,
                    col(Delivery.status) == DeliveryStatus.PENDING,
                    col(Delivery.parked) == false(),
                    col(Delivery.summarize),
                    col(Delivery.digest_part_id).is_(None),  # a digest's part goes out as such
                )
                .order_by(col(Delivery.id))
                .limit(limit)
            ).all()
            return _pending(session, deliveries)

    def digest_part_for(self, chat_id: int, thread_id: int = NO_THREAD) -> PendingDigestPart | None:
        """The destination's earliest digest message not yet sent, with its pending deliveries:
        parts go out in the order they were claimed, whichever of their rows fell due first."""
        with Session(self.engine) as session:
            part_id = session.exec(
                select(func.min(Delivery.digest_part_id)).where(
                    col(Delivery.chat_id) == chat_id,
                    col(Delivery.thread_id) == thread_id,
                    col(Delivery.status) == DeliveryStatus.PENDING,
                    col(Delivery.parked) == false(),
                )
            ).one()
            part = session.get(DigestPart, part_id) if part_id is not None else None
            if part is None or part.id is None:
                return None
            ids = session.exec(
                select(Delivery.id)
                .where(
                    col(Delivery.digest_part_id) == part.id,
                    col(Delivery.status) == DeliveryStatus.PENDING,
                )
                .order_by(col(Delivery.id))
            ).all()
            return PendingDigestPart(
                part.id, part.position, part.parts, part.html, part.plain,
                [delivery_id for delivery_id in ids if delivery_id is not None],
            )  # fmt: skip

    def mark_sent(self, delivery_id: int, *, message_id: int | None) -> None:
        """Confirmed by the far side: never send it again."""
        self._update(delivery_id, status=DeliveryStatus.SENT, sent=utcnow(), message_id=message_id)

    def mark_sent_many(
        self,
        confirmed: Sequence[tuple[int, int | None]],
        *,
        versions: Mapping[int, int] | None = None,
    ) -> None:
        """Many confirmations, `(delivery id, message id)` each, in one transaction.

        One commit for a whole batch: under a fan-out, a transaction per message was most of the
        database's work. Like `mark_sent`, a delivery no longer pending is left as it is.

        `versions` holds the version each message carried, by delivery id (one left out is
        confirmed whatever its version). A revision found while the message was on its way
        moved the waiting row to the newer version (`watcher.store.announce`); the send is then
        recorded as the version that went out, and the newer one stays pending as a revision
        for a chat that asked for revisions (the others heard of the paper: done).
        """
        if not confirmed:
            return
        versions = versions or {}
        table: Table = Delivery.__table__  # type: ignore[attr-defined]
        statement = (
            update(table)
            .where(
                table.c.id == bindparam("delivery_id"),
                table.c.status == DeliveryStatus.PENDING,
                table.c.version <= bindparam("sent_version"),
            )
            .values(
                status=DeliveryStatus.SENT,
                sent=utcnow(),
                message_id=bindparam("confirmed_message_id"),
            )
        )
        rows = [
            {
                "delivery_id": delivery_id,
                "confirmed_message_id": message_id,
                "sent_version": versions.get(delivery_id, _ANY_VERSION),
            }
            for delivery_id, message_id in confirmed
        ]
        with Session(self.engine) as session:
            # A list of parameters runs the one statement as an executemany.
            session.connection().execute(statement, rows)
            moved = [
                (delivery_id, message_id, versions[delivery_id])
                for delivery_id, message_id in confirmed
                if delivery_id in versions
            ]
            if moved:
                record_sent_before_move(session, moved)
            session.commit()

    def retry_later(self, delivery_id: int | Sequence[int], *, error: str, at: datetime) -> None:
        """A passing fault: try again at `at` (one delivery, or the several of one summary)."""
        self._update(delivery_id, attempts=Delivery.attempts + 1, last_error=error, next_attempt=at)

    def mark_failed(self, delivery_id: int | Sequence[int], *, error: str) -> None:
        """A permanent refusal: keep the reason for the admins, and never retry it in a loop."""
        self._update(delivery_id, status=DeliveryStatus.FAILED, last_error=error)

    def _update(self, delivery_id: int | Sequence[int], **values: object) -> None:
        ids = [delivery_id] if isinstance(delivery_id, int) else list(delivery_id)
        with Session(self.engine) as session:
            session.exec(
                update(Delivery)
                .where(col(Delivery.id).in_(ids), col(Delivery.status) == DeliveryStatus.PENDING)
                .values(**values)
            )
            session.commit()

    def prune(self, *, older_than: datetime, batch: int = PRUNE_BATCH) -> PruneReport:
        """Delete sent and failed rows created before `older_than`, the waiting rows of chats
        inactive since before it, and the digest messages none of the remaining rows names;
        `batch` rows a transaction."""
        settled = self._delete_batches(
            select(Delivery.id).where(
                col(Delivery.status).in_([DeliveryStatus.SENT, DeliveryStatus.FAILED]),
                col(Delivery.created) < older_than,
            ),
            batch,
        )
        abandoned = self._delete_batches(
            select(Delivery.id)
            .join(Chat, col(Chat.id) == col(Delivery.chat_id))
            .where(
                col(Delivery.status).in_(WAITING),
                ~col(Chat.active),
                col(Chat.inactive_since) < older_than,
            ),
            batch,
        )
        self._delete_batches(
            select(DigestPart.id).where(
                col(DigestPart.created) < older_than,
                ~select(Delivery.id)
                .where(col(Delivery.digest_part_id) == col(DigestPart.id))
                .exists(),
            ),
            batch,
            table=DigestPart,
        )
        if abandoned:
            log.warning(
                "dropped %d queued deliveries of chats inactive since before %s",
                abandoned,
                older_than.date().isoformat(),
            )
        return PruneReport(settled=settled, abandoned=abandoned)

    def _delete_batches(
        self,
        ids: SelectOfScalar[Any],
        batch: int,
        *,
        table: type[Delivery] | type[DigestPart] = Delivery,
    ) -> int:
        deleted = 0
        while True:
            with Session(self.engine) as session:
                chosen = list(session.exec(ids.limit(batch)))
                if chosen:
                    session.exec(delete(table).where(col(table.id).in_(chosen)))
                    session.commit()
            deleted += len(chosen)
            if len(chosen) < batch:
                return deleted

    def stats(self) -> OutboxStats:
        with Session(self.engine) as session:
            counts = dict(
                session.exec(
                    select(Delivery.status, func.count()).group_by(col(Delivery.status))
                ).all()
            )
            parked = session.exec(
                select(func.count())
                .select_from(Delivery)
                .outerjoin(ParkedDestination, _parking_of_delivery())
                .where(
                    col(Delivery.status) == DeliveryStatus.PENDING,
                    or_(
                        col(Delivery.parked) == true(), col(ParkedDestination.chat_id).is_not(None)
                    ),
                )
            ).one()
        return OutboxStats(
            pending=counts.get(DeliveryStatus.PENDING, 0) - parked,
            parked=parked,
            held=counts.get(DeliveryStatus.HELD, 0),
            sent=counts.get(DeliveryStatus.SENT, 0),
            failed=counts.get(DeliveryStatus.FAILED, 0),
        )

    def failures(self, *, limit: int = 10) -> list[tuple[int, str, str]]:
        """The latest permanent failures: (chat id, arXiv id, reason)."""
        with Session(self.engine) as session:
            rows = session.exec(
                select(Delivery.chat_id, Paper.arxiv_id, Delivery.last_error)
                .join(Paper, col(Paper.id) == col(Delivery.paper_id))
                .where(col(Delivery.status) == DeliveryStatus.FAILED)
                .order_by(col(Delivery.id).desc())
                .limit(limit)
            ).all()
            return [(chat_id, arxiv_id, error or "") for chat_id, arxiv_id, error in rows]


def _park_inactive(session: Session, deliveries: Sequence[Delivery]) -> set[int]:
    """Park the rows of inactive chats among `deliveries`; returns those chats' ids."""
    chat_ids = {delivery.chat_id for delivery in deliveries}
    if not chat_ids:
        return set()
    gone = set(session.exec(select(Chat.id).where(col(Chat.id).in_(chat_ids), ~col(Chat.active))))
    if gone:
        session.exec(
            update(Delivery)
            .where(col(Delivery.chat_id).in_(gone), col(Delivery.status) == DeliveryStatus.PENDING)
            .values(parked=True)
        )
        session.commit()
        log.warning("parked the queued deliveries of inactive chats %s", sorted(gone))
    return gone


def _pending(
    session: Session,
    deliveries: Sequence[Delivery],
    *,
    probing: frozenset[int] | set[int] = frozenset(),
) -> list[PendingDelivery]:
    if not deliveries:
        return []  # the idle check: one query, nothing more
    paper_ids = {delivery.paper_id for delivery in deliveries}
    papers = session.exec(select(Paper).where(col(Paper.id).in_(paper_ids))).all()
    by_paper = dict(zip([p.id for p in papers], load_records(session, list(papers)), strict=True))
    return [
        PendingDelivery(
            id=delivery.id or 0,
            chat_id=delivery.chat_id,
            kind=NewsKind(delivery.kind),
            attempts=delivery.attempts,
            record=by_paper[delivery.paper_id],
            queued=delivery.created,
            thread_id=delivery.thread_id,
            probing=delivery.id in probing,
            summarize=delivery.summarize,
            digest_part=delivery.digest_part_id,
        )
        for delivery in deliveries
    ]
