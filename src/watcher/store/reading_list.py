"""Each chat's reading list: the papers it saved (🔖 Save under a paper, /saved), kept in
`saved_paper`.

A saved paper is named by its arXiv id (no version), not by a row of `paper`: a paper saved here
stays saved whatever happens to the stored rows, and a list imported from another service may
name papers this one never stored. The title is kept as it was when saved (`title`), so such a
paper is still listed by name. A chat saves at most `MAX_SAVED` papers, all its forum topics
together: the list is the chat's.

`save` is one transaction that cannot pass the limit when two presses race, in one process or
two: on PostgreSQL it first locks the chat's row (`FOR UPDATE`), and on SQLite its first statement
is the insert, which takes the database's write lock before anything is counted. The insert does
nothing for a paper saved already (the primary key), so a paper saved twice is saved once.

The rows go with their chat (`ON DELETE CASCADE`); a group that became a supergroup takes its
list along (`move_saved`, inside `Chats.migrate`'s transaction). An imported list is written in
the import's own transaction (`add_saved`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from enum import StrEnum

from sqlalchemy import BigInteger, Column, Engine, ForeignKey, Index, String, Table, delete, func
from sqlalchemy.exc import IntegrityError
from sqlmodel import Field, Session, SQLModel, col, select

from watcher.arxiv.records import Record
from watcher.store.dialects import upsert_into
from watcher.store.rows import load_records
from watcher.store.tables import Chat, Paper, UTCDateTime

MAX_SAVED = 500  # papers one chat may save


class SavedPaper(SQLModel, table=True):
    """A paper a chat saved: its arXiv id (no version), its title then, and when."""

    __tablename__ = "saved_paper"
    # The chat's list, newest saved first, is read by this index.
    __table_args__ = (Index("ix_saved_paper_newest", "chat_id", "saved_at"),)
    chat_id: int = Field(
        sa_column=Column(
            BigInteger, ForeignKey("chat.id", ondelete="CASCADE"), primary_key=True, nullable=False
        )
    )
    arxiv_id: str = Field(sa_column=Column(String(64), primary_key=True, nullable=False))
    title: str = Field(default="", sa_column=Column(String(), nullable=False, server_default=""))
    saved_at: datetime = Field(sa_column=Column(UTCDateTime(), nullable=False))


class SaveDone(StrEnum):
    """What `save` did."""

    SAVED = "saved"
    ALREADY = "already"  # saved before: nothing changed
    FULL = "full"  # the chat saved MAX_SAVED papers already: nothing changed
    NO_CHAT = "no chat"  # a chat this service does not know


@dataclass(frozen=True, slots=True)
class SavedEntry:
    """One saved paper: its id, its title when saved, when, and the stored record (None when
    this service does not hold it)."""

    arxiv_id: str
    title: str
    saved_at: datetime
    record: Record | None


@dataclass(frozen=True, slots=True)
class SavedPage:
    """A page of a chat's list, newest saved first, and how many it saved in all."""

    entries: tuple[SavedEntry, ...]
    total: int


