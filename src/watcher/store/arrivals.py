"""Everything /why reads of one chat (forum topic), in one transaction (`why_reads`).

The newest mailing seen, the follows the destination has, what it was queued since an
instant counted by follow, the sources that stopped parsing, and its speaking and digest
settings: the same reads as `Store.last_mailing`, `Chats.subscribed_ids`, `Store.followed`,
`Store.source_health`, `Speaking.settings` and `Digests.settings` (each module's `..._in`
function, in the caller's session), in one session instead of one each: /why was the time of
its short transactions, not of its reads (`bench/queries.py`, `why (/why)`). The destination's
pending and held deliveries, which the last two count each, are counted in one pass.

What was queued is one grouped read over the destination's own deliveries (the
`delivery.chat_id` index), each joined to the `paper_match` rows of the follows the destination
has (their primary keys): no scan of the paper tables, whatever their size.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import Engine, case, func
from sqlmodel import Session, col, select

from watcher.follows.followed import Followed
from watcher.kinds import NewsKind
from watcher.store.chats import subscribed_in
from watcher.store.digests import DigestSettings, settings_in
from watcher.store.follow_state import followed_in
from watcher.store.mailings import MailingNews, last_mailing_in
from watcher.store.source_health import source_health_in
from watcher.store.speaking import SpeakingSettings, speaking_in
from watcher.store.tables import Delivery, DeliveryStatus, PaperMatch, Subscription


@dataclass(frozen=True, slots=True)
class WhyReads:
    """What /why reads of a destination. `follows`: its follows, by name, uncounted
    (`record_count` 0); `queued`: {follow id: new papers queued since the instant asked}, those
    with some (empty when no instant was asked or nothing is followed); `failing`: the sources
    broken now (`watcher.store.mailings.SOURCES` names)."""

    mailing: MailingNews
    follows: tuple[Followed, ...]
    queued: dict[int, int]
    failing: tuple[str, ...]
    speaking: SpeakingSettings
    digest: DigestSettings


def why_reads(engine: Engine, chat_id: int, thread_id: int, since: datetime | None) -> WhyReads:
    """/why's reads of the destination in one transaction; what it was queued is counted from
    `since` (None: not counted)."""
    with Session(engine) as session:
        follows = tuple(
            followed_in(session, subscribed_in(session, chat_id, thread_id), counted=False)
        )
        queued = (
            queued_in(session, chat_id, thread_id, since) if since is not None and follows else {}
        )
        waiting, held = _waiting_and_held(session, chat_id, thread_id)
        return WhyReads(
            mailing=last_mailing_in(session),
            follows=follows,
            queued=queued,
            failing=tuple(
                h.source for h in source_health_in(session) if h.broken_since is not None
            ),
            speaking=speaking_in(session, chat_id, thread_id, waiting=waiting),
            digest=settings_in(session, chat_id, thread_id, held=held),
        )


def _waiting_and_held(session: Session, chat_id: int, thread_id: int) -> tuple[int, int]:
    """The destination's pending and held deliveries, counted in one pass over its rows (the
    path each count took alone: the destination's key, whatever other chats hold)."""
    status = col(Delivery.status)
    query = select(
        func.coalesce(func.sum(case((status == DeliveryStatus.PENDING, 1), else_=0)), 0),
        func.coalesce(func.sum(case((status == DeliveryStatus.HELD, 1), else_=0)), 0),
    ).where(col(Delivery.chat_id) == chat_id, col(Delivery.thread_id) == thread_id)
    waiting, held = session.exec(query).one()
    return int(waiting), int(held)


def queued_in(session: Session, chat_id: int, thread_id: int, since: datetime) -> dict[int, int]:
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
    return {int(follow): int(n) for follow, n in session.exec(query).all()}
