"""The group commit of confirmations: a send Telegram confirmed is marked sent in the outbox,
the confirmations of many sends in one transaction.

A send keeps its slot (see `bot.delivery.sender`) until its confirmation is committed, and the
confirmations that arrive while one commit runs are committed together in the next: the database
does one transaction per batch rather than per message, and a crash still re-sends at most the
sender's concurrency in messages, since every message Telegram has and the outbox does not is
holding a slot. A commit that fails is tried again, never the send.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable, Mapping, Sequence
from typing import Protocol

from watcher.errors import first_line

log = logging.getLogger(__name__)

# Seconds a confirmation may wait for others to share its transaction. The send keeps its slot
# meanwhile, so this is paid in concurrency: at 500 messages a second, 10 ms holds about 5 slots.
CONFIRM_LINGER = 0.01
# Pauses before writing confirmations again after a failed commit: 0.5 s doubling up to 30 s.
CONFIRM_RETRY_FIRST, CONFIRM_RETRY_MAX = 0.5, 30.0
# A database error's first line is told in the log, cut to this many characters.
_ERROR_SHOWN = 200


class SentRows(Protocol):
    """Where confirmations are written: the core's delivery side (`Core.delivery`), which marks
    them sent in one transaction."""

    async def mark_sent(
        self, confirmed: Sequence[tuple[int, int | None]], *, versions: Mapping[int, int]
    ) -> None: ...


class ConfirmationWriter:
    """Marks deliveries sent in batches: one transaction for the confirmations of many sends.

    `confirm` returns once that delivery's row is committed. A batch is written when `linger`
    seconds have passed since its first confirmation, or as soon as every send in flight is
    waiting on it (`in_flight()`), since no other confirmation can come then. While a commit runs
    on the database thread, new confirmations gather for the next one.

    A commit that fails (SQLite busy beyond its timeout while another writer holds the lock, a
    database restarting) loses nothing: Telegram has those messages, so sending them again would
    double them. The confirmations stay here and are written again after a growing pause
    (`confirm_retry_delay`), each send keeping its slot meanwhile. That bounds the memory to the
    sends in flight, stops new sends while the database refuses writes, and means a crash
    re-sends at most those: the same bound as a crash mid-send.
    """

    def __init__(
        self, outbox: SentRows, *, in_flight: Callable[[], int], linger: float = CONFIRM_LINGER
    ) -> None:
        self.outbox = outbox
        self.in_flight = in_flight
        self.linger = linger
        # (delivery id, message id, version the message carried or None, committed)
        self._waiting: list[tuple[int, int | None, int | None, asyncio.Future[None]]] = []
        self._everyone_waits = asyncio.Event()
        self._writer: asyncio.Task[None] | None = None

    def unwritten(self) -> set[int]:
        """Ids of deliveries Telegram confirmed whose rows are not yet marked sent."""
        return {delivery_id for delivery_id, _, _, _ in self._waiting}

    async def confirm(
        self, delivery_id: int, message_id: int | None, *, version: int | None = None
    ) -> None:
        """Mark one delivery sent, as the paper `version` the message carried (None: whatever
        version the row has); returns once that is committed, however many tries it takes."""
        committed = asyncio.get_running_loop().create_future()
        self._waiting.append((delivery_id, message_id, version, committed))
        if len(self._waiting) >= self.in_flight():
            self._everyone_waits.set()
        if self._writer is None or self._writer.done():
            self._writer = asyncio.create_task(self._write(), name="confirmation-writer")
        await committed

    async def close(self, grace: float) -> None:
        """Give unwritten confirmations `grace` seconds more, then give them up (logged)."""
        if self._writer is None or self._writer.done():
            return
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(grace):
                await asyncio.shield(self._writer)
        if self._writer.done():
            return
        self._writer.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await self._writer
        if self._waiting:
            log.error(
                "%d deliveries Telegram confirmed could not be marked sent before stopping; "
                "they will be sent again",
                len(self._waiting),
            )
        self._waiting = []

    async def _write(self) -> None:
        failures = 0
        while self._waiting:
            if self.linger > 0 and not self._everyone_waits.is_set():
                with contextlib.suppress(TimeoutError):
                    async with asyncio.timeout(self.linger):
                        await self._everyone_waits.wait()
            self._everyone_waits.clear()
            batch, self._waiting = self._waiting, []
            rows = [(delivery_id, message_id) for delivery_id, message_id, _, _ in batch]
            versions = {
                delivery_id: version for delivery_id, _, version, _ in batch if version is not None
            }
            try:
                await self.outbox.mark_sent(rows, versions=versions)
            except Exception as error:
                failures += 1
                self._waiting = batch + self._waiting  # oldest first, written with the next
                delay = confirm_retry_delay(failures)
                log.warning(
                    "marking %d confirmed deliveries sent failed (%s; %d time(s) in a row); "
                    "writing them again in %.1fs, never sending them again",
                    len(self._waiting),
                    first_line(error)[:_ERROR_SHOWN],
                    failures,
                    delay,
                )
                await asyncio.sleep(delay)
                continue
            if failures:
                log.info(
                    "marked %d confirmed deliveries sent after %d failed tries", len(rows), failures
                )
                failures = 0
            for _, _, _, committed in batch:
                if not committed.done():  # its send may have been cancelled meanwhile
                    committed.set_result(None)


def confirm_retry_delay(failures: int) -> float:
    """Seconds before writing confirmations again after `failures` failed commits in a row."""
    return min(CONFIRM_RETRY_MAX, CONFIRM_RETRY_FIRST * 2.0 ** min(failures - 1, 20))
