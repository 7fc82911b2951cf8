"""Command flood control (`bot.handlers.budget`), pure: a fake clock, no Telegram.

Sized for people: a person exploring the menu at human speed is never refused, a script sending
more than 30 commands a minute, sustained, is.
"""

from __future__ import annotations

import re

from bot.handlers.budget import DEFAULT_BURST, DEFAULT_REFILL_PER_SECOND, CommandBudget
from tests.harness.paths import REPO

CHAT = 42


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_ten_commands_a_second_apart_then_ten_more_after_a_pause_are_all_served() -> None:
    clock = Clock()
    budget = CommandBudget(clock=clock)
    verdicts = []
    for _flurry in range(3):  # a person: a flurry, reading for half a minute, another flurry
        for _ in range(10):
            verdicts.append(budget.take(CHAT))
            clock.now += 1.0
        clock.now += 30.0

    assert verdicts == ["serve"] * 30


def test_twelve_at_once_are_served() -> None:
    budget = CommandBudget(clock=Clock())

    assert [budget.take(CHAT) for _ in range(12)] == ["serve"] * 12
    assert budget.take(CHAT) == "warn"


def test_a_script_at_forty_a_minute_is_slowed_to_thirty() -> None:
    clock = Clock()
    budget = CommandBudget(clock=clock)
    verdicts = []
    for _ in range(40 * 10):  # ten minutes, one every 1.5 s
        verdicts.append(budget.take(CHAT))
        clock.now += 1.5

    assert "warn" in verdicts
    last_minute = verdicts[-40:]
    assert last_minute.count("serve") <= 30
    assert verdicts.count("serve") <= 12 + 30 * 10


def test_a_flooding_chat_costs_another_chat_nothing() -> None:
    budget = CommandBudget(clock=Clock())
    for _ in range(100):
        budget.take(CHAT)

    assert budget.take(CHAT + 1) == "serve"


def test_the_readme_states_the_limits_the_code_has() -> None:
    """The README once said "a burst of 3" in one section and 12 in another."""
    readme = (REPO / "README.md").read_text()
    bursts = re.findall(r"(\d+) (?:commands )?at once and (\d+) a minute sustained", readme)
    assert len(bursts) >= 2  # Commands, and "Operating it"
    per_minute = round(DEFAULT_REFILL_PER_SECOND * 60)
    assert set(bursts) == {(str(DEFAULT_BURST), str(per_minute))}
    assert not re.search(r"burst of \d+ commands", readme)
