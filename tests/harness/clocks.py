"""A clock the test turns, for the service (a `Clock` of `watcher.clock`) and for the fakes.

`TurnedClock` is the wall clock plus an offset the test moves forward (`turn_to`): time passes
as usual between turns (polls, retries and the scheduler's ticks keep their pace), and a turn
skips the minutes a test would otherwise sleep through. The offset lives in a file of eight
bytes mapped into memory, so a service started as a child process (`ServiceProcess` with a
clock) reads the very clock the test turns, and a clock the test SIGKILLs a service on keeps
its time for the next start. Its sleep looks at the clock every `TICK` seconds, so a turn ends
the waits that it passes at once.
"""

from __future__ import annotations

import asyncio
import mmap
import struct
from datetime import UTC, datetime, timedelta
from pathlib import Path

TICK = 0.05  # seconds between two looks at the clock while sleeping on it
_OFFSET = struct.Struct("<d")  # seconds ahead of the wall clock


class TurnedClock:
    """The wall clock, plus an offset kept in `path` (created at zero if missing)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        if not path.exists():
            path.write_bytes(_OFFSET.pack(0.0))
        with path.open("r+b") as file:
            self._offset = mmap.mmap(file.fileno(), _OFFSET.size)

    def __call__(self) -> datetime:
        (ahead,) = _OFFSET.unpack(self._offset[: _OFFSET.size])
        return datetime.now(UTC) + timedelta(seconds=ahead)

    async def sleep(self, seconds: float) -> None:
        until = self() + timedelta(seconds=seconds)
        # Polled: the turn comes from another process, which can set no event of this loop.
        while (left := (until - self()).total_seconds()) > 0:  # noqa: ASYNC110
            await asyncio.sleep(min(left, TICK))

    def turn_to(self, instant: datetime) -> None:
        """Move the clock forward to `instant`, unless it is there already (a clock never goes
        back: a test that must be early says so with an assert of its own)."""
        step = (instant - self()).total_seconds()
        if step <= 0:
            return
        (ahead,) = _OFFSET.unpack(self._offset[: _OFFSET.size])
        self._offset[: _OFFSET.size] = _OFFSET.pack(ahead + step)

    def turn(self, seconds: float) -> None:
        self.turn_to(self() + timedelta(seconds=seconds))
