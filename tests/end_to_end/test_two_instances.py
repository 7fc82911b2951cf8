"""Two real services on one database: one is active, the other a standby that takes over.

Both are `arxiv-watcher run` processes with the same token and database, each reaching the fake
arXiv and the fake Bot API under a name of its own (`url_for`, `base_url_for`), so the fakes
count each one's requests. The standby must do nothing at all (no poll, no send, no getUpdates:
two pollers on one token get 409s), report itself healthy as a standby, and finish a 500-chat
fan-out when the active one is SIGKILLed in the middle of it: nobody missed, and a chat sees the
paper twice only if its send was in flight at the kill, so at most the sender's concurrency.
"""

from __future__ import annotations

import signal
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import Engine

from bot.delivery.sender import concurrency_for
from tests.fakes.arxiv_api import FakeArxiv
from tests.fakes.corpus import dezun_dong_records, make_record
from tests.fakes.telegram import FakeTelegram, Fault, RateLimits
from tests.harness.cli_helpers import ServiceProcess, run_cli
from tests.harness.databases import take_leader_lock_away
from tests.harness.patience import wait_until
from watcher.runtime.db import open_database
from watcher.store import Store
from watcher.store.chats import Chats
from watcher.store.outbox import Outbox

pytestmark = pytest.mark.slow

TOKEN = "123456:TEST-two-instances-token"
CHATS = range(3001, 3501)  # 500 subscribed private chats
KILL_AFTER = 100  # messages the fake has received when the active service is killed
UNCONFIRMED = 5  # sends answered only after the kill: delivered, never confirmed (see test_crash)
RATE = 200  # TELEGRAM_RATE_OVERALL, a paid broadcast's (above the free 30 a second)
CONCURRENCY = concurrency_for(RATE)  # the sender's sends at once at that rate
LOST_LOCK_CHATS = range(4001, 4151)
TAKEOVER_LIMIT = 30.0  # seconds: the standby is active again within this after a SIGKILL


class World:
    def __init__(self, tmp_path: Path, database_url: str, arxiv: FakeArxiv, tg: FakeTelegram):
        self.tmp_path, self.database_url = tmp_path, database_url
        self.arxiv, self.telegram = arxiv, tg
        self.services: dict[str, ServiceProcess] = {}

    def settings(self, name: str) -> dict[str, str]:
        return {
            "DATABASE_URL": self.database_url,
            "DATA_DIR": str(self.tmp_path / name),  # its status file, read by `health`
            "ARXIV_API_URL": self.arxiv.url_for(name),
            "ARXIV_MIN_INTERVAL": "0",
            "POLL_INTERVAL": "1",
            "WATCH_AUTHORS": "Dezun Dong",
            "TELEGRAM_BOT_TOKEN": TOKEN,
            "TELEGRAM_API_URL": self.telegram.base_url_for(name),
            "TELEGRAM_RATE_OVERALL": str(RATE),  # 500 chats take 2.5 s: time to kill it midway
            "TELEGRAM_PAID_BROADCAST": "on",
        }

    def start(self, name: str) -> ServiceProcess:
        service = ServiceProcess(cwd=self.tmp_path, **self.settings(name))
        self.services[name] = service
        return service

    def health(self, name: str) -> tuple[int, str]:
        # `health` judges "polled recently" by POLL_INTERVAL; at this test's 1 s a loaded
        # machine's CLI start alone can pass two intervals, so it is asked with 60 s.
        settings = {**self.settings(name), "POLL_INTERVAL": "60"}
        result = run_cli("health", cwd=self.tmp_path, **settings)
        return result.returncode, result.stdout.strip()

    def output(self) -> str:
        return "\n".join(f"--- {n}:\n{s.output[-4000:]}" for n, s in self.services.items())


@pytest.fixture
def world(tmp_path: Path, database_url: str) -> Iterator[World]:
    limits = RateLimits(global_per_second=300, global_burst=300)
    with FakeArxiv(dezun_dong_records()) as arxiv, FakeTelegram(TOKEN, rate_limits=limits) as tg:
        world = World(tmp_path, database_url, arxiv, tg)
        try:
            yield world
        finally:
            for service in world.services.values():
                if service.process.poll() is None:
                    service.stop(signal.SIGKILL)
        assert tg.internal_errors == []


def first_request_after(requests: list[float], moment: float) -> float | None:
    later = [at for at in requests if at >= moment]
    return min(later) if later else None


