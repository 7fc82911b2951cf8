"""The listing source through the poll step: the fake listing and the fake arXiv over HTTP, a
real store. Probing until the page flips, reading and paging, matching, saving exactly once,
the later structured record, and a listing that no longer parses."""

from __future__ import annotations

import logging
import time
from collections.abc import AsyncIterator, Iterator
from datetime import UTC, datetime, timedelta
from itertools import pairwise

import pytest
from sqlalchemy import Engine

from tests.fakes.arxiv_api import FakeArxiv
from tests.fakes.corpus import dezun_dong_records, make_record
from tests.fakes.listing import FakeListing
from tests.harness.patience import LOOPBACK_TIMEOUT
from watcher.arxiv.fetch import USER_AGENT, ArxivClient
from watcher.arxiv.records import Record
from watcher.calendars.announcements import Announcement
from watcher.follows.topics import parse_topic
from watcher.polling.poll import Poller
from watcher.store import Store

NOW = datetime.now(UTC)
MAILING = NOW.date() + timedelta(days=1)
YESTERDAY_MAILING = NOW.date()
MONTH = f"{NOW:%y%m}"

OWN = make_record(
    arxiv_id=f"{MONTH}.50001",
    title="Adaptive Routing on Dragonfly+",
    authors=["Ke Wu", "Dezun Dong"],
    primary_category="cs.NI",
    categories=("cs.NI", "cs.DC"),
    comment="12 pages; A&B <fast>",
    abstract="Routing matters.\nLatency < 200 µs on 1,024 nodes.",
)
CROSS = make_record(
    arxiv_id=f"{MONTH}.50002",
    title="Scheduling Collective Operations",
    authors=["Dezun Dong", "Ada Lovelace"],
    primary_category="math.OC",
    categories=("math.OC", "cs.DC"),
)
LOOKALIKE = make_record(
    arxiv_id=f"{MONTH}.50003",
    title="Quantum Feedback",
    authors=["Daoyi Dong", "Dezun Li"],
    abstract="We cite Dezun Dong.",
)
TOPICAL = make_record(
    arxiv_id=f"{MONTH}.50004",
    title="Remote direct memory access for everyone",
    authors=["Ada Topicwriter"],
    abstract="We build RDMA transports.",
)
OLD = dezun_dong_records()[0]  # stored at follow time: its replacement must say nothing


def announced() -> Announcement:
    """The announcement, now: the probes begin at once."""
    return Announcement(at=datetime.now(UTC), mailing=MAILING)


def ids(records: list[Record]) -> list[str]:
    return sorted(r.arxiv_id for r in records)


@pytest.fixture
def arxiv() -> Iterator[FakeArxiv]:
    with FakeArxiv(dezun_dong_records()) as fake:
        yield fake


@pytest.fixture
def listing() -> Iterator[FakeListing]:
    with FakeListing(YESTERDAY_MAILING) as fake:
        yield fake


@pytest.fixture
async def client(arxiv: FakeArxiv) -> AsyncIterator[ArxivClient]:
    async with ArxivClient(
        arxiv.url, min_interval=0, timeout=LOOPBACK_TIMEOUT, max_retries=1, listing_interval=0
    ) as arxiv_client:
        yield arxiv_client


def poller(store: Store, client: ArxivClient, listing: FakeListing, **options: object) -> Poller:
    settings: dict[str, object] = {
        "store": store,
        "client": client,
        "poll_interval": 3600,
        "listing_url": listing.url,
        "listing_probe_interval": 0.05,
        "listing_probe_hours": 0.01,
        "harvest_sets": ["cs"],
        **options,
    }
    return Poller(**settings)  # type: ignore[arg-type]


@pytest.fixture
async def backfilled(engine: Engine, client: ArxivClient, listing: FakeListing) -> Poller:
    """Dezun Dong and an RDMA topic followed, their histories fetched (silently)."""
    store = Store(engine)
    store.follow(["Dezun Dong"])
    store.watch_topic(parse_topic('"remote direct memory access" RDMA in cs.DC'))
    polls = poller(store, client, listing)
    report = await polls.poll(force=True)
    assert not report.failures and not report.new
    return polls


async def test_a_flipped_listing_announces_new_papers_and_cross_lists_once(
    backfilled: Poller, listing: FakeListing, arxiv: FakeArxiv
) -> None:
    listing.announce(MAILING, new=[OWN, LOOKALIKE, TOPICAL, CROSS], replaced=[OLD])
    report = await backfilled.read_listing(announced())
    assert not report.failures
    assert ids(report.new) == ids([OWN, CROSS, TOPICAL])  # not the look-alike, not the replaced
    (own,) = [r for r in report.new if r.arxiv_id == OWN.arxiv_id]
    assert own.version == 1
    assert own.comment == OWN.comment and own.abstract == OWN.abstract  # as listed
    assert own.categories == ("cs.NI", "cs.DC") and own.primary_category == "cs.NI"
    # The cross-list's paper is primary in math, an archive not read: the API, asked, did not
    # know it yet, so it is new today and saved as listed.
    assert any(CROSS.arxiv_id in r.params.get("id_list", "") for r in arxiv.requests)

    # What it read is stored with the mailing seen (/why says it): the new submissions and
    # cross-lists of cs, the replacement not.
    assert backfilled.store.last_mailing().listed == 4

    # Redone (a crash after the saves): nothing again, and the same count.
    assert (await backfilled.read_listing(announced())).new == []
    assert backfilled.store.last_mailing().listed == 4

    # The structured record arrives later with other metadata: replaced, without a word.
    arxiv.add(make_record(**{**_fields(OWN), "title": "Adaptive Routing on Dragonfly+ (v1)"}))
    arxiv.add(CROSS)
    arxiv.add(TOPICAL)
    report = await backfilled.poll(force=True)
    assert (report.new, report.revisions, report.failures) == ([], [], {})
    stored = backfilled.store.paper(OWN.arxiv_id)
    assert stored is not None and stored.title == "Adaptive Routing on Dragonfly+ (v1)"


