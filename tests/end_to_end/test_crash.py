"""Crash test: the real service is SIGKILLed in the middle of a fan-out, then started again.

The promise under test: every subscribed chat gets the new paper, and a chat sees it twice only
if its send was in flight (reached Telegram, unconfirmed) at the moment of the kill. So the
duplicates are bounded by the sender's concurrency, and nothing is ever lost. Three more chats
hold the paper across the kill (paused, in quiet hours, waiting for a digest): they get nothing
before, and exactly one message each once let go while the service was down.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest
from sqlalchemy import Engine

from bot.delivery.sender import concurrency_for
from bot.digest import render_digest_parts
from tests.fakes.arxiv_api import FakeArxiv
from tests.fakes.corpus import dezun_dong_records, make_record
from tests.fakes.telegram import FakeTelegram, Fault, RateLimits
from tests.harness.patience import PATIENCE, wait_until
from watcher.calendars.quiet_hours import QuietHours
from watcher.calendars.schedule import EVERY_DAY, DigestSchedule
from watcher.runtime.db import open_database
from watcher.store import Store
from watcher.store.chats import Chats
from watcher.store.outbox import Outbox
from watcher.store.tables import NO_THREAD

pytestmark = pytest.mark.slow

TOKEN = "123456:TEST-crash-token"
CHATS = range(1001, 1201)  # 200 subscribed private chats
PAUSED, QUIET, DIGEST = 2001, 2002, 2003  # chats that hold the paper across the kill
KILL_AFTER = 60  # messages the fake has received when the service is killed
# Sends answered only after the kill: delivered, never confirmed. Without them a kill rarely
# lands while a send is on the wire (each takes a few ms), and the bound would go untested.
UNCONFIRMED = 5
# The sender's default; the front end builds it so.
RATE = 50  # TELEGRAM_RATE_OVERALL, a paid broadcast's (above the free 30 a second)
CONCURRENCY = concurrency_for(RATE)  # the sender's sends at once at that rate


class Service:
    """`python -m watcher run` as a subprocess, its output in a log file."""

    def __init__(self, env: dict[str, str], workdir: Path) -> None:
        self.env, self.workdir = env, workdir
        self.log = workdir / "service.log"
        self.process: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        with self.log.open("ab") as log:
            self.process = subprocess.Popen(
                [sys.executable, "-m", "watcher", "run"],
                env=self.env,
                cwd=self.workdir,
                stdout=log,
                stderr=subprocess.STDOUT,
            )

    def alive(self) -> bool:
        return self.process is not None and self.process.poll() is None

    def signal(self, signum: int) -> int:
        assert self.process is not None
        self.process.send_signal(signum)
        return self.process.wait(timeout=PATIENCE)

    def output(self) -> str:
        return self.log.read_text(errors="replace") if self.log.exists() else ""

    def close(self) -> None:
        if self.alive():
            self.signal(signal.SIGKILL)


@pytest.fixture
def fakes() -> Iterator[tuple[FakeArxiv, FakeTelegram]]:
    # Telegram's limits stay enforced, above the rate the service is configured for.
    limits = RateLimits(global_per_second=200, global_burst=200)
    with FakeArxiv(dezun_dong_records()) as arxiv, FakeTelegram(TOKEN, rate_limits=limits) as tg:
        yield arxiv, tg
        assert tg.internal_errors == []


@pytest.fixture
def service(
    fakes: tuple[FakeArxiv, FakeTelegram], database_url: str, tmp_path: Path
) -> Iterator[Service]:
    arxiv, telegram = fakes
    env = {
        **os.environ,
        "EARLY_LISTINGS": "off",  # arXiv's own listings, else: never from a test
        "POLL_SCHEDULE": "interval",  # poll every POLL_INTERVAL, not at arXiv's times
        "DATABASE_URL": database_url,
        "DATA_DIR": str(tmp_path / "data"),
        "ARXIV_API_URL": arxiv.url,
        "ARXIV_MIN_INTERVAL": "0",
        "POLL_INTERVAL": "1",
        "WATCH_AUTHORS": "Dezun Dong",
        "TELEGRAM_BOT_TOKEN": TOKEN,
        "TELEGRAM_API_URL": telegram.base_url,
        "TELEGRAM_RATE_OVERALL": str(RATE),  # 200 chats take about 4 s: time to kill it midway
        "TELEGRAM_PAID_BROADCAST": "on",
        "LOG_LEVEL": "INFO",
    }
    service = Service(env, tmp_path)
    try:
        yield service
    finally:
        service.close()


@pytest.fixture
def engine(service: Service, database_url: str) -> Iterator[Engine]:
    """The service's database, opened by the test once the service has created it."""
    service.start()
    holder: list[Engine] = []

    def backfilled() -> bool:
        if not service.alive():
            raise RuntimeError("the service exited:\n" + service.output())
        if not holder:
            try:
                holder.append(open_database(database_url, migrate=False))
            except Exception:
                return False
        try:
            followed = Store(holder[0]).followed()
        except Exception:
            return False  # tables not created yet
        return bool(followed) and followed[0].backfilled

    wait_until(backfilled, "the first (silent) poll has run")
    yield holder[0]
    holder[0].dispose()


