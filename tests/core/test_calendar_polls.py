"""The polls on arXiv's calendar (POLL_SCHEDULE=calendar), over simulated days: a fake clock
drives the real poll step every minute, as the service's tick does, and the listing read at
each announcement instant, against the fake arXiv (API, OAI-PMH) and the fake listing over
HTTP, on a real store. What arXiv shows lags as it does: the listing at 20:00 US Eastern, OAI at
22:40 (the harvest's first check at 22:30 finds nothing), the API at midnight.

The cost goal of issue 20 is counted here: the requests to arXiv in the 24 hours around an
announcement (at most 40), and in the 24 hours of a day without one (at most 2).
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, timedelta
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
from watcher.calendars.poll_calendar import PollCalendar
from watcher.polling.poll import Poller, WatchSource
from watcher.store import Store

EASTERN = ZoneInfo("America/New_York")
CALENDAR = AnnouncementCalendar()  # arXiv's: 20:00 New York, Sunday to Thursday
SCHEDULE = PollCalendar(CALENDAR)
TUESDAY = date(2026, 12, 1)  # announces in the evening: the mailing of Wednesday 2 December
FRIDAY = date(2026, 12, 4)  # no announcement in the evening
# The service ticks every minute (MAX_TICK_SECONDS); two here keep the test short, and the
# harvest's checks are ten minutes apart.
TICK = timedelta(minutes=2)


def eastern(day: date, hour: int, minute: int = 0) -> datetime:
    return datetime(day.year, day.month, day.day, hour, minute, tzinfo=EASTERN).astimezone(UTC)


PAPER = make_record(
    arxiv_id="2612.00001",
    title="Adaptive Routing on Dragonfly+",
    authors=["Ke Wu", "Dezun Dong"],
    primary_category="cs.NI",
    categories=("cs.NI", "cs.DC"),
    published=eastern(TUESDAY, 11),
)
# Monday evening's batch, already in OAI when the simulation starts: the first harvest's mark.
MONDAYS = make_record(
    arxiv_id="2611.99999",
    title="Graph Colouring",
    authors=["Ada Lovelace"],
    primary_category="math.CO",
    published=eastern(TUESDAY - timedelta(days=1), 11),
)


@dataclass
class Day:
    """The simulation: the fake clock, what is reported new, and when."""

    now: datetime
    new: list[tuple[datetime, Record]] = field(default_factory=list)
    oai_shows: list[tuple[datetime, Record]] = field(default_factory=list)  # not yet in OAI

    def clock(self) -> datetime:
        return self.now


@pytest.fixture
def arxiv() -> Iterator[FakeArxiv]:
    with FakeArxiv(dezun_dong_records()) as fake:
        fake.add(MONDAYS, datestamp=TUESDAY)
        yield fake


@pytest.fixture
def listing() -> Iterator[FakeListing]:
    with FakeListing(TUESDAY) as fake:
        yield fake


@pytest.fixture
async def client(arxiv: FakeArxiv) -> AsyncIterator[ArxivClient]:
    async with ArxivClient(
        arxiv.url, min_interval=0, timeout=LOOPBACK_TIMEOUT, max_retries=1, listing_interval=0
    ) as arxiv_client:
        yield arxiv_client


def requests(arxiv: FakeArxiv, listing: FakeListing) -> int:
    return len(arxiv.requests) + len(listing.requests)


async def run_until(
    end: datetime,
    day: Day,
    poller: Poller,
    arxiv: FakeArxiv,
    listing: FakeListing,
    *,
    listings: bool,
) -> None:
    """Tick the fake clock to `end`: a poll each tick, the listing read at each announcement
    instant. Each batch shows in OAI-PMH at 22:40 (Tuesday's paper in the API at midnight,
    the other batches hold nobody followed)."""
    announcement = CALENDAR.next_after(day.now)
    while day.now < end:
        day.now += TICK
        if announcement is not None and day.now >= announcement.at:
            batch = [PAPER] if announcement.mailing == PAPER_MAILING else [filler(announcement)]
            if listings:
                listing.announce(announcement.mailing, new=batch)
                report = await poller.read_listing(announcement)
                day.new.extend((day.now, r) for r in report.new)
            day.oai_shows.append((announcement.at + timedelta(minutes=160), batch[0]))
            announcement = CALENDAR.next_after(announcement.at)
        for shows, record in list(day.oai_shows):
            api_shows = eastern(PAPER_MAILING, 0)
            if record is PAPER and poller.source == "api" and day.now < api_shows:
                continue
            if day.now >= shows:
                arxiv.add(record, datestamp=shows.astimezone(EASTERN).date() + timedelta(days=1))
                day.oai_shows.remove((shows, record))
        report = await poller.poll()
        assert not report.failures
        day.new.extend((day.now, r) for r in report.new)


def filler(announcement: Announcement) -> Record:
    """A batch's paper by nobody followed."""
    return make_record(
        arxiv_id=f"2612.{announcement.mailing.day:05d}",
        title=f"Filler of {announcement.mailing}",
        authors=["Nobody Followed"],
        published=announcement.at - timedelta(hours=8),
    )


