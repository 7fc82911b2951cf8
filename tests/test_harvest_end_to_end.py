"""Harvest mode through the real service: `arxiv-watcher run` with WATCH_SOURCE=harvest, the fake
arXiv serving a realistic day of 2,500 records over OAI-PMH (and the API for versions and new
follows' histories), and the fake Bot API.

The day is generated once for the module, from a seed. It holds look-alikes of the followed
author; the test adds his two new papers, a look-alike's, another followed person's, and a
metadata-only update of one of his old papers. Exactly the right papers reach exactly the right
chats, once. A second test SIGKILLs the service while the fake holds a page mid-harvest, and the
restarted service loses nothing and doubles nothing.
"""

from __future__ import annotations

import signal
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from sqlalchemy import Engine
from sqlmodel import Session, col, select

from tests.cli_helpers import ServiceProcess
from tests.fakes.arxiv_api import FakeArxiv
from tests.fakes.corpus import dezun_dong_records, make_record
from tests.fakes.day import realistic_day
from tests.fakes.telegram import FakeTelegram
from watcher.chats import Chats
from watcher.db import open_database
from watcher.models import Delivery
from watcher.records import Record
from watcher.store import Store

pytestmark = pytest.mark.slow

TOKEN = "123456:TEST-harvest-end-to-end"
TODAY = datetime.now(UTC).date()
DAY = realistic_day(TODAY)  # 2,500 records, once for the module
AT = datetime.combine(TODAY, datetime.min.time(), UTC) + timedelta(hours=2)


def paper(arxiv_id: str, title: str, authors: list[str]) -> Record:
    return make_record(arxiv_id=arxiv_id, title=title, authors=authors, published=AT)


# Ids sort into the day's pages: "2611.00001" among the first records, "2611.39999" the last.
FIRST = paper("2611.00001", "Adaptive Routing for Dragonfly+ at Scale", ["Ke Wu", "Dezun Dong"])
SECOND = paper("2611.39999", "Congestion Control for HyperX", ["Dong Dezun", "Min Zhao"])
LOOKALIKE = paper("2611.39990", "Quantum Feedback Control Revisited", ["Dezun Li", "D. Dong"])
DAOYI = paper("2611.39991", "Open Quantum Systems under Markovian Noise", ["Daoyi Dong"])
UPDATED = dezun_dong_records()[2]  # gets a journal reference, no new version


def texts(telegram: FakeTelegram, chat_id: int) -> list[str]:
    return [message.text for message in telegram.sent(chat_id)]


def harvests(service: ServiceProcess) -> int:
    return service.output.count("harvested ")


def service_for(
    arxiv: FakeArxiv, telegram: FakeTelegram, database_url: str, tmp_path: Path
) -> ServiceProcess:
    return ServiceProcess(
        cwd=tmp_path,
        DATABASE_URL=database_url,
        ARXIV_API_URL=arxiv.url,
        ARXIV_OAI_URL=arxiv.oai_url,
        WATCH_SOURCE="harvest",
        ARXIV_MIN_INTERVAL="0",
        POLL_INTERVAL="1",
        TELEGRAM_BOT_TOKEN=TOKEN,
        TELEGRAM_API_URL=telegram.base_url,
    )


@pytest.fixture
def fakes() -> Iterator[tuple[FakeArxiv, FakeTelegram]]:
    with FakeArxiv([*dezun_dong_records(), *DAY]) as arxiv, FakeTelegram(TOKEN) as telegram:
        for record in DAY:
            arxiv.datestamps[record.arxiv_id] = TODAY
        yield arxiv, telegram


