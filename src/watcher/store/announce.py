"""The write half of the outbox: queuing the deliveries a save owes, inside the save's own
transaction, so that a paper is never stored without its deliveries.

`watcher.store.papers` hands each saved paper's owed (paper, version, followed authors) to
`Announcements`, which queues a run of papers of one kind in one INSERT ... SELECT
(`enqueue_deliveries`): one row per chat (and forum topic) that follows any of the authors, and
none for a chat that already has one. The read half, which the front end drains, is
`watcher.store.outbox`.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Sequence
from dataclasses import dataclass

from sqlalchemy import (
    Executable,
    Integer,
    Table,
    Text,
    bindparam,
    case,
    column,
    insert,
    literal,
    text,
)
from sqlmodel import Session, col, select

from watcher.kinds import NewsKind
from watcher.store.tables import (
    WAITING,
    Chat,
    Delivery,
    DeliveryStatus,
    Subscription,
    UTCDateTime,
    utcnow,
)


@dataclass(frozen=True, slots=True)
class Owed:
    """A paper version owed to the chats (and forum topics) following any of `followed_ids`."""

    paper_id: int
    version: int
    followed_ids: frozenset[int]


def enqueue_deliveries(session: Session, *, kind: NewsKind, owed: Sequence[Owed]) -> int:
    """Queue one delivery of each owed paper version to every chat (and forum topic) following
    one of its `followed_ids`: a topic gets it once, whichever of its authors it came through.
    One INSERT ... SELECT for all of `owed`, which holds no paper twice (`Announcements`).

    Revisions go only to chats that asked for them. A chat that still waits for an earlier
    version of the paper (its "new" or an older revision not yet sent) gets no second row: the
    waiting one moves to this version, so the chat gets one message, with the newest content.
    Deliveries of an inactive chat are queued parked, those of a chat that takes digests held.
    Returns how many were queued.
    """
    if kind == NewsKind.REVISION:
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
        self._kind = NewsKind.NEW
        self._run: list[Owed] = []
        self._papers: set[int] = set()

    def owe(self, kind: NewsKind, owed: Owed) -> None:
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
def _queue_statement(kind: NewsKind, dialect: str) -> Executable:
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
    if kind == NewsKind.REVISION:
        chats = chats.where(col(Chat.notify_revisions))
    # A chat hears of a paper as new once, whichever version and author it came through;
    # a revision once per version.
    already = select(Delivery.id).where(
        col(Delivery.paper_id) == owed.c.paper_id,
        col(Delivery.chat_id) == col(Subscription.chat_id),
        col(Delivery.thread_id) == col(Subscription.thread_id),
    )
    if kind == NewsKind.REVISION:
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
            case(
                (col(Chat.next_digest_at).is_not(None), DeliveryStatus.HELD),
                else_=DeliveryStatus.PENDING,
            ),
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
