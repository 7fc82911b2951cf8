"""Flood control: a token bucket of commands per chat, so one flooding chat costs others nothing,
and a budget of arXiv look-ups per chat, so no chat can queue unbounded work for the poller.

`CommandBudget` is used by `bot.handlers.gate` before every handler; `BackfillBudget` is the
`LookupBudget` of `watcher.subscribing`, spent before it asks arXiv about a new name, author id
or topic. Pure: the clock is a parameter.
"""

from __future__ import annotations

import math
import time
from collections import OrderedDict, deque
from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

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


class BackfillBudget:
    """At most `per_hour` new names (an arXiv look-up and a history to fetch) per chat an hour.

    `take(chat)` returns None and counts the start, or the seconds until the chat may start
    another. Kept in memory rather than in the database: a restart forgets at most one hour's
    starts per chat, rare and bounded, while a table would cost a write per /subscribe and a
    migration. Memory is bounded too: a chat whose last start is an hour old is forgotten, and
    at most `max_chats` chats are counted at once (beyond that, a new chat waits, since so many
    look-ups an hour are more than arXiv's pace of one request every 3 seconds allows anyway).
    """

    def __init__(
        self,
        *,
        per_hour: int,
        clock: Callable[[], float] = time.monotonic,
        max_chats: int = 10_000,
        period: float = 3600.0,
    ) -> None:
        if per_hour < 1:
            raise ValueError("per_hour must be at least 1")
        self.per_hour = per_hour
        self.clock = clock
        self.max_chats = max_chats
        self.period = period
        # Ordered by each chat's latest start, oldest first, so the idle ones are at the front.
        self._starts: OrderedDict[int, deque[float]] = OrderedDict()

    def take(self, chat_id: int) -> float | None:
        now = self.clock()
        starts = self._starts.get(chat_id)
        if starts is None:
            self._forget_idle(now)
            if len(self._starts) >= self.max_chats:
                return self.period
            starts = self._starts[chat_id] = deque(maxlen=self.per_hour)
        while starts and now - starts[0] >= self.period:
            starts.popleft()
        if len(starts) >= self.per_hour:
            return max(1.0, starts[0] + self.period - now)
        starts.append(now)
        self._starts.move_to_end(chat_id)
        return None

    @property
    def chats(self) -> int:
        """How many chats are counted now (bounded memory, for tests)."""
        return len(self._starts)

    def _forget_idle(self, now: float) -> None:
        """O(1) a call: the idle chats are the front of the order by latest start."""
        while self._starts:
            starts = next(iter(self._starts.values()))
            if starts and now - starts[-1] < self.period:
                return
            self._starts.popitem(last=False)


def minutes(seconds: float) -> str:
    """A wait in whole minutes, rounded up, as an answer says it: "1 minute", "3 minutes"."""
    count = max(1, math.ceil(seconds / 60))
    return f"{count} minute{'' if count == 1 else 's'}"
