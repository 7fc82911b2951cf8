"""The follow side of the core's face (`Core.follows`, `watcher.core.unfollowing`,
`watcher.core.homonym_question`) on a real database, with the fake arXiv API where a name is
surveyed: each use case's typed outcome and the store state it leaves. Every way of unfollowing
(command, paper button, unfollow all; and the command line, for every chat) ends in the same
state; the homonym question's token works once, expires, and is another chat's to nobody.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy import Engine

from tests.fakes.arxiv_api import FakeArxiv
from tests.fakes.corpus import make_record
from tests.harness.matched import matched
from tests.harness.patience import LOOPBACK_TIMEOUT
from watcher.arxiv.fetch import ArxivClient
from watcher.arxiv.records import Record
from watcher.core import Core
from watcher.core.homonym_question import ANY_CATEGORY, Answered, Asked, Expired, Stale
from watcher.core.subscribing import Subscribed
from watcher.core.unfollowing import (
    EVERYWHERE,
    NoSuchNumber,
    NotFollowed,
    OutOfDate,
    Stopped,
    StoppedAll,
    Unfollowing,
)
from watcher.follows.rules import PersonRule
from watcher.follows.topics import parse_topic
from watcher.polling.poll import Poller
from watcher.settings import Settings
from watcher.store import Store
from watcher.store.chats import Chats
from watcher.store.offers import OFFER_LIFETIME
from watcher.store.outbox import Outbox

CHAT = 42
OTHER_CHAT = 43
START = datetime(2026, 12, 1, 9, tzinfo=UTC)


class Clock:
    """The core's clock, turned by the test."""

    def __init__(self) -> None:
        self.now = START

    def __call__(self) -> datetime:
        return self.now


@dataclass
class World:
    core: Core
    clock: Clock
    arxiv: FakeArxiv
    rounds_asked: list[None]
    dezun: int  # followed by CHAT and OTHER_CHAT, one paper pending for each

    @property
    def store(self) -> Store:
        return self.core.store

    @property
    def chats(self) -> Chats:
        return self.core.chats


def namesakes() -> list[Record]:
    """ "Wei Wang" on papers in cs, math and physics: several people."""
    categories = ["cs.DC", "cs.DC", "cs.NI", "math.OC", "hep-th", "cs.DC", "cs.NI"]
    return [
        make_record(
            arxiv_id=f"2605.{index + 1:05d}",
            authors=["Wei Wang", "Someone Else"],
            primary_category=category,
            categories=(category,),
        )
        for index, category in enumerate(categories)
    ]


@pytest.fixture
async def world(engine: Engine, database_url: str) -> AsyncIterator[World]:
    settings = Settings(_env_file=None, database_url=database_url, watch_authors=["Dezun Dong"])
    with FakeArxiv(namesakes()) as arxiv:
        async with ArxivClient(
            arxiv.url, min_interval=0, timeout=LOOPBACK_TIMEOUT, max_retries=0
        ) as client:
            store, chats, outbox = Store(engine), Chats(engine), Outbox(engine)
            poller = Poller(
                store=store,
                client=client,
                poll_interval=3600,
                author_feed_url=arxiv.author_feed_url,
            )
            rounds_asked: list[None] = []
            clock = Clock()
            core = Core(
                settings,
                store,
                chats,
                outbox,
                poller,
                clock=clock,
                poll_soon=lambda: rounds_asked.append(None),
                lookup_patience=5,
            )
            followed, _ = store.follow(["Dezun Dong"])
            for chat_id in (CHAT, OTHER_CHAT):
                chats.seen(chat_id, kind="private")
                chats.subscribe(chat_id, followed.id)
            store.save_records(
                [matched(make_record(), followed.id)], announce_for=frozenset({followed.id})
            )
            yield World(core, clock, arxiv, rounds_asked, followed.id)


def state(world: World) -> tuple[list[int], list[int], list[int], list[int]]:
    """What an unfollow may change: each chat's follows, whom deliveries wait for, and the
    follows the service keeps."""
    return (
        world.chats.subscribed_ids(CHAT),
        world.chats.subscribed_ids(OTHER_CHAT),
        sorted(d.chat_id for d in world.core.outbox.due(limit=10)),
        [f.id for f in world.store.followed()],
    )


# -- every way of unfollowing ------------------------------------------------------------------


@pytest.mark.parametrize("path", ["command", "button", "all"])
async def test_each_way_a_chat_unfollows_ends_in_the_same_state(world: World, path: str) -> None:
    before = state(world)
    follows = world.core.follows

    if path == "command":
        outcome = await follows.unsubscribe(CHAT, 0, "Dezun Dong")
        assert isinstance(outcome, Stopped) and outcome.followed.id == world.dezun
    elif path == "button":
        outcome = await follows.unfollow(CHAT, 0, world.dezun)
        assert isinstance(outcome, Stopped) and outcome.followed.id == world.dezun
    else:
        stopped_all = await follows.unfollow_all(CHAT, 0, 1)
        assert isinstance(stopped_all, StoppedAll)
        assert [f.id for f in stopped_all.followed] == [world.dezun]

    assert before == ([world.dezun], [world.dezun], [CHAT, OTHER_CHAT], [world.dezun])
    # This chat stops; the other keeps it, and its delivery; the service keeps polling it.
    assert state(world) == ([], [world.dezun], [OTHER_CHAT], [world.dezun])


