"""The outbox: one row per announcement owed to one chat, until the far side confirms it.

This is how nothing is lost and nothing doubled. `enqueue_deliveries` runs inside the store's
transaction that saves a new paper, so a paper is never stored without its deliveries. A front
end then drains `due()` and calls `mark_sent` (or `mark_sent_many`, for many confirmations in one
transaction) only after the far side confirmed the message: a crash in between re-sends at most
what was in flight, and never skips anything.

A delivery goes to a chat and, in a forum, to the topic (`thread_id`) that subscribed. Deliveries
to a parked destination (`watcher.parking`) are not due until its `retry_at`; `due()` marks those
that are probes of a parked destination, so the sender can release it once one gets through.

Bounds, so that the queue does not grow for ever (`prune`, run periodically by the service):
sent and failed rows older than the retention are deleted, in small batches; exactly-once does
not need them, since `paper_match` remembers which version each followed author's polls have
seen, and the store never calls a paper new (or a version a revision) twice for one author. A
chat inactive for longer than the retention (blocked the bot, deleted account) loses its queued
deliveries, counted and logged. Parked rows (those of inactive chats) are flagged `parked`, so
the idle checks (`due`, `next_due`) never visit them.

A chat that takes digests (`watcher.digests`) gets its deliveries queued "held": not due, and
outside the due index, until its digest claims them into the messages of one digest
(`DigestPart`). Then they are pending, each naming its part, and a part goes out as one message
(`digest_part_for`) and is confirmed like a delivery.
"""

from __future__ import annotations

import functools
import json
import logging
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import (
    Engine,
    Executable,
    Integer,
    Table,
    Text,
    and_,
    bindparam,
    case,
    column,
    delete,
    false,
    func,
    insert,
    literal,
    or_,
    text,
    true,
    update,
)
from sqlalchemy.sql.elements import ColumnElement
from sqlmodel import Session, col, select
from sqlmodel.sql.expression import SelectOfScalar

from watcher.models import (
    NO_THREAD,
    Chat,
    Delivery,
    DigestPart,
    Paper,
    ParkedDestination,
    Subscription,
    UTCDateTime,
    utcnow,
)
from watcher.records import Record
from watcher.rows import load_records

log = logging.getLogger(__name__)

PENDING, SENT, FAILED = "pending", "sent", "failed"
HELD = "held"  # waits for its chat's next digest; not due until the digest claims it
WAITING = (PENDING, HELD)  # owed to the chat, not yet sent
PRUNE_BATCH = 1000  # rows deleted per transaction: no prune holds the database for long
SUMMARY_MAX = 500  # deliveries one summary covers; a longer backlog takes a second summary


@dataclass(frozen=True, slots=True)
class PendingDelivery:
    id: int
    chat_id: int
    kind: str  # "new" or "revision"
    attempts: int
    record: Record
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


@dataclass(frozen=True, slots=True)
class Owed:
    """A paper version owed to the chats (and forum topics) following any of `followed_ids`."""

    paper_id: int
    version: int
    followed_ids: frozenset[int]


def enqueue_deliveries(session: Session, *, kind: str, owed: Sequence[Owed]) -> int:
    """Queue one delivery of each owed paper version to every chat (and forum topic) following
    one of its `followed_ids`: a topic gets it once, whichever of its authors it came through.
    One INSERT ... SELECT for all of `owed`, which holds no paper twice (`Announcements`).

    Revisions go only to chats that asked for them. A chat that still waits for an earlier
    version of the paper (its "new" or an older revision not yet sent) gets no second row: the
    waiting one moves to this version, so the chat gets one message, with the newest content.
    Deliveries of an inactive chat are queued parked, those of a chat that takes digests held.
    Returns how many were queued.
    """
    if kind == "revision":
        for paper in owed:
            _move_waiting(session, paper_id=paper.paper_id, version=paper.version)
        session.flush()
    # The owed (paper, version, followed author) triples travel as one JSON parameter, which
    # each database reads as a relation (`_OWED_ROWS`).
    triples = [[o.paper_id, o.version, f] for o in owed for f in sorted(o.followed_ids)]
    if not triples:
        return 0
    dialect = session.get_bind().dialect.name
    parameters = {"owed": json.dumps(triples), "now": utcnow()}
    result = session.execute(_queue_statement(kind, dialect), parameters)
    return int(getattr(result, "rowcount", 0))


