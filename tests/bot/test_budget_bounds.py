"""The per-chat structures of flood control stay bounded whatever the number of chats. (The
look-up budget is kept in the database and pruned: `tests/core/test_lookup_budgets.py`.)"""

from __future__ import annotations

from bot.handlers.budget import CommandBudget


def test_command_buckets_stay_bounded_with_100000_chats_at_once() -> None:
    """100,000 chats speak within one second (no bucket has refilled): still at most
    `max_chats` buckets, and a chat that floods is still held back meanwhile."""
    now = [0.0]
    budget = CommandBudget(burst=3, refill_per_second=1 / 3, clock=lambda: now[0], max_chats=1000)
    flooding = -1
    verdicts = []
    for chat_id in range(100_000):
        now[0] = chat_id / 100_000
        assert budget.take(chat_id) == "serve"
        if chat_id % 100 == 0:
            verdicts.append(budget.take(flooding))
        assert budget.chats <= 1000
    assert verdicts[:3] == ["serve", "serve", "serve"]
    assert verdicts[3:5] == ["warn", "drop"]
    assert set(verdicts[5:]) == {"drop"}
