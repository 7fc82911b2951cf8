"""A failed poll is tried again when its log line says, through the real service.

Issue 18, item 7: after a failure the log said "next try in 2 s", but the retry came at the next
whole scheduler tick after that, a tick later (observed: 120 s for "60 s").
"""

from __future__ import annotations

import signal
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.fakes.arxiv_api import FakeArxiv
from tests.fakes.corpus import dezun_dong_records
from tests.harness.cli_helpers import ServiceProcess

pytestmark = pytest.mark.slow

FAILING = "Jane Failing"
# The scheduler ticks every min(POLL_INTERVAL, POLL_RETRY_FIRST) = 2 s; the first retry is due
# 2 s after the failure, and the tick that follows it comes almost 2 s later still.
RETRY_FIRST = 2.0


@pytest.fixture
def arxiv() -> Iterator[FakeArxiv]:
    with FakeArxiv(dezun_dong_records()) as fake:
        fake.fail_queries(FAILING, "503")
        yield fake


def test_the_first_retry_comes_when_the_log_says(
    tmp_path: Path, database_url: str, arxiv: FakeArxiv
) -> None:
    service = ServiceProcess(
        cwd=tmp_path,
        DATABASE_URL=database_url,
        ARXIV_API_URL=arxiv.url,
        ARXIV_MIN_INTERVAL="0",
        ARXIV_MAX_RETRIES="0",
        POLL_INTERVAL="600",
        POLL_RETRY_FIRST=str(RETRY_FIRST),
        WATCH_AUTHORS=FAILING,
    )
    try:
        service.wait_for(lambda: arxiv.failed_requests(FAILING) >= 2)
    finally:
        code = service.stop(signal.SIGTERM)
    assert code == 0, service.output
    assert "1 failure(s) in a row, next try in 2 s" in service.output
    first, second = [r.time for r in arxiv.api_requests() if r.fault not in (None, "none")][:2]
    # On time, give or take a loaded machine; a tick late would be about 4 s.
    assert RETRY_FIRST <= second - first < RETRY_FIRST + 1.2, service.output
