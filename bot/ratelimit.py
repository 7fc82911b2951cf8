"""Pacing every Bot API request to Telegram's flood limits, command replies and deliveries alike.

Telegram allows about 30 messages a second overall, about one a second per private chat and 20 a
minute per group, channel or supergroup (negative ids, or an `@username`). PTB's own
`AIORateLimiter` has no per-private-chat limit, hence this one. It throttles before each request
rather than reacting to 429s, and each bucket allows only a short burst (a tenth of a second's
worth overall): Telegram's real buckets are not published, and keeping slack below them absorbs
the jitter between the moment we send and the moment Telegram counts.

A `RetryAfter` from Telegram pauses every request for `retry_after` seconds, since retrying
blindly on 429s gets bots banned. The limiter never retries by itself: it re-raises, and the
caller (the delivery sender) decides when to try again. Each 429 counts in
`arxiv_watcher_telegram_retry_after_total` (`watcher.metrics`).

Per-chat buckets are created on first use and dropped once idle and drained, so a fan-out to
10,000 chats does not keep 10,000 limiters alive.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
import warnings
from collections.abc import AsyncIterator, Callable, Coroutine
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from aiolimiter import AsyncLimiter
from telegram.error import RetryAfter
from telegram.ext import BaseRateLimiter

from watcher.metrics import TELEGRAM_RETRY_AFTER
from watcher.settings import Settings

log = logging.getLogger(__name__)

JSONResult = bool | dict[str, Any] | list[dict[str, Any]]
Callback = Callable[..., Coroutine[Any, Any, JSONResult]]

OVERALL_BURST_SECONDS = 0.1
PRIVATE_BURST = 2.0
GROUP_BURST = 3.0
# How often idle per-chat buckets are looked for, in seconds.
SWEEP_INTERVAL = 5.0


def retry_after_seconds(error: RetryAfter) -> float:
    """The wait Telegram asked for, whichever shape this PTB version gives it."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        value = error.retry_after
    return value.total_seconds() if isinstance(value, timedelta) else float(value)


def limiter_for(rate: float, period: float, burst: float) -> AsyncLimiter:
    """A leaky bucket letting `rate` requests per `period` through, in bursts of at most `burst`."""
    burst = max(1.0, burst)
    return AsyncLimiter(burst, burst * period / rate)


@dataclass(slots=True)
class _ChatBucket:
    limiter: AsyncLimiter
    users: int = 0  # requests holding or waiting on it; never evicted while above zero


class TelegramRateLimiter(BaseRateLimiter[None]):
    """Overall, per-private-chat and per-group limits, plus a global pause on 429."""

    def __init__(
        self,
        *,
        overall_per_second: float = 30.0,
        private_per_second: float = 1.0,
        group_per_minute: float = 20.0,
        sweep_interval: float = SWEEP_INTERVAL,
    ) -> None:
        self.sweep_interval = sweep_interval
        self.overall_per_second = overall_per_second
        self.private_per_second = private_per_second
        self.group_per_minute = group_per_minute
        self._overall = limiter_for(
            overall_per_second, 1.0, overall_per_second * OVERALL_BURST_SECONDS
        )
        self._chats: dict[int | str, _ChatBucket] = {}
        self._paused_until = 0.0  # time.monotonic() before which nothing is sent
        self._last_sweep = time.monotonic()

    @classmethod
    def from_settings(cls, settings: Settings) -> TelegramRateLimiter:
        return cls(
            overall_per_second=settings.telegram_rate_overall,
            private_per_second=settings.telegram_rate_private,
            group_per_minute=settings.telegram_rate_group,
        )

    async def initialize(self) -> None:
        return None

    async def shutdown(self) -> None:
        self._chats.clear()

    @property
    def tracked_chats(self) -> int:
        """How many per-chat buckets are alive (for tests and the benchmark)."""
        return len(self._chats)

    async def process_request(
        self,
        callback: Callback,
        args: Any,
        kwargs: dict[str, Any],
        endpoint: str,
        data: dict[str, Any],
        rate_limit_args: None,
    ) -> JSONResult:
        chat_id = _chat_key(data.get("chat_id"))
        try:
            if chat_id is None:
                # getMe, setMyCommands, answerCallbackQuery...: not messages, not limited.
                await self._wait_out_pause()
                return await callback(*args, **kwargs)
            async with self._admitted(chat_id):
                return await callback(*args, **kwargs)
        except RetryAfter as error:
            TELEGRAM_RETRY_AFTER.inc()
            self.pause(retry_after_seconds(error), endpoint=endpoint, chat_id=chat_id)
            raise

    def pause(
        self, seconds: float, *, endpoint: str = "", chat_id: int | str | None = None
    ) -> None:
        """Hold every request for `seconds` (Telegram answered 429)."""
        until = time.monotonic() + seconds
        if until > self._paused_until:
            self._paused_until = until
            log.warning(
                "telegram flood control: pausing all requests for %.0fs (%s to chat %s)",
                seconds,
                endpoint,
                chat_id,
            )

    async def _wait_out_pause(self) -> None:
        # A deadline, not an event: a second 429 during the pause pushes it further out.
        while (remaining := self._paused_until - time.monotonic()) > 0:  # noqa: ASYNC110
            await asyncio.sleep(remaining)

    @contextlib.asynccontextmanager
    async def _admitted(self, chat_id: int | str) -> AsyncIterator[None]:
        await self._wait_out_pause()
        bucket = self._bucket(chat_id)
        bucket.users += 1
        try:
            await bucket.limiter.acquire()
            await self._overall.acquire()
            # A 429 may have come back for another request while this one queued.
            await self._wait_out_pause()
            yield
        finally:
            bucket.users -= 1
            self._sweep()

    def _bucket(self, chat_id: int | str) -> _ChatBucket:
        bucket = self._chats.get(chat_id)
        if bucket is None:
            if isinstance(chat_id, str) or chat_id < 0:
                limiter = limiter_for(self.group_per_minute, 60.0, GROUP_BURST)
            else:
                limiter = limiter_for(self.private_per_second, 1.0, PRIVATE_BURST)
            bucket = self._chats[chat_id] = _ChatBucket(limiter)
        return bucket

    def _sweep(self) -> None:
        """Forget buckets nobody uses that have fully drained: a new one would be identical."""
        now = time.monotonic()
        if now - self._last_sweep < self.sweep_interval:
            return
        self._last_sweep = now
        idle = [
            chat_id
            for chat_id, bucket in self._chats.items()
            if bucket.users == 0 and bucket.limiter.has_capacity(bucket.limiter.max_rate)
        ]
        for chat_id in idle:
            del self._chats[chat_id]


def _chat_key(chat_id: object) -> int | str | None:
    """Chat ids arrive as int or str; `@channelname` stays a string (a channel, so a group)."""
    if chat_id is None:
        return None
    if isinstance(chat_id, int):
        return chat_id
    text = str(chat_id)
    try:
        return int(text)
    except ValueError:
        return text