PAPER_MAILING = TUESDAY + timedelta(days=1)


@pytest.mark.parametrize(
    ("mode", "early_listings"),
    [("harvest", True), ("harvest", False), ("api", False)],
    ids=["harvest-and-listing", "harvest-without-listing", "api-without-listing"],
)
async def test_requests_in_the_day_of_an_announcement_and_a_day_without(
    engine: Engine,
    client: ArxivClient,
    arxiv: FakeArxiv,
    listing: FakeListing,
    mode: WatchSource,
    early_listings: bool,
) -> None:
    store = Store(engine)
    store.follow(["Dezun Dong"])
    day = Day(now=eastern(TUESDAY, 0, 30))  # Monday night: the follow's history is fetched
    poller = Poller(
        store=store,
        client=client,
        poll_interval=3600,
        source=mode,
        oai_url=arxiv.oai_url,
        listing_url=listing.url,
        listing_probe_interval=60,
        schedule=SCHEDULE,
        clock=day.clock,
    )
    await run_until(eastern(TUESDAY, 12), day, poller, arxiv, listing, listings=early_listings)

    before = requests(arxiv, listing)
    await run_until(
        eastern(TUESDAY + timedelta(days=1), 12),
        day,
        poller,
        arxiv,
        listing,
        listings=early_listings,
    )
    announcement_day = requests(arxiv, listing) - before

    # Announced once, when the first source to show it was read: the listing at 20:00, else
    # OAI at its second check (22:40), else the API at 00:05.
    ((when, paper),) = day.new
    assert paper.arxiv_id == PAPER.arxiv_id
    if early_listings:
        assert eastern(TUESDAY, 20) <= when <= eastern(TUESDAY, 20, 2)
    elif mode == "harvest":
        assert eastern(TUESDAY, 22, 40) <= when <= eastern(TUESDAY, 22, 42)
    else:
        assert eastern(PAPER_MAILING, 0, 5) <= when <= eastern(PAPER_MAILING, 0, 7)
    assert announcement_day <= 40
    # The operator sees which source showed the mailing first, and when (`authors`, /stats).
    news = store.last_mailing()
    assert (news.mailing, news.seen_at) == (PAPER_MAILING, when)
    assert news.source == ("listing" if early_listings else "OAI" if mode == "harvest" else "API")
    assert news.listing_probes == (1 if early_listings else 0)

    # A new follow's history is fetched at once; then it waits for its source's usual time,
    # rather than being due at every tick (a read of every follow) until then: followed after
    # Wednesday's harvest, its history fetched at once, it joins Thursday's harvest.
    await run_until(
        eastern(PAPER_MAILING, 23), day, poller, arxiv, listing, listings=early_listings
    )
    store.follow(["Ada Lovelace"])
    await run_until(
        eastern(PAPER_MAILING + timedelta(days=1), 1), day, poller, arxiv, listing,
        listings=early_listings,
    )  # fmt: skip
    assert store.paper(MONDAYS.arxiv_id) is not None  # her history, stored silently
    assert not store.any_follow_due(day.now)
    await run_until(eastern(FRIDAY, 12), day, poller, arxiv, listing, listings=early_listings)
    before = requests(arxiv, listing)
    await run_until(
        eastern(FRIDAY + timedelta(days=1), 12),
        day,
        poller,
        arxiv,
        listing,
        listings=early_listings,
    )
    assert requests(arxiv, listing) - before <= 2  # one poll at the usual time, no listing
    assert len(day.new) == 1  # nothing twice
