"""The delivery sender on a clock the test turns (`tests.harness.clocks`), on the real outbox and
the fake Bot API: a digest goes out when the clock reaches its time and not before, and quiet
hours across the chat's midnight hold papers until the clock passes their end, then the sender
lets them go. Hours of the chat's day in seconds; the wall clock never gets there."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from datetime import datetime, timedelta
from pathlib import Path

import pytest
from sqlalchemy import Engine
from sqlmodel import Session

from bot.digest import render_digest_parts
from tests.fakes.telegram import FakeTelegram
from tests.harness.clocks import TurnedClock
from tests.harness.delivery import World, eventually, make_world, sending, sent_count
from watcher.calendars.quiet_hours import QuietHours
from watcher.calendars.schedule import DigestSchedule
from watcher.store.destinations import DestinationSetting
from watcher.store.tables import NO_THREAD

FOLLOWER = 11
EARLY = 1.0  # seconds of the running sender watched for a message sent too early


@pytest.fixture
async def turned(
    fake: FakeTelegram, engine: Engine, database_url: str, tmp_path: Path
) -> AsyncIterator[tuple[World, TurnedClock]]:
    clock = TurnedClock(tmp_path / "clock")
    async with make_world(fake, engine, database_url, clock=clock) as world:
        yield world, clock


def zone_showing(now: datetime, local: str) -> str:
    """A fixed-offset zone whose clock shows `local` (HH:MM) at `now`, to the minute."""
    hours, minutes = map(int, local.split(":"))
    offset = (hours * 60 + minutes - (now.hour * 60 + now.minute)) % (24 * 60)
    if offset > 14 * 60:
        offset -= 24 * 60
    sign = "+" if offset >= 0 else "-"
    return f"UTC{sign}{abs(offset) // 60:02d}:{abs(offset) % 60:02d}"


def texts(world: World) -> list[str]:
    return [message.text for message in world.fake.sent(FOLLOWER)]


async def test_a_digest_goes_out_when_the_clock_reaches_its_time_and_not_before(
    turned: tuple[World, TurnedClock],
) -> None:
    world, clock = turned
    world.subscribe(FOLLOWER)
    at = (clock() + timedelta(hours=3)).replace(second=0, microsecond=0)
    world.chats.digests.set_schedule(
        FOLLOWER, DigestSchedule(at.time()), render=render_digest_parts, now=clock()
    )
    for n in range(3):
        world.publish(f"2611.{n:05d}", title=f"Digest paper {n}")

    async with sending(world):
        await asyncio.sleep(EARLY)
        assert texts(world) == []  # held for the digest
        clock.turn_to(at)
        await eventually(lambda: len(texts(world)) == 1)
        await asyncio.sleep(EARLY)  # and nothing more

    (digest,) = texts(world)
    assert digest.startswith("📚 3 new papers since")
    for n in range(3):
        assert digest.count(f"Digest paper {n}") == 1
    assert world.chats.digests.settings(FOLLOWER).next_at == at + timedelta(days=1)


async def test_quiet_hours_across_midnight_hold_papers_until_the_clock_passes_their_end(
    turned: tuple[World, TurnedClock],
) -> None:
    world, clock = turned
    world.subscribe(FOLLOWER)
    # The chat's clock shows 22:00: its window 23:00-01:00 starts in an hour, across its midnight.
    world.chats.digests.set_zone(FOLLOWER, zone_showing(clock(), "22:00"), now=clock())
    window = world.chats.speaking.set_quiet(
        FOLLOWER, NO_THREAD, QuietHours(23 * 60, 60), now=clock()
    )
    assert window.quiet_from is not None and window.quiet_until is not None
    assert window.quiet_until - window.quiet_from == timedelta(hours=2)
    assert window.quiet_from > clock()
    clock.turn_to(window.quiet_from + timedelta(minutes=90))  # 00:30 there: past its midnight
    for n in range(3):
        world.publish(f"2611.{n:05d}", title=f"Quiet paper {n}")

    async with sending(world):
        await asyncio.sleep(EARLY)
        assert texts(world) == []  # held while quiet
        clock.turn_to(window.quiet_until)
        await eventually(sent_count(world, 3))

    # Three is no more than the threshold: one message each, in order, exactly once.
    assert [text.splitlines()[1] for text in texts(world)] == [f"Quiet paper {n}" for n in range(3)]
    with Session(world.engine) as session:
        moved = session.get(DestinationSetting, (FOLLOWER, NO_THREAD))
    assert moved is not None
    assert moved.quiet_from == window.quiet_from + timedelta(days=1)
