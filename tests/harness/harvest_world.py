"""The world of the harvest-mode tests through the real service: a realistic day of 2,500
records (generated once, from a seed), the papers the tests add to it, and the service's
settings for harvest mode against the fakes."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from tests.fakes.arxiv_api import FakeArxiv
from tests.fakes.corpus import dezun_dong_records, make_record
from tests.fakes.day import realistic_day
from tests.fakes.telegram import FakeTelegram
from tests.harness.cli_helpers import ServiceProcess, service_on_fakes
from watcher.arxiv.records import Record

TOKEN = "123456:TEST-harvest-end-to-end"
TODAY = datetime.now(UTC).date()
DAY = realistic_day(TODAY)  # 2,500 records, once for the module
AT = datetime.combine(TODAY, datetime.min.time(), UTC) + timedelta(hours=2)


def paper(arxiv_id: str, title: str, authors: list[str]) -> Record:
    return make_record(arxiv_id=arxiv_id, title=title, authors=authors, published=AT)


def day_id(number: int) -> str:
    """An arXiv id of TODAY's month, so that it sorts into the day's pages (ordered by datestamp,
    then id) at the same place whatever the month: number 1 before every new record of the day,
    39999 after them all."""
    return f"{TODAY:%y%m}.{number:05d}"


FIRST = paper(day_id(1), "Adaptive Routing for Dragonfly+ at Scale", ["Ke Wu", "Dezun Dong"])
SECOND = paper(day_id(39999), "Congestion Control for HyperX", ["Dong Dezun", "Min Zhao"])
LOOKALIKE = paper(day_id(39990), "Quantum Feedback Control Revisited", ["Dezun Li", "D. Dong"])
DAOYI = paper(day_id(39991), "Open Quantum Systems under Markovian Noise", ["Daoyi Dong"])
UPDATED = dezun_dong_records()[2]  # gets a journal reference, no new version

# A topic a chat watches, and papers on it by nobody followed. The day's invented words never
# say "rdma", "remote", "direct" or "access".
TOPIC = '"remote direct memory access" RDMA in cs.DC'
TOPIC_TEXT = '"remote direct memory access" rdma'  # as stored and shown
TOMORROW = TODAY + timedelta(days=1)
_ON_TOPIC = "We move data by remote direct memory access (RDMA) between the cluster's nodes."


def on_topic(arxiv_id: str, title: str, **changes: object) -> Record:
    fields: dict[str, object] = {"abstract": _ON_TOPIC, "authors": ["Ada Topicwriter"]}
    return make_record(arxiv_id=arxiv_id, title=title, published=AT, **{**fields, **changes})


# In the day before the topic existed: its first poll (by the API) finds it, silently.
TOPIC_BEFORE = on_topic(day_id(39980), "RDMA Transports Found Before the Topic")
# Stamped the day the topic was created, listed to the harvest only after the topic's first
# poll (the API's search may miss what the local matcher finds): out before the topic, never new.
TOPIC_SAME_DAY = on_topic(day_id(39981), "RDMA Transports Out the Day the Topic Began")
# Stamped after the topic was created: the hit, and two near misses.
TOPIC_HIT = on_topic(day_id(39982), "RDMA Transports Announced After the Topic")
TOPIC_ELSEWHERE = on_topic(  # the words, in a category the topic does not watch
    day_id(39983), "RDMA Transports for Learning", primary_category="cs.LG"
)
TOPIC_LOOKALIKE = on_topic(  # RDMAX is not RDMA; "remote direct memory accesses" not the phrase
    day_id(39984),
    "RDMAX Transports",
    abstract="Remote direct memory accesses through RDMAX adapters.",
)


def texts(telegram: FakeTelegram, chat_id: int) -> list[str]:
    return [message.text for message in telegram.sent(chat_id)]


def harvests(service: ServiceProcess) -> int:
    return service.output.count("harvested ")


def service_for(
    arxiv: FakeArxiv, telegram: FakeTelegram, database_url: str, tmp_path: Path
) -> ServiceProcess:
    return service_on_fakes(
        arxiv,
        telegram,
        cwd=tmp_path,
        database_url=database_url,
        ARXIV_OAI_URL=arxiv.oai_url,
        WATCH_SOURCE="harvest",
        POLL_INTERVAL="0.5",
    )


@pytest.fixture
def fakes() -> Iterator[tuple[FakeArxiv, FakeTelegram]]:
    with FakeArxiv([*dezun_dong_records(), *DAY]) as arxiv, FakeTelegram(TOKEN) as telegram:
        for record in DAY:
            arxiv.datestamps[record.arxiv_id] = TODAY
        yield arxiv, telegram
