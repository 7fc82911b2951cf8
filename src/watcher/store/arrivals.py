"""What one chat (forum topic) was queued since an instant, counted by follow: /why's read.

One grouped read over the destination's own deliveries (the `delivery.chat_id` index), each
joined to the `paper_match` rows of the follows the destination has (their primary keys): no
scan of the paper tables, whatever their size (`bench/queries.py` measures it).
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import Engine, func
from sqlmodel import Session, col, select

from watcher.kinds import NewsKind
from watcher.store.tables import Delivery, PaperMatch, Subscription


def queued_since(engine: Engine, chat_id: int, thread_id: int, since: datetime) -> dict[int, int]:
    """{followed author id: new papers queued to the destination at or after `since`}, for
    the follows it has now (a paper two follows found counts for each)."""
    query = (
        select(PaperMatch.followed_author_id, func.count(col(Delivery.paper_id).distinct()))
        .join(PaperMatch, col(PaperMatch.paper_id) == col(Delivery.paper_id))
        .join(
            Subscription,
            (col(Subscription.followed_author_id) == col(PaperMatch.followed_author_id))
            & (col(Subscription.chat_id) == col(Delivery.chat_id))
            & (col(Subscription.thread_id) == col(Delivery.thread_id)),
        )
        .where(
            col(Delivery.chat_id) == chat_id,
            col(Delivery.thread_id) == thread_id,
            col(Delivery.created) >= since,
            col(Delivery.kind) == NewsKind.NEW,
        )
        .group_by(col(PaperMatch.followed_author_id))
    )
    with Session(engine) as session:
        return {int(follow): int(n) for follow, n in session.exec(query).all()}
