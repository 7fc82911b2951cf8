"""The homonym questions asked and not answered yet, kept in `homonym_offer`, so that their buttons
work after a restart and whichever process receives the press.

A question is kept under a short random token (its buttons carry it) with what its buttons may
do: follow the name in one of the offered categories, or whole (`anyway`). It works for
`OFFER_LIFETIME`; an expired one is kept `KEEP_EXPIRED` longer, so that a late press can be told
which name to send again, then pruned (at each `keep`, one indexed delete). A press takes the
question (`take`): its row is deleted in the same transaction, so of two presses, in one process
or two, exactly one gets it.
"""

from __future__ import annotations

import json
import secrets
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlalchemy import Engine, delete, func
from sqlmodel import Session, col, select

from watcher.store.tables import HomonymOffer, utcnow

OFFER_LIFETIME = timedelta(days=1)  # how long a question's buttons work
KEEP_EXPIRED = timedelta(days=7)  # how long an expired question is remembered, then pruned


@dataclass(frozen=True, slots=True)
class Offer:
    """What a question's buttons may do: subscribe `chat_id` (in `thread_id`) to `names`, in one
    of `categories` (each with its papers in the survey), or whole (`anyway`, of `total`)."""

    chat_id: int
    thread_id: int  # the forum topic (0: none)
    names: tuple[str, ...]  # display name first, then aliases
    categories: tuple[tuple[str, int], ...]
    anyway: bool
    total: int


@dataclass(frozen=True, slots=True)
class Taken:
    """A press that got its question: the offer, now answered (its row gone)."""

    token: str
    offer: Offer
    made: datetime


@dataclass(frozen=True, slots=True)
class Expired:
    """A press too late: the question about `name` expired (it is not taken)."""

    name: str


class OfferStore:
    """Reads and writes of the homonym questions. Each method is one short transaction; call them
    on the database thread."""

    def __init__(self, engine: Engine, *, clock: Callable[[], datetime] = utcnow) -> None:
        self.engine = engine
        self.clock = clock

    def keep(self, offer: Offer) -> str:
        """Keep a new question; its token, for its buttons' callback data."""
        now = self.clock()
        token = secrets.token_urlsafe(6)  # 8 characters, 48 random bits
        with Session(self.engine) as session:
            forgotten = now - OFFER_LIFETIME - KEEP_EXPIRED
            session.exec(delete(HomonymOffer).where(col(HomonymOffer.made) < forgotten))
            session.add(_row(token, offer, now))
            session.commit()
        return token

    def take(self, token: str, *, chat_id: int) -> Taken | Expired | None:
        """The question `token` names, asked in `chat_id`, taken so that no other press gets it;
        `Expired` when it is too old (then left as it is); None when unknown: forged, another
        chat's, answered already, or pruned."""
        now = self.clock()
        with Session(self.engine) as session:
            row = session.get(HomonymOffer, token)
            if row is None or row.chat_id != chat_id:
                return None
            if row.made < now - OFFER_LIFETIME:
                return Expired(json.loads(row.names)[0])
            taken = Taken(token, _offer(row), row.made)
            gone = session.exec(
                delete(HomonymOffer).where(
                    col(HomonymOffer.token) == token, col(HomonymOffer.chat_id) == chat_id
                )
            )
            session.commit()
        return taken if gone.rowcount == 1 else None

    def put_back(self, taken: Taken) -> None:
        """A taken question is open again (its answer could not be acted on yet), with its
        first lifetime."""
        with Session(self.engine) as session:
            if session.get(HomonymOffer, taken.token) is None:
                session.add(_row(taken.token, taken.offer, taken.made))
                session.commit()

    def count(self) -> int:
        """How many questions are kept (bounded by the pruning; for tests)."""
        with Session(self.engine) as session:
            return int(session.exec(select(func.count()).select_from(HomonymOffer)).one())


def _row(token: str, offer: Offer, made: datetime) -> HomonymOffer:
    return HomonymOffer(
        token=token,
        chat_id=offer.chat_id,
        thread_id=offer.thread_id,
        names=json.dumps(list(offer.names)),
        categories=json.dumps([list(pair) for pair in offer.categories]),
        anyway=offer.anyway,
        total=offer.total,
        made=made,
    )


def _offer(row: HomonymOffer) -> Offer:
    return Offer(
        chat_id=row.chat_id,
        thread_id=row.thread_id,
        names=tuple(json.loads(row.names)),
        categories=tuple((str(c), int(n)) for c, n in json.loads(row.categories)),
        anyway=row.anyway,
        total=row.total,
    )
