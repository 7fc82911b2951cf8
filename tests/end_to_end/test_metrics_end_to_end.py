"""Metrics, liveness and readiness through the real service: `arxiv-watcher run` with
METRICS_LISTEN, the fake arXiv and the fake Bot API over real HTTP, a real database.

One start checks it all: /healthz answers; /readyz says ok once the first poll succeeded; a
paper found and fanned out to three chats (one 429 on the way) moves the counters by exactly
that; the store's gauges show the chats and the follows; while arXiv fails the follow's polls
three times in a row /readyz says 503 with the reason, and 200 again once arXiv recovers.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.fakes.arxiv_api import FakeArxiv
from tests.fakes.corpus import dezun_dong_records, make_record
from tests.fakes.telegram import FakeTelegram, Fault
from tests.harness.cli_helpers import service_on_fakes
from tests.harness.http_probe import http_get, scrape, value
from tests.harness.patience import PATIENCE, wait_until
from watcher import __version__

pytestmark = pytest.mark.slow

TOKEN = "123456:TEST-metrics-end-to-end"
CHATS = (41, 42, 43)
NEW_PAPER = make_record(arxiv_id="2612.40001", title="Counting What Happened")


@pytest.fixture
def service(tmp_path: Path, database_url: str) -> Iterator[tuple[FakeArxiv, FakeTelegram, str]]:
    with FakeArxiv(dezun_dong_records()) as arxiv, FakeTelegram(TOKEN) as telegram:
        process = service_on_fakes(
            arxiv,
            telegram,
            cwd=tmp_path,
            database_url=database_url,
            ARXIV_MAX_RETRIES="0",
            # Polled every 5 s (healthy while the last good poll is under 10 s old); a failure
            # is retried after 0.2 s, doubling, so three in a row come within two seconds.
            POLL_INTERVAL="5",
            POLL_RETRY_FIRST="0.2",
            WATCH_AUTHORS="Dezun Dong",
            METRICS_LISTEN="127.0.0.1:0",
        )
        try:
            process.wait_for(lambda: "/metrics" in process.output)
            port = re.search(r"metrics at http://127\.0\.0\.1:(\d+)/metrics", process.output)
            assert port, process.output
            yield arxiv, telegram, f"http://127.0.0.1:{port[1]}"
        finally:
            code = process.stop()
            assert code == 0, process.output
            assert TOKEN not in process.output
            assert "Traceback" not in process.output


def test_counters_move_by_what_happened_and_readiness_follows_arxiv(
    service: tuple[FakeArxiv, FakeTelegram, str],
) -> None:
    arxiv, telegram, base = service
    assert http_get(base + "/healthz") == (200, "ok: the event loop answers\n")
    assert http_get(base + "/nothing")[0] == 404
    wait_until(lambda: http_get(base + "/readyz")[0] == 200, "ready after the first poll")
    assert http_get(base + "/readyz")[1].startswith("ok: last successful poll")

    for chat in CHATS:
        telegram.user_sends(chat, "/subscribe")
    telegram.wait_sync(lambda: all(telegram.sent(chat) for chat in CHATS), PATIENCE)
    before = scrape(base)
    assert value(before, "arxiv_watcher_leader") == 1
    assert value(before, "arxiv_watcher_build_info", version=__version__) == 1
    assert value(before, "arxiv_watcher_chats_active") == len(CHATS)
    assert value(before, "arxiv_watcher_follows", kind="person") == 1
    assert value(before, "arxiv_watcher_arxiv_requests_total", source="api", outcome="ok") >= 1
    assert value(before, "arxiv_watcher_polls_total", source="api", outcome="ok") >= 1

    telegram.inject(Fault.flood(retry_after=1))  # the first send meets one 429
    arxiv.add(NEW_PAPER)

    def announced() -> bool:
        return all(any("2612.40001" in m.text for m in telegram.sent(c)) for c in CHATS)

    telegram.wait_sync(announced, PATIENCE)
    sent = "arxiv_watcher_deliveries_total"
    wait_until(
        lambda: (
            value(scrape(base), sent, outcome="sent") == value(before, sent, outcome="sent") + 3
        ),
        "three deliveries counted sent",
    )
    after = scrape(base)

    def moved(name: str, **labels: str) -> float:
        return value(after, name, **labels) - value(before, name, **labels)

    assert moved("arxiv_watcher_papers_found_total", kind="new") == 1
    assert moved("arxiv_watcher_papers_found_total", kind="revision") == 0
    assert moved(sent, outcome="retried") == 1
    assert moved(sent, outcome="failed") == moved(sent, outcome="parked") == 0
    assert moved("arxiv_watcher_telegram_retry_after_total") == 1
    assert moved("arxiv_watcher_delivery_delay_seconds_count") == 3
    assert moved("arxiv_watcher_delivery_delay_seconds_bucket", le="1.0") <= 2  # one waited 1 s
    assert moved("arxiv_watcher_arxiv_requests_total", source="api", outcome="ok") >= 1
    assert moved("arxiv_watcher_polls_total", source="api", outcome="ok") >= 1
    # The sent counter moves when Telegram confirms; the row is marked sent in the transaction
    # after it, so a scrape in between still counts it pending: the outbox drains right after.
    wait_until(
        lambda: value(scrape(base), "arxiv_watcher_outbox_pending") == 0, "the outbox drained"
    )
    assert value(after, "arxiv_watcher_last_success_timestamp_seconds", source="api") > 0

    # arXiv fails this follow's queries: three failed polls in a row make it unready.
    arxiv.fail_queries("Dezun Dong", "503")
    wait_until(lambda: http_get(base + "/readyz")[0] == 503, "unready while arXiv fails")
    status, reason = http_get(base + "/readyz")
    assert status == 503 and reason.startswith("unhealthy: polling fails for 1 author(s)"), reason
    assert "HTTP 503" in reason and reason.count("\n") == 1
    assert http_get(base + "/healthz")[0] == 200  # alive all the same
    failing = scrape(base)
    assert value(failing, "arxiv_watcher_arxiv_requests_total", source="api", outcome="failed") >= 3
    assert value(failing, "arxiv_watcher_polls_total", source="api", outcome="failed") >= 3

    arxiv.heal("Dezun Dong")
    wait_until(lambda: http_get(base + "/readyz")[0] == 200, "ready again once arXiv recovers")
