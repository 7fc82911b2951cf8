"""Harvest mode through the real service, killed: `arxiv-watcher run` (WATCH_SOURCE=harvest) is
SIGKILLed while the fake arXiv holds the second page of a three-page day of 2,500 records. The
first page's paper was stored and announced; the high-water mark has not moved, so the restarted
service harvests the window again: the last page's paper is found, the first one's not doubled.
"""

from __future__ import annotations

import signal
from pathlib import Path

import pytest
from sqlalchemy import Engine
from sqlmodel import Session, col, select

from tests.fakes.arxiv_api import FakeArxiv
from tests.fakes.telegram import FakeTelegram
from tests.harness.harvest_world import FIRST, SECOND, TODAY, fakes, harvests, service_for, texts
from tests.harness.patience import PATIENCE
from watcher.runtime.db import open_database
from watcher.store import Store
from watcher.store.chats import Chats
from watcher.store.tables import Delivery, Paper

pytestmark = pytest.mark.slow
__all__ = ["fakes"]  # the fixture, shared with the end-to-end module


def sent_deliveries(engine: Engine, arxiv_id: str) -> int:
    with Session(engine) as session:
        return len(
            session.exec(
                select(Delivery)
                .join(Paper, col(Paper.id) == col(Delivery.paper_id))
                .where(col(Paper.arxiv_id) == arxiv_id, col(Delivery.status) == "sent")
            ).all()
        )


def test_a_harvest_killed_mid_window_loses_nothing_and_doubles_nothing(
    fakes: tuple[FakeArxiv, FakeTelegram], database_url: str, tmp_path: Path
) -> None:
    arxiv, telegram = fakes
    arxiv.oai_page_size = 1000  # the day is three pages
    service = service_for(arxiv, telegram, database_url, tmp_path)
    engine: Engine | None = None
    try:
        service.wait_for(lambda: harvests(service) >= 1, timeout=PATIENCE)
        engine = open_database(database_url, migrate=False)
        store, chats = Store(engine), Chats(engine)
        (followed,) = store.followed()
        chats.seen(21, kind="private")
        chats.subscribe(21, followed.id)

        arxiv.hold_oai(after=1)  # the next harvest's second page is held...
        arxiv.add(FIRST, datestamp=TODAY)  # ...after its first page brought this one
        arxiv.add(SECOND, datestamp=TODAY)  # and the last page this one
        arxiv.oai_held.wait(60)
        telegram.wait_sync(lambda: len(texts(telegram, 21)) == 1, timeout=PATIENCE)
        service.wait_for(lambda: sent_deliveries(engine, FIRST.arxiv_id) == 1)
        state = store.harvest_state("")
        assert state is not None
        mark = state.harvested_through
        assert service.stop(signal.SIGKILL) == -signal.SIGKILL
        arxiv.release_oai()
        state = store.harvest_state("")
        assert state is not None and state.harvested_through == mark  # the window is not done

        service = service_for(arxiv, telegram, database_url, tmp_path)
        telegram.wait_sync(lambda: len(texts(telegram, 21)) == 2, timeout=PATIENCE)
        seen = harvests(service)
        service.wait_for(lambda: harvests(service) >= seen + 1, timeout=PATIENCE)
    finally:
        code = service.stop()
        if engine is not None:
            engine.dispose()
    assert code == 0, service.output
    first, second = texts(telegram, 21)
    assert FIRST.title in first and SECOND.title in second
