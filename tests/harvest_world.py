"""The world of the harvest-mode tests through the real service: a realistic day of 2,500
records (generated once, from a seed), the papers the tests add to it, and the service's
settings for harvest mode against the fakes."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from tests.cli_helpers import ServiceProcess
from tests.fakes.arxiv_api import FakeArxiv
from tests.fakes.corpus import dezun_dong_records, make_record
from tests.fakes.day import realistic_day
from tests.fakes.telegram import FakeTelegram
from watcher.records import Record

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
        POLL_INTERVAL="0.5",
        TELEGRAM_BOT_TOKEN=TOKEN,
        TELEGRAM_API_URL=telegram.base_url,
    )


@pytest.fixture
def fakes() -> Iterator[tuple[FakeArxiv, FakeTelegram]]:
    with FakeArxiv([*dezun_dong_records(), *DAY]) as arxiv, FakeTelegram(TOKEN) as telegram:
        for record in DAY:
            arxiv.datestamps[record.arxiv_id] = TODAY
        yield arxiv, telegram
