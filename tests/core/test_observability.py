"""The listener's readiness and leader gauge in each role, on a real database: a standby is
ready and says so, with `arxiv_watcher_leader 0`; the active instance is judged as
`arxiv-watcher health` judges it, and its gauges come from the store."""

from __future__ import annotations

import asyncio
from pathlib import Path

from sqlalchemy import Engine

from tests.harness.http_probe import http_get, scrape, value
from watcher.observability import Observability
from watcher.settings import load_settings
from watcher.store import Store


async def test_readiness_and_leader_follow_the_role(
    engine: Engine, database_url: str, tmp_path: Path
) -> None:
    settings = load_settings(
        database_url=database_url, data_dir=tmp_path, metrics_listen="127.0.0.1:0"
    )
    listener = Observability(settings, engine, asyncio.get_running_loop())
    listener.start()
    base = f"http://127.0.0.1:{listener.port}"
    try:
        listener.set_role("standby")
        status, line = await asyncio.to_thread(http_get, base + "/readyz")
        assert status == 200 and line.startswith("ok: standby (pid "), line
        samples = await asyncio.to_thread(scrape, base)
        assert value(samples, "arxiv_watcher_leader") == 0

        Store(engine).follow(["Dezun Dong"])  # never polled yet
        listener.set_role("active")
        assert await asyncio.to_thread(http_get, base + "/readyz") == (
            503,
            "unhealthy: no successful poll yet\n",
        )
        samples = await asyncio.to_thread(scrape, base)
        assert value(samples, "arxiv_watcher_leader") == 1
        assert value(samples, "arxiv_watcher_follows", kind="person") == 1
        assert value(samples, "arxiv_watcher_outbox_pending") == 0
    finally:
        listener.close()
