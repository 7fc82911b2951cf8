"""The outbox: one row per announcement owed to one chat, until the far side confirms it.

This is how nothing is lost and nothing doubled. `enqueue_deliveries` runs inside the store's
transaction that saves a new paper, so a paper is never stored without its deliveries. A front
end then drains `due()` and calls `mark_sent` (or `mark_sent_many`, for many confirmations in one
transaction) only after the far side confirmed the message: a crash in between re-sends at most
what was in flight, and never skips anything.

A delivery goes to a chat and, in a forum, to the topic (`thread_id`) that subscribed. Deliveries
to a parked destination (`watcher.parking`) are not due until its `retry_at`; `due()` marks those
that are probes of a parked destination, so the sender can release it once one gets through.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import (
    Engine,
    Table,
    Text,
    and_,
    bindparam,
    case,
    func,
    insert,
    literal,
    or_,
    type_coerce,
    update,
)
from sqlalchemy.sql.elements import ColumnElement
from sqlmodel import Session, col, select

from watcher.models import (
    NO_THREAD,
    Chat,
    Delivery,
    Paper,
    ParkedDestination,
    Subscription,
    UTCDateTime,
    utcnow,
)
from watcher.records import Record
from watcher.rows import load_records

PENDING, SENT, FAILED = "pending", "sent", "failed"


@dataclass(frozen=True, slots=True)
class PendingDelivery:
    id: int
    chat_id: int
    kind: str  # "new" or "revision"
    attempts: int
    record: Record
    thread_id: int = NO_THREAD  # the forum topic it goes to
    probing: bool = False  # its destination is parked: this send tests whether it still is


@dataclass(frozen=True, slots=True)
class OutboxStats:
    pending: int
    parked: int  # pending, but for an inactive chat or a parked destination
    sent: int
    failed: int


def enqueue_deliveries(
    session: Session, *, paper_id: int, version: int, kind: str, followed_ids: Iterable[int]
) -> int:
    """Queue one delivery of this paper version to every chat (and forum topic) following one
    of `followed_ids`: a topic gets it once, whichever of its authors it came through.

    Revisions go only to chats that asked for them. Returns how many were queued.
    """
    chats = select(Subscription.chat_id, Subscription.thread_id).where(
        col(Subscription.followed_author_id).in_(list(followed_ids))
    )
    if kind == "revision":
        chats = chats.join(Chat, col(Chat.id) == col(Subscription.chat_id)).where(
            col(Chat.notify_revisions)
        )
    # A chat hears of a paper as new once, whichever version and author it came through;
    # a revision once per version.
    owed = select(Delivery.id).where(
        col(Delivery.paper_id) == paper_id,
        col(Delivery.chat_id) == col(Subscription.chat_id),
        col(Delivery.thread_id) == col(Subscription.thread_id),
    )
    if kind == "revision":
        owed = owed.where(col(Delivery.version) == version)
    # One INSERT ... SELECT: a paper owed to 10,000 chats costs the service no 10,000 objects.
    now = utcnow()
    rows = (
        chats.where(~owed.exists())
        .with_only_columns(
            col(Subscription.chat_id),
            col(Subscription.thread_id),
            literal(paper_id),
            literal(version),
            literal(kind, Text()),
            literal(PENDING, Text()),
            literal(0),
            literal(now, UTCDateTime()),
            literal(now, UTCDateTime()),
        )
        .distinct()
    )
    columns = ["chat_id", "thread_id", "paper_id", "version", "kind", "status", "attempts",
               "next_attempt", "created"]  # fmt: skip
    result = session.execute(insert(Delivery).from_select(columns, rows))
    return int(getattr(result, "rowcount", 0))


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
        (or whose parking is due a probe), oldest first."""
        now = now or utcnow()
        with Session(self.engine) as session:
            rows = session.exec(
                select(Delivery, Paper, col(ParkedDestination.chat_id).is_not(None))
                .join(Paper, col(Paper.id) == col(Delivery.paper_id))
                .join(Chat, col(Chat.id) == col(Delivery.chat_id))
                .outerjoin(ParkedDestination, _parking_of_delivery())
                .where(
                    col(Delivery.status) == PENDING,
                    col(Delivery.next_attempt) <= now,
                    col(Chat.active),
                    or_(
                        col(ParkedDestination.chat_id).is_(None),
                        col(ParkedDestination.retry_at) <= now,
                    ),
                )
                .order_by(col(Delivery.id))
                .limit(limit)
            ).all()
            papers = {paper.id: paper for _, paper, _ in rows}
            by_paper = dict(zip(papers, load_records(session, list(papers.values())), strict=True))
            return [
                PendingDelivery(
                    id=delivery.id or 0,
                    chat_id=delivery.chat_id,
                    kind=delivery.kind,
                    attempts=delivery.attempts,
                    record=by_paper[delivery.paper_id],
                    thread_id=delivery.thread_id,
                    probing=bool(parked),
                )
                for delivery, _, parked in rows
            ]

    def next_due(self) -> datetime | None:
        """When the earliest pending delivery of an active chat falls due, if any is pending
        (for a parked destination: when its parking is due a probe)."""
        due_at = case(
            (
                col(ParkedDestination.retry_at) > col(Delivery.next_attempt),
                ParkedDestination.retry_at,
            ),
            else_=Delivery.next_attempt,
        )
        with Session(self.engine) as session:
            earliest = session.exec(
                select(func.min(type_coerce(due_at, UTCDateTime())))
                .select_from(Delivery)
                .join(Chat, col(Chat.id) == col(Delivery.chat_id))
                .outerjoin(ParkedDestination, _parking_of_delivery())
                .where(col(Delivery.status) == PENDING, col(Chat.active))
            ).one()
            return earliest if isinstance(earliest, datetime) else None

    def mark_sent(self, delivery_id: int, *, message_id: int | None) -> None:
        """Confirmed by the far side: never send it again."""
        self._update(delivery_id, status=SENT, sent=utcnow(), message_id=message_id)

    def mark_sent_many(self, confirmed: Sequence[tuple[int, int | None]]) -> None:
        """Many confirmations, `(delivery id, message id)` each, in one transaction.

        One commit for a whole batch: under a fan-out, a transaction per message was most of the
        database's work. Like `mark_sent`, a delivery no longer pending is left as it is.
        """
        if not confirmed:
            return
        table: Table = Delivery.__table__  # type: ignore[attr-defined]
        statement = (
            update(table)
            .where(table.c.id == bindparam("delivery_id"), table.c.status == PENDING)
            .values(status=SENT, sent=utcnow(), message_id=bindparam("confirmed_message_id"))
        )
        rows = [
            {"delivery_id": delivery_id, "confirmed_message_id": message_id}
            for delivery_id, message_id in confirmed
        ]
        with Session(self.engine) as session:
            # A list of parameters runs the one statement as an executemany.
            session.connection().execute(statement, rows)
            session.commit()

    def retry_later(self, delivery_id: int, *, error: str, at: datetime) -> None:
        """A passing fault: try again at `at`."""
        with Session(self.engine) as session:
            session.exec(
                update(Delivery)
                .where(col(Delivery.id) == delivery_id, col(Delivery.status) == PENDING)
                .values(attempts=Delivery.attempts + 1, last_error=error, next_attempt=at)
            )
            session.commit()

    def mark_failed(self, delivery_id: int, *, error: str) -> None:
        """A permanent refusal: keep the reason for the admins, and never retry it in a loop."""
        self._update(delivery_id, status=FAILED, last_error=error)

    def _update(self, delivery_id: int, **values: object) -> None:
        with Session(self.engine) as session:
            session.exec(
                update(Delivery)
                .where(col(Delivery.id) == delivery_id, col(Delivery.status) == PENDING)
                .values(**values)
            )
            session.commit()

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
                .join(Chat, col(Chat.id) == col(Delivery.chat_id))
                .outerjoin(ParkedDestination, _parking_of_delivery())
                .where(
                    col(Delivery.status) == PENDING,
                    or_(~col(Chat.active), col(ParkedDestination.chat_id).is_not(None)),
                )
            ).one()
        return OutboxStats(
            pending=counts.get(PENDING, 0) - parked,
            parked=parked,
            sent=counts.get(SENT, 0),
            failed=counts.get(FAILED, 0),
        )

    def failures(self, *, limit: int = 10) -> list[tuple[int, str, str]]:
        """The latest permanent failures: (chat id, arXiv id, reason)."""
        with Session(self.engine) as session:
            rows = session.exec(
                select(Delivery.chat_id, Paper.arxiv_id, Delivery.last_error)
                .join(Paper, col(Paper.id) == col(Delivery.paper_id))
                .where(col(Delivery.status) == FAILED)
                .order_by(col(Delivery.id).desc())
                .limit(limit)
            ).all()
            return [(chat_id, arxiv_id, error or "") for chat_id, arxiv_id, error in rows]
