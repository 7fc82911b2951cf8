"""Whether each of arXiv's interfaces still parses, and the admin notices that say so: the
`source_state` and `admin_notice` tables.

One `source_state` row per source (`listing`, `oai`, `api`, `author_feed`) that ever failed to
parse. A parse failure opens a *spell* (`broken_since`); the first read that parses again
closes it. The admin chats hear of a spell once, when it opens, and once when it closes, each
notice queued in the same transaction as the change of state, one `admin_notice` row a chat:
a restart neither re-sends nor forgets one, and of two processes only the one holding the row's
lock changes it. Notices for one source are at most one a day (`ALERT_EVERY`): a spell that
opens within a day of the last notice (a source that flaps) is told once the day has passed,
if it still lasts, and a spell never told is not told closed either.

The front end sends the pending notices (`pending_admin_notices`) and marks each sent only
after Telegram confirmed it (`admin_notice_sent`), as the outbox does. Queuing forgets the
notices settled more than `KEPT` ago, so the table stays a few rows.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlalchemy import BigInteger, Column, Engine, Index, Table, Text, delete, false, or_
from sqlmodel import Field, Session, SQLModel, col, select

from watcher.store.dialects import upsert_into
from watcher.store.tables import UTCDateTime

SOURCES = ("listing", "oai", "api", "author_feed")
ALERT_EVERY = timedelta(days=1)  # at most one failure notice a source in this time
NOTICES_A_READ = 20  # pending notices the front end takes at once
KEPT = timedelta(days=90)  # sent and refused notices are forgotten this long after


class SourceState(SQLModel, table=True):
    """One source's parse state; see the module docstring."""

    __tablename__ = "source_state"
    source: str = Field(primary_key=True, max_length=16)
    broken_since: datetime | None = Field(default=None, sa_column=Column(UTCDateTime()))
    url: str | None = Field(default=None, sa_type=Text)
    problem: str | None = Field(default=None, sa_type=Text)
    failures: int = 0  # parse failures in the current (or last) spell
    last_failure: datetime | None = Field(default=None, sa_column=Column(UTCDateTime()))
    alerted_at: datetime | None = Field(default=None, sa_column=Column(UTCDateTime()))
    spell_alerted: bool = Field(default=False, sa_column_kwargs={"server_default": false()})
    recovered_at: datetime | None = Field(default=None, sa_column=Column(UTCDateTime()))


class AdminNotice(SQLModel, table=True):
    """One message owed to one admin chat. Pending while `sent_at` and `refused` are empty."""

    __tablename__ = "admin_notice"
    __table_args__ = (Index("ix_admin_notice_pending", "sent_at", "refused", "id"),)
    id: int | None = Field(default=None, primary_key=True)
    chat_id: int = Field(sa_column=Column(BigInteger, nullable=False))
    text: str = Field(sa_type=Text)
    created: datetime = Field(sa_column=Column(UTCDateTime(), nullable=False))
    sent_at: datetime | None = Field(default=None, sa_column=Column(UTCDateTime()))
    refused: str | None = Field(default=None, sa_type=Text)  # Telegram's reason; never retried


@dataclass(frozen=True, slots=True)
class SourceHealth:
    """A source's parse state as the operator sees it (`health`, /readyz, /stats)."""

    source: str
    broken_since: datetime | None
    url: str | None
    problem: str | None
    failures: int
    last_failure: datetime | None
    recovered_at: datetime | None


@dataclass(frozen=True, slots=True)
class SourceChange:
    """What a recorded failure or recovery did: whether it opened (or closed) a spell, and how
    many admin notices it queued (0 without admin chats, or within a day of the last)."""

    changed: bool
    notices: int
    told: bool  # the spell is (or was) told to the admins


@dataclass(frozen=True, slots=True)
class PendingNotice:
    id: int
    chat_id: int
    text: str


# The notice's text, from the state after the change (the core words it).
Wording = Callable[[SourceHealth], str]


