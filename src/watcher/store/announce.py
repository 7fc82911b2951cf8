"""The write half of the outbox: queuing the deliveries a save owes, inside the save's own
transaction, so that a paper is never stored without its deliveries.

`watcher.store.papers` hands each saved paper's owed (paper, version, followed authors) to
`Announcements`, which queues a run of papers of one kind in one INSERT ... SELECT
(`enqueue_deliveries`): one row per chat (and forum topic) that follows any of the authors, and none
for a chat that was already told (`announced_paper`, which pruning leaves, so a chat is never told
twice, however old its deliveries), nor for a chat whose excluded words the paper holds
(`watcher.store.exclusions.held_back`, matched in Python before the statement, which then leaves
those pairs out: without any, the statement is the one it was); a chat with a suggestion
profile then adds each paper it was queued as new to it (`watcher.store.profiles.announced`).
The read half, which the front end drains, is `watcher.store.outbox`.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import (
    Executable,
    Integer,
    Subquery,
    Table,
    Text,
    and_,
    bindparam,
    case,
    column,
    delete,
    insert,
    literal,
    or_,
    text,
    true,
    tuple_,
    update,
)
from sqlmodel import Session, col, select

from watcher.kinds import NewsKind
from watcher.store import profiles
from watcher.store.destinations import DestinationSetting
from watcher.store.dialects import upsert_into
from watcher.store.exclusions import HeldBackPaper, held_back
from watcher.store.tables import (
    WAITING,
    AnnouncedPaper,
    Chat,
    Delivery,
    DeliveryStatus,
    Subscription,
    UTCDateTime,
    utcnow,
)

# Papers per read of their waiting deliveries: well below the databases' bound parameters.
_PAPERS_PER_READ = 500


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
    waiting one moves to this version, so the chat gets one message, with the newest content
    (unless a digest already rendered it: `move_waiting`).
    Deliveries of an inactive chat are queued parked, those of a chat that takes digests held.
    Returns how many were queued.
    """
    if kind == NewsKind.REVISION:
        move_waiting(session, {paper.paper_id: paper.version for paper in owed})
        session.flush()
    # The owed (paper, version, followed author) triples travel as one JSON parameter, which
    # each database reads as a relation (`_OWED_ROWS`).
    triples = [[o.paper_id, o.version, f] for o in owed for f in sorted(o.followed_ids)]
    if not triples:
        return 0
    dialect = session.get_bind().dialect.name
    now = utcnow()
    # The (paper, chat) pairs a chat's excluded words hold back: neither queued nor told.
    held = held_back(session, [(o.paper_id, o.followed_ids) for o in owed], now=now)
    parameters = {"owed": json.dumps(triples), "now": now}
    told = {"owed": parameters["owed"], **({"now": now} if held else {})}
    result = session.execute(_queue_statement(kind, dialect, bool(held)), parameters)
    # After the deliveries (which read it): every destination owed the paper now has a row
    # queued, just now or before, and is told of it from here on.
    session.execute(_told_statement(kind, dialect, bool(held)), told)
    if kind == NewsKind.NEW:
        # The chats with a suggestion profile read what they were queued (`watcher.store.profiles`).
        profiles.announced(session, [(o.paper_id, o.followed_ids) for o in owed], now=now)
    return int(getattr(result, "rowcount", 0))


def move_waiting(session: Session, versions: Mapping[int, int]) -> None:
    """Move the deliveries still waiting with an earlier version of these papers (paper id →
    version) to the version now stored, whichever save stored it: the sender sends a paper as
    stored, so a waiting row says the version its message will carry, and the destination
    counts as told of it (`announced_paper`). A message already on its way is confirmed with
    the version it carried (`Outbox.mark_sent_many`). One read for all of them, through
    `ix_delivery_paper`.

    Not the rows a digest claimed: their message is rendered (`DigestPart`), with the version
    it was claimed at, and is confirmed as such whatever the row says; the newer version is
    queued as a revision of its own, for a chat that asked for revisions (its next digest)."""
    papers = sorted(versions)
    waiting = [
        delivery
        for start in range(0, len(papers), _PAPERS_PER_READ)
        for delivery in session.exec(
            select(Delivery)
            .where(
                col(Delivery.paper_id).in_(papers[start : start + _PAPERS_PER_READ]),
                col(Delivery.status).in_(WAITING),
                col(Delivery.digest_part_id).is_(None),
            )
            .order_by(col(Delivery.id))
        )
        if delivery.version < versions[delivery.paper_id]
    ]
    # Per destination (chat, topic): its oldest waiting row of a paper moves to the version. A
    # second waiting row of the same destination (left from before revisions merged) would
    # then say the same thing, and break the (chat, thread, paper, version) uniqueness: dropped.
    moved: set[tuple[int, int, int]] = set()
    for delivery in waiting:
        destination = (delivery.chat_id, delivery.thread_id, delivery.paper_id)
        if destination in moved:
            session.delete(delivery)
            continue
        moved.add(destination)
        delivery.version = versions[delivery.paper_id]
    if not moved:
        return
    session.flush()
    for paper_id in {paper_id for _, _, paper_id in moved}:
        session.execute(
            update(AnnouncedPaper)
            .where(
                col(AnnouncedPaper.paper_id) == paper_id,
                tuple_(col(AnnouncedPaper.chat_id), col(AnnouncedPaper.thread_id)).in_(
                    [(chat, thread) for chat, thread, paper in moved if paper == paper_id]
                ),
                col(AnnouncedPaper.version) < versions[paper_id],
            )
            .values(version=versions[paper_id])
        )


