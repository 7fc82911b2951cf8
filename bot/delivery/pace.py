"""How many sends the delivery sender (`bot.delivery.sender`) keeps in flight at once
(`concurrency_for`): enough to keep the rate limiter's pace while each send waits on Telegram;
and how the sends in flight end when it stops (`finish`).
"""

from __future__ import annotations

import asyncio
import math

# Sends at once. Enough to keep pace while each waits on Telegram: at the default 30 messages a
# second, 8 sends cover a round trip of up to 260 ms. More costs CPU on the event loop (about a
# sixth more per message at 16, measured in bench/README.md) and raises the crash bound: a crash
# re-sends at most this many messages. A faster overall rate (paid broadcasts) needs as many
# more: `concurrency_for`.
CONCURRENCY = 8
ROUND_TRIP = 0.26  # seconds a send is assumed to wait on Telegram, for `concurrency_for`


def concurrency_for(rate_overall: float) -> int:
    """Sends at once that keep `rate_overall` a second going: 8 at the free 30, 260 at 1,000."""
    return max(CONCURRENCY, math.ceil(rate_overall * ROUND_TRIP))


async def finish(tasks: list[asyncio.Task[None]], grace: float) -> None:
    """Give the sends in flight `grace` seconds to end, then cut the others short."""
    if not tasks:
        return
    _, late = await asyncio.wait(tasks, timeout=grace)
    for task in late:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
