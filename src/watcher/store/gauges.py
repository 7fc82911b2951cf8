"""The store's figures a Prometheus scrape shows (`watcher.metrics.StoreGauges`): one short
read transaction of three counts, none of which visits the paper tables.

- the outbox's pending rows that are due to go out (not parked for an inactive chat, not held
  for a digest): counted in `ix_delivery_due` on its `status, parked` prefix, so the parked and
  the sent rows are never visited;
- the follow rules polled (the operator's, and those some chat subscribes to), by kind: the
  rule table is small (one row per person, id or topic any chat follows), and each rule's
  subscribers are probed in the subscription table's `followed_author_id` index;
- the active chats: the chat table, one row a chat.

`bench/metrics.py` measures a scrape at a million papers and 10,000 chats (`bench/README.md`).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from sqlalchemy import Engine, exists, false, func, or_, true
from sqlmodel import Session, col, select

from watcher.kinds import FollowKind
from watcher.store.tables import Chat, Delivery, DeliveryStatus, FollowedAuthor, Subscription


@dataclass(frozen=True, slots=True)
class Gauges:
    outbox_pending: int
    follows: dict[str, int] = field(default_factory=dict)  # by `FollowKind`, each kind present
    chats_active: int = 0


def read_gauges(engine: Engine) -> Gauges:
    """The three figures, read in one transaction. Blocking: call it off the event loop."""
    with Session(engine) as session:
        pending = session.exec(
            select(func.count())
            .select_from(Delivery)
            .where(
                col(Delivery.status) == DeliveryStatus.PENDING,
                col(Delivery.parked) == false(),
            )
        ).one()
        subscribed = exists().where(col(Subscription.followed_author_id) == FollowedAuthor.id)
        by_kind = session.exec(
            select(FollowedAuthor.kind, func.count())
            .where(or_(col(FollowedAuthor.watched) == true(), subscribed))
            .group_by(col(FollowedAuthor.kind))
        ).all()
        chats = session.exec(
            select(func.count()).select_from(Chat).where(col(Chat.active) == true())
        ).one()
    follows = dict.fromkeys((kind.value for kind in FollowKind), 0)
    follows.update({str(kind): number for kind, number in by_kind})
    return Gauges(outbox_pending=pending, follows=follows, chats_active=chats)