def _fields(record: Record) -> dict[str, object]:
    return {name: getattr(record, name) for name in Record.__slots__ if name != "authors"} | {
        "authors": list(record.author_names)
    }


async def test_probes_conditionally_until_the_page_flips_then_reads_it(
    backfilled: Poller, listing: FakeListing
) -> None:
    listing.announce(MAILING, new=[OWN], flip_at=datetime.now(UTC) + timedelta(seconds=1))
    began = time.monotonic()
    report = await backfilled.read_listing(announced())
    assert ids(report.new) == [OWN.arxiv_id]
    probes = listing.listing_requests("cs")
    assert time.monotonic() - began >= 0.9
    assert [r.status for r in probes[:2]] == [200, 304]  # then unchanged until the flip
    assert probes[-1].status == 200
    assert all("If-None-Match" in r.headers for r in probes[1:])
    assert all(r.headers["User-Agent"] == USER_AGENT for r in probes)


async def test_a_listing_that_never_flips_is_left_to_the_other_sources(
    backfilled: Poller, listing: FakeListing
) -> None:
    backfilled.listing.probe_window = timedelta(seconds=2)
    began = time.monotonic()
    report = await backfilled.read_listing(announced())  # the page keeps yesterday's mailing
    assert (report.new, report.failures) == ([], {})
    assert time.monotonic() - began < 2.5
    # Bounded: 15 probes 0.05 s apart, then one each 0.5 s until the window (2 s) closes.
    assert 15 <= len(listing.listing_requests()) <= 15 + 4


async def test_pages_are_read_with_skip_and_the_counts_checked(
    backfilled: Poller, listing: FakeListing
) -> None:
    others = [
        make_record(arxiv_id=f"{MONTH}.6000{n}", authors=[f"Someone Else{n}"]) for n in range(5)
    ]
    listing.max_show = 2
    listing.announce(MAILING, new=[*others, OWN], replaced=[OLD])
    report = await backfilled.read_listing(announced())
    assert ids(report.new) == [OWN.arxiv_id]
    skips = [r.params.get("skip") for r in listing.listing_requests("cs")]
    assert skips == ["0", "2", "4", "6"]
    assert backfilled.store.last_mailing().listed == 6  # over its pages, the replacement not


@pytest.mark.parametrize("broken", ["markup", "counts"])
async def test_a_listing_that_no_longer_parses_is_a_visible_failure(
    backfilled: Poller,
    listing: FakeListing,
    arxiv: FakeArxiv,
    broken: str,
    caplog: pytest.LogCaptureFixture,
) -> None:
    listing.broken = broken  # type: ignore[assignment]
    listing.announce(MAILING, new=[OWN, TOPICAL])
    with caplog.at_level(logging.WARNING):
        report = await backfilled.read_listing(announced())
    assert report.new == []
    (cause,) = report.failures.values()
    assert "listing" in cause and "/list/cs/new" in cause
    assert f"{listing.url}cs/new" in caplog.text
    followed = backfilled.store.followed()
    assert all(f.last_error and "listing failed" in f.last_error for f in followed)
    assert backfilled.store.last_mailing().listed is None  # not read whole: no count
    # Nothing is lost: the structured sources still announce the day.
    arxiv.add(OWN)
    arxiv.add(TOPICAL)
    assert ids((await backfilled.poll(force=True)).new) == ids([OWN, TOPICAL])


async def test_a_cross_list_of_an_old_paper_is_not_news(
    backfilled: Poller, listing: FakeListing, arxiv: FakeArxiv
) -> None:
    ancient = make_record(
        arxiv_id="2301.00077",
        authors=["Dezun Dong"],
        primary_category="math.OC",
        categories=("math.OC", "cs.DC"),
        published=NOW - timedelta(days=700),
    )
    arxiv.add(ancient)  # the API has it: the listing's cross-list is of an old paper
    listing.announce(MAILING, crosses=[ancient, OLD])  # OLD is stored already
    report = await backfilled.read_listing(announced())
    assert (report.new, report.failures) == ([], {})
    assert backfilled.store.paper(ancient.arxiv_id) is not None  # stored, silently


async def test_a_submission_held_a_week_is_new_the_evening_the_listing_shows_it(
    backfilled: Poller, listing: FakeListing, arxiv: FakeArxiv
) -> None:
    """Held in moderation, announced after the follows began ("New submissions" says so):
    announced once, and its structured record, dated a week back, says nothing more."""
    held = make_record(
        arxiv_id=f"{MONTH}.50009",
        title="Held in Moderation",
        authors=["Dezun Dong"],
        published=NOW - timedelta(days=7),
    )
    listing.announce(MAILING, new=[held])
    report = await backfilled.read_listing(announced())
    assert ids(report.new) == [held.arxiv_id]

    arxiv.add(held)
    again = await backfilled.poll(force=True)
    assert (again.new, again.failures) == ([], {})


async def test_listing_requests_keep_their_own_spacing_on_the_shared_client(
    backfilled: Poller, listing: FakeListing, client: ArxivClient
) -> None:
    client.listing_interval = 0.3
    listing.max_show = 1
    listing.announce(MAILING, new=[OWN, TOPICAL, LOOKALIKE])
    report = await backfilled.read_listing(announced())
    assert ids(report.new) == ids([OWN, TOPICAL])
    seen = [r.time for r in listing.listing_requests()]
    assert len(seen) == 3
    assert all(later - earlier >= 0.29 for earlier, later in pairwise(seen))