def test_a_standby_does_nothing_until_the_active_one_dies_then_finishes_its_fan_out(
    world: World, database_url: str
) -> None:
    arxiv, telegram = world.arxiv, world.telegram
    active = world.start("a")
    try:
        active.wait_for(lambda: "stored silently" in active.output)
        active.wait_for(lambda: bool(telegram.commands))  # its bot is up
        standby = world.start("b")
        standby.wait_for(lambda: "standby:" in standby.output)
        engine: Engine = open_database(database_url, migrate=False)
        store, chats, outbox = Store(engine), Chats(engine), Outbox(engine)

        code, line = world.health("b")
        assert code == 0, line
        assert line.startswith("ok: standby"), line
        code, line = world.health("a")
        assert code == 0, line
        assert "active (pid" in line, line

        (followed,) = store.followed()
        for chat_id in CHATS:
            chats.seen(chat_id, kind="private")
            chats.subscribe(chat_id, followed.id)
        paper = make_record(
            arxiv_id="2612.00077",
            title="Leader Election for Outbox Drainers",
            authors=["Ann Other", "Dezun Dong"],
        )
        arxiv.add(paper)

        wait_until(lambda: telegram.sent_count() >= KILL_AFTER, "the fan-out is under way")
        # Killed as soon as the unconfirmed sends have arrived, while their answers are held:
        # a kill later than the service's 5 s read timeout (a loaded machine) would let it
        # retry them first, and a retry is not what a crash costs.
        telegram.inject(*[Fault.slow(30.0)] * UNCONFIRMED)
        wait_until(lambda: telegram.faults_pending() == 0, "the unconfirmed sends have arrived")
        # The standby so far: not one request to arXiv or Telegram.
        assert arxiv.api_requests("b") == []
        assert telegram.requests_from("b") == []
        assert arxiv.api_requests("a")
        killed_at = time.time()
        assert active.stop(signal.SIGKILL) == -signal.SIGKILL
        time.sleep(0.2)  # let the fake finish requests that were already on the wire
        at_kill = telegram.sent_count()
        assert at_kill < len(CHATS), "killed too late: every message had gone out"

        standby.wait_for(lambda: "active:" in standby.output, timeout=TAKEOVER_LIMIT)
        wait_until(lambda: outbox.stats().sent == len(CHATS), "every delivery is confirmed")
        assert standby.stop(signal.SIGTERM) == 0
        assert list((world.tmp_path / "b").glob("*.status")) == []  # it cleaned up
        engine.dispose()
    except BaseException:
        print(world.output())
        raise

    received = {chat_id: telegram.sent(chat_id) for chat_id in CHATS}
    missed = sum(1 for messages in received.values() if not messages)
    duplicates = sum(max(len(messages) - 1, 0) for messages in received.values())
    from_standby = [r.time for r in telegram.requests_from("b")]
    sends_from_standby = [r.time for r in telegram.requests_from("b", "sendMessage")]
    took_over = first_request_after(from_standby, killed_at)
    first_send = first_request_after(sends_from_standby, killed_at)
    assert took_over is not None
    assert first_send is not None
    conflicts = [r for r in telegram.requests if r.method == "getUpdates" and r.status == 409]
    print(
        f"\ntwo instances ({'PostgreSQL' if 'postgresql' in database_url else 'SQLite'}): "
        f"active killed after {at_kill} of {len(CHATS)} messages; missed {missed}, "
        f"duplicates {duplicates} (bound: concurrency {CONCURRENCY}); standby's first request "
        f"{took_over - killed_at:.1f} s after the kill, first send "
        f"{first_send - killed_at:.1f} s; getUpdates 409s: {len(conflicts)}"
    )
    assert missed == 0
    assert UNCONFIRMED <= duplicates <= CONCURRENCY
    assert conflicts == []
    assert all(paper.title in m.text for messages in received.values() for m in messages)
    assert arxiv.api_requests("b")  # the standby polls now
    assert TOKEN.split(":")[1] not in world.output()


def test_an_active_service_that_loses_its_lock_mid_fan_out_stops_and_one_carries_on(
    world: World, database_url: str
) -> None:
    """The lock's session ended (a database restart, an admin), or its file deleted, while the
    active service is sending: it stops polling and sending and waits as a standby, one of the
    two is active again, and the fan-out ends with nobody missed and few duplicates."""
    telegram = world.telegram
    first = world.start("a")
    try:
        first.wait_for(lambda: "stored silently" in first.output)
        second = world.start("b")
        second.wait_for(lambda: "standby:" in second.output)
        engine = open_database(database_url, migrate=False)
        (followed,) = Store(engine).followed()
        chats, outbox = Chats(engine), Outbox(engine)
        for chat_id in LOST_LOCK_CHATS:
            chats.seen(chat_id, kind="private")
            chats.subscribe(chat_id, followed.id)
        paper = make_record(arxiv_id="2612.00078", title="Fencing Tokens", authors=["Dezun Dong"])
        world.arxiv.add(paper)
        wait_until(lambda: telegram.sent_count() >= 40, "the fan-out is under way")

        take_leader_lock_away(database_url)
        first.wait_for(lambda: "no longer active: back to standby" in first.output)
        # The first one tries again at once, the second within 2 s: either may win, once.
        wait_until(
            lambda: (
                sum(s.output.count("watcher.runtime.leader: active:") for s in (first, second)) == 2
            ),
            "one of them is active again",
        )
        standbys = [world.health(name)[1].startswith("ok: standby") for name in ("a", "b")]
        assert sorted(standbys) == [False, True]
        wait_until(lambda: outbox.stats().sent == len(LOST_LOCK_CHATS), "every chat has it")
        engine.dispose()
        assert first.stop() == 0
        assert second.stop() == 0
    except BaseException:
        print(world.output())
        raise
    received = [len(telegram.sent(chat_id)) for chat_id in LOST_LOCK_CHATS]
    duplicates = sum(count - 1 for count in received if count)
    print(f"\nlock taken away mid fan-out: missed {received.count(0)}, duplicates {duplicates}")
    assert received.count(0) == 0
    assert duplicates <= CONCURRENCY
