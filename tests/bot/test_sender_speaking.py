"""The delivery sender for paused, quiet, silent and compact destinations, on the real outbox
and the fake Bot API (`tests.harness.delivery`): held papers are not sent, nor marked sent,
until they are let go, then go out once (one summary when many waited); silent sends carry
disable_notification; a compact destination's papers share messages up to Telegram's limit."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from sqlmodel import Session

from tests.harness.delivery import World, eventually, sending, sent_count
from watcher.calendars.quiet_hours import QuietHours
from watcher.kinds import MessageFormat
from watcher.store import quiet
from watcher.store.destinations import DestinationSetting
from watcher.store.tables import NO_THREAD, DeliveryStatus

FOLLOWER, OTHER = 11, 12


def settle_window(world: World, chat_id: int) -> DestinationSetting:
    with Session(world.engine) as session:
        setting = session.get(DestinationSetting, (chat_id, NO_THREAD))
        assert setting is not None
        return setting


def zone_where_it_is(local: str) -> str:
    """A fixed-offset zone whose clock shows `local` (HH:MM) about now, to the minute."""
    now = datetime.now(UTC)
    hours, minutes = map(int, local.split(":"))
    offset = (hours * 60 + minutes - (now.hour * 60 + now.minute)) % (24 * 60)
    if offset > 14 * 60:
        offset -= 24 * 60
    sign = "+" if offset >= 0 else "-"
    return f"UTC{sign}{abs(offset) // 60:02d}:{abs(offset) % 60:02d}"


async def test_a_pause_holds_a_hundred_papers_and_resume_sends_one_summary(world: World) -> None:
    world.subscribe(FOLLOWER)
    world.chats.speaking.pause(FOLLOWER, NO_THREAD)
    records = [world.publish(f"2611.{n:05d}", title=f"Paper number {n}") for n in range(99)]
    world.subscribe(OTHER)
    records.append(world.publish("2611.00099", title="Paper number 99"))

    async with sending(world) as sender:
        await eventually(sent_count(world, 1))  # the other chat's one paper went out
        # Paused: not due, still pending, nothing sent to it.
        assert world.outbox.due(limit=500) == []
        assert world.fake.sent(FOLLOWER) == []
        assert world.outbox.stats().pending == 100

        world.chats.speaking.resume(FOLLOWER, NO_THREAD)
        sender.speaking_changed()
        await eventually(sent_count(world, 101))
    async with sending(world):  # a restart finds nothing more to send
        await eventually(lambda: world.outbox.stats().pending == 0)

    (summary,) = world.fake.sent(FOLLOWER)
    lines = summary.text.splitlines()
    assert lines[0] == "📬 While you were away: 100 new papers"
    assert lines[1] == f"• {records[0].title} — ★ Dezun Dong"
    held = [d for d in world.deliveries() if d.chat_id == FOLLOWER]
    assert {d.status for d in held} == {DeliveryStatus.SENT}
    assert {d.message_id for d in held} == {summary.message_id}


@pytest.mark.real_clock  # quiet hours' smoke test of the wall clock (test_sender_clock turns one)
async def test_quiet_hours_across_midnight_hold_papers_until_the_sender_ends_them(
    world: World,
) -> None:
    world.subscribe(FOLLOWER)
    # The chat's clock shows 01:00: its window 23:00-01:00, across its midnight, has just ended,
    # and papers found in it still wait for the sender to end it.
    world.chats.digests.set_zone(FOLLOWER, zone_where_it_is("01:00"))
    five_minutes_ago = datetime.now(UTC) - timedelta(minutes=5)
    settings = world.chats.speaking.set_quiet(
        FOLLOWER, NO_THREAD, QuietHours(23 * 60, 60), now=five_minutes_ago
    )
    assert settings.quiet_from is not None and settings.quiet_until is not None
    assert settings.quiet_until - settings.quiet_from == timedelta(hours=2)
    assert settings.quiet_until <= datetime.now(UTC)
    for n in range(3):
        world.publish(f"2611.{n:05d}", title=f"Quiet paper {n}")
    assert world.outbox.due(limit=10) == []  # held until the window is ended

    async with sending(world):
        await eventually(sent_count(world, 3))

    # Three is no more than the threshold: one message each, in order, exactly once.
    assert [m.text.splitlines()[1] for m in world.fake.sent(FOLLOWER)] == [
        f"Quiet paper {n}" for n in range(3)
    ]
    moved = settle_window(world, FOLLOWER)
    assert moved.quiet_from == settings.quiet_from + timedelta(days=1)


async def test_a_silent_chat_gets_every_message_without_a_sound(world: World) -> None:
    world.subscribe(FOLLOWER, OTHER)
    world.chats.speaking.set_silent(FOLLOWER, NO_THREAD, True)
    world.publish("2611.00001", title="Hush")

    async with sending(world):
        await eventually(sent_count(world, 2))

    sends = {
        r.params["chat_id"]: r.params.get("disable_notification")
        for r in world.fake.requests
        if r.method == "sendMessage"
    }
    assert sends[str(FOLLOWER)] in ("true", "True")
    assert sends[str(OTHER)] is None


async def test_a_compact_batch_at_the_limit_takes_two_messages_each_paper_once(
    world: World,
) -> None:
    world.subscribe(FOLLOWER)
    world.chats.speaking.set_format(FOLLOWER, NO_THREAD, MessageFormat.COMPACT)
    title = "A long title about interconnection networks " * 4
    records = [world.publish(f"2611.{n:05d}", title=f"{n} {title}") for n in range(30)]

    async with sending(world):
        await eventually(sent_count(world, 30))
    async with sending(world):
        await eventually(lambda: world.outbox.stats().pending == 0)

    messages = world.fake.sent(FOLLOWER)
    assert len(messages) == 2
    lines = [line for message in messages for line in message.text.splitlines()]
    assert lines == [f"{r.title.strip()} · ★ Dezun Dong · cs.DC" for r in records]
    assert all(len(message.text) <= 4096 for message in messages)
    ids = {d.message_id for d in world.deliveries()}
    assert ids == {message.message_id for message in messages}


async def test_quiet_hours_across_a_clock_change_release_at_the_new_local_morning(
    world: World,
) -> None:
    world.subscribe(FOLLOWER)
    world.chats.digests.set_zone(FOLLOWER, "Europe/Berlin")
    evening = datetime(2027, 3, 27, 22, 0, tzinfo=UTC)  # 23:00 CET, the night clocks go forward
    settings = world.chats.speaking.set_quiet(
        FOLLOWER, NO_THREAD, QuietHours(22 * 60, 7 * 60), now=evening
    )
    assert (settings.quiet_from, settings.quiet_until) == (
        datetime(2027, 3, 27, 21, 0, tzinfo=UTC),
        datetime(2027, 3, 28, 5, 0, tzinfo=UTC),  # 07:00 CEST: eight hours, not nine
    )
    for n in range(7):
        world.publish(f"2611.{n:05d}", title=f"Night paper {n}")
    at_six_cest = datetime(2027, 3, 28, 4, 0, tzinfo=UTC)
    assert world.outbox.due(limit=10, now=at_six_cest) == []
    threshold = world.chats.summary_threshold
    assert quiet.release_ended(world.engine, threshold=threshold, now=at_six_cest) == 0

    assert quiet.release_ended(world.engine, threshold=threshold, now=settings.quiet_until) == 1

    due = world.outbox.due(limit=10, now=settings.quiet_until)
    assert len(due) == 7 and all(d.summarize for d in due)  # more than 5: one summary
    moved = settle_window(world, FOLLOWER)
    assert (moved.quiet_from, moved.quiet_until) == (
        datetime(2027, 3, 28, 20, 0, tzinfo=UTC),  # 22:00 CEST
        datetime(2027, 3, 29, 5, 0, tzinfo=UTC),
    )


async def test_a_group_that_becomes_a_supergroup_keeps_its_settings(world: World) -> None:
    group, supergroup = -4001, -1001234567890
    world.subscribe(group)
    world.chats.speaking.set_silent(group, NO_THREAD, True)
    world.chats.speaking.pause(group, NO_THREAD)

    world.chats.migrate(group, supergroup)

    moved = world.chats.speaking.settings(supergroup, NO_THREAD)
    assert (moved.silent, moved.paused) == (True, True)
    assert world.chats.speaking.settings(group, NO_THREAD).paused is False  # nothing left behind