def forget_untold(session: Session, dropped: Any) -> None:
    """The destinations were never told of these papers after all: their waiting "new"
    deliveries (`dropped`, a select of `Delivery` rows) are about to be deleted unsent, so
    `announced_paper` forgets them, and a follow that finds the paper again announces it."""
    untold = dropped.where(col(Delivery.kind) == NewsKind.NEW).subquery()
    session.execute(
        delete(AnnouncedPaper).where(
            tuple_(
                col(AnnouncedPaper.chat_id),
                col(AnnouncedPaper.thread_id),
                col(AnnouncedPaper.paper_id),
            ).in_(select(untold.c.chat_id, untold.c.thread_id, untold.c.paper_id))
        )
    )


# The same statement on SQLite and PostgreSQL ("WHERE" keeps SQLite from reading ON CONFLICT
# as part of the SELECT).
_MOVE_TOLD = text(
    "INSERT INTO announced_paper (chat_id, thread_id, paper_id, version) "
    "SELECT :new_id, thread_id, paper_id, version FROM announced_paper WHERE chat_id = :old_id "
    "ON CONFLICT (chat_id, thread_id, paper_id) DO UPDATE SET version = excluded.version "
    "WHERE excluded.version > announced_paper.version"
)


def move_told(session: Session, *, old_id: int, new_id: int) -> None:
    """A chat's new id (a group became a supergroup) was told what the old one was, as well
    as what it was told itself; the old id's rows go."""
    session.execute(_MOVE_TOLD, {"old_id": old_id, "new_id": new_id})
    session.execute(delete(AnnouncedPaper).where(col(AnnouncedPaper.chat_id) == old_id))


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


def _owed_and_chats(kind: NewsKind, dialect: str, held: bool) -> tuple[Subquery, Any]:
    """The owed triples (bound as `owed`) and the destinations they go to: every chat (and
    forum topic) subscribed to one of a paper's followed authors; for a revision, only the
    destinations that asked for revisions; with `held`, none of the (paper, chat) pairs bound
    as held back by this save (`held_back_paper.last_held` is `now`: `watcher.store.exclusions`).
    Each destination's settings row, if it has one, is joined (its digest holds the rows)."""
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
        .outerjoin(
            DestinationSetting,
            and_(
                col(DestinationSetting.chat_id) == col(Subscription.chat_id),
                col(DestinationSetting.thread_id) == col(Subscription.thread_id),
            ),
        )
    )
    if kind == NewsKind.REVISION:
        chats = chats.where(col(DestinationSetting.notify_revisions))
    if held:
        # A primary-key lookup a candidate row: the pairs `held_back` just marked with `now`.
        held_here = select(HeldBackPaper.paper_id).where(
            col(HeldBackPaper.chat_id) == col(Subscription.chat_id),
            col(HeldBackPaper.paper_id) == owed.c.paper_id,
            col(HeldBackPaper.last_held) == bindparam("now", type_=UTCDateTime()),
        )
        chats = chats.where(~held_here.exists())
    return owed, chats