class ReadingLists:
    """Reads and writes of the chats' reading lists. Each method is one short transaction; call
    them on the database thread."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine

    def save(self, chat_id: int, arxiv_id: str, *, title: str, now: datetime) -> SaveDone:
        """Save the paper in the chat's list (see the module docstring)."""
        with Session(self.engine) as session:
            dialect = session.get_bind().dialect.name
            if dialect == "postgresql":
                locked = select(Chat.id).where(col(Chat.id) == chat_id).with_for_update()
                if session.exec(locked).first() is None:
                    return SaveDone.NO_CHAT
            table: Table = SavedPaper.__table__  # type: ignore[attr-defined]
            insert = upsert_into(dialect, table).values(
                chat_id=chat_id, arxiv_id=arxiv_id, title=title, saved_at=now
            )
            conflict_free = insert.on_conflict_do_nothing().returning(table.c.arxiv_id)
            try:  # RETURNING says whether a row was added: rowcount is not told alike by drivers
                added = session.execute(conflict_free).first() is not None
            except IntegrityError:  # SQLite: no such chat (the foreign key)
                session.rollback()
                return SaveDone.NO_CHAT
            if not added:
                session.rollback()
                return SaveDone.ALREADY
            if _count(session, chat_id) > MAX_SAVED:
                session.rollback()
                return SaveDone.FULL
            session.commit()
            return SaveDone.SAVED

    def unsave(self, chat_id: int, arxiv_id: str) -> bool:
        """Take the paper off the chat's list; False when it was not on it."""
        with Session(self.engine) as session:
            gone = session.execute(
                delete(SavedPaper)
                .where(col(SavedPaper.chat_id) == chat_id, col(SavedPaper.arxiv_id) == arxiv_id)
                .returning(col(SavedPaper.arxiv_id))
            ).first()
            session.commit()
            return gone is not None

    def is_saved(self, chat_id: int, arxiv_id: str) -> bool:
        with Session(self.engine) as session:
            return session.get(SavedPaper, (chat_id, arxiv_id)) is not None

    def count(self, chat_id: int) -> int:
        with Session(self.engine) as session:
            return _count(session, chat_id)

    def page(self, chat_id: int, *, limit: int, offset: int = 0) -> SavedPage:
        """Entries `offset` to `offset + limit` of the chat's list, newest saved first."""
        with Session(self.engine) as session:
            rows = session.exec(
                select(SavedPaper)
                .where(col(SavedPaper.chat_id) == chat_id)
                .order_by(col(SavedPaper.saved_at).desc(), col(SavedPaper.arxiv_id).desc())
                .limit(limit)
                .offset(offset)
            ).all()
            return SavedPage(_entries(session, rows), _count(session, chat_id))

    def all_saved(self, chat_id: int) -> list[SavedEntry]:
        """The whole list, newest saved first (at most MAX_SAVED)."""
        return list(self.page(chat_id, limit=MAX_SAVED).entries)

    def saved_ids(self, chat_id: int) -> set[str]:
        with Session(self.engine) as session:
            query = select(SavedPaper.arxiv_id).where(col(SavedPaper.chat_id) == chat_id)
            return set(session.exec(query).all())


def _count(session: Session, chat_id: int) -> int:
    query = select(func.count()).where(col(SavedPaper.chat_id) == chat_id)
    return int(session.exec(query).one())


def _entries(session: Session, rows: Sequence[SavedPaper]) -> tuple[SavedEntry, ...]:
    ids = [row.arxiv_id for row in rows]
    papers = session.exec(select(Paper).where(col(Paper.arxiv_id).in_(ids))).all() if ids else []
    stored = {record.arxiv_id: record for record in load_records(session, papers)}
    return tuple(
        SavedEntry(row.arxiv_id, row.title, row.saved_at, stored.get(row.arxiv_id)) for row in rows
    )


def add_saved(
    session: Session, chat_id: int, papers: Sequence[tuple[str, str]], *, now: datetime
) -> int:
    """Inside the caller's transaction: save `papers` (arXiv id, title; newest first, and each a
    millisecond older than the one before, so the list keeps their order) in the chat's list,
    those saved already aside; how many were added. The caller checks `MAX_SAVED`
    (`saved_count`)."""
    # As `save`: the chat's row locked first (PostgreSQL), so a press at once cannot pass the
    # limit with the import; on SQLite one writer at a time holds the database, so the caller's
    # count after these inserts is exact.
    session.exec(select(Chat.id).where(col(Chat.id) == chat_id).with_for_update()).first()
    have = set(
        session.exec(select(SavedPaper.arxiv_id).where(col(SavedPaper.chat_id) == chat_id)).all()
    )
    added = 0
    for position, (arxiv_id, title) in enumerate(papers):
        if arxiv_id not in have:
            when = now - timedelta(milliseconds=position)
            session.add(SavedPaper(chat_id=chat_id, arxiv_id=arxiv_id, title=title, saved_at=when))
            have.add(arxiv_id)
            added += 1
    session.flush()
    return added


def saved_count(session: Session, chat_id: int) -> int:
    """Inside the caller's transaction: how many papers the chat saved."""
    return _count(session, chat_id)


def move_saved(session: Session, *, old_id: int, new_id: int) -> None:
    """Inside the caller's transaction: a group became a supergroup; its list moves with it (a
    paper both saved is kept once, the supergroup's; the limit is not checked: nothing is lost)."""
    have = set(
        session.exec(select(SavedPaper.arxiv_id).where(col(SavedPaper.chat_id) == new_id)).all()
    )
    for row in session.exec(select(SavedPaper).where(col(SavedPaper.chat_id) == old_id)).all():
        if row.arxiv_id not in have:
            session.add(
                SavedPaper(
                    chat_id=new_id, arxiv_id=row.arxiv_id, title=row.title, saved_at=row.saved_at
                )
            )
        session.delete(row)
    session.flush()
