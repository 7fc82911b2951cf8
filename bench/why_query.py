"""/why's reads for `bench/queries.py`: a chat following some of the loaded follows, its
outbox rows, and the store call `watcher.core.why.Why` makes (`why_reads`, one transaction),
timed as one question."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime, timedelta

from sqlalchemy import bindparam, text

from watcher.store import Store
from watcher.store.arrivals import why_reads

START = datetime(2011, 1, 1, tzinfo=UTC)


WHY_CHAT = 777  # the chat /why is asked in; `OTHER_CHATS` more share the outbox with it
OTHER_CHATS = 5


def why(store: Store, chat: list[int]) -> dict[str, Callable[[], object]]:
    """/why of a chat following `chat` (`why_chats`): its reads as `watcher.core.why.Why`
    makes them (`why_reads`), since the newest delivery's day."""
    since = why_chats(store, chat)

    def ask() -> object:
        return why_reads(store.engine, WHY_CHAT, 0, since)

    return {"why (/why)": ask}


def why_chats(store: Store, chat: list[int]) -> datetime:
    """`WHY_CHAT` following `chat`, with a delivery of every paper of those follows (the
    outbox as if never pruned), and so many to each of `OTHER_CHATS` chats. Returns the day
    before the newest delivery: the instant /why counts from. A database asked before
    (`queries.py --loaded`) has them already: they are kept as they are."""
    with store.engine.begin() as connection:
        asked_before = connection.execute(
            text("SELECT count(*) FROM chat WHERE id = :chat"), {"chat": WHY_CHAT}
        ).scalar_one()
        for chat_id in range(WHY_CHAT, WHY_CHAT + OTHER_CHATS + 1) if not asked_before else ():
            connection.execute(
                text(
                    "INSERT INTO chat (id, kind, active, created) "
                    "VALUES (:id, 'private', true, :now)"
                ),
                {"id": chat_id, "now": START},
            )
            connection.execute(
                text(
                    "INSERT INTO subscription (chat_id, thread_id, followed_author_id, created) "
                    "SELECT :chat, 0, id, :now FROM followed_author WHERE id IN :ids"
                ).bindparams(bindparam("ids", expanding=True)),
                {"chat": chat_id, "now": START, "ids": chat},
            )
            connection.execute(
                text(
                    "INSERT INTO delivery (chat_id, thread_id, paper_id, version, kind, status, "
                    "parked, summarize, attempts, next_attempt, created, sent) "
                    "SELECT DISTINCT :chat, 0, p.id, 1, 'new', 'sent', false, false, 1, "
                    "p.published, p.published, p.published FROM paper p "
                    "JOIN paper_match m ON m.paper_id = p.id WHERE m.followed_author_id IN :ids"
                ).bindparams(bindparam("ids", expanding=True)),
                {"chat": chat_id, "ids": chat},
            )
        newest = connection.execute(
            text("SELECT max(created) FROM delivery WHERE chat_id = :chat"), {"chat": WHY_CHAT}
        ).scalar_one()
    return _aware(newest) - timedelta(days=1)


def _aware(moment: datetime | str) -> datetime:
    if isinstance(moment, str):  # SQLite's text
        moment = datetime.fromisoformat(moment)
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)
