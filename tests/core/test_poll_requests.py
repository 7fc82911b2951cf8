"""Rounds of polls asked for now (issue 30, item 9): a multi-name /subscribe asks for one per
new follow; on the real apscheduler, requests while a round runs make exactly one more round,
and apscheduler never skips a run ("maximum number of running instances reached", a WARNING)."""

from __future__ import annotations

import asyncio
import logging

import pytest
from apscheduler.schedulers.asyncio import AsyncIOScheduler

from watcher.runtime.poll_requests import PollRequests

PATIENCE = 5.0


class Rounds:
    """A poll round that counts itself and, while `hold` is set, waits for `release`."""

    def __init__(self, *, hold: bool) -> None:
        self.begun = 0
        self.release = asyncio.Event()
        if not hold:
            self.release.set()
        self._started = [asyncio.Event() for _ in range(4)]

    async def poll_round(self) -> None:
        self._started[self.begun].set()
        self.begun += 1
        await self.release.wait()

    async def started(self, number: int) -> None:
        await asyncio.wait_for(self._started[number - 1].wait(), timeout=PATIENCE)


async def test_requests_during_a_round_make_one_more_round_and_no_warning(
    caplog: pytest.LogCaptureFixture,
) -> None:
    scheduler = AsyncIOScheduler()
    rounds = Rounds(hold=True)
    requests = PollRequests(scheduler, rounds.poll_round)
    scheduler.start()
    try:
        with caplog.at_level(logging.INFO, logger="apscheduler"):
            requests.request()
            await rounds.started(1)
            for _ in range(5):  # five more names followed while the first round runs
                requests.request()
                await asyncio.sleep(0.05)  # room for the scheduler to start what it was given
            rounds.release.set()
            await rounds.started(2)
            await asyncio.sleep(0.2)  # room for a third round, which must not come
    finally:
        scheduler.shutdown(wait=False)

    assert rounds.begun == 2
    warnings = [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING]
    assert warnings == []


async def test_a_request_after_a_round_ended_starts_a_new_one() -> None:
    scheduler = AsyncIOScheduler()
    rounds = Rounds(hold=False)
    requests = PollRequests(scheduler, rounds.poll_round)
    scheduler.start()
    try:
        requests.request()
        await rounds.started(1)
        await asyncio.sleep(0.05)  # the first round ends
        requests.request()
        await rounds.started(2)
    finally:
        scheduler.shutdown(wait=False)
    assert rounds.begun == 2
