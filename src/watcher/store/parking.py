"""Parked destinations: chats and forum topics that may not be written to until an admin acts.

Telegram refuses some messages for a reason that is the chat's, not the message's: the bot lost its
right to post, the topic is closed or gone (see `bot.delivery.answers`). Failing those deliveries
would lose every paper announced meanwhile; retrying each in a loop would hammer Telegram. Instead
the destination (chat, topic) is parked: its deliveries stay pending, and once `retry_at` comes, one
of them probes again. Each refusal in a row doubles the wait, from the first delay up to an hour; a
probe that gets through releases the destination, and news that the bot's rights are back
(`retry_now`) makes every parked topic of the chat due at once.

Parking is per topic (`thread_id`, `NO_THREAD` for General or a chat without topics): a closed
topic must not hold back the chat's other topics. A chat-wide refusal (no rights) reaches each
topic on its own first send, so each topic parks, and probes, by itself.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlalchemy import Engine, delete, func, update
from sqlmodel import Session, col, select

from watcher.store.tables import Chat, Delivery, DeliveryStatus, ParkedDestination, utcnow

# However many refusals in a row, a parked destination is tried at least once an hour.
PARKED_RETRY_MAX = 3600.0
_MAX_DOUBLINGS = 20  # 2**20 × any sane first delay is past the cap; the exponent stops here


def parked_retry_delay(failures: int, *, first: float) -> float:
    """Seconds before the next probe after `failures` refusals in a row (1 or more)."""
    doublings = min(max(failures - 1, 0), _MAX_DOUBLINGS)
    return min(PARKED_RETRY_MAX, first * 2.0**doublings)


@dataclass(frozen=True, slots=True)
class ParkedInfo:
    chat_id: int
    thread_id: int
    chat_title: str | None
    reason: str
    since: datetime
    failures: int
    retry_at: datetime
    waiting: int  # pending deliveries held back


class Parking:
    """Reads and writes of parked destinations. Each method is one short transaction."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine

    def park(
        self,
        chat_id: int,
        thread_id: int,
        *,
        reason: str,
        first_retry: float,
        now: datetime | None = None,
    ) -> ParkedInfo:
        """Record one more refusal of this destination; its deliveries wait until `retry_at`."""
        now = now or utcnow()
        with Session(self.engine) as session:
            parked = session.get(ParkedDestination, (chat_id, thread_id))
            if parked is None:
                parked = ParkedDestination(
                    chat_id=chat_id,
                    thread_id=thread_id,
                    reason=reason,
                    since=now,
                    failures=1,
                    retry_at=now,
                )
                session.add(parked)
            else:
                parked.failures += 1
                parked.reason = reason
            delay = parked_retry_delay(parked.failures, first=first_retry)
            parked.retry_at = now + timedelta(seconds=delay)
            session.commit()
            session.refresh(parked)
            return ParkedInfo(
                chat_id,
                thread_id,
                None,
                parked.reason,
                parked.since,
                parked.failures,
                parked.retry_at,
                0,
            )

    def release(self, chat_id: int, thread_id: int) -> bool:
        """A message got through: the destination is writable again. True if it was parked."""
        with Session(self.engine) as session:
            removed = session.exec(
                delete(ParkedDestination).where(
                    col(ParkedDestination.chat_id) == chat_id,
                    col(ParkedDestination.thread_id) == thread_id,
                )
            ).rowcount
            session.commit()
            return bool(removed)

    def retry_now(
        self, chat_id: int, *, thread_id: int | None = None, now: datetime | None = None
    ) -> int:
        """The chat's rights changed for the better (or topic `thread_id` was reopened): probe
        each of its parked topics now. Returns how many were parked.

        The parkings stay (with their count of refusals) until a probe gets through, so a
        change that did not help costs one probe, not a reset of the backoff.
        """
        query = update(ParkedDestination).where(col(ParkedDestination.chat_id) == chat_id)
        if thread_id is not None:
            query = query.where(col(ParkedDestination.thread_id) == thread_id)
        with Session(self.engine) as session:
            due = session.exec(query.values(retry_at=now or utcnow())).rowcount
            session.commit()
            return int(due or 0)

    @staticmethod
    def forget_chat(session: Session, chat_id: int) -> None:
        """Inside the caller's transaction: drop the chat's parkings (it moved or is gone)."""
        session.exec(delete(ParkedDestination).where(col(ParkedDestination.chat_id) == chat_id))

    def parked(self, *, limit: int = 10) -> tuple[int, list[ParkedInfo]]:
        """(how many destinations hold pending deliveries back, the `limit` parked longest).

        A parking whose deliveries are all gone (unsubscribed) holds nothing back: it is left
        out, and it goes with the next probe that gets through.
        """
        holding = (
            select(Delivery.id)
            .where(
                col(Delivery.chat_id) == col(ParkedDestination.chat_id),
                col(Delivery.thread_id) == col(ParkedDestination.thread_id),
                col(Delivery.status) == DeliveryStatus.PENDING,
            )
            .exists()
        )
        with Session(self.engine) as session:
            total = session.exec(
                select(func.count()).select_from(ParkedDestination).where(holding)
            ).one()
            waiting = (
                select(func.count())
                .where(
                    col(Delivery.chat_id) == col(ParkedDestination.chat_id),
                    col(Delivery.thread_id) == col(ParkedDestination.thread_id),
                    col(Delivery.status) == DeliveryStatus.PENDING,
                )
                .scalar_subquery()
            )
            rows = session.exec(
                select(ParkedDestination, Chat.title, waiting)
                .join(Chat, col(Chat.id) == col(ParkedDestination.chat_id))
                .where(holding)
                .order_by(col(ParkedDestination.since), col(ParkedDestination.chat_id))
                .limit(limit)
            ).all()
            return total, [
                ParkedInfo(
                    parked.chat_id,
                    parked.thread_id,
                    title,
                    parked.reason,
                    parked.since,
                    parked.failures,
                    parked.retry_at,
                    int(count),
                )
                for parked, title, count in rows
            ]