def test_a_fan_out_killed_midway_reaches_every_chat_with_few_duplicates(
    fakes: tuple[FakeArxiv, FakeTelegram], service: Service, engine: Engine
) -> None:
    arxiv, telegram = fakes
    store, chats, outbox = Store(engine), Chats(engine), Outbox(engine)
    (followed,) = store.followed()
    for chat_id in [*CHATS, PAUSED, QUIET, DIGEST]:
        chats.seen(chat_id, kind="private")
        chats.subscribe(chat_id, followed.id)
    chats.speaking.pause(PAUSED, NO_THREAD)
    now = datetime.now(UTC)
    minute = now.hour * 60 + now.minute  # quiet hours from an hour ago to an hour ahead (UTC)
    chats.speaking.set_quiet(
        QUIET, NO_THREAD, QuietHours((minute - 60) % 1440, (minute + 60) % 1440)
    )
    later = datetime.fromtimestamp(now.timestamp() + 6 * 3600, UTC).time().replace(second=0)
    chats.digests.set_schedule(DIGEST, DigestSchedule(later, EVERY_DAY), render=render_digest_parts)
    paper = make_record(
        arxiv_id="2612.00042",
        title="Crash-Safe Fan-Out for Interconnection Network Alerts",
        authors=["Ann Other", "Dezun Dong"],
    )
    arxiv.add(paper)

    try:
        wait_until(lambda: telegram.sent_count() >= KILL_AFTER, "the fan-out is under way")
        # Killed as soon as the unconfirmed sends have arrived, while their answers are held:
        # a kill later than the service's 5 s read timeout (a loaded machine) would let it
        # retry them first, and a retry is not what a crash costs.
        telegram.inject(*[Fault.slow(30.0)] * UNCONFIRMED)
        wait_until(lambda: telegram.faults_pending() == 0, "the unconfirmed sends have arrived")
        assert service.signal(signal.SIGKILL) == -signal.SIGKILL
        time.sleep(0.2)  # let the fake finish requests that were already on the wire
        at_kill = len(telegram.sent())
        stats = outbox.stats()
        assert at_kill < len(CHATS), "killed too late: every message had gone out"
        # Marked sent only once confirmed: the outbox never claims more than Telegram received.
        assert stats.sent <= at_kill
        assert stats.sent + stats.pending + stats.held == len(CHATS) + 3
        assert (stats.held, [telegram.sent(c) for c in (PAUSED, QUIET, DIGEST)]) == (1, [[]] * 3)
        # Let go while the service is down: /resume, /quiet off, /digest off (sent at once).
        chats.speaking.resume(PAUSED, NO_THREAD)
        chats.speaking.set_quiet(QUIET, NO_THREAD, None)
        chats.digests.set_schedule(DIGEST, None, render=render_digest_parts)

        service.start()
        wait_until(lambda: outbox.stats().sent == len(CHATS) + 3, "every delivery is confirmed")
        assert service.signal(signal.SIGTERM) == 0  # and it stops cleanly
    except BaseException:
        print(service.output()[-5000:])
        raise

    received = {chat_id: telegram.sent(chat_id) for chat_id in CHATS}
    assert all(received.values()), "a chat never got the paper"
    assert all(paper.title in m.text for messages in received.values() for m in messages)
    duplicates = sum(len(messages) - 1 for messages in received.values())
    print(
        f"\ncrash test: killed after {at_kill} of {len(CHATS)} messages "
        f"({stats.sent} confirmed in the outbox); duplicates after restart: {duplicates} "
        f"(bound: concurrency {CONCURRENCY}); 429s: {telegram.count_429}"
    )
    assert UNCONFIRMED <= duplicates <= CONCURRENCY
    held = [telegram.sent(chat_id) for chat_id in (PAUSED, QUIET, DIGEST)]
    assert [len(messages) for messages in held] == [1, 1, 1]  # held, then sent exactly once
    assert all(paper.title in messages[0].text for messages in held)
    assert len(telegram.sent()) == len(CHATS) + 3 + duplicates  # nobody else was messaged
    assert TOKEN.split(":")[1] not in service.output()
    # The front end's lifecycle ran too: the command menu was published, updates long-polled.
    assert telegram.commands
    assert telegram.calls("getUpdates") > 0
