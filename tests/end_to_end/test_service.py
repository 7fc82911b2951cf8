"""`arxiv-watcher run` as a real process: console mode, failures at start, an unreachable arXiv."""

from __future__ import annotations

import signal
import socket
import time
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from sqlalchemy import update
from sqlmodel import Session, col, select

from tests.fakes.arxiv_api import FakeArxiv
from tests.fakes.corpus import dezun_dong_records, make_record
from tests.harness.cli_helpers import ServiceProcess, run_cli
from tests.harness.patience import PATIENCE
from watcher.runtime.db import open_database
from watcher.store import MatchedRecord, Store
from watcher.store.chats import Chats
from watcher.store.outbox import Outbox
from watcher.store.tables import Delivery


@pytest.fixture
def fake() -> Iterator[FakeArxiv]:
    with FakeArxiv(dezun_dong_records()) as server:
        yield server


def closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def test_console_mode_prints_each_new_paper_once(
    tmp_path: Path, database_url: str, fake: FakeArxiv
) -> None:
    service = ServiceProcess(
        cwd=tmp_path,
        DATABASE_URL=database_url,
        ARXIV_API_URL=fake.url,
        ARXIV_MIN_INTERVAL="0",
        POLL_INTERVAL="1",
    )
    try:
        service.wait_for(lambda: "console mode" in service.output)
        service.wait_for(lambda: "stored silently" in service.output)
        fake.add(
            make_record(
                arxiv_id="2611.99999",
                title="Multi-Plane Dragonfly Networks",
                authors=["Dezun Dong"],
            )
        )
        service.wait_for(lambda: any("Multi-Plane Dragonfly" in line for line in service.stdout))
        polls = len(fake.api_requests())
        service.wait_for(lambda: len(fake.api_requests()) >= polls + 2)
    finally:
        code = service.stop(signal.SIGTERM)
    assert code == 0
    assert sum("New paper: Multi-Plane Dragonfly Networks" in line for line in service.stdout) == 1
    assert "Traceback" not in service.output


def test_the_service_prunes_deliveries_older_than_the_retention(
    tmp_path: Path, database_url: str, fake: FakeArxiv
) -> None:
    engine = open_database(database_url)
    store = Store(engine)
    followed, _ = store.follow(["Dezun Dong"])
    chats = Chats(engine)
    chats.seen(10, kind="private")
    chats.subscribe(10, followed.id)
    ids = frozenset({followed.id})
    for arxiv_id in ("2611.00001", "2611.00002"):
        record = make_record(arxiv_id=arxiv_id, authors=["Dezun Dong"])
        store.save_records([MatchedRecord(record, ids)], announce_for=ids)
    outbox = Outbox(engine)
    old, recent = outbox.due(limit=10)
    outbox.mark_sent_many([(old.id, 1), (recent.id, 2)])
    with Session(engine) as session:  # the first was sent 40 days ago
        forty_days_ago = datetime.now(UTC) - timedelta(days=40)
        session.exec(
            update(Delivery).where(col(Delivery.id) == old.id).values(created=forty_days_ago)
        )
        session.commit()

    service = ServiceProcess(
        cwd=tmp_path,
        DATABASE_URL=database_url,
        ARXIV_API_URL=fake.url,
        ARXIV_MIN_INTERVAL="0",
        OUTBOX_RETENTION_DAYS="30",
    )
    try:
        service.wait_for(lambda: "outbox pruned: 1 sent or failed" in service.output)
    finally:
        code = service.stop(signal.SIGTERM)
    assert code == 0
    with Session(engine) as session:
        assert [d.id for d in session.exec(select(Delivery))] == [recent.id]
    engine.dispose()


@pytest.mark.parametrize(
    "url",
    [
        "postgresql://postgres@127.0.0.1:{port}/test",
        "mysql://root@127.0.0.1/test",
        "not a url at all",
        "sqlite:////proc/forbidden/watcher.db",
    ],
)
def test_a_wrong_database_url_stops_the_service_naming_the_setting(
    tmp_path: Path, url: str
) -> None:
    result = run_cli(
        "run", cwd=tmp_path, DATABASE_URL=url.format(port=closed_port()), timeout=PATIENCE
    )
    assert result.returncode == 2
    assert "DATABASE_URL" in result.stderr
    assert "Traceback" not in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1


def test_an_unreachable_arxiv_is_reported_in_one_line_and_retried(
    tmp_path: Path, database_url: str
) -> None:
    service = ServiceProcess(
        cwd=tmp_path,
        DATABASE_URL=database_url,
        ARXIV_API_URL=f"http://127.0.0.1:{closed_port()}/api/query",
        ARXIV_MIN_INTERVAL="0",
        ARXIV_MAX_RETRIES="1",
        POLL_INTERVAL="1",
    )
    try:
        service.wait_for(lambda: "poll failed for Dezun Dong" in service.output)
        time.sleep(0.5)
        assert service.process.poll() is None  # still running
    finally:
        code = service.stop(signal.SIGINT)
    assert code == 0
    assert "Traceback" not in service.output
    failures = [line for line in service.stderr if "poll failed for Dezun Dong" in line]
    assert "cannot reach arXiv" in failures[0] or "connect" in failures[0].lower()