def test_a_days_harvest_brings_each_chat_exactly_its_papers_once(
    fakes: tuple[FakeArxiv, FakeTelegram], database_url: str, tmp_path: Path
) -> None:
    arxiv, telegram = fakes
    service = service_for(arxiv, telegram, database_url, tmp_path)
    try:
        service.wait_for(lambda: "stored silently" in service.output)  # the API backfill
        service.wait_for(lambda: harvests(service) >= 1, timeout=60)
        for person in (11, 12):
            telegram.user_sends(person, "/subscribe")
        telegram.user_sends(13, "/subscribe Daoyi Dong")  # a new follow: its history by API
        telegram.wait_sync(lambda: all(len(texts(telegram, c)) == 1 for c in (11, 12, 13)), 30)
        service.wait_for(lambda: "polled Daoyi Dong" in service.output, timeout=30)
        service.wait_for(lambda: harvests(service) >= 3, timeout=60)  # Daoyi Dong joined

        for record in (FIRST, SECOND, LOOKALIKE, DAOYI):
            arxiv.add(record, datestamp=TODAY)
        arxiv.touch(UPDATED.arxiv_id, TODAY, journal_ref="J. Parallel Distrib. Comput. 190 (2026)")
        telegram.wait_sync(
            lambda: (
                all(len(texts(telegram, c)) == 3 for c in (11, 12))
                and len(texts(telegram, 13)) == 2
            ),
            timeout=60,
        )
        seen = harvests(service)
        service.wait_for(lambda: harvests(service) >= seen + 2, timeout=60)  # later ones: silence
    finally:
        code = service.stop()
    assert code == 0, service.output
    assert "Traceback" not in service.output and TOKEN not in service.output

    for chat in (11, 12):
        news = texts(telegram, chat)[1:]
        assert sorted(sum(r.title in t for t in news) for r in (FIRST, SECOND)) == [1, 1]
        assert len(news) == 2
    (daoyi_news,) = texts(telegram, 13)[1:]
    assert DAOYI.title in daoyi_news
    everything = " ".join(m.text for m in telegram.sent())
    assert LOOKALIKE.title not in everything
    assert UPDATED.title not in everything  # a metadata update is stored, not announced
    engine = open_database(database_url, migrate=False)
    try:
        stored = Store(engine).paper(UPDATED.arxiv_id)
        assert (
            stored is not None and stored.journal_ref == "J. Parallel Distrib. Comput. 190 (2026)"
        )
        assert Store(engine).paper(LOOKALIKE.arxiv_id) is None
    finally:
        engine.dispose()
    # The day cost its pages and a few API look-ups, not a query per name.
    assert all(
        r.params.get("id_list") or "au:" in r.params.get("search_query", "")
        for r in arxiv.api_requests()
    )


def sent_deliveries(engine: Engine, arxiv_id: str) -> int:
    from watcher.models import Paper

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
        service.wait_for(lambda: harvests(service) >= 1, timeout=60)
        engine = open_database(database_url, migrate=False)
        store, chats = Store(engine), Chats(engine)
        (followed,) = store.followed()
        chats.seen(21, kind="private")
        chats.subscribe(21, followed.id)

        arxiv.hold_oai(after=1)  # the next harvest's second page is held...
        arxiv.add(FIRST, datestamp=TODAY)  # ...after its first page brought this one
        arxiv.add(SECOND, datestamp=TODAY)  # and the last page this one
        arxiv.oai_held.wait(60)
        telegram.wait_sync(lambda: len(texts(telegram, 21)) == 1, timeout=30)
        service.wait_for(lambda: sent_deliveries(engine, FIRST.arxiv_id) == 1)
        state = store.harvest_state("")
        assert state is not None
        mark = state.harvested_through
        assert service.stop(signal.SIGKILL) == -signal.SIGKILL
        arxiv.release_oai()
        state = store.harvest_state("")
        assert state is not None and state.harvested_through == mark  # the window is not done

        service = service_for(arxiv, telegram, database_url, tmp_path)
        telegram.wait_sync(lambda: len(texts(telegram, 21)) == 2, timeout=60)
        seen = harvests(service)
        service.wait_for(lambda: harvests(service) >= seen + 2, timeout=60)
    finally:
        code = service.stop()
        if engine is not None:
            engine.dispose()
    assert code == 0, service.output
    first, second = texts(telegram, 21)
    assert FIRST.title in first and SECOND.title in second
