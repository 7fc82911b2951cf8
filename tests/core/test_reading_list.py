"""A chat's reading list on a real database (SQLite file, or PostgreSQL), from several threads at
once as the bot's presses come: the limit holds when saves race at its edge, a paper saved twice
at once is saved once, an unknown chat saves nothing, the list goes with its chat (cascade) and
moves with a group that became a supergroup."""

from __future__ import annotations

import threading
from collections.abc import Callable
from datetime import UTC, datetime, timedelta

from sqlalchemy import Engine, delete
from sqlmodel import Session, col

from watcher.store.chats import Chats
from watcher.store.reading_list import MAX_SAVED, ReadingLists, SaveDone, SavedPaper
from watcher.store.tables import Chat

NOW = datetime(2026, 12, 4, 5, 0, tzinfo=UTC)


def at_once(calls: list[Callable[[], SaveDone]]) -> list[SaveDone]:
    """Run the calls in threads released together; their results in order."""
    barrier = threading.Barrier(len(calls))
    results: list[SaveDone | None] = [None] * len(calls)

    def run(index: int) -> None:
        barrier.wait()
        results[index] = calls[index]()

    threads = [threading.Thread(target=run, args=(i,)) for i in range(len(calls))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert all(result is not None for result in results)
    return [result for result in results if result is not None]


def fill(engine: Engine, chat_id: int, n: int) -> None:
    with Session(engine) as session:
        for i in range(n):
            when = NOW - timedelta(minutes=i + 1)
            session.add(SavedPaper(chat_id=chat_id, arxiv_id=f"2501.{i:05d}", saved_at=when))
        session.commit()


def test_saves_racing_at_the_limit_never_pass_it(engine: Engine) -> None:
    Chats(engine).seen(1, kind="private")
    lists = ReadingLists(engine)
    fill(engine, 1, MAX_SAVED - 2)
    ids = [f"2612.{n:05d}" for n in range(4)]
    done = at_once([lambda i=i: lists.save(1, i, title="", now=NOW) for i in ids])
    assert sorted(done) == sorted([SaveDone.SAVED] * 2 + [SaveDone.FULL] * 2)
    assert lists.count(1) == MAX_SAVED


def test_one_paper_saved_twice_at_once_is_saved_once(engine: Engine) -> None:
    Chats(engine).seen(1, kind="private")
    lists = ReadingLists(engine)
    done = at_once([lambda: lists.save(1, "2612.00001", title="A", now=NOW)] * 2)
    assert sorted(done) == sorted([SaveDone.SAVED, SaveDone.ALREADY])
    assert lists.count(1) == 1
    assert lists.unsave(1, "2612.00001") is True
    assert lists.unsave(1, "2612.00001") is False


def test_an_unknown_chat_saves_nothing(engine: Engine) -> None:
    lists = ReadingLists(engine)
    assert lists.save(99, "2612.00001", title="", now=NOW) == SaveDone.NO_CHAT
    assert lists.count(99) == 0


def test_the_list_goes_with_its_chat(engine: Engine) -> None:
    Chats(engine).seen(1, kind="private")
    Chats(engine).seen(2, kind="private")
    fill(engine, 1, 3)
    fill(engine, 2, 1)
    with Session(engine) as session:
        session.exec(delete(Chat).where(col(Chat.id) == 1))
        session.commit()
    lists = ReadingLists(engine)
    assert lists.count(1) == 0
    assert lists.count(2) == 1


def test_a_group_that_became_a_supergroup_keeps_its_list(engine: Engine) -> None:
    chats = Chats(engine)
    chats.seen(-5, kind="group")
    chats.seen(-1005, kind="supergroup")
    lists = ReadingLists(engine)
    lists.save(-5, "2612.00001", title="Both", now=NOW)
    lists.save(-5, "2612.00002", title="Old only", now=NOW + timedelta(minutes=1))
    lists.save(-1005, "2612.00001", title="Both", now=NOW - timedelta(days=1))
    chats.migrate(-5, -1005)
    page = lists.page(-1005, limit=10)
    assert [(e.arxiv_id, e.title) for e in page.entries] == [
        ("2612.00002", "Old only"),
        ("2612.00001", "Both"),
    ]
    assert lists.count(-5) == 0
