"""The settings use cases of the core's face (`Core.chat_settings`) on a real database: each
change is one call whose outcome carries the settings as they now are and the core clock's now;
each is one destination's (a forum topic's, or the chat's); a time zone change moves the
destination's digest and quiet hours in ONE transaction, so a failure placing the quiet hours
leaves the zone as it was."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from datetime import UTC, datetime, time, timedelta

import pytest
from sqlalchemy import Engine, update
from sqlmodel import Session

from bot.digest import render_digest_parts
from tests.fakes.arxiv_api import FakeArxiv
from tests.harness.core_face import core_on
from watcher.calendars.quiet_hours import QuietHours
from watcher.calendars.schedule import DigestSchedule
from watcher.core import Core
from watcher.kinds import MessageFormat
from watcher.store.destinations import DestinationSetting

CHAT, TOPIC = 10, 7
# Monday 30 March 2026, 10:00 UTC: 12:00 in Berlin, 18:00 in Shanghai.
NOW = datetime(2026, 3, 30, 10, 0, tzinfo=UTC)
EIGHT = DigestSchedule(time(8, 0))
NIGHT = QuietHours(22 * 60, 7 * 60)


@pytest.fixture
def fake() -> Iterator[FakeArxiv]:
    with FakeArxiv([]) as server:
        yield server


@pytest.fixture
async def core(engine: Engine, fake: FakeArxiv) -> AsyncIterator[Core]:
    async with core_on(engine, fake, lambda: NOW) as core:
        core.chats.seen(CHAT, kind="supergroup")
        yield core


async def test_each_speaking_change_answers_the_settings_now_and_the_core_clock(
    core: Core,
) -> None:
    settings = core.chat_settings
    paused = await settings.pause(CHAT, TOPIC)
    assert paused.speaking.paused and paused.speaking.paused_since == NOW
    assert paused.now == NOW
    resumed = await settings.resume(CHAT, TOPIC)
    assert not resumed.speaking.paused
    quiet = await settings.set_quiet(CHAT, TOPIC, NIGHT)
    assert quiet.speaking.quiet == NIGHT
    assert quiet.speaking.quiet_from == datetime(2026, 3, 30, 22, 0, tzinfo=UTC)  # UTC zone
    assert (await settings.set_silent(CHAT, TOPIC, True)).speaking.silent
    compact = await settings.set_format(CHAT, TOPIC, MessageFormat.COMPACT)
    assert compact.speaking.format == MessageFormat.COMPACT
    shown = await settings.speaking(CHAT, TOPIC)
    assert shown.speaking == compact.speaking and shown.digest.zone_name == "UTC"
    assert not (await settings.speaking(CHAT, 0)).speaking.silent  # the chat's own row: apart


async def test_a_digest_is_set_on_the_core_clock_and_off_says_what_it_flushed(core: Core) -> None:
    on = await core.chat_settings.set_digest(CHAT, 0, EIGHT, render=render_digest_parts)
    assert on.settings.next_at == datetime(2026, 3, 31, 8, 0, tzinfo=UTC)  # 08:00 passed today
    assert on.flushed is None and on.now == NOW
    off = await core.chat_settings.set_digest(CHAT, 0, None, render=render_digest_parts)
    assert off.settings.schedule is None and off.flushed is not None
    assert off.flushed.papers == 0


async def test_a_new_zone_moves_the_digest_and_the_quiet_hours_together(core: Core) -> None:
    settings = core.chat_settings
    await settings.set_digest(CHAT, TOPIC, EIGHT, render=render_digest_parts)
    await settings.set_quiet(CHAT, TOPIC, NIGHT)
    await settings.set_digest(CHAT, 0, EIGHT, render=render_digest_parts)
    await settings.set_quiet(CHAT, 0, NIGHT)
    moved = await settings.set_zone(CHAT, TOPIC, "Asia/Shanghai")
    assert moved.now == NOW
    assert moved.settings.zone_name == "Asia/Shanghai"
    assert moved.settings.next_at == datetime(2026, 3, 31, 0, 0, tzinfo=UTC)  # 08:00 there
    quiet = (await settings.speaking(CHAT, TOPIC)).speaking
    assert quiet.quiet_from == datetime(2026, 3, 30, 14, 0, tzinfo=UTC)  # 22:00 there
    assert quiet.quiet_until == quiet.quiet_from + timedelta(hours=9)
    general = await settings.speaking(CHAT, 0)  # the chat's own clock did not move
    assert general.digest.zone_name == "UTC"
    assert general.digest.next_at == datetime(2026, 3, 31, 8, 0, tzinfo=UTC)
    assert general.speaking.quiet_from == datetime(2026, 3, 30, 22, 0, tzinfo=UTC)


async def test_a_zone_change_that_fails_placing_the_quiet_hours_leaves_the_zone_unchanged(
    core: Core, engine: Engine
) -> None:
    settings = core.chat_settings
    await settings.set_digest(CHAT, TOPIC, EIGHT, render=render_digest_parts)
    await settings.set_quiet(CHAT, TOPIC, NIGHT)
    before = await settings.digest(CHAT, TOPIC)
    # A row no command writes: a window that starts when it ends cannot be placed in any zone.
    with Session(engine) as session:
        session.execute(
            update(DestinationSetting)
            .where(DestinationSetting.chat_id == CHAT)  # type: ignore[arg-type]
            .values(quiet_end=NIGHT.start)
        )
        session.commit()
    with pytest.raises(ValueError, match="different times"):
        await settings.set_zone(CHAT, TOPIC, "Asia/Shanghai")
    after = await settings.digest(CHAT, TOPIC)
    assert after.zone_name == "UTC" and after.next_at == before.next_at


async def test_revisions_are_each_destinations_own_setting(core: Core) -> None:
    assert not await core.chat_settings.revisions(CHAT, TOPIC)
    assert await core.chat_settings.set_revisions(CHAT, TOPIC, True)
    assert await core.chat_settings.revisions(CHAT, TOPIC)
    assert not await core.chat_settings.revisions(CHAT, 0)  # General: as it was
    assert not await core.chat_settings.set_revisions(CHAT, TOPIC, False)
    assert not await core.chat_settings.revisions(CHAT, TOPIC)
