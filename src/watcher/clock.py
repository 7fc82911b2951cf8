"""The time the service runs on.

The runtime owns one clock and passes it down: the poll, the listing read, the sender, digests,
quiet hours and the store calls that stamp a time all take it, so a test can turn it (seconds of
a simulated day instead of real minutes). `utcnow` is the real one.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime

Clock = Callable[[], datetime]
"""Now, timezone-aware UTC."""


def utcnow() -> datetime:
    return datetime.now(UTC)
