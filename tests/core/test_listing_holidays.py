"""The listing read on an evening arXiv's holiday list skips: probed at a low rate, and a batch
that shows all the same is read and announced once. Through the poll step (`Poller.read_listing`)
against the fake listing and the fake arXiv over HTTP, on a real store, on a fake clock: the
Poller's `clock=` and `sleep=` move simulated time, nothing waits for the wall clock.

The holiday is a Friday listed in ARXIV_HOLIDAYS, the next one from today, so the guessed
holiday is the Sunday after it (arXiv's way: the Friday deadline makes the Sunday batch).
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, timedelta
from itertools import pairwise
from zoneinfo import ZoneInfo

import pytest
from sqlalchemy import Engine

from tests.fakes.arxiv_api import FakeArxiv
from tests.fakes.corpus import dezun_dong_records, make_record
from tests.fakes.listing import FakeListing
from tests.harness.patience import LOOPBACK_TIMEOUT
from watcher.arxiv.fetch import ArxivClient
from watcher.arxiv.records import Record
from watcher.calendars.announcements import Announcement, AnnouncementCalendar
from watcher.polling.poll import Poller
from watcher.store import Store

EASTERN = ZoneInfo("America/New_York")
TODAY = datetime.now(EASTERN).date()
FRIDAY = TODAY + timedelta(days=(4 - TODAY.weekday()) % 7 or 7)  # the next Friday, not today
SUNDAY = FRIDAY + timedelta(days=2)
CALENDAR = AnnouncementCalendar(holidays=frozenset({FRIDAY}))
WINDOW_HOURS = 6.0  # LISTING_PROBE_HOURS' default

PAPER = make_record(
    arxiv_id=f"{SUNDAY:%y%m}.50001",
    title="Adaptive Routing on Dragonfly+",
    authors=["Ke Wu", "Dezun Dong"],
    primary_category="cs.NI",
    categories=("cs.NI", "cs.DC"),
)


def eastern(day: date, hour: int, minute: int = 0) -> datetime:
    return datetime(day.year, day.month, day.day, hour, minute, tzinfo=EASTERN).astimezone(UTC)


@dataclass
class Evening:
    """Simulated time: `sleep` moves the clock, and shows the batch once its time has come."""

    listing: FakeListing
    now: datetime
    batch_at: datetime | None = None  # when arXiv shows the Sunday's batch; None: never
    batch: list[Record] = field(default_factory=list)
    woke: list[datetime] = field(default_factory=list)

    def clock(self) -> datetime:
        return self.now

    async def sleep(self, seconds: float) -> None:
        self.now += timedelta(seconds=seconds)
        self.woke.append(self.now)
        if self.batch_at is not None and self.now >= self.batch_at:
            self.listing.announce(SUNDAY + timedelta(days=1), new=self.batch)
            self.batch_at = None


@pytest.fixture
def arxiv() -> Iterator[FakeArxiv]:
    with FakeArxiv(dezun_dong_records()) as fake:
        yield fake


@pytest.fixture
def listing() -> Iterator[FakeListing]:
    with FakeListing(FRIDAY) as fake:  # Thursday evening's batch, the last one shown
        yield fake


@pytest.fixture
async def client(arxiv: FakeArxiv) -> AsyncIterator[ArxivClient]:
    async with ArxivClient(
        arxiv.url, min_interval=0, timeout=LOOPBACK_TIMEOUT, max_retries=1, listing_interval=0
    ) as arxiv_client:
        yield arxiv_client


@pytest.fixture
def evening(listing: FakeListing) -> Evening:
    return Evening(listing, now=eastern(SUNDAY, 12))


@pytest.fixture
async def poller(
    engine: Engine, client: ArxivClient, listing: FakeListing, evening: Evening
) -> Poller:
    """Dezun Dong followed, his history fetched (silently), on the simulated clock."""
    store = Store(engine)
    store.follow(["Dezun Dong"])
    polls = Poller(
        store=store,
        client=client,
        poll_interval=3600,
        listing_url=listing.url,
        listing_probe_hours=WINDOW_HOURS,
        harvest_sets=["cs"],  # one archive to read, cs: the sentinel
        calendar=CALENDAR,
        clock=evening.clock,
        sleep=evening.sleep,
    )
    report = await polls.poll(force=True)
    assert not report.failures and not report.new
    return polls


def sundays_read() -> Announcement:
    """What the service queues for the Sunday: its usual instant, marked a guessed holiday."""
    read = CALENDAR.next_listing_read(eastern(SUNDAY, 12))
    assert read is not None and read.holiday and read.at == eastern(SUNDAY, 20)
    assert CALENDAR.next_after(eastern(SUNDAY, 12)) != read  # the calendar expects no batch
    return read


async def test_a_batch_on_a_guessed_holiday_is_read_and_announced_once(
    poller: Poller, listing: FakeListing, evening: Evening
) -> None:
    # arXiv announces after all, late: the batch shows at 20:40.
    evening.batch_at, evening.batch = eastern(SUNDAY, 20, 40), [PAPER]
    read = sundays_read()
    report = await poller.read_listing(read)
    assert [r.arxiv_id for r in report.new] == [PAPER.arxiv_id] and not report.failures
    # Probed at 20:00, 20:05, 20:20, then 21:00 found it; the page was read with that probe.
    probes = [r for r in listing.listing_requests("cs") if r.params.get("skip") == "0"]
    assert len(probes) <= 6
    assert evening.woke == [eastern(SUNDAY, 20, m) for m in (0, 5, 20)] + [eastern(SUNDAY, 21)]
    assert poller.listing.last is not None and poller.listing.last.probes == 4
    # The mailing the heading named is the one seen (health, /stats).
    news = poller.store.last_mailing()
    assert (news.mailing, news.source) == (SUNDAY + timedelta(days=1), "listing")

    # Read again (a restart that evening): nothing announced twice.
    again = await poller.read_listing(read)
    assert again.new == [] and not again.failures


async def test_a_guessed_holiday_without_a_batch_costs_at_most_six_requests(
    poller: Poller, listing: FakeListing, evening: Evening
) -> None:
    read = sundays_read()
    report = await poller.read_listing(read)
    assert (report.new, report.failures) == ([], {})
    assert len(listing.requests) <= 6
    assert evening.woke[0] == eastern(SUNDAY, 20)  # from the usual instant on
    assert all(b - a >= timedelta(minutes=5) for a, b in pairwise(evening.woke))
    assert evening.now <= read.at + timedelta(hours=WINDOW_HOURS)
    # No mailing was shown: `health` keeps the last real one rather than "not seen".
    assert poller.store.last_mailing().probed is None

    # The same Sunday, had the calendar expected a batch, gives up as before: probed every
    # minute, then every ten, until LISTING_PROBE_HOURS; then left to the other sources.
    evening.now, before = eastern(SUNDAY, 12), len(listing.requests)
    expected = Announcement(at=eastern(SUNDAY, 20), mailing=SUNDAY + timedelta(days=1))
    report = await poller.read_listing(expected)
    assert (report.new, report.failures) == ([], {})
    assert len(listing.requests) - before > 6
    assert expected.at + timedelta(hours=5) < evening.now
    assert evening.now <= expected.at + timedelta(hours=WINDOW_HOURS)
    assert poller.store.last_mailing().probed == expected.mailing
