"""Telegram's flood control: per-chat, per-group and global sending limits, as token buckets.

Telegram documents roughly 1 message a second per chat (short bursts tolerated), 20 a minute per
group and 30 a second overall; going over answers 429 with `parameters.retry_after` (whole
seconds). A refused message consumes nothing, so a bot that waits `retry_after` gets through.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass


@dataclass(frozen=True)
class RateLimits:
    """Limits the fake enforces on sendMessage; `RateLimits.disabled()` turns them all off."""

    enabled: bool = True
    per_chat_per_second: float = 1.0
    per_chat_burst: int = 3
    per_group_per_minute: float = 20.0
    per_group_burst: int = 20
    global_per_second: float = 30.0
    global_burst: int = 30
    # Messages sent with `allow_paid_broadcast`: "up to 1000 messages per second, ignoring
    # broadcasting limits" (the Bot API's sendMessage, since 7.11); a chat's own limits still hold.
    paid_per_second: float = 1000.0
    paid_burst: int = 1000

    @classmethod
    def disabled(cls) -> RateLimits:
        return cls(enabled=False)


class _TokenBucket:
    def __init__(self, rate_per_second: float, capacity: int, now: float) -> None:
        self.rate = rate_per_second
        self.capacity = float(capacity)
        self.tokens = float(capacity)
        self.updated = now

    def refill(self, now: float) -> None:
        self.tokens = min(self.capacity, self.tokens + (now - self.updated) * self.rate)
        self.updated = now

    def seconds_until_token(self) -> float:
        return 0.0 if self.tokens >= 1.0 else (1.0 - self.tokens) / self.rate


class FloodControl:
    """Not thread-safe on its own: the caller holds the fake's state lock."""

    def __init__(self, limits: RateLimits) -> None:
        self.limits = limits
        self._chats: dict[int, _TokenBucket] = {}
        self._groups: dict[int, _TokenBucket] = {}
        self._global: _TokenBucket | None = None
        self._paid: _TokenBucket | None = None

    def admit(self, chat_id: int, now: float | None = None, *, paid: bool = False) -> int | None:
        """Take a token from every bucket that applies, or return `retry_after` seconds. A
        `paid` broadcast counts against the paid overall bucket instead of the free one."""
        if not self.limits.enabled:
            return None
        now = time.monotonic() if now is None else now
        buckets = self._buckets_for(chat_id, now)
        if paid:
            if self._paid is None:
                self._paid = _TokenBucket(self.limits.paid_per_second, self.limits.paid_burst, now)
            buckets[0] = self._paid
        for bucket in buckets:
            bucket.refill(now)
        wait = max(bucket.seconds_until_token() for bucket in buckets)
        if wait > 0:
            return max(1, math.ceil(wait))
        for bucket in buckets:
            bucket.tokens -= 1.0
        return None

    def _buckets_for(self, chat_id: int, now: float) -> list[_TokenBucket]:
        limits = self.limits
        if self._global is None:
            self._global = _TokenBucket(limits.global_per_second, limits.global_burst, now)
        chat = self._chats.get(chat_id)
        if chat is None:
            chat = _TokenBucket(limits.per_chat_per_second, limits.per_chat_burst, now)
            self._chats[chat_id] = chat
        buckets = [self._global, chat]
        if chat_id < 0:
            group = self._groups.get(chat_id)
            if group is None:
                rate = limits.per_group_per_minute / 60.0
                group = _TokenBucket(rate, limits.per_group_burst, now)
                self._groups[chat_id] = group
            buckets.append(group)
        return buckets
