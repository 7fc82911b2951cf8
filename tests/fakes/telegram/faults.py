"""Faults a test can inject into the next calls of a Bot API method (sendMessage by default).

Each fault is consumed by exactly one request, in the order injected:

- `Fault.server_error(500)`: Telegram's JSON 500; 502/503/504 come from its nginx front as an
  HTML page, which is what a bot really has to survive.
- `Fault.disconnect(delivered=...)`: the connection closes with no answer, before or after the
  message was delivered (the bot cannot tell which).
- `Fault.slow(seconds)`: the message is delivered at once, the answer comes late.
- `Fault.flood(retry_after)`: a one-off 429, whatever the rate limiter thinks.
"""

from __future__ import annotations

import threading
from collections import defaultdict, deque
from dataclasses import dataclass
from enum import Enum


class FaultKind(Enum):
    SERVER_ERROR = "server_error"
    DISCONNECT = "disconnect"
    SLOW = "slow"
    FLOOD = "flood"


@dataclass(frozen=True)
class Fault:
    kind: FaultKind
    status: int = 500
    delay: float = 0.0
    retry_after: int = 1
    delivered: bool = False

    @classmethod
    def server_error(cls, status: int = 500) -> Fault:
        return cls(FaultKind.SERVER_ERROR, status=status)

    @classmethod
    def disconnect(cls, *, delivered: bool = False) -> Fault:
        return cls(FaultKind.DISCONNECT, delivered=delivered)

    @classmethod
    def slow(cls, seconds: float) -> Fault:
        return cls(FaultKind.SLOW, delay=seconds, delivered=True)

    @classmethod
    def flood(cls, retry_after: int = 5) -> Fault:
        return cls(FaultKind.FLOOD, status=429, retry_after=retry_after)


class FaultQueue:
    """Thread-safe FIFO of faults per method name (case-insensitive, like the Bot API)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._queues: defaultdict[str, deque[Fault]] = defaultdict(deque)

    def add(self, method: str, faults: tuple[Fault, ...]) -> None:
        with self._lock:
            self._queues[method.lower()].extend(faults)

    def pop(self, method: str) -> Fault | None:
        with self._lock:
            queue = self._queues.get(method.lower())
            return queue.popleft() if queue else None

    def pending(self, method: str) -> int:
        with self._lock:
            return len(self._queues.get(method.lower(), ()))
