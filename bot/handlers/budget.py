"""Flood control for commands: a token bucket per chat, so one flooding chat costs others nothing.

Used by `bot.handlers.gate` before every handler. Pure: the clock is a parameter.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

from bot.ratelimit import GROUP_BURST

Verdict = Literal["serve", "warn", "drop"]

# Every served command waits for its chat's send slot, while other chats go on. A burst no
# bigger than what the chat may be sent at once (3 in a group; 2 in a private chat, the third a
# second later) keeps a flooding chat's backlog to a few seconds, and the slots it holds few.
DEFAULT_BURST = int(GROUP_BURST)


@dataclass(slots=True)
class _Bucket:
    tokens: float
    updated: float
    warned: bool = False


class CommandBudget:
    """A token bucket per chat: `burst` commands at once, then one per `1/refill_per_second` s.

    Over budget, a chat gets one "slow down" notice (`warn`) and is then ignored (`drop`) until
    it has a token again, so one flooding chat costs the others almost nothing.
    """

    def __init__(
        self,
        *,
        burst: int = DEFAULT_BURST,
        refill_per_second: float = 1 / 3,
        clock: Callable[[], float] = time.monotonic,
        max_chats: int = 10_000,
    ) -> None:
        self.burst = burst
        self.refill_per_second = refill_per_second
        self.clock = clock
        self.max_chats = max_chats
        self._buckets: dict[int, _Bucket] = {}

    def take(self, chat_id: int) -> Verdict:
        now = self.clock()
        bucket = self._buckets.get(chat_id)
        if bucket is None:
            self._forget_idle(now)
            bucket = self._buckets[chat_id] = _Bucket(float(self.burst), now)
        bucket.tokens = min(
            float(self.burst), bucket.tokens + (now - bucket.updated) * self.refill_per_second
        )
        bucket.updated = now
        if bucket.tokens >= 1:
            bucket.tokens -= 1
            bucket.warned = False
            return "serve"
        if bucket.warned:
            return "drop"
        bucket.warned = True
        return "warn"

    def _forget_idle(self, now: float) -> None:
        """Keep memory bounded: a chat whose bucket has refilled is the same as a new one."""
        if len(self._buckets) < self.max_chats:
            return
        full_after = self.burst / self.refill_per_second
        for chat_id in [c for c, b in self._buckets.items() if now - b.updated >= full_after]:
            del self._buckets[chat_id]
