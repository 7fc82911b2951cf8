"""The time the service runs on.

The runtime owns one clock, built in `run_service` (`watcher.runtime.service`) and passed down: the
poll, the listing read and its scheduling, the outbox's pruning, the sender (what is due, digests,
quiet hours, retries) and the store calls they make take it, so a test can turn it (seconds of
a simulated day instead of real minutes). A clock answers now (`clock()`, aware UTC) and sleeps
on its own time (`await clock.sleep(seconds)`): a wait for an instant ends when the clock
reaches it, however it got there. `SYSTEM_CLOCK` is the real one; `utcnow` is its now, for the
stamps that need no sleeping.
"""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime
from typing import Protocol

# A wait for an instant on the real clock looks at the wall clock again at least this often, so
# a wall clock set forward or back (NTP, a suspended machine) moves the wake-up within a minute.
WALL_RECHECK = 60.0


class Clock(Protocol):
    """Now, and a sleep measured on the same time."""

    def __call__(self) -> datetime:
        """Now, timezone-aware UTC."""
        ...

    async def sleep(self, seconds: float) -> None:
        """Return once `seconds` of this clock's time have passed (at once for 0 or less)."""
        ...


def utcnow() -> datetime:
    return datetime.now(UTC)


class SystemClock:
    """The wall clock; its sleep is the event loop's."""

    def __call__(self) -> datetime:
        return datetime.now(UTC)

    async def sleep(self, seconds: float) -> None:
        await asyncio.sleep(max(0.0, seconds))


SYSTEM_CLOCK: Clock = SystemClock()


async def sleep_until(clock: Clock, instant: datetime) -> None:
    """Return once `clock` reads `instant` or later."""
    while (left := (instant - clock()).total_seconds()) > 0:
        await clock.sleep(min(left, WALL_RECHECK))