class SourceHealthStore:
    """The `source_state` and `admin_notice` rows. Each method is one transaction."""

    engine: Engine

    def record_parse_failure(
        self,
        source: str,
        *,
        url: str,
        problem: str,
        now: datetime,
        admin_chats: Sequence[int],
        wording: Wording,
    ) -> SourceChange:
        """`source`'s answer at `url` did not parse (`problem`, one line): open a spell if none
        is open, and queue one notice to each admin chat unless the spell was told already or a
        notice for this source went out within `ALERT_EVERY`."""
        assert source in SOURCES, source
        with Session(self.engine) as session:
            row = _locked_row(session, source)
            opened = row.broken_since is None
            if opened:
                row.broken_since, row.failures, row.spell_alerted = now, 0, False
            row.failures += 1
            row.url, row.problem, row.last_failure = url, problem, now
            due = not row.spell_alerted and (
                row.alerted_at is None or now - row.alerted_at >= ALERT_EVERY
            )
            notices = 0
            if due:
                row.spell_alerted, row.alerted_at = True, now
                notices = _queue(session, admin_chats, wording(_health(row)), now)
            session.add(row)
            session.commit()
            return SourceChange(opened, notices, row.spell_alerted)

    def record_parse_success(
        self, source: str, *, now: datetime, admin_chats: Sequence[int], wording: Wording
    ) -> SourceChange:
        """`source`'s answers parse: close its spell, if one is open, and queue one notice to
        each admin chat when the spell was told."""
        assert source in SOURCES, source
        with Session(self.engine) as session:
            # Most reads find nothing broken: one small read, no lock, no write.
            current = session.get(SourceState, source)
            if current is None or current.broken_since is None:
                return SourceChange(False, 0, False)
            row = _locked_row(session, source)
            if row.broken_since is None:  # another process closed it meanwhile
                return SourceChange(False, 0, False)
            told = row.spell_alerted
            notices = _queue(session, admin_chats, wording(_health(row, now)), now) if told else 0
            row.broken_since, row.recovered_at, row.spell_alerted = None, now, False
            session.add(row)
            session.commit()
            return SourceChange(True, notices, told)

    def source_health(self) -> list[SourceHealth]:
        """Every source that ever failed to parse, broken ones first."""
        with Session(self.engine) as session:
            return source_health_in(session)

    def pending_admin_notices(self, limit: int = NOTICES_A_READ) -> list[PendingNotice]:
        """The oldest notices neither sent nor refused."""
        with Session(self.engine) as session:
            rows = session.exec(
                select(AdminNotice)
                .where(col(AdminNotice.sent_at).is_(None), col(AdminNotice.refused).is_(None))
                .order_by(col(AdminNotice.id))
                .limit(limit)
            ).all()
            return [PendingNotice(r.id or 0, r.chat_id, r.text) for r in rows]

    def admin_notice_sent(self, notice_id: int, *, now: datetime) -> None:
        """Telegram confirmed the notice: it is never sent again."""
        self._settle(notice_id, sent_at=now)

    def admin_notice_refused(self, notice_id: int, *, reason: str) -> None:
        """Telegram refused the notice for good (no such chat, the bot blocked): kept, with the
        reason, and not tried again."""
        self._settle(notice_id, refused=reason)

    def _settle(
        self, notice_id: int, *, sent_at: datetime | None = None, refused: str | None = None
    ) -> None:
        with Session(self.engine) as session:
            row = session.get(AdminNotice, notice_id)
            if row is None:
                return
            row.sent_at, row.refused = sent_at, refused
            session.add(row)
            session.commit()


def source_health_in(session: Session) -> list[SourceHealth]:
    """`SourceHealthStore.source_health` in the caller's session."""
    rows = session.exec(select(SourceState).order_by(col(SourceState.source))).all()
    return sorted((_health(r) for r in rows), key=lambda h: h.broken_since is None)


def _health(row: SourceState, recovered: datetime | None = None) -> SourceHealth:
    return SourceHealth(
        source=row.source,
        broken_since=row.broken_since,
        url=row.url,
        problem=row.problem,
        failures=row.failures,
        last_failure=row.last_failure,
        recovered_at=recovered or row.recovered_at,
    )


def _queue(session: Session, chats: Sequence[int], text: str, now: datetime) -> int:
    settled = or_(col(AdminNotice.sent_at).is_not(None), col(AdminNotice.refused).is_not(None))
    session.exec(delete(AdminNotice).where(settled, col(AdminNotice.created) < now - KEPT))
    for chat_id in dict.fromkeys(chats):
        session.add(AdminNotice(chat_id=chat_id, text=text, created=now))
    return len(dict.fromkeys(chats))


def _locked_row(session: Session, source: str) -> SourceState:
    """The source's row, made if missing, locked until the transaction ends: two processes
    recording at once neither collide on the key nor both open (or close) one spell."""
    table: Table = SourceState.__table__  # type: ignore[attr-defined]
    dialect = session.get_bind().dialect.name
    insert = upsert_into(dialect, table)
    session.execute(
        insert.values(source=source, failures=0, spell_alerted=False).on_conflict_do_nothing(
            index_elements=["source"]
        )
    )
    query = select(SourceState).where(col(SourceState.source) == source)
    return session.exec(query.with_for_update().execution_options(populate_existing=True)).one()
