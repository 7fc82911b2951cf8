"""Flood control: a token bucket of commands per chat, so one flooding chat costs others nothing.

`CommandBudget` is used by `bot.handlers.gate` before every handler. It is kept in memory: a
restart forgets at most a few seconds' worth of commands. The budget of new follows and arXiv
look-ups, which must survive restarts, is kept in the database (`watcher.store.budgets`).
Pure: the clock is a parameter.
"""

from __future__ import annotations

import math
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

from bot.i18n import ngettext

Verdict = Literal["serve", "warn", "drop"]

# Sized for people, not for the send slots: someone exploring the menu, a command or a button
# press a second for ten seconds and more, is never refused (12 at once, and a token back every
# 2 s). A script is: sustained, no chat gets more than 30 commands a minute. A served command
# waits for its chat's send slot (about 1 a second in a private chat), so a full burst costs that
# chat at most a dozen seconds of backlog, and other chats nothing (see bot.app.PerChatUpdates).
DEFAULT_BURST = 12
DEFAULT_REFILL_PER_SECOND = 30 / 60


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
        refill_per_second: float = DEFAULT_REFILL_PER_SECOND,
        clock: Callable[[], float] = time.monotonic,
        max_chats: int = 10_000,
    ) -> None:
        self.burst = burst
        self.refill_per_second = refill_per_second
        self.clock = clock
        self.max_chats = max_chats
        # Least recently used first: a chat's bucket moves to the end whenever it takes.
        self._buckets: OrderedDict[int, _Bucket] = OrderedDict()

    @property
    def chats(self) -> int:
        """How many chats have a bucket now (bounded memory, for tests)."""
        return len(self._buckets)

    def take(self, chat_id: int) -> Verdict:
        now = self.clock()
        bucket = self._buckets.get(chat_id)
        if bucket is None:
            self._forget_oldest()
            bucket = self._buckets[chat_id] = _Bucket(float(self.burst), now)
        else:
            self._buckets.move_to_end(chat_id)
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

    def _forget_oldest(self) -> None:
        """Keep memory bounded, at O(1) a command: at `max_chats` buckets, the least recently
        used goes. It is the likeliest to have refilled (then it is the same as a new one);
        if not, its chat regains a burst only after `max_chats` other chats spoke since."""
        while len(self._buckets) >= self.max_chats:
            self._buckets.popitem(last=False)


def minutes(seconds: float) -> str:
    """A wait in whole minutes, rounded up, as an answer says it: "1 minute", "3 minutes"."""
    count = max(1, math.ceil(seconds / 60))
    return ngettext("{n} minute", "{n} minutes", count)
