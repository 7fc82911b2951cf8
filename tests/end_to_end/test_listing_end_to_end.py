"""Early listings through the real service: `arxiv-watcher run` with arXiv's announcement a
minute or two ahead (ARXIV_ANNOUNCE_TZ=UTC, every day), the fake listing flipping at that
instant, the fake arXiv API lagging behind it and the fake Bot API.

A followed person's new paper, a cross-list of his from another archive, a look-alike's paper
and a topic's hit are listed; the first, second and fourth reach their chats within seconds of
the flip, the look-alike nowhere. Later the API shows the same papers (with its own metadata),
the polls store them, and nothing is sent twice.

The flip test runs the service and the fake listing on a clock it turns (`tests.harness.clocks`):
the announcement comes when the set-up is done, not minutes later. The clock-change test is
the family's smoke test of the wall clock (`real_clock`): it waits LEAD seconds for the instant.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from tests.fakes.arxiv_api import FakeArxiv
from tests.fakes.corpus import dezun_dong_records, make_record
from tests.fakes.listing import FakeListing
from tests.fakes.telegram import FakeTelegram
from tests.fakes.zones import write_zone
from tests.harness.cli_helpers import service_on_fakes
from tests.harness.clocks import TurnedClock
from tests.harness.databases import BACKEND
from tests.harness.patience import PATIENCE

pytestmark = pytest.mark.slow
# The announcement is LEAD seconds ahead: a start, a first poll and a topic's come before it, on
# a loaded machine. On a turned clock the test turns it to the instant once they are done.
LEAD = 45
TURNED_LEAD = 600  # on a turned clock: the wall clock never gets there within the test

TOKEN = "123456:TEST-listing-end-to-end"
TOPIC = '"remote direct memory access" RDMA in cs.DC'
TOPIC_SHOWN = '"remote direct memory access" rdma'
PERSON, WATCHER = 11, 14
MONTH = f"{datetime.now(UTC):%y%m}"

OWN = make_record(
    arxiv_id=f"{MONTH}.70001",
    title="Adaptive Routing on Dragonfly+ Networks",
    authors=["Ke Wu", "Dezun Dong"],
    primary_category="cs.NI",
    categories=("cs.NI", "cs.DC"),
)
CROSS = make_record(  # primary in math, listed in cs as a cross-list
    arxiv_id=f"{MONTH}.70002",
    title="Scheduling Collective Operations as Flows",
    authors=["Dezun Dong", "Ada Lovelace"],
    primary_category="math.OC",
    categories=("math.OC", "cs.DC"),
)
LOOKALIKE = make_record(
    arxiv_id=f"{MONTH}.70003",
    title="Quantum Feedback with Delayed Measurements",
    authors=["Daoyi Dong", "Dezun Li"],
    abstract="We cite the work of Dezun Dong on networks, but he is not an author here.",
)
TOPICAL = make_record(
    arxiv_id=f"{MONTH}.70004",
    title="RDMA Transports Announced From the Listing",
    authors=["Ada Topicwriter"],
    abstract="We move data by remote direct memory access (RDMA) between the cluster's nodes.",
)


def texts(telegram: FakeTelegram, chat_id: int) -> list[str]:
    return [message.text for message in telegram.sent(chat_id)]


def test_listed_papers_reach_their_chats_minutes_after_the_flip_and_once(
    tmp_path: Path, database_url: str
) -> None:
    clock = TurnedClock(tmp_path / "clock")  # the service's and the listing's
    now = clock()
    announced = (now + timedelta(seconds=TURNED_LEAD)).replace(microsecond=0)
    mailing = announced.date() + timedelta(days=1)
    with (
        FakeArxiv(dezun_dong_records()) as arxiv,
        FakeTelegram(TOKEN) as telegram,
        FakeListing(announced.date(), clock=clock) as listing,
    ):
        listing.announce(mailing, new=[OWN, CROSS, LOOKALIKE, TOPICAL], flip_at=announced)
        settings = {
            "ARXIV_ANNOUNCE_TIME": f"{announced:%H:%M:%S}",
            "ARXIV_ANNOUNCE_TZ": "UTC",
            "ARXIV_ANNOUNCE_DAYS": "mon,tue,wed,thu,fri,sat,sun",
            "EARLY_LISTINGS": "on",
            "ARXIV_LISTING_URL": listing.url,
            "LISTING_PROBE_INTERVAL": "1",
            "LISTING_PROBE_HOURS": "1",
            "LISTING_MIN_INTERVAL": "0",
            "HARVEST_SETS": "cs",  # the listings of cs alone
        }
        service = service_on_fakes(
            arxiv, telegram, cwd=tmp_path, database_url=database_url, clock=clock, **settings
        )
        try:
            service.wait_for(lambda: "stored silently" in service.output)
            telegram.user_sends(PERSON, "/subscribe")
            telegram.user_sends(WATCHER, f"/watch {TOPIC}")
            telegram.wait_sync(lambda: all(texts(telegram, c) for c in (PERSON, WATCHER)), PATIENCE)
            service.wait_for(lambda: f"polled {TOPIC_SHOWN}:" in service.output)
            assert clock() < announced, "the setup outlasted the lead: raise LEAD"
            assert "next arXiv announcement" in service.output
            assert listing.listing_requests() == []  # nothing read before the instant

            wanted = {PERSON: (OWN, CROSS), WATCHER: (TOPICAL,)}
            clock.turn_to(announced)
            telegram.wait_sync(
                lambda: all(
                    any(r.title in t for t in texts(telegram, chat))
                    for chat, records in wanted.items()
                    for r in records
                ),
                timeout=PATIENCE,
            )
            arrived = clock()
            assert datetime.now(UTC) < announced  # the turned clock's instant, not the wall's
            # Probed every second from the instant: the papers came within seconds of the flip.
            assert arrived - announced < timedelta(seconds=30), arrived - announced
            assert listing.listing_requests("cs")[-1].status == 200
            assert service.stop() == 0, service.output
            first_output = service.output

            # Started again within LISTING_PROBE_HOURS (after a crash, say): the read is redone
            # at once, and what it announced already is not announced again.
            requests = len(listing.listing_requests())
            service = service_on_fakes(
                arxiv, telegram, cwd=tmp_path, database_url=database_url, clock=clock, **settings
            )
            service.wait_for(lambda: "read the listings of 1 archive(s)" in service.output)
            assert len(listing.listing_requests()) > requests
            assert "; 0 new" in service.output

            # The API shows the same papers later, with its own metadata; polls store them.
            for record in (OWN, CROSS, LOOKALIKE, TOPICAL):
                arxiv.add(record)
            seen = len(arxiv.api_requests())
            service.wait_for(lambda: len(arxiv.api_requests()) >= seen + 6)
        finally:
            code = service.stop()
    assert code == 0, service.output
    for output in (first_output, service.output):
        assert "Traceback" not in output and TOKEN not in output

    everything = " ".join(m.text for m in telegram.sent())
    for record in (OWN, CROSS, TOPICAL):
        assert everything.count(record.title) == 1, record.title
    assert LOOKALIKE.title not in everything
    assert sum(OWN.title in t for t in texts(telegram, PERSON)) == 1
    assert sum(TOPICAL.title in t for t in texts(telegram, WATCHER)) == 1


def test_on_a_holiday_the_listing_is_only_probed_a_few_times(
    tmp_path: Path, database_url: str
) -> None:
    soon = (datetime.now(UTC) + timedelta(minutes=2)).replace(second=0, microsecond=0)
    with (
        FakeArxiv(dezun_dong_records()) as arxiv,
        FakeTelegram(TOKEN) as telegram,
        FakeListing(soon.date()) as listing,
    ):
        service = service_on_fakes(
            arxiv,
            telegram,
            cwd=tmp_path,
            database_url=database_url,
            ARXIV_ANNOUNCE_TIME=f"{soon:%H:%M}",
            ARXIV_ANNOUNCE_TZ="UTC",
            ARXIV_ANNOUNCE_DAYS="mon,tue,wed,thu,fri,sat,sun",
            ARXIV_HOLIDAYS=soon.date().isoformat(),
            EARLY_LISTINGS="on",
            ARXIV_LISTING_URL=listing.url,
        )
        try:
            service.wait_for(lambda: "next listing probe" in service.output)
        finally:
            code = service.stop()
    assert code == 0, service.output
    # The calendar guesses no batch that evening, so the listing is probed a few times only
    # (tests/core/test_listing_holidays.py follows such an evening on a simulated clock).
    assert (
        f"next listing probe: {soon:%Y-%m-%d %H:%M} UTC, an evening arXiv's holiday list skips: "
        f"the listing is probed at most 6 times for a mailing of {soon.date() + timedelta(days=1)}"
    ) in service.output
    assert listing.requests == []


@pytest.mark.real_clock
@pytest.mark.skipif(
    BACKEND != "sqlite",
    reason="LEAD seconds of the wall clock, the same on every database; the flip test reads the "
    "listing on each, on a clock it turns",
)
def test_across_a_clock_change_the_listing_is_read_at_the_new_offset(
    tmp_path: Path, database_url: str
) -> None:
    """The family's smoke test of the wall clock: `arxiv-watcher run` itself waits for the
    instant."""
    # The zone's clocks go forward an hour 20 s from now; the announcement's wall time is read
    # with the new offset: the listing is probed at that UTC instant, not an hour off.
    now = datetime.now(UTC)
    instant = (now + timedelta(seconds=LEAD)).replace(microsecond=0)
    zones = tmp_path / "zones"
    write_zone(zones, "Test/Spring", change_at=now + timedelta(seconds=20), before=0, after=3600)
    wall = instant + timedelta(hours=1)
    with (
        FakeArxiv(dezun_dong_records()) as arxiv,
        FakeTelegram(TOKEN) as telegram,
        FakeListing(wall.date()) as listing,  # the mailing follows the zone's date
    ):
        listing.announce(wall.date() + timedelta(days=1), new=[OWN], flip_at=instant)
        service = service_on_fakes(
            arxiv,
            telegram,
            cwd=tmp_path,
            database_url=database_url,
            PYTHONTZPATH=str(zones),
            ARXIV_ANNOUNCE_TIME=f"{wall:%H:%M:%S}",
            ARXIV_ANNOUNCE_TZ="Test/Spring",
            ARXIV_ANNOUNCE_DAYS="mon,tue,wed,thu,fri,sat,sun",
            EARLY_LISTINGS="on",
            ARXIV_LISTING_URL=listing.url,
            LISTING_PROBE_INTERVAL="1",
            LISTING_MIN_INTERVAL="0",
        )
        try:
            service.wait_for(lambda: "stored silently" in service.output)
            assert f"next arXiv announcement: {instant:%Y-%m-%d %H:%M} UTC" in service.output
            service.wait_for(
                lambda: "read the listings" in service.output,
                timeout=(instant - datetime.now(UTC)).total_seconds() + PATIENCE,
            )
        finally:
            code = service.stop()
    assert code == 0, service.output
    first = listing.requests[0].wall
    assert instant <= first < instant + timedelta(seconds=10), first
