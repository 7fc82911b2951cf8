"""The administrators' reads and the chats' reachability through the core's face
(`Core.admin`, `Core.presence`) on a real database: /stats' numbers in one call, and a chat that
refuses the bot, comes back, has a parked topic retried, or moves to a new id."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from datetime import UTC, datetime

import pytest
from sqlalchemy import Engine

from tests.fakes.arxiv_api import FakeArxiv
from tests.fakes.corpus import make_record
from tests.harness.core_face import core_on
from watcher.core import Core
from watcher.store import MatchedRecord

NOW = datetime(2026, 12, 3, 9, 0, tzinfo=UTC)
HERE, AWAY, TOPIC = 10, 20, 4


@pytest.fixture
def fake() -> Iterator[FakeArxiv]:
    with FakeArxiv([]) as server:
        yield server


@pytest.fixture
async def core(engine: Engine, fake: FakeArxiv) -> AsyncIterator[Core]:
    """Two chats following Dezun Dong (`HERE` in a forum topic), one paper of his announced."""
    async with core_on(engine, fake, lambda: NOW) as core:
        followed, _ = core.store.follow(["Dezun Dong"])
        for chat_id in (HERE, AWAY):
            core.chats.seen(chat_id, kind="supergroup", title=f"chat {chat_id}")
        core.chats.subscribe(HERE, followed.id, thread_id=TOPIC)
        core.chats.subscribe(AWAY, followed.id)
        record = make_record(arxiv_id="2612.00001", authors=["Dezun Dong"])
        ids = frozenset({followed.id})
        core.store.save_records([MatchedRecord(record, ids)], announce_for=ids)
        yield core


async def test_stats_count_the_chats_papers_and_deliveries_in_one_call(core: Core) -> None:
    await core.presence.gone(AWAY, reason="the bot was removed from the supergroup")
    stats = await core.admin.stats()
    assert (stats.chats, stats.active_chats, stats.subscriptions) == (2, 1, 2)
    assert stats.papers == 1
    assert (stats.deliveries.pending, stats.deliveries.parked) == (1, 1)  # AWAY's waits
    assert [f.label for f in stats.followed] == ["Dezun Dong"]
    assert stats.parked_total == 0 and stats.failures == ()


async def test_a_chat_that_refused_the_bot_is_back_when_seen_again(core: Core) -> None:
    came_back, _language = await core.presence.seen(HERE, kind="supergroup", title="chat 10")
    assert not came_back
    await core.presence.gone(HERE, reason="the bot was removed from the supergroup")
    assert (await core.admin.stats()).active_chats == 1
    came_back, _language = await core.presence.seen(HERE, kind="supergroup", title="chat 10")
    assert came_back
    assert (await core.admin.stats()).active_chats == 2


async def test_a_parked_topic_is_retried_now_and_shown_until_then(core: Core) -> None:
    core.chats.parking.park(HERE, TOPIC, reason="topic closed", first_retry=3600, now=NOW)
    stats = await core.admin.stats()
    assert stats.parked_total == 1 and stats.parked[0].thread_id == TOPIC
    assert await core.presence.retry_parked(HERE, TOPIC) == 1


async def test_a_chat_that_moved_keeps_its_follows_under_its_new_id(core: Core) -> None:
    await core.presence.moved(AWAY, 30)
    assert core.chats.subscribed_ids(AWAY) == []
    assert len(core.chats.subscribed_ids(30)) == 1
