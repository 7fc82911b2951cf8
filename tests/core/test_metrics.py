"""The metrics without a database: what each arXiv request counts (through the fake arXiv over
HTTP), the listener's liveness when the event loop is stuck, the store gauges' failure, the
dashboard's queries against the registry, and METRICS_LISTEN. The counts through the real
service are in tests/end_to_end/test_metrics_end_to_end.py.
"""

from __future__ import annotations

import asyncio
import json
import re
import threading
from pathlib import Path

import pytest
from prometheus_client import generate_latest

from tests.fakes.arxiv_api import FakeArxiv
from tests.fakes.corpus import dezun_dong_records
from tests.harness.http_probe import http_get
from tests.harness.patience import LOOPBACK_TIMEOUT
from watcher.arxiv.fetch import ArxivClient
from watcher.errors import ArxivHTTPError, ConfigError
from watcher.metrics import StoreGauges, build_registry, exported_names
from watcher.runtime.db import create_db_engine
from watcher.runtime.observability import LOOP_TIMEOUT, Observability
from watcher.settings import load_settings
from watcher.store.gauges import Gauges

DASHBOARD = Path(__file__).resolve().parents[2] / "deploy/grafana/dashboards/arxiv-watcher.json"
REQUESTS = "arxiv_watcher_arxiv_requests_total"


def requests_counted(source: str, outcome: str) -> float:
    value = build_registry().get_sample_value(REQUESTS, {"source": source, "outcome": outcome})
    assert value is not None
    return value


async def test_each_attempt_counts_under_its_source_and_outcome() -> None:
    before = {
        (source, outcome): requests_counted(source, outcome)
        for source in ("api", "oai", "author_feed")
        for outcome in ("ok", "retried", "failed")
    }
    with FakeArxiv(dezun_dong_records()) as fake:
        async with ArxivClient(
            fake.url, min_interval=0, timeout=LOOPBACK_TIMEOUT, max_retries=2, backoff_base=0
        ) as client:
            fake.inject("503", times=2)
            await client.query(search_query='au:"Dezun Dong"')  # two retries, then ok
            await client.get(fake.url, {"search_query": "all:x"})  # oai: ok
            fake.inject("503", times=3)
            with pytest.raises(ArxivHTTPError):
                await client.get(fake.url, {}, source="author_feed")  # retried twice, failed

    def moved(source: str, outcome: str) -> float:
        return requests_counted(source, outcome) - before[source, outcome]

    assert (moved("api", "ok"), moved("api", "retried"), moved("api", "failed")) == (1, 2, 0)
    assert (moved("oai", "ok"), moved("oai", "retried"), moved("oai", "failed")) == (1, 0, 0)
    assert moved("author_feed", "ok") == 0
    assert (moved("author_feed", "retried"), moved("author_feed", "failed")) == (2, 1)


def test_every_metric_the_dashboard_queries_is_exported() -> None:
    registry = build_registry(StoreGauges(lambda: Gauges(3, {"person": 2}, 5)))
    exported = exported_names(registry)
    dashboard = json.loads(DASHBOARD.read_text())
    expressions = [t["expr"] for panel in dashboard["panels"] for t in panel["targets"]]
    queried = {name for expr in expressions for name in re.findall(r"arxiv_watcher_\w+", expr)}
    assert queried, "the dashboard queries nothing"
    missing = sorted(queried - exported)
    assert not missing, f"the dashboard queries metrics nobody exports: {missing}"
    # The panels the issue asks for.
    titles = " | ".join(panel["title"].lower() for panel in dashboard["panels"])
    for wanted in ("papers found per day", "deliveries", "outbox", "delay", "arxiv requests"):
        assert wanted in titles
    assert any("arxiv_watcher_leader" in expr for expr in expressions)


def test_the_issue_names_are_all_exported() -> None:
    exported = exported_names(build_registry(StoreGauges(lambda: Gauges(0))))
    for name in (
        "arxiv_watcher_arxiv_requests_total",
        "arxiv_watcher_polls_total",
        "arxiv_watcher_source_parse_failures_total",
        "arxiv_watcher_papers_found_total",
        "arxiv_watcher_deliveries_total",
        "arxiv_watcher_suggestion_messages_total",
        "arxiv_watcher_outbox_pending",
        "arxiv_watcher_telegram_retry_after_total",
        "arxiv_watcher_telegram_network_errors_total",
        "arxiv_watcher_delivery_delay_seconds_bucket",
        "arxiv_watcher_leader",
        "arxiv_watcher_follows",
        "arxiv_watcher_chats_active",
        "arxiv_watcher_build_info",
    ):
        assert name in exported, name


def test_store_gauges_left_out_when_the_database_fails(caplog: pytest.LogCaptureFixture) -> None:
    def broken() -> Gauges:
        raise ConnectionError("server closed the connection\nSQL: SELECT ...")

    text = generate_latest(build_registry(StoreGauges(broken))).decode()
    assert "arxiv_watcher_build_info" in text
    assert "arxiv_watcher_outbox_pending" not in text
    assert "cannot read the store's gauges (server closed the connection)" in caplog.text


def test_metrics_listen_is_host_and_port() -> None:
    assert load_settings(metrics_listen="").metrics_address is None
    assert load_settings(metrics_listen=" 0.0.0.0:9100 ").metrics_address == ("0.0.0.0", 9100)
    assert load_settings(metrics_listen="[::1]:0").metrics_address == ("::1", 0)
    for wrong in ("9100", "localhost", "host:port", ":9100", "host:70000"):
        with pytest.raises(ConfigError, match=r"METRICS_LISTEN: .* is not HOST:PORT; e\.g\."):
            load_settings(metrics_listen=wrong)


async def test_liveness_fails_while_the_event_loop_is_stuck_and_says_why(tmp_path: Path) -> None:
    settings = load_settings(metrics_listen="127.0.0.1:0", data_dir=tmp_path)
    engine = create_db_engine(settings.database_url)  # never queried here
    listener = Observability(settings, engine, asyncio.get_running_loop())
    listener.start()
    base = f"http://127.0.0.1:{listener.port}"
    try:
        assert await asyncio.to_thread(http_get, base + "/healthz") == (
            200,
            "ok: the event loop answers\n",
        )
        status, line = await asyncio.to_thread(http_get, base + "/readyz")
        assert (status, line) == (503, "unhealthy: starting, not yet active nor standby\n")
        answers: list[tuple[int, str]] = []
        asker = threading.Thread(target=lambda: answers.append(http_get(base + "/healthz")))
        asker.start()
        # The loop is stuck (a blocking call on it) until the listener has answered.
        asker.join(timeout=LOOP_TIMEOUT + 30)
        assert answers == [(503, "not alive: the event loop did not answer within 1 s\n")]
    finally:
        listener.close()
        engine.dispose()


def test_a_port_taken_stops_the_start_with_one_line(tmp_path: Path) -> None:
    settings = load_settings(metrics_listen="127.0.0.1:0", data_dir=tmp_path)
    engine = create_db_engine(settings.database_url)
    first = Observability(settings, engine, asyncio.new_event_loop())
    first.start()
    taken = load_settings(metrics_listen=f"127.0.0.1:{first.port}", data_dir=tmp_path)
    try:
        with pytest.raises(ConfigError, match=r"METRICS_LISTEN: cannot listen on 127.0.0.1:"):
            Observability(taken, engine, first.loop).start()
    finally:
        first.close()
        first.loop.close()
        engine.dispose()
