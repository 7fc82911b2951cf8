"""The read-only side of the core's face (`Core.questions`) on a real database: the scope rule of
/recent, /subject, /subjects and /paper's marks (a chat's own follows, else the watched authors,
per forum topic), and each answer's typed outcome."""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass

import pytest
from sqlalchemy import Engine

from tests.fakes.corpus import make_record
from tests.harness.matched import matched
from watcher.arxiv.fetch import ArxivClient
from watcher.core import Core
from watcher.core.questions import (
    NobodyFollowed,
    NoneInCategory,
    NoneStored,
    PapersPage,
    Subjects,
)
from watcher.follows.rules import PersonRule
from watcher.polling.poll import Poller
from watcher.settings import Settings
from watcher.store import Store
from watcher.store.chats import Chats
from watcher.store.outbox import Outbox

CHAT = 42
TOPIC = 7  # a forum topic of CHAT


@dataclass
class World:
    core: Core
    watched: int  # Dezun Dong, watched by the operator, one paper stored in cs.DC
    own: int  # Wei Wang, followed by CHAT's TOPIC alone, nothing stored yet


async def core_on(engine: Engine, database_url: str, watch: list[str]) -> AsyncIterator[Core]:
    settings = Settings(_env_file=None, database_url=database_url, watch_authors=watch)
    store = Store(engine)
    async with ArxivClient("http://127.0.0.1:9/unused", min_interval=0) as client:
        poller = Poller(store=store, client=client, poll_interval=3600)
        yield Core(settings, store, Chats(engine), Outbox(engine), poller)


@pytest.fixture
async def world(engine: Engine, database_url: str) -> AsyncIterator[World]:
    async for core in core_on(engine, database_url, ["Dezun Dong"]):
        (rule,) = core.settings.followed_specs
        watched, _ = core.store.follow_watched(rule)
        own, _ = core.store.follow_person(PersonRule(("Wei Wang",)), watched=False)
        core.chats.seen(CHAT, kind="supergroup")
        core.chats.subscribe(CHAT, own.id, thread_id=TOPIC)
        record = make_record(primary_category="cs.DC", categories=("cs.DC",))
        core.store.save_records([matched(record, watched.id)], announce_for=frozenset())
        yield World(core, watched.id, own.id)


async def test_a_chat_following_nobody_asks_about_the_watched_authors(world: World) -> None:
    questions = world.core.questions

    page = await questions.papers(CHAT, 0, None, per_page=5, page=0)

    assert isinstance(page, PapersPage)
    assert (page.scope.own, [f.id for f in page.scope.followed]) == (False, [world.watched])
    assert page.total == len(page.records) == 1
    assert await questions.marked_names(CHAT, 0) == ["Dezun Dong"]
    subjects = await questions.subjects(CHAT, 0)
    assert isinstance(subjects, Subjects) and subjects.counts == (("cs.DC", 1),)


async def test_a_forum_topic_that_follows_someone_asks_about_its_own(world: World) -> None:
    questions = world.core.questions

    page = await questions.papers(CHAT, TOPIC, None, per_page=5, page=0)
    in_category = await questions.papers(CHAT, TOPIC, ("cs.DC",), per_page=5, page=0)

    assert isinstance(page, NoneStored)
    assert (page.scope.own, [f.id for f in page.scope.followed]) == (True, [world.own])
    assert isinstance(in_category, NoneInCategory) and in_category.counts == ()
    assert await questions.marked_names(CHAT, TOPIC) == ["Wei Wang"]
    assert await questions.how_many_follows(CHAT, TOPIC) == 1
    assert await questions.how_many_follows(CHAT, 0) == 0


async def test_nobody_followed_and_nobody_watched(engine: Engine, database_url: str) -> None:
    async for core in core_on(engine, database_url, []):
        assert await core.questions.papers(CHAT, 0, None, per_page=5, page=0) == NobodyFollowed()
