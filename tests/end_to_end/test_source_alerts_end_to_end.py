"""A listing whose markup breaks, through the real service (issue 28, item 4): `arxiv-watcher run`
with an admin chat, the fake listing serving a page in markup nobody knows at the flip, the fake
arXiv API and the fake Bot API, one start.

Two announcements 20 s apart in one start: the zone the calendar reads (`Test/Jump`) moves its
clocks a day less 20 s forward just after the first, so the next evening's announcement comes
20 s later (the way the clock-change test of the listing controls time). At the first the
listing does not parse: the admin chat gets one message naming it, /readyz says so and stays
ready, the metric counts it, and the followed person's paper still reaches his chat once, from
the API. At the second the listing parses again: the admin chat gets one message saying so.

The service and the fake listing run on a clock the test turns (`tests.harness.clocks`): each
announcement comes when the test is ready for it, not LEAD and GAP seconds later.
"""

from __future__ import annotations

import re
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
from tests.harness.http_probe import http_get, scrape, value
from tests.harness.patience import PATIENCE

pytestmark = pytest.mark.slow
LEAD = 600  # seconds to the first announcement: a start, a subscription and its first poll,
# then the test turns the clock to it (the wall clock never gets there within the test)
GAP = 20  # seconds from the first announcement to the second

TOKEN = "123456:TEST-source-alerts-end-to-end"
ADMIN, PERSON = 77, 11
MONTH = f"{datetime.now(UTC):%y%m}"
GARBAGE = b"<!DOCTYPE html><html><body><main><p>Something else entirely</p></main></body></html>"

OWN = make_record(
    arxiv_id=f"{MONTH}.71001",
    title="Congestion Control When the Listing Breaks",
    authors=["Dezun Dong", "Ke Wu"],
    primary_category="cs.DC",
    categories=("cs.DC",),
)
OTHER = make_record(
    arxiv_id=f"{MONTH}.71002",
    title="A Paper Nobody Here Follows",
    authors=["Ada Lovelace"],
    primary_category="cs.DS",
    categories=("cs.DS",),
)


def texts(telegram: FakeTelegram, chat_id: int) -> list[str]:
    return [message.text for message in telegram.sent(chat_id)]


def test_a_broken_listing_is_told_once_and_its_recovery_once_and_papers_come_once(
    tmp_path: Path, database_url: str
) -> None:
    clock = TurnedClock(tmp_path / "clock")  # the service's and the listing's
    now = clock()
    first = (now + timedelta(seconds=LEAD)).replace(microsecond=0)
    second = first + timedelta(seconds=GAP)
    zones = tmp_path / "zones"
    jump = 86400 - GAP  # a day less GAP: the next evening's 20:00 comes GAP seconds later
    write_zone(zones, "Test/Jump", change_at=first + timedelta(seconds=5), before=0, after=jump)
    day = first.date()
    with (
        FakeArxiv(dezun_dong_records()) as arxiv,
        FakeTelegram(TOKEN) as telegram,
        FakeListing(day, clock=clock) as listing,
    ):
        listing.announce(day + timedelta(days=1), new=[OWN], flip_at=first)
        listing.announce(day + timedelta(days=2), new=[OTHER], flip_at=second)
        listing.serve_garbage(GARBAGE, until=first + timedelta(seconds=GAP // 2))
        service = service_on_fakes(
            arxiv,
            telegram,
            cwd=tmp_path,
            database_url=database_url,
            clock=clock,
            PYTHONTZPATH=str(zones),
            ADMIN_CHAT_IDS=str(ADMIN),
            ARXIV_ANNOUNCE_TIME=f"{first:%H:%M:%S}",
            ARXIV_ANNOUNCE_TZ="Test/Jump",
            ARXIV_ANNOUNCE_DAYS="mon,tue,wed,thu,fri,sat,sun",
            EARLY_LISTINGS="on",
            ARXIV_LISTING_URL=listing.url,
            LISTING_PROBE_INTERVAL="1",
            LISTING_PROBE_HOURS="1",
            LISTING_MIN_INTERVAL="0",
            HARVEST_SETS="cs",
            POLL_SCHEDULE="interval",  # the API every POLL_INTERVAL: healthy within two
            POLL_INTERVAL="5",
            METRICS_LISTEN="127.0.0.1:0",
        )
        try:
            service.wait_for(lambda: "/metrics" in service.output)
            port = re.search(r"metrics at http://127\.0\.0\.1:(\d+)/metrics", service.output)
            assert port, service.output
            base = f"http://127.0.0.1:{port[1]}"
            telegram.user_sends(PERSON, "/subscribe")
            telegram.wait_sync(lambda: bool(texts(telegram, PERSON)), PATIENCE)
            service.wait_for(lambda: "stored silently" in service.output)
            assert clock() < first, "the setup outlasted the lead: raise LEAD"
            assert f"next arXiv announcement: {first:%Y-%m-%d %H:%M} UTC" in service.output
            assert texts(telegram, ADMIN) == []

            # The flip: the listing does not parse. One message to the admin chat.
            clock.turn_to(first)
            telegram.wait_sync(lambda: bool(texts(telegram, ADMIN)), timeout=PATIENCE)
            assert datetime.now(UTC) < first  # the turned clock's instant, not the wall's
            (alert,) = texts(telegram, ADMIN)
            assert "arXiv's listing pages stopped parsing" in alert
            assert f"URL: {listing.url}cs/new" in alert
            assert "papers will come from the API" in alert
            status, ready = http_get(base + "/readyz")
            assert status == 200 and "not parsing: listing since" in ready, ready
            metrics = scrape(base)
            assert value(metrics, "arxiv_watcher_source_parse_failures_total", source="listing")
            assert value(metrics, "arxiv_watcher_source_parse_failures_total", source="oai") == 0

            # The paper still comes, from the API.
            arxiv.add(OWN)
            telegram.wait_sync(
                lambda: any(OWN.title in t for t in texts(telegram, PERSON)), PATIENCE
            )

            # The next announcement's listing parses again: one message saying so.
            clock.turn_to(second)
            telegram.wait_sync(lambda: len(texts(telegram, ADMIN)) >= 2, timeout=PATIENCE)
            service.wait_for(lambda: "read the listings of 1 archive(s)" in service.output)
            status, ready = http_get(base + "/readyz")
            assert status == 200 and "not parsing" not in ready, ready
        finally:
            code = service.stop()
    assert code == 0, service.output
    assert "Traceback" not in service.output and TOKEN not in service.output
    admin = texts(telegram, ADMIN)
    assert len(admin) == 2, admin
    assert "arXiv's listing pages read again" in admin[1]
    assert sum(OWN.title in t for t in texts(telegram, PERSON)) == 1
    assert OTHER.title not in " ".join(m.text for m in telegram.sent())
