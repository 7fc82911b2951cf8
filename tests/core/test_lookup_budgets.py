"""Each chat's budget of new follows and arXiv look-ups (`watcher.store.budgets`), on the real
database: a first allowance, then a few an hour; kept across a restart and shared by two
processes; pruned, so that a month of chats does not grow it."""

from __future__ import annotations

import threading
from datetime import UTC, datetime, timedelta

from sqlalchemy import Engine

from watcher.runtime.db import create_db_engine
from watcher.store.budgets import FIRST_ALLOWANCE, FORGET_AFTER, LOOKUPS_PER_FOLLOW, LookupBudgets

CHAT = 42
START = datetime(2026, 12, 1, 9, tzinfo=UTC)


class Clock:
    def __init__(self) -> None:
        self.now = START

    def __call__(self) -> datetime:
        return self.now

    def advance(self, **delta: float) -> None:
        self.now += timedelta(**delta)


def test_a_new_chat_may_start_its_first_allowance_then_one_every_twelve_minutes(
    engine: Engine,
) -> None:
    clock = Clock()
    budgets = LookupBudgets(engine, per_hour=5, clock=clock)

    assert FIRST_ALLOWANCE >= 10
    assert [budgets.take(CHAT, lookup=True) for _ in range(FIRST_ALLOWANCE)] == [None] * 10
    assert budgets.take(CHAT, lookup=True) == 12 * 60  # 5 an hour: one every 12 minutes
    clock.advance(minutes=6)
    assert budgets.take(CHAT, lookup=False) == 6 * 60
    clock.advance(minutes=6)
    assert budgets.take(CHAT, lookup=False) is None
    clock.advance(hours=5)  # a long pause fills the bucket to 5 an hour, not to the first 10
    assert [budgets.take(CHAT, lookup=False) for _ in range(6)][-2:] == [None, 12 * 60]


def test_a_follow_given_back_costs_nothing_but_its_look_up_counts(engine: Engine) -> None:
    budgets = LookupBudgets(engine, per_hour=5, clock=Clock())

    for _ in range(FIRST_ALLOWANCE * LOOKUPS_PER_FOLLOW):  # made-up names: arXiv finds nothing
        assert budgets.take(CHAT, lookup=True) is None
        budgets.give_back(CHAT)

    standing = budgets.standing(CHAT)
    assert standing.follows == FIRST_ALLOWANCE  # every follow given back
    assert standing.lookups == 0
    assert budgets.take(CHAT, lookup=True) == 6 * 60  # 10 look-ups an hour
    # A follow that asks arXiv nothing (a topic, a name chosen by button) is still allowed.
    assert budgets.take(CHAT, lookup=False) is None


def test_the_budget_survives_a_restart_and_two_processes_share_it(
    engine: Engine, database_url: str
) -> None:
    clock = Clock()
    first = LookupBudgets(engine, per_hour=5, clock=clock)
    for _ in range(FIRST_ALLOWANCE - 2):
        assert first.take(CHAT, lookup=False) is None
    # Two more processes on the same database, each with an engine (a pool) of its own, take
    # at once from many threads: exactly the two follows left are granted.
    engines = [create_db_engine(database_url) for _ in range(2)]
    granted: list[float | None] = []
    lock = threading.Lock()

    def spend(budgets: LookupBudgets) -> None:
        for _ in range(3):
            wait = budgets.take(CHAT, lookup=False)
            with lock:
                granted.append(wait)

    try:
        workers = [
            threading.Thread(target=spend, args=(LookupBudgets(e, per_hour=5, clock=clock),))
            for e in engines
            for _ in range(3)
        ]
        for worker in workers:
            worker.start()
        for worker in workers:
            worker.join(timeout=60)
        assert not any(worker.is_alive() for worker in workers)
    finally:
        for other in engines:
            other.dispose()

    assert granted.count(None) == 2
    assert len(granted) == 18
    restarted = LookupBudgets(engine, per_hour=5, clock=clock)
    assert restarted.take(CHAT, lookup=False) == 12 * 60


def test_a_month_of_chats_leaves_only_the_last_weeks(engine: Engine) -> None:
    clock = Clock()
    budgets = LookupBudgets(engine, per_hour=5, clock=clock)
    for day in range(31):  # each day ten new chats look something up, and one regular
        for chat in range(10):
            budgets.take(day * 100 + chat, lookup=True)
        budgets.take(CHAT, lookup=True)
        clock.advance(days=1)

    days_kept = FORGET_AFTER.days
    assert budgets.chats() <= 10 * (days_kept + 1) + 1
    assert budgets.standing(0).follows == FIRST_ALLOWANCE  # pruned: a new chat again
    assert budgets.standing(CHAT).follows == 5  # a regular is never pruned
