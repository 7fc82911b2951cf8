"""The delivery side's calls into the core's face (`Core.delivery`) on a real database: what
the sender learns of the chats it serves, and the digests, quiet hours, parkings and admin
notices that fall due by the core's clock, not the wall clock (the test turns it by days)."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from datetime import UTC, datetime, time, timedelta

import pytest
from sqlalchemy import Engine

from bot.digest import render_digest_parts
from tests.fakes.arxiv_api import FakeArxiv
from tests.fakes.corpus import make_record
from tests.harness.core_face import core_on
from watcher.calendars.quiet_hours import QuietHours
from watcher.calendars.schedule import DigestSchedule
from watcher.core import Core
from watcher.core.views import Style
from watcher.kinds import MessageFormat
from watcher.store import MatchedRecord

HERE, TOPIC = 10, 4
PAPER = "2612.00001"


class Turned:
    """A clock the test turns: it starts at the wall clock's minute (rows the store stamps
    itself must be due by it)."""

    def __init__(self) -> None:
        self.now = datetime.now(UTC).replace(second=0, microsecond=0) + timedelta(minutes=1)

    def __call__(self) -> datetime:
        return self.now


@pytest.fixture
def fake() -> Iterator[FakeArxiv]:
    with FakeArxiv([]) as server:
        yield server


@pytest.fixture
def clock() -> Turned:
    return Turned()


@pytest.fixture
async def core(engine: Engine, fake: FakeArxiv, clock: Turned) -> AsyncIterator[Core]:
    """`HERE`'s forum topic `TOPIC` follows Dezun Dong."""
    async with core_on(engine, fake, clock) as core:
        followed, _ = core.store.follow(["Dezun Dong"])
        core.chats.seen(HERE, kind="supergroup", title="here")
        core.chats.subscribe(HERE, followed.id, thread_id=TOPIC)
        yield core


def publish(core: Core) -> int:
    """One paper of Dezun Dong's, announced to his followers; his follow's id."""
    (followed,) = core.store.followed()
    ids = frozenset({followed.id})
    record = make_record(arxiv_id=PAPER, authors=["Dezun Dong"])
    core.store.save_records([MatchedRecord(record, ids)], announce_for=ids)
    return followed.id


async def test_the_audience_of_a_send_and_its_confirmation(core: Core) -> None:
    await core.chat_settings.set_format(HERE, TOPIC, MessageFormat.COMPACT)
    followed_id = publish(core)
    audience = await core.delivery.audience({HERE}, [PAPER])
    assert audience.topics == {(HERE, TOPIC): frozenset({followed_id})}
    assert [f.label for f in audience.followed] == ["Dezun Dong"]
    assert (PAPER, followed_id) in audience.links
    assert audience.styles == {(HERE, TOPIC): Style(silent=False, compact=True)}
    (due,) = await core.delivery.due(limit=10)
    await core.delivery.mark_sent([(due.id, 99)], versions={})
    assert await core.delivery.due(limit=10) == []
    assert core.outbox.stats().sent == 1


async def test_a_digest_falls_due_by_the_core_clock(core: Core, clock: Turned) -> None:
    await core.chat_settings.set_digest(
        HERE, TOPIC, DigestSchedule(time(8, 0)), render=render_digest_parts
    )
    publish(core)
    assert await core.delivery.claim_digests(render=render_digest_parts, limit=5) == []
    next_digest = await core.delivery.next_digest()
    assert next_digest is not None and clock.now < next_digest <= clock.now + timedelta(days=1)
    clock.now += timedelta(days=1)
    (claimed,) = await core.delivery.claim_digests(render=render_digest_parts, limit=5)
    assert (claimed.chat_id, claimed.thread_id, claimed.papers) == (HERE, TOPIC, 1)
    part = await core.delivery.digest_part(HERE, TOPIC)
    assert part is not None and part.delivery_ids


async def test_quiet_hours_end_by_the_core_clock(core: Core, clock: Turned) -> None:
    minute = clock.now.hour * 60 + clock.now.minute  # the chat's zone is UTC
    await core.chat_settings.set_quiet(HERE, TOPIC, QuietHours(minute, (minute + 60) % 1440))
    publish(core)
    assert await core.delivery.due(limit=10) == []  # held by the quiet hours
    assert await core.delivery.release_quiet() == 0
    assert await core.delivery.next_quiet_end() == clock.now + timedelta(hours=1)
    clock.now += timedelta(hours=1)
    assert await core.delivery.release_quiet() == 1
    assert len(await core.delivery.due(limit=10)) == 1


async def test_a_parked_destination_is_probed_after_its_delay_on_the_core_clock(
    core: Core, clock: Turned
) -> None:
    publish(core)
    parked = await core.delivery.park(HERE, TOPIC, reason="topic closed")
    delay = timedelta(seconds=core.settings.parked_retry_first)
    assert parked.retry_at == clock.now + delay
    assert await core.delivery.unpark(HERE, TOPIC)
    assert not await core.delivery.unpark(HERE, TOPIC)


async def test_an_admin_notice_is_owed_until_it_is_marked_sent(core: Core, clock: Turned) -> None:
    core.store.record_parse_failure(
        "listing", url="https://arxiv.org/list/cs/new", problem="names no mailing date",
        now=clock.now, admin_chats=[1], wording=lambda h: f"{h.source} broken",
    )  # fmt: skip
    (notice,) = await core.delivery.pending_admin_notices()
    assert notice.text == "listing broken"
    await core.delivery.admin_notice_sent(notice.id)
    assert await core.delivery.pending_admin_notices() == []
