"""Each chat's excluded words (/exclude), in `excluded_word`, and the papers they held back, in
`held_back_paper`.

An entry is the folded text of one word or phrase (`watcher.follows.excluded_words`); a chat has
at most `MAX_EXCLUDED`, all its forum topics together, listed in the order they were added. `add`
is one transaction that cannot pass the limit when two commands race: on PostgreSQL it locks the
chat's row first (`FOR UPDATE`); on SQLite its first statement is the insert, which takes the
database's write lock before anything is counted.

`held_back` is called by the queue (`watcher.store.announce`), inside the save's transaction:
it reads the entries of the chats following the owed papers' authors (none at all costs one
read of an empty join), matches each owed paper's title and abstract against them with the
topic matcher, and records each (chat, paper) it holds back once (`held_back_paper`, whose rows
`/subscriptions` counts for the week). A chat already told of the paper is not held back again.
The rows go with their chat (`ON DELETE CASCADE`); a group that became a supergroup takes them
along (`move_exclusions`).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import datetime
from enum import StrEnum

from sqlalchemy import BigInteger, Column, Engine, ForeignKey, String, Table, delete, func
from sqlalchemy.exc import IntegrityError
from sqlmodel import Field, Session, SQLModel, col, select

from watcher.follows.excluded_words import MAX_EXCLUDED, ExcludedWord, RecordText, holds_any
from watcher.store.dialects import upsert_into
from watcher.store.tables import AnnouncedPaper, Chat, Paper, Subscription, UTCDateTime

__all__ = ["MAX_EXCLUDED", "AddDone", "Exclusions", "held_back", "move_exclusions"]

# Ids per read: well below the databases' bound parameters.
_PER_READ = 500


class ExcludedEntry(SQLModel, table=True):
    """A word or phrase a chat never wants to see: its folded text, and when it was added."""

    __tablename__ = "excluded_word"
    chat_id: int = Field(
        sa_column=Column(
            BigInteger, ForeignKey("chat.id", ondelete="CASCADE"), primary_key=True, nullable=False
        )
    )
    text: str = Field(sa_column=Column(String(200), primary_key=True, nullable=False))
    added_at: datetime = Field(sa_column=Column(UTCDateTime(), nullable=False))


class HeldBackPaper(SQLModel, table=True):
    """A paper an excluded word kept from a chat, and when: counted by `/subscriptions`."""

    __tablename__ = "held_back_paper"
    chat_id: int = Field(
        sa_column=Column(
            BigInteger, ForeignKey("chat.id", ondelete="CASCADE"), primary_key=True, nullable=False
        )
    )
    paper_id: int = Field(foreign_key="paper.id", primary_key=True, ondelete="CASCADE")
    held_at: datetime = Field(sa_column=Column(UTCDateTime(), nullable=False))
    # The save that last held it back: the queue statement leaves out the pairs whose
    # `last_held` is its own `now` (a primary-key lookup a candidate row).
    last_held: datetime = Field(sa_column=Column(UTCDateTime(), nullable=False))


class AddDone(StrEnum):
    """What `Exclusions.add` did."""

    ADDED = "added"
    ALREADY = "already"  # excluded before: nothing changed
    FULL = "full"  # MAX_EXCLUDED entries already: nothing changed
    NO_CHAT = "no chat"  # a chat this service does not know


class Exclusions:
    """Reads and writes of the chats' excluded words. Each method is one short transaction;
    call them on the database thread."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine

    def add(self, chat_id: int, entry: ExcludedWord, *, now: datetime) -> AddDone:
        with Session(self.engine) as session:
            done = add_entries(session, chat_id, [entry], now=now)
            if done != AddDone.ADDED:
                session.rollback()
                return done
            session.commit()
            return done

    def remove(self, chat_id: int, text: str) -> bool:
        """Take the entry off the chat's list; False when it was not on it."""
        with Session(self.engine) as session:
            gone = session.execute(
                delete(ExcludedEntry)
                .where(col(ExcludedEntry.chat_id) == chat_id, col(ExcludedEntry.text) == text)
                .returning(col(ExcludedEntry.text))
            ).first()
            session.commit()
            return gone is not None

    def entries(self, chat_id: int) -> list[str]:
        """The chat's entries, in the order they were added."""
        with Session(self.engine) as session:
            return entries_of(session, chat_id)

    def held_since(self, chat_id: int, since: datetime) -> int:
        """How many papers the chat's entries held back since `since`."""
        with Session(self.engine) as session:
            query = select(func.count()).where(
                col(HeldBackPaper.chat_id) == chat_id, col(HeldBackPaper.held_at) >= since
            )
            return int(session.exec(query).one())


def entries_of(session: Session, chat_id: int) -> list[str]:
    query = (
        select(ExcludedEntry.text)
        .where(col(ExcludedEntry.chat_id) == chat_id)
        .order_by(col(ExcludedEntry.added_at), col(ExcludedEntry.text))
    )
    return list(session.exec(query).all())