def _move_waiting(session: Session, *, paper_id: int, version: int) -> None:
    """Move the paper's deliveries still waiting with an earlier version to `version`."""
    waiting = session.exec(
        select(Delivery)
        .where(
            col(Delivery.paper_id) == paper_id,
            col(Delivery.status).in_(WAITING),
            col(Delivery.version) < version,
        )
        .order_by(col(Delivery.id))
    ).all()
    # Per destination (chat, topic): its oldest waiting row moves to this version. A second
    # waiting row of the same destination (left from before revisions merged) would then say
    # the same thing, and break the (chat, thread, paper, version) uniqueness: dropped.
    moved: set[tuple[int, int]] = set()
    for delivery in waiting:
        destination = (delivery.chat_id, delivery.thread_id)
        if destination in moved:
            session.delete(delivery)
            continue
        moved.add(destination)
        delivery.version = version


class Announcements:
    """The deliveries one save owes, queued in as few statements as order allows.

    Queuing paper after paper is what the save means; this queues a run of papers of one kind
    in one `enqueue_deliveries`. A run ends where the kind changes, and before a paper already
    in it (a record twice in a batch): the second must see the rows the first queued, or a
    chat following both authors would hear of the paper twice.
    """

    def __init__(self, session: Session) -> None:
        self._session = session
        self._kind = "new"
        self._run: list[Owed] = []
        self._papers: set[int] = set()

    def owe(self, kind: str, owed: Owed) -> None:
        if kind != self._kind or owed.paper_id in self._papers:
            self.flush()
            self._kind = kind
        self._run.append(owed)
        self._papers.add(owed.paper_id)

    def flush(self) -> None:
        if self._run:
            enqueue_deliveries(self._session, kind=self._kind, owed=self._run)
        self._run, self._papers = [], set()


# The owed triples, from the JSON array of `[paper_id, version, followed_id]` that
# `enqueue_deliveries` binds as `owed`.
_OWED_ROWS = {
    "sqlite": "SELECT json_extract(value, '$[0]') AS paper_id, json_extract(value, '$[1]') "
    "AS version, json_extract(value, '$[2]') AS followed_id FROM json_each(:owed)",
    "postgresql": "SELECT (e->>0)::int AS paper_id, (e->>1)::int AS version, "
    "(e->>2)::int AS followed_id FROM json_array_elements(CAST(:owed AS json)) AS e",
}


