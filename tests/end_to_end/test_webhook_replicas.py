"""Webhook mode under two replicas, in one process: two real services (`run_service`) on one
database, each reaching the fake Bot API under a name of its own. Only the active one listens
and registers the webhook; the standby makes no request and does not listen. When the active one
stops it leaves the webhook registered (no deleteWebhook), and the standby that takes over
registers itself and answers the updates Telegram pushes. Nobody ever calls getUpdates.
"""

from __future__ import annotations

import asyncio
import socket
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from sqlalchemy import Engine

from tests.fakes.arxiv_api import FakeArxiv
from tests.fakes.corpus import dezun_dong_records
from tests.fakes.telegram import FakeTelegram, RateLimits
from tests.harness.patience import PATIENCE
from watcher.runtime.service import run_service
from watcher.runtime.status import live_instances
from watcher.settings import Settings

TOKEN = "123456:TEST-webhook-replicas-token"
SECRET = "Replica_webhook-secret-4f9Kq2Zx7Lm3Np8Rt"
PUBLIC_URL = "https://bot.example.org/arxiv-watcher/updates"
FIRST_USER, SECOND_USER = 7001, 7002


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def listening(port: int) -> bool:
    with socket.socket() as probe:
        return probe.connect_ex(("127.0.0.1", port)) == 0


class Replica:
    def __init__(self, name: str, settings: Settings, port: int) -> None:
        self.name, self.settings, self.port = name, settings, port
        self.stopping = asyncio.Event()
        self.task = asyncio.create_task(run_service(settings, stopping=self.stopping), name=name)

    def role(self) -> str | None:
        states = live_instances(self.settings.data_dir)
        return states[0].role if states else None

    async def stop(self) -> None:
        self.stopping.set()
        await asyncio.wait_for(self.task, timeout=PATIENCE)


class Replicas:
    """Services started on one database and the fakes; `stop_all` stops those still running."""

    def __init__(
        self, tmp_path: Path, database_url: str, arxiv: FakeArxiv, telegram: FakeTelegram
    ) -> None:
        self.tmp_path, self.database_url = tmp_path, database_url
        self.arxiv, self.telegram = arxiv, telegram
        self.started: list[Replica] = []

    def start(self, name: str) -> Replica:
        port = free_port()
        settings = Settings(
            _env_file=None,
            database_url=self.database_url,
            data_dir=self.tmp_path / name,  # its status file
            arxiv_api_url=self.arxiv.url_for(name),
            arxiv_min_interval=0,
            poll_schedule="interval",
            early_listings=False,
            watch_authors=["Dezun Dong"],
            telegram_bot_token=TOKEN,
            telegram_api_url=self.telegram.base_url_for(name),
            telegram_webhook_url=PUBLIC_URL,
            telegram_webhook_listen=f"127.0.0.1:{port}",
            telegram_webhook_secret=SECRET,
        )
        self.started.append(Replica(name, settings, port))
        return self.started[-1]

    async def stop_all(self) -> None:
        for replica in self.started:
            if not replica.task.done():
                await replica.stop()


@pytest.fixture
async def replicas(tmp_path: Path, engine: Engine, database_url: str) -> AsyncIterator[Replicas]:
    """`engine`: the database is migrated first, as `arxiv-watcher db upgrade` would."""
    with (
        FakeArxiv(dezun_dong_records()) as arxiv,
        FakeTelegram(TOKEN, rate_limits=RateLimits.disabled()) as telegram,
    ):
        running = Replicas(tmp_path, database_url, arxiv, telegram)
        try:
            yield running
        finally:
            await running.stop_all()


async def test_only_the_active_replica_listens_and_registers_and_a_takeover_registers_again(
    replicas: Replicas,
) -> None:
    telegram = replicas.telegram
    a = replicas.start("a")
    await telegram.wait_for(lambda: telegram.requests_from("a", "setWebhook"), PATIENCE)
    await telegram.wait_for(lambda: listening(a.port), PATIENCE)
    telegram.webhooks.route(f"http://127.0.0.1:{a.port}")
    telegram.user_sends(FIRST_USER, "/start")
    await telegram.wait_for(lambda: telegram.sent(FIRST_USER), PATIENCE)

    b = replicas.start("b")
    await telegram.wait_for(lambda: b.role() == "standby", PATIENCE)
    assert a.role() == "active"
    assert telegram.requests_from("b") == []  # no setWebhook, no getMe: nothing
    assert not listening(b.port)

    await a.stop()
    assert not listening(a.port)
    assert telegram.webhooks.url == PUBLIC_URL  # left registered for the next active one
    await telegram.wait_for(lambda: telegram.requests_from("b", "setWebhook"), PATIENCE)
    await telegram.wait_for(lambda: listening(b.port), PATIENCE)
    telegram.webhooks.route(f"http://127.0.0.1:{b.port}")  # the proxy reaches b now
    telegram.user_sends(SECOND_USER, "/start")
    await telegram.wait_for(lambda: telegram.sent(SECOND_USER), PATIENCE)
    assert b.role() == "active"
    await replicas.stop_all()

    registrations = [r for r in telegram.requests if r.method == "setWebhook"]
    assert [r.client for r in registrations] == ["a", "b"]
    for registration in registrations:
        assert registration.params["url"] == PUBLIC_URL
        assert registration.params["secret_token"] == SECRET
        assert registration.status == 200
    assert telegram.calls("deleteWebhook") == 0  # neither start nor stop removed it
    assert telegram.calls("getUpdates") == 0
    pushes = telegram.webhooks.received()
    assert pushes
    assert all(push.status == 200 and push.with_secret for push in pushes)
    assert telegram.internal_errors == []
