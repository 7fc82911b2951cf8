"""The leader lock on the real database: one holder at a time, per database and schema, and a
holder that loses it (its session killed, its lock file deleted) finds out. And what `health`
makes of the status file a service leaves behind."""

from __future__ import annotations

import asyncio
import logging
import os
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.harness.cli_helpers import run_cli
from tests.harness.databases import (
    BACKEND,
    POSTGRES_URL,
    fresh_postgres_schema,
    take_leader_lock_away,
)
from tests.harness.patience import PATIENCE
from watcher.runtime.leader import LeaderLock, Leadership, leader_lock
from watcher.runtime.status import StatusFile


@pytest.fixture
def locks(database_url: str) -> Iterator[tuple[LeaderLock, LeaderLock]]:
    """Two services' locks on one database."""
    first, second = leader_lock(database_url), leader_lock(database_url)
    yield first, second
    first.release()
    second.release()


def test_one_holder_at_a_time_and_the_next_one_takes_over(
    locks: tuple[LeaderLock, LeaderLock],
) -> None:
    first, second = locks
    assert first.try_acquire()
    assert not second.try_acquire()
    assert first.still_held()
    assert not second.still_held()
    first.release()
    assert second.try_acquire()
    assert not first.try_acquire()


@pytest.mark.database
def test_services_on_other_schemas_of_one_database_do_not_block_each_other() -> None:
    if BACKEND != "postgres":
        pytest.skip("schemas are PostgreSQL's")
    with fresh_postgres_schema(POSTGRES_URL) as one, fresh_postgres_schema(POSTGRES_URL) as two:
        first, second = leader_lock(one), leader_lock(two)
        try:
            assert first.try_acquire()
            assert second.try_acquire()
        finally:
            first.release()
            second.release()


async def test_a_holder_whose_lock_is_taken_away_stops_before_another_takes_over(
    locks: tuple[LeaderLock, LeaderLock], database_url: str, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="watcher.runtime.leader")
    first, second = locks
    roles: list[str] = []
    # The standby tries often; the holder checks only every second: the new holder must still
    # wait until the old one has noticed, or both would send for a while.
    active = Leadership(first, on_role=roles.append, check_seconds=1.0)
    standby = Leadership(second, retry_seconds=0.05, check_seconds=1.0)
    never = asyncio.Event()
    assert await active.acquire(until=never)
    waiting = asyncio.create_task(standby.acquire(until=never))
    watching = asyncio.create_task(active.watch())
    await asyncio.sleep(0.5)
    assert not waiting.done()
    assert not watching.done()
    assert roles[0] == "active"

    take_leader_lock_away(database_url)
    async with asyncio.timeout(PATIENCE):
        assert await waiting  # the standby took over
    assert watching.done(), "the new holder began before the old one noticed it lost the lock"
    await active.release()
    messages = [record.getMessage() for record in caplog.records]
    assert sum(message.startswith("standby:") for message in messages) == 1  # one line
    assert any(message.startswith("lost the") for message in messages)


async def test_a_standby_stops_waiting_when_the_service_stops(
    locks: tuple[LeaderLock, LeaderLock],
) -> None:
    first, second = locks
    assert first.try_acquire()
    stopping = asyncio.Event()
    waiting = asyncio.create_task(Leadership(second, retry_seconds=60).acquire(until=stopping))
    await asyncio.sleep(0.2)
    stopping.set()
    async with asyncio.timeout(PATIENCE):
        assert await waiting is False


def test_health_reads_a_standby_from_its_fresh_status_file_and_ignores_a_stale_one(
    tmp_path: Path, database_url: str
) -> None:
    data = tmp_path / "data"
    status = StatusFile(data, pid=4242)
    status.write("standby")
    fresh = run_cli("health", cwd=tmp_path, DATABASE_URL=database_url, DATA_DIR=str(data))
    assert fresh.returncode == 0
    assert fresh.stdout.startswith("ok: standby (pid 4242, since"), fresh.stdout

    long_ago = time.time() - 120  # a service SIGKILLed two minutes ago left it behind
    os.utime(status.path, (long_ago, long_ago))
    stale = run_cli("health", cwd=tmp_path, DATABASE_URL=database_url, DATA_DIR=str(data))
    assert stale.returncode == 1
    assert "standby" not in stale.stdout
    assert stale.stdout.startswith("unhealthy: database migrations are pending"), stale.stdout