@functools.cache
def _queue_statement(kind: str, dialect: str) -> Executable:
    """`enqueue_deliveries`' one INSERT ... SELECT for `kind`, built once: a paper owed to
    10,000 chats costs the service no 10,000 objects, and a save announcing a thousand papers
    no thousand statements (the values are bound: `owed` and `now`)."""
    owed = (
        text(_OWED_ROWS[dialect])
        .columns(
            column("paper_id", Integer()),
            column("version", Integer()),
            column("followed_id", Integer()),
        )
        .subquery("owed")
    )
    chats = (
        select(Subscription.chat_id, Subscription.thread_id)
        .select_from(owed)
        .join(Subscription, col(Subscription.followed_author_id) == owed.c.followed_id)
        .join(Chat, col(Chat.id) == col(Subscription.chat_id))
    )
    if kind == "revision":
        chats = chats.where(col(Chat.notify_revisions))
    # A chat hears of a paper as new once, whichever version and author it came through;
    # a revision once per version.
    already = select(Delivery.id).where(
        col(Delivery.paper_id) == owed.c.paper_id,
        col(Delivery.chat_id) == col(Subscription.chat_id),
        col(Delivery.thread_id) == col(Subscription.thread_id),
    )
    if kind == "revision":
        already = already.where(col(Delivery.version) == owed.c.version)
    now = bindparam("now", type_=UTCDateTime())
    rows = (
        chats.where(~already.exists())
        .with_only_columns(
            col(Subscription.chat_id),
            col(Subscription.thread_id),
            owed.c.paper_id,
            owed.c.version,
            literal(kind, Text()),
            case((col(Chat.next_digest_at).is_not(None), HELD), else_=PENDING),
            literal(0),
            now,
            now,
            ~col(Chat.active),  # an inactive chat's deliveries wait parked
        )
        .distinct()
        # Ids in the order the papers were stored, then by chat: the order they are sent in.
        .order_by(owed.c.paper_id, col(Subscription.chat_id), col(Subscription.thread_id))
    )
    columns = ["chat_id", "thread_id", "paper_id", "version", "kind", "status", "attempts",
               "next_attempt", "created", "parked"]  # fmt: skip
    table: Table = Delivery.__table__  # type: ignore[attr-defined]
    return insert(table).from_select(columns, rows)  # Core: the parameters are bound, not rows


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
                    col(Delivery.status) == PENDING,
                    col(Delivery.parked) == false(),
                    col(Delivery.next_attempt) <= now,
                    or_(
                        col(ParkedDestination.chat_id).is_(None),
                        col(ParkedDestination.retry_at) <= now,
                    ),
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

    def next_due(self) -> datetime | None:
        """When the earliest pending delivery of an active chat falls due, if any is pending
        (for a parked destination: when its parking is due a probe).

        Two reads, so that neither visits the rows parked for inactive chats: the earliest row
        of a destination not parked, in `ix_delivery_due`'s order (one row read when idle), and
        for each parked destination (there are few) the later of its retry time and its
        earliest row.
        """
        parking = select(ParkedDestination.chat_id).where(_parking_of_delivery()).exists()
        unparked = col(Delivery.status) == PENDING, col(Delivery.parked) == false()
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
                    col(Delivery.status) == PENDING,
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
                    col(Delivery.status) == PENDING,
                    col(Delivery.parked) == false(),
                )
            ).one()
            part = session.get(DigestPart, part_id) if part_id is not None else None
            if part is None or part.id is None:
                return None
            ids = session.exec(
                select(Delivery.id)
                .where(col(Delivery.digest_part_id) == part.id, col(Delivery.status) == PENDING)
                .order_by(col(Delivery.id))
            ).all()
            return PendingDigestPart(
                part.id, part.position, part.parts, part.html, part.plain,
                [delivery_id for delivery_id in ids if delivery_id is not None],
            )  # fmt: skip

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

    def retry_later(self, delivery_id: int | Sequence[int], *, error: str, at: datetime) -> None:
        """A passing fault: try again at `at` (one delivery, or the several of one summary)."""
        self._update(delivery_id, attempts=Delivery.attempts + 1, last_error=error, next_attempt=at)

    def mark_failed(self, delivery_id: int | Sequence[int], *, error: str) -> None:
        """A permanent refusal: keep the reason for the admins, and never retry it in a loop."""
        self._update(delivery_id, status=FAILED, last_error=error)

    def _update(self, delivery_id: int | Sequence[int], **values: object) -> None:
        ids = [delivery_id] if isinstance(delivery_id, int) else list(delivery_id)
        with Session(self.engine) as session:
            session.exec(
                update(Delivery)
                .where(col(Delivery.id).in_(ids), col(Delivery.status) == PENDING)
                .values(**values)
            )
            session.commit()

    def prune(self, *, older_than: datetime, batch: int = PRUNE_BATCH) -> PruneReport:
        """Delete sent and failed rows created before `older_than`, the waiting rows of chats
        inactive since before it, and the digest messages none of the remaining rows names;
        `batch` rows a transaction."""
        settled = self._delete_batches(
            select(Delivery.id).where(
                col(Delivery.status).in_([SENT, FAILED]), col(Delivery.created) < older_than
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
                    col(Delivery.status) == PENDING,
                    or_(
                        col(Delivery.parked) == true(), col(ParkedDestination.chat_id).is_not(None)
                    ),
                )
            ).one()
        return OutboxStats(
            pending=counts.get(PENDING, 0) - parked,
            parked=parked,
            held=counts.get(HELD, 0),
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


def _park_inactive(session: Session, deliveries: Sequence[Delivery]) -> set[int]:
    """Park the rows of inactive chats among `deliveries`; returns those chats' ids."""
    chat_ids = {delivery.chat_id for delivery in deliveries}
    if not chat_ids:
        return set()
    gone = set(session.exec(select(Chat.id).where(col(Chat.id).in_(chat_ids), ~col(Chat.active))))
    if gone:
        session.exec(
            update(Delivery)
            .where(col(Delivery.chat_id).in_(gone), col(Delivery.status) == PENDING)
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
            kind=delivery.kind,
            attempts=delivery.attempts,
            record=by_paper[delivery.paper_id],
            thread_id=delivery.thread_id,
            probing=delivery.id in probing,
            summarize=delivery.summarize,
            digest_part=delivery.digest_part_id,
        )
        for delivery in deliveries
    ]
