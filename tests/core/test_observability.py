"""The listener's readiness and leader gauge in each role, on a real database: a standby is
ready and says so, with `arxiv_watcher_leader 0`; the active instance is judged as
`arxiv-watcher health` judges it, and its gauges come from the store. Idle connections cannot
wear it down (issue 29, item 7): 200 of them hold no thread, `/readyz` still answers within 1 s,
and they are closed, the oldest at once beyond the cap, the others after 5 s idle."""

from __future__ import annotations

import asyncio
import socket
import threading
import time
from pathlib import Path

from sqlalchemy import Engine

from tests.harness.http_probe import http_get, scrape, value
from tests.harness.patience import PATIENCE
from watcher.runtime.http_listener import IDLE_SECONDS, MAX_CONNECTIONS, MAX_THREADS
from watcher.runtime.observability import Observability
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


def test_200_idle_connections_hold_no_thread_and_readyz_answers_within_1_s(
    engine: Engine, database_url: str, tmp_path: Path
) -> None:
    settings = load_settings(
        database_url=database_url, data_dir=tmp_path, metrics_listen="127.0.0.1:0"
    )
    loop = asyncio.new_event_loop()
    threads_before = threading.active_count()
    listener = Observability(settings, engine, loop)
    listener.start()
    listener.set_role("standby")
    address = ("127.0.0.1", listener.port)
    idle: list[socket.socket] = []
    try:
        opened = time.monotonic()
        idle = [socket.create_connection(address, timeout=PATIENCE) for _ in range(200)]
        # Asked after the 200 connected, so answered once the listener has taken them all in.
        asked = time.monotonic()
        status, line = http_get(f"http://{address[0]}:{address[1]}/readyz")
        assert time.monotonic() - asked < 1.0
        assert status == 200 and line.startswith("ok: standby"), line
        # The listener's own thread and its workers; before, a thread a connection (201).
        assert threading.active_count() - threads_before <= 1 + MAX_THREADS

        # Beyond the cap the oldest were closed at once; the others when idle for 5 s.
        closed_at = []
        for connection in idle:
            assert connection.recv(1) == b""
            closed_at.append(time.monotonic() - opened)
        assert sum(1 for at in closed_at if at < IDLE_SECONDS - 0.5) >= 200 - MAX_CONNECTIONS
        assert IDLE_SECONDS - 0.5 <= max(closed_at) < IDLE_SECONDS + PATIENCE
    finally:
        for connection in idle:
            connection.close()
        listener.close()
        loop.close()