def add_entries(
    session: Session, chat_id: int, entries: Sequence[ExcludedWord], *, now: datetime
) -> AddDone:
    """Inside the caller's transaction: add the entries (those there already aside). FULL when
    the chat would then have more than `MAX_EXCLUDED` (the caller rolls back); ALREADY when
    none was new."""
    dialect = session.get_bind().dialect.name
    if dialect == "postgresql":
        locked = select(Chat.id).where(col(Chat.id) == chat_id).with_for_update()
        if session.exec(locked).first() is None:
            return AddDone.NO_CHAT
    table: Table = ExcludedEntry.__table__  # type: ignore[attr-defined]
    added = False
    for entry in entries:
        insert = upsert_into(dialect, table).values(chat_id=chat_id, text=entry.text, added_at=now)
        try:
            new = session.execute(insert.on_conflict_do_nothing().returning(table.c.text)).first()
        except IntegrityError:  # SQLite: no such chat (the foreign key)
            return AddDone.NO_CHAT
        added = added or new is not None
    if not added:
        return AddDone.ALREADY
    count = session.exec(select(func.count()).where(col(ExcludedEntry.chat_id) == chat_id)).one()
    return AddDone.FULL if count > MAX_EXCLUDED else AddDone.ADDED


def held_back(
    session: Session, papers: Iterable[tuple[int, frozenset[int]]], *, now: datetime
) -> list[tuple[int, int]]:
    """Inside the save's transaction: the (paper id, chat id) pairs whose chat excludes a word
    the paper's title or abstract holds, of the owed `papers` (paper id, followed ids); each
    recorded in `held_back_paper` (once; `last_held` set to `now`, which the queue statement then
    reads). Chats already told of the paper are left out."""
    owed = dict(papers)
    followed = sorted({f for ids in owed.values() for f in ids})
    if not followed:
        return []
    # chat → its entries and the owed follows it has, for the chats that exclude anything.
    rows = session.exec(
        select(ExcludedEntry.chat_id, ExcludedEntry.text, Subscription.followed_author_id)
        .join(Subscription, col(Subscription.chat_id) == col(ExcludedEntry.chat_id))
        .where(col(Subscription.followed_author_id).in_(followed))
    ).all()
    if not rows:
        return []
    words: dict[int, set[str]] = {}
    follows: dict[int, set[int]] = {}
    for chat_id, text, followed_id in rows:
        words.setdefault(chat_id, set()).add(text)
        follows.setdefault(chat_id, set()).add(followed_id)
    excluded = {chat: [ExcludedWord.stored(t) for t in sorted(ts)] for chat, ts in words.items()}
    candidates = [
        (paper_id, chat)
        for paper_id, ids in owed.items()
        for chat in excluded
        if ids & follows[chat]
    ]
    paper_ids = sorted({paper_id for paper_id, _ in candidates})
    texts: dict[int, RecordText] = {}  # each paper's words, stemmed once
    told: set[tuple[int, int]] = set()
    for start in range(0, len(paper_ids), _PER_READ):
        part = paper_ids[start : start + _PER_READ]
        for paper_id, title, abstract in session.exec(
            select(Paper.id, Paper.title, Paper.abstract).where(col(Paper.id).in_(part))
        ):
            texts[paper_id or 0] = RecordText(title, abstract)
        told.update(
            session.exec(
                select(AnnouncedPaper.paper_id, AnnouncedPaper.chat_id)
                .where(col(AnnouncedPaper.paper_id).in_(part))
                .where(col(AnnouncedPaper.chat_id).in_(list(excluded)))
            ).all()
        )
    held = [
        (paper_id, chat)
        for paper_id, chat in candidates
        if (paper_id, chat) not in told
        and paper_id in texts
        and holds_any(texts[paper_id], excluded[chat])
    ]
    if held:
        dialect = session.get_bind().dialect.name
        table: Table = HeldBackPaper.__table__  # type: ignore[attr-defined]
        insert = upsert_into(dialect, table).values(
            [{"chat_id": c, "paper_id": p, "held_at": now, "last_held": now} for p, c in held]
        )
        session.execute(
            insert.on_conflict_do_update(
                index_elements=["chat_id", "paper_id"],
                set_={"last_held": insert.excluded.last_held},
            )
        )
    return held


def move_exclusions(session: Session, *, old_id: int, new_id: int) -> None:
    """A group became a supergroup: its entries and held-back papers go to the new id (an
    entry the new id has already is kept once)."""
    have = set(entries_of(session, new_id))
    for row in session.exec(
        select(ExcludedEntry).where(col(ExcludedEntry.chat_id) == old_id)
    ).all():
        if row.text not in have:
            session.add(ExcludedEntry(chat_id=new_id, text=row.text, added_at=row.added_at))
    session.execute(delete(ExcludedEntry).where(col(ExcludedEntry.chat_id) == old_id))
    session.execute(delete(HeldBackPaper).where(col(HeldBackPaper.chat_id) == old_id))
    session.flush()
