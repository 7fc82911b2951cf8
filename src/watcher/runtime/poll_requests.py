"""Rounds of polls asked for now (`Core.poll_soon`: a new follow's history), beside the schedule.

Many requests while a round waits to begin are one round: that round reads what is due when it
begins, so it fetches every follow asked for before. A request while a round runs makes one
more round after it (the running one may have read what was due before the new follow was
stored). So at most two are ever in the scheduler, one running and one waiting, and a
multi-name /subscribe never makes apscheduler skip a run ("maximum number of running instances
reached", which it logs as a WARNING).
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Awaitable, Callable

from apscheduler.schedulers.base import BaseScheduler

JOB_ID = "poll-soon"


class PollRequests:
    """`request()` (from any thread) asks for a round of `poll_round` now."""

    def __init__(self, scheduler: BaseScheduler, poll_round: Callable[[], Awaitable[None]]) -> None:
        self._scheduler = scheduler
        self._poll_round = poll_round
        self._guard = threading.Lock()
        self._waiting = False  # a round was asked for and has not begun
        self._one_at_a_time = asyncio.Lock()

    def request(self) -> None:
        with self._guard:
            if self._waiting:
                return  # the round waiting to begin will see this follow too
            self._waiting = True
        self._scheduler.add_job(
            self._run,
            id=JOB_ID,
            replace_existing=True,
            max_instances=2,  # the one running and the one waiting for it
            misfire_grace_time=None,
        )

    async def _run(self) -> None:
        async with self._one_at_a_time:
            with self._guard:
                self._waiting = False
            await self._poll_round()
