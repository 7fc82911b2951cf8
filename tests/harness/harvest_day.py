"""The harvest's small world for the protocol and poll tests: a realistic day of 600 records
(the 2,500-record day is end-to-end's, in `harvest_world`), Dezun Dong followed with his history
stored yesterday, the fake arXiv and a client without politeness delays.

Test modules take the fixtures by importing them (and naming them in `__all__`)."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy import Engine

from tests.fakes.arxiv_api import FakeArxiv
from tests.fakes.corpus import dezun_dong_records, make_record
from tests.fakes.day import realistic_day
from tests.harness.patience import LOOPBACK_TIMEOUT
from watcher.arxiv.fetch import ArxivClient
from watcher.arxiv.records import Record
from watcher.store import MatchedRecord, Store

TODAY = datetime.now(UTC).date()
NOW = datetime.now(UTC)


def day_id(number: int) -> str:
    """An arXiv id of TODAY's month: 30001 and up sort after every record of the day's pages
    (ordered by datestamp, then id) whatever the month."""
    return f"{TODAY:%y%m}.{number:05d}"


DAY = realistic_day(TODAY, count=600)  # a small day: the 2,500-record one is end-to-end's


def paper(arxiv_id: str, title: str, *, authors: tuple[str, ...] = ("Dezun Dong",)) -> Record:
    published = datetime.combine(TODAY, datetime.min.time(), UTC) + timedelta(hours=3)
    return make_record(arxiv_id=arxiv_id, title=title, authors=list(authors), published=published)


FIRST = paper(day_id(30001), "Adaptive Routing on Dragonfly+", authors=("Ke Wu", "Dezun Dong"))
SECOND = paper(day_id(30002), "Congestion Control for HyperX", authors=("Dong Dezun",))


@pytest.fixture
def fake() -> Iterator[FakeArxiv]:
    with FakeArxiv([*dezun_dong_records(), *DAY]) as server:
        server.oai_page_size = 250
        yield server


@pytest.fixture
async def client(fake: FakeArxiv) -> AsyncIterator[ArxivClient]:
    async with ArxivClient(
        fake.url,
        min_interval=0,
        timeout=LOOPBACK_TIMEOUT,
        max_retries=2,
        backoff_base=0.01,
        backoff_max=2,
    ) as arxiv:
        yield arxiv


@pytest.fixture
def store(engine: Engine) -> Store:
    """Dezun Dong followed, his history stored (as the API backfill leaves it) yesterday."""
    store = Store(engine)
    followed, _ = store.follow(["Dezun Dong"])
    store.save_records(
        [MatchedRecord(r, frozenset({followed.id})) for r in dezun_dong_records()],
        announce_for=frozenset(),
    )
    yesterday = NOW - timedelta(days=1)
    store.record_poll_success([followed.id], now=yesterday, next_poll=yesterday)
    return store
