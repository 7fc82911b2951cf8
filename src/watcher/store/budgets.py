"""Each chat's budget of follows that cost arXiv requests, kept in `lookup_allowance`, so that it
survives a restart and is one budget for every process on the database.

A chat has two token buckets:
- `follows`: new follows started, each a history to fetch (a name, author id or topic nobody
  polls). A new chat starts with `FIRST_ALLOWANCE`, enough for a first session; the bucket then
  refills at `per_hour` an hour, holding at most `per_hour`.
- `lookups`: questions asked of arXiv about a name or an author id, whatever the answer, a
  made-up name's "nothing" included: `LOOKUPS_PER_FOLLOW` times as many. A typo costs no
  follow, yet a script inventing names costs arXiv a bounded number of requests. /paper of a
  paper not stored spends a look-up alone (`take_lookup`).

A request reserves before it asks (`take`), and gives the follow back (`give_back`) when none was
started: refused, found nothing, already followed, arXiv failing. Reserving first keeps the count
exact when two requests of one chat race, in one process or two: `take` opens its transaction
with a write (the chat's fresh row, which does nothing when the row exists), so on SQLite it holds
the write lock before it reads, and on PostgreSQL the row is then read `FOR UPDATE`.

A row idle for `FORGET_AFTER` is pruned (before each `take`, one indexed delete): the table holds
the chats active within a week, not a row per chat ever seen. A chat pruned so gets the first
allowance again, at most once a week.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlalchemy import Engine, Table, delete, func
from sqlmodel import Session, col, select

from watcher.store.dialects import upsert_into
from watcher.store.tables import LookupAllowance, utcnow

FIRST_ALLOWANCE = 10  # new follows a new chat may start at once
LOOKUPS_PER_FOLLOW = 2  # arXiv look-ups a chat may ask per new follow it may start
FORGET_AFTER = timedelta(days=7)  # a chat idle this long has its row pruned
_HOUR = 3600.0


@dataclass(frozen=True, slots=True)
class Standing:
    """What a chat may still start now: whole and partial tokens of each bucket."""

    follows: float
    lookups: float


class LookupBudgets:
    """The look-up budget of every chat (`watcher.core.subscribing.LookupBudget`). Each method is
    one short transaction; call them on the database thread."""

    def __init__(
        self,
        engine: Engine,
        *,
        per_hour: int,
        first: int = FIRST_ALLOWANCE,
        clock: Callable[[], datetime] = utcnow,
    ) -> None:
        if per_hour < 1 or first < 1:
            raise ValueError("a look-up budget needs at least one follow")
        self.engine = engine
        self.per_hour = per_hour
        self.first = first
        self.clock = clock

    def take(self, chat_id: int, *, lookup: bool) -> float | None:
        """Reserve one new follow, and one arXiv look-up if `lookup`. None when reserved; else
        the seconds until the chat may, and nothing is spent."""
        now = self.clock()
        self._prune(now)
        with Session(self.engine) as session:
            row = self._locked_row(session, chat_id, now)
            follows, lookups = self._refilled(row, now)
            wait = 0.0
            if follows < 1:
                wait = (1 - follows) * _HOUR / self.per_hour
            if lookup and lookups < 1:
                wait = max(wait, (1 - lookups) * _HOUR / (self.per_hour * LOOKUPS_PER_FOLLOW))
            if wait > 0:
                session.rollback()
                return max(1.0, wait)
            row.follows, row.lookups = follows - 1, lookups - (1 if lookup else 0)
            row.updated = now
            session.add(row)
            session.commit()
        return None

    def spend(self, session: Session, chat_id: int, *, follows: int, lookups: int) -> bool:
        """In the caller's transaction (an import's, `watcher.store.applied_imports`): reserve
        `follows` new follows and `lookups` look-ups at once, or nothing (False) when the chat has
        not that many now. The row stays locked until the caller's transaction ends."""
        now = self.clock()
        row = self._locked_row(session, chat_id, now)
        have_follows, have_lookups = self._refilled(row, now)
        if have_follows < follows or have_lookups < lookups:
            return False
        row.follows, row.lookups = have_follows - follows, have_lookups - lookups
        row.updated = now
        session.add(row)
        return True

    def take_lookup(self, chat_id: int) -> float | None:
        """Spend one arXiv look-up and no follow (/paper of a paper not stored). None when
        spent; else the seconds until the chat may, and nothing is spent."""
        now = self.clock()
        self._prune(now)
        with Session(self.engine) as session:
            row = self._locked_row(session, chat_id, now)
            follows, lookups = self._refilled(row, now)
            if lookups < 1:
                session.rollback()
                return max(1.0, (1 - lookups) * _HOUR / (self.per_hour * LOOKUPS_PER_FOLLOW))
            row.follows, row.lookups, row.updated = follows, lookups - 1, now
            session.add(row)
            session.commit()
        return None

    def give_back(self, chat_id: int) -> None:
        """The follow `take` reserved was not started: the chat has it again (its look-up, if
        one was asked of arXiv, stays spent)."""
        now = self.clock()
        with Session(self.engine) as session:
            row = self._locked_row(session, chat_id, now)
            follows, lookups = self._refilled(row, now)
            row.follows = min(follows + 1, max(self.first, self.per_hour))
            row.lookups, row.updated = lookups, now
            session.add(row)
            session.commit()

    def standing(self, chat_id: int) -> Standing:
        """What the chat may start now (a new chat: the first allowance)."""
        now = self.clock()
        with Session(self.engine) as session:
            row = session.get(LookupAllowance, chat_id)
            if row is None:
                return Standing(float(self.first), float(self.first * LOOKUPS_PER_FOLLOW))
            return Standing(*self._refilled(row, now))

    def chats(self) -> int:
        """How many chats have a row (bounded by the pruning; for tests and /stats)."""
        with Session(self.engine) as session:
            return int(session.exec(select(func.count()).select_from(LookupAllowance)).one())

    def _prune(self, now: datetime) -> None:
        """Forget the chats idle for `FORGET_AFTER`: a transaction of its own, before the take's,
        so that a take never fails with it."""
        with Session(self.engine) as session:
            session.exec(
                delete(LookupAllowance).where(col(LookupAllowance.updated) < now - FORGET_AFTER)
            )
            session.commit()

    def _locked_row(self, session: Session, chat_id: int, now: datetime) -> LookupAllowance:
        """The chat's row, a fresh one for a new chat, locked until the transaction ends."""
        table: Table = LookupAllowance.__table__  # type: ignore[attr-defined]
        dialect = session.get_bind().dialect.name
        insert = upsert_into(dialect, table)
        fresh = insert.values(
            chat_id=chat_id,
            follows=float(self.first),
            lookups=float(self.first * LOOKUPS_PER_FOLLOW),
            updated=now,
        )
        session.execute(fresh.on_conflict_do_nothing(index_elements=["chat_id"]))
        query = select(LookupAllowance).where(col(LookupAllowance.chat_id) == chat_id)
        return session.exec(query.with_for_update()).one()

    def _refilled(self, row: LookupAllowance, now: datetime) -> tuple[float, float]:
        """The row's buckets at `now`. A bucket holding more than it refills to (the first
        allowance) is spent down, not refilled."""
        hours = max(0.0, (now - row.updated).total_seconds()) / _HOUR
        cap = float(self.per_hour)
        follows = row.follows if row.follows >= cap else min(cap, row.follows + hours * cap)
        cap *= LOOKUPS_PER_FOLLOW
        lookups = row.lookups if row.lookups >= cap else min(cap, row.lookups + hours * cap)
        return follows, lookups
