"""How long a test waits for something that happens on its own time, and the one way to wait on
a condition no fake signals.

The machine that runs the suite is shared and often loaded (2 cores, several test workers, other
people's runs), so a deadline is a bound for a bad moment, never a measure of speed: a passing
run stops waiting as soon as the event is there, and only a failing one pays the whole bound.
Prefer an event (a log line, a message the fake Telegram received, a request the fake arXiv saw,
a database row) to a sleep; these bounds are how long to wait for one.
"""

from __future__ import annotations

import time
from collections.abc import Callable

# An event a test waits for: a reply, a delivery, a log line, a service that starts and migrates.
PATIENCE = 60.0
# An answer from a fake on loopback, where the test injects no fault that would hold it.
LOOPBACK_TIMEOUT = 30.0


def wait_until(condition: Callable[[], object], what: str, timeout: float = PATIENCE) -> None:
    """Poll `condition` (every 20 ms) until it holds; fail naming `what` after `timeout` s."""
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout:.0f} s waiting until {what}")
        time.sleep(0.02)
