"""The store's figures a Prometheus scrape shows (`watcher.metrics.StoreGauges`): three counts
in one statement (one round trip), none of which visits the paper tables.

- the outbox's pending rows that are due to go out (not parked for an inactive chat, not held
  for a digest): counted in `ix_delivery_due` on its `status, parked` prefix, so the parked and
  the sent rows are never visited;
- the follow rules polled (the operator's, and those an active chat subscribes to), by kind: the
  rule table is small (one row per person, id or topic any chat follows), and each rule not
  the operator's is probed once in the subscription table's `followed_author_id` index;
- the active chats: the chat table, one row a chat.

`bench/metrics.py` measures a scrape at a million papers and 10,000 chats (`bench/README.md`).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from sqlalchemy import Engine, false, func, or_, true
from sqlmodel import Session, col, select

from watcher.kinds import FollowKind
from watcher.store.tables import Chat, Delivery, DeliveryStatus, FollowedAuthor, Subscription


@dataclass(frozen=True, slots=True)
class Gauges:
    outbox_pending: int
    follows: dict[str, int] = field(default_factory=dict)  # by `FollowKind`, each kind present
    chats_active: int = 0


def read_gauges(engine: Engine) -> Gauges:
    """The three figures, in one statement (one round trip). Blocking: call it off the loop."""
    pending = (
        select(func.count())
        .select_from(Delivery)
        .where(
            col(Delivery.status) == DeliveryStatus.PENDING,
            col(Delivery.parked) == false(),
        )
        .scalar_subquery()
    )
    chats = (
        select(func.count()).select_from(Chat).where(col(Chat.active) == true()).scalar_subquery()
    )
    # A scalar probe rather than EXISTS: PostgreSQL hashes an EXISTS over the whole
    # subscription table (8 ms at 50,000 rows); this probe is one index lookup per rule that is
    # not the operator's (1 ms), and SQLite plans both so.
    first_subscriber = (
        select(Subscription.followed_author_id)
        .join(Chat, col(Chat.id) == col(Subscription.chat_id))
        .where(col(Subscription.followed_author_id) == col(FollowedAuthor.id), col(Chat.active))
        .limit(1)
        .scalar_subquery()
    )
    kinds = [kind.value for kind in FollowKind]
    by_kind = [func.count().filter(col(FollowedAuthor.kind) == kind) for kind in kinds]
    query = (
        select(pending, chats, *by_kind)
        .select_from(FollowedAuthor)
        .where(or_(col(FollowedAuthor.watched) == true(), first_subscriber.is_not(None)))
    )
    with Session(engine) as session:
        row = session.exec(query).one()
    return Gauges(
        outbox_pending=row[0],
        follows=dict(zip(kinds, row[2:], strict=True)),
        chats_active=row[1],
    )