@functools.cache
def _queue_statement(kind: NewsKind, dialect: str, held: bool) -> Executable:
    """`enqueue_deliveries`' one INSERT ... SELECT for `kind`, built once: a paper owed to
    10,000 chats costs the service no 10,000 objects, and a save announcing a thousand papers
    no thousand statements (the values are bound: `owed` and `now`)."""
    owed, chats = _owed_and_chats(kind, dialect, held)
    # A chat hears of a paper as new once, whichever version and author it came through;
    # a revision once per version. What it was told is `announced_paper`, which outlives the
    # pruned deliveries; a delivery row still held counts too (a waiting row that moved to a
    # newer version, `move_waiting`, is that version's).
    told = select(AnnouncedPaper.paper_id).where(
        col(AnnouncedPaper.chat_id) == col(Subscription.chat_id),
        col(AnnouncedPaper.thread_id) == col(Subscription.thread_id),
        col(AnnouncedPaper.paper_id) == owed.c.paper_id,
    )
    queued = select(Delivery.id).where(
        col(Delivery.chat_id) == col(Subscription.chat_id),
        col(Delivery.thread_id) == col(Subscription.thread_id),
        col(Delivery.paper_id) == owed.c.paper_id,
    )
    if kind == NewsKind.REVISION:
        told = told.where(col(AnnouncedPaper.version) >= owed.c.version)
        queued = queued.where(col(Delivery.version) == owed.c.version)
    now = bindparam("now", type_=UTCDateTime())
    rows = (
        chats.where(~or_(told.exists(), queued.exists()))
        .with_only_columns(
            col(Subscription.chat_id),
            col(Subscription.thread_id),
            owed.c.paper_id,
            owed.c.version,
            literal(kind, Text()),
            case(
                (col(DestinationSetting.next_digest_at).is_not(None), DeliveryStatus.HELD),
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


@functools.cache
def _told_statement(kind: NewsKind, dialect: str, held: bool) -> Executable:
    """Record in `announced_paper` that each destination owed a paper (the same ones
    `_queue_statement` chose from) is told of it: a new row, or for a revision a higher
    version. A paper already told as new keeps its version: the chat was not told the newer
    one. One INSERT ... SELECT ... ON CONFLICT, bound to `owed` (and `now`, when some are
    held back)."""
    owed, chats = _owed_and_chats(kind, dialect, held)
    # "WHERE" keeps SQLite from reading ON CONFLICT as a join's ON.
    rows = (
        chats.where(true())
        .with_only_columns(
            col(Subscription.chat_id),
            col(Subscription.thread_id),
            owed.c.paper_id,
            owed.c.version,
        )
        .distinct()
    )
    table: Table = AnnouncedPaper.__table__  # type: ignore[attr-defined]
    upsert = upsert_into(dialect, table)
    statement = upsert.from_select(["chat_id", "thread_id", "paper_id", "version"], rows)
    key = ["chat_id", "thread_id", "paper_id"]
    if kind == NewsKind.NEW:
        return statement.on_conflict_do_nothing(index_elements=key)
    return statement.on_conflict_do_update(
        index_elements=key,
        set_={"version": statement.excluded.version},
        where=statement.excluded.version > table.c.version,
    )


def record_sent_before_move(
    session: Session, confirmed: Sequence[tuple[int, int | None, int]]
) -> None:
    """The confirmed rows still pending moved to a newer version than the one that went out.
    A destination that asked for revisions keeps the row, pending as that revision, and gets a sent
    row for the version it was told; for the others the row is the send, back at that
    version."""
    sent_versions = {
        delivery_id: (message_id, version) for delivery_id, message_id, version in confirmed
    }
    moved = session.exec(
        select(Delivery, DestinationSetting.notify_revisions)
        .outerjoin(
            DestinationSetting,
            and_(
                col(DestinationSetting.chat_id) == col(Delivery.chat_id),
                col(DestinationSetting.thread_id) == col(Delivery.thread_id),
            ),
        )
        .where(
            col(Delivery.id).in_(list(sent_versions)),
            col(Delivery.status) == DeliveryStatus.PENDING,
        )
    ).all()
    now = utcnow()
    for delivery, wants_revisions in moved:
        message_id, version = sent_versions[delivery.id or 0]
        if not wants_revisions:
            delivery.version, delivery.status = version, DeliveryStatus.SENT
            delivery.sent, delivery.message_id = now, message_id
            continue
        session.add(
            Delivery(
                chat_id=delivery.chat_id,
                thread_id=delivery.thread_id,
                paper_id=delivery.paper_id,
                version=version,
                kind=delivery.kind,
                status=DeliveryStatus.SENT,
                attempts=delivery.attempts,
                created=delivery.created,
                sent=now,
                message_id=message_id,
            )
        )
        delivery.kind, delivery.summarize = NewsKind.REVISION, False
