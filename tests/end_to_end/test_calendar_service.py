"""The real service on arXiv's calendar (POLL_SCHEDULE=calendar): between two usual times it
polls nothing but a new follow's history, then polls at the usual time.

Scaled down: the announcement is this very minute (ARXIV_ANNOUNCE_TZ=UTC, every day) and the
API's usual time a few seconds from now (CALENDAR_API_AFTER), with POLL_INTERVAL=1, which on
the old schedule would poll every second. The service runs on a clock the test turns
(`tests.harness.clocks`): after a few idle ticks, the test turns it to the usual time.
"""

from __future__ import annotations

import time
from datetime import UTC, datetime
from pathlib import Path

import pytest
from sqlalchemy import Engine

from tests.fakes.arxiv_api import FakeArxiv
from tests.fakes.corpus import dezun_dong_records, make_record
from tests.harness.cli_helpers import ServiceProcess
from tests.harness.clocks import TurnedClock

pytestmark = pytest.mark.slow

NEW = make_record(
    arxiv_id=f"{datetime.now(UTC):%y%m}.80001",
    title="Routing by the Calendar",
    authors=["Dezun Dong"],
)
AHEAD = 600  # seconds from now to the API's usual time: the service starts and backfills first,
# beside a whole suite on two cores (8 s was once too few, 25 s once under a heavy load); the
# clock is turned to it, so the lead costs nothing, and the wall clock never gets there
IDLE_TICKS = 3  # seconds (POLL_INTERVAL=1: rounds of the scheduler) watched for a poll too many


def test_the_api_polls_at_its_usual_time_and_only_new_follows_before(
    tmp_path: Path, database_url: str, engine: Engine
) -> None:
    """`engine`: the database is migrated before the start, which then has less to do."""
    clock = TurnedClock(tmp_path / "clock")
    now = clock()
    minute = now.replace(second=0, microsecond=0)
    usual = now.timestamp() + AHEAD
    with FakeArxiv(dezun_dong_records()) as arxiv:
        service = ServiceProcess(
            cwd=tmp_path,
            clock=clock,
            DATABASE_URL=database_url,
            ARXIV_API_URL=arxiv.url,
            ARXIV_MIN_INTERVAL="0",
            WATCH_SOURCE="api",
            POLL_INTERVAL="1",
            POLL_SCHEDULE="calendar",
            ARXIV_ANNOUNCE_TIME=f"{minute:%H:%M}",
            ARXIV_ANNOUNCE_TZ="UTC",
            ARXIV_ANNOUNCE_DAYS="mon,tue,wed,thu,fri,sat,sun",
            CALENDAR_API_AFTER=str(round(usual - minute.timestamp())),
        )
        try:
            service.wait_for(lambda: "stored silently" in service.output)  # the history
            assert clock().timestamp() < usual, "the start outlasted the seconds before it"
            arxiv.add(NEW)
            # Rounds of the scheduler pass; none polls (POLL_INTERVAL=1 would, every second).
            time.sleep(IDLE_TICKS)
            before = len(arxiv.api_requests())
            assert clock().timestamp() < usual - 1
            clock.turn_to(datetime.fromtimestamp(usual, UTC))
            service.wait_for(lambda: NEW.title in service.output)
            assert time.time() < usual  # the turned clock's usual time, not the wall's
        finally:
            code = service.stop()
    assert code == 0, service.output
    # One request for the history at start, none in between, one at the usual time.
    assert before == 1
    assert len(arxiv.api_requests()) == 2
    assert "on arXiv's announcement calendar" in service.output