async def test_the_command_line_unfollows_with_the_same_use_case_for_every_chat(
    world: World,
) -> None:
    outcome = Unfollowing(world.store, world.chats).by_name(EVERYWHERE, "Dezun Dong")

    assert isinstance(outcome, Stopped) and outcome.followed.id == world.dezun
    chats_follow, other_follows, _, kept = state(world)
    assert (chats_follow, other_follows, kept) == ([], [], [])
    again = Unfollowing(world.store, world.chats).by_name(EVERYWHERE, "Dezun Dong")
    assert again == NotFollowed()


async def test_unfollowing_what_the_chat_does_not_follow_changes_nothing(world: World) -> None:
    before = state(world)
    follows = world.core.follows
    other, _ = world.store.follow(["Someone Else"])

    assert await follows.unsubscribe(CHAT, 0, "Someone Else") == NotFollowed()
    assert await follows.unsubscribe(CHAT, 7, "Dezun Dong") == NotFollowed()  # another topic
    assert await follows.unfollow(CHAT, 0, other.id) == NotFollowed()
    assert await follows.unfollow_all(CHAT, 0, 2) == OutOfDate()  # asked about two
    assert await follows.unfollow_all(CHAT, 7, 0) == OutOfDate()  # nothing there
    assert state(world)[:3] == before[:3]


def test_unfollow_all_checks_the_count_in_the_transaction_that_stops_them(world: World) -> None:
    assert world.chats.unsubscribe(CHAT, None, only_if=2) == 0
    assert world.chats.subscribed_ids(CHAT) == [world.dezun]
    assert world.chats.unsubscribe(CHAT, None, only_if=1) == 1
    assert world.chats.subscribed_ids(CHAT) == []


async def test_unwatch_by_number_and_by_words(world: World) -> None:
    follows = world.core.follows
    rdma, gpus = parse_topic("RDMA in cs.DC"), parse_topic("GPU in cs.AR")
    for topic in (rdma, gpus):
        followed, _ = world.store.watch_topic(topic, watched=False)
        world.chats.subscribe(CHAT, followed.id)
    listed = await world.core.questions.topics(CHAT, 0)

    assert await follows.unwatch(CHAT, 0, number=3) == NoSuchNumber(3, 2)
    second = await follows.unwatch(CHAT, 0, number=2)
    assert isinstance(second, Stopped) and second.followed == listed[1]
    words = rdma if listed[0].topic == rdma.text else gpus
    first = await follows.unwatch(CHAT, 0, topic=words)
    assert isinstance(first, Stopped) and first.followed.id == listed[0].id
    assert await follows.unwatch(CHAT, 0, topic=rdma) == NotFollowed()
    assert world.chats.subscribed_ids(CHAT) == [world.dezun]


# -- the homonym question ----------------------------------------------------------------------


async def ask_wei_wang(world: World, chat_id: int = CHAT) -> Asked:
    asked = await world.core.follows.subscribe(chat_id, 0, PersonRule(("Wei Wang",)))
    assert isinstance(asked, Asked), asked
    return asked


async def test_a_name_of_several_people_is_asked_about_and_its_token_works_once(
    world: World,
) -> None:
    asked = await ask_wei_wang(world)
    assert asked.offer.names == ("Wei Wang",)
    assert [c for c, _ in asked.offer.categories] == ["cs.DC", "cs.NI", "hep-th"]
    assert world.store.find_person(PersonRule(("Wei Wang",))) is None  # nothing followed yet
    assert world.rounds_asked == []

    answered = await world.core.follows.answer(CHAT, asked.token, 0)

    assert isinstance(answered, Answered) and isinstance(answered.outcome, Subscribed)
    assert answered.rule == PersonRule(("Wei Wang",), ("cs.DC",))
    assert (answered.chat_id, answered.thread_id) == (CHAT, 0)
    assert len(world.rounds_asked) == 1  # the injected poll request: its history now
    assert await world.core.follows.answer(CHAT, asked.token, ANY_CATEGORY) == Stale()
    assert len(world.chats.subscribed_ids(CHAT)) == 2


async def test_a_token_is_no_other_chats_and_a_wrong_pick_leaves_it_open(world: World) -> None:
    asked = await ask_wei_wang(world)

    assert await world.core.follows.answer(OTHER_CHAT, asked.token, 0) == Stale()
    assert await world.core.follows.answer(CHAT, asked.token, 9) == Stale()
    assert await world.core.follows.answer(CHAT, "forged", 0) == Stale()
    answered = await world.core.follows.answer(CHAT, asked.token, ANY_CATEGORY)
    assert isinstance(answered, Answered) and answered.rule == PersonRule(("Wei Wang",))
    assert world.chats.subscribed_ids(OTHER_CHAT) == [world.dezun]


async def test_an_expired_token_names_the_name_and_changes_nothing(world: World) -> None:
    asked = await ask_wei_wang(world)
    world.clock.now += OFFER_LIFETIME + timedelta(seconds=1)

    assert await world.core.follows.answer(CHAT, asked.token, 0) == Expired("Wei Wang")
    assert await world.core.follows.answer(CHAT, asked.token, 0) == Expired("Wei Wang")
    assert world.chats.subscribed_ids(CHAT) == [world.dezun]
    assert world.rounds_asked == []
