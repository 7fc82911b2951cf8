"""The subscribe decision (`watcher.core.subscribing`) on a real database, with the fake arXiv API
where a look-up is made: what the bot tests cannot see from a reply (which rules are stored or
removed, whether arXiv was asked, whether a round was asked for), and `find_named`."""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from datetime import UTC, datetime

import pytest
from sqlalchemy import Engine

from tests.fakes.arxiv_api import FakeArxiv
from tests.fakes.corpus import dezun_dong_records
from watcher.arxiv.fetch import ArxivClient
from watcher.core.subscribing import (
    BudgetSpent,
    NotFound,
    OverLimit,
    Start,
    Subscribed,
    Subscribing,
    WatchedJoined,
    find_named,
)
from watcher.follows.identity import Identity
from watcher.follows.rules import PersonRule
from watcher.polling.poll import Poller
from watcher.store import Store
from watcher.store.budgets import LookupBudgets
from watcher.store.chats import MAX_SUBSCRIPTIONS, Chats

CHAT = 42
OTHER_CHAT = 43
TOPIC = 7  # a forum topic of CHAT
MOMENT = datetime(2026, 12, 1, 9, tzinfo=UTC)


@dataclass
class World:
    store: Store
    chats: Chats
    arxiv: FakeArxiv
    budget: LookupBudgets
    subscribing: Subscribing
    rounds_asked: list[None] = field(default_factory=list)


@pytest.fixture
async def world(engine: Engine) -> AsyncIterator[World]:
    with FakeArxiv(dezun_dong_records()) as arxiv:
        async with ArxivClient(arxiv.url, min_interval=0, timeout=2, max_retries=0) as client:
            store, chats = Store(engine), Chats(engine)
            chats.seen(CHAT, kind="supergroup")
            chats.seen(OTHER_CHAT, kind="private")
            poller = Poller(
                store=store,
                client=client,
                poll_interval=3600,
                author_feed_url=arxiv.author_feed_url,
            )
            # A clock that stands still: no refill between the steps of a test.
            budget = LookupBudgets(engine, per_hour=2, first=2, clock=lambda: MOMENT)
            rounds_asked: list[None] = []
            subscribing = Subscribing(
                store=store,
                chats=chats,
                poller=poller,
                budget=budget,
                patience=5,
                poll_soon=lambda: rounds_asked.append(None),
            )
            yield World(store, chats, arxiv, budget, subscribing, rounds_asked)


def fill(world: World, chat_id: int, count: int, *, thread_id: int = 0) -> None:
    """`chat_id` (in `thread_id`) follows `count` invented people."""
    for n in range(count):
        followed, _ = world.store.follow_person(PersonRule((f"Person Number{n}",)), watched=False)
        world.chats.subscribe(chat_id, followed.id, thread_id=thread_id)


async def test_a_rule_stored_for_a_chat_found_full_is_removed_again(world: World) -> None:
    fill(world, CHAT, MAX_SUBSCRIPTIONS)
    rule = PersonRule(("Wei Wang",), ("cs.DC",))

    outcome = await world.subscribing.choose(CHAT, 0, rule, total=12)

    assert outcome == OverLimit()
    assert world.store.find_followed("Wei Wang", categories=("cs.DC",)) is None


async def test_a_rule_another_chat_follows_stays_when_a_full_chat_asks_for_it(
    world: World,
) -> None:
    rule = PersonRule(("Wei Wang",), ("cs.DC",))
    assert isinstance(await world.subscribing.choose(OTHER_CHAT, 0, rule, total=12), Subscribed)
    fill(world, CHAT, MAX_SUBSCRIPTIONS)

    assert await world.subscribing.choose(CHAT, 0, rule, total=12) == OverLimit()

    kept = world.store.find_followed("Wei Wang", categories=("cs.DC",))
    assert kept is not None
    assert world.chats.subscribers(kept.id) == 1


async def test_the_limit_counts_every_forum_topic_of_the_chat(world: World) -> None:
    fill(world, CHAT, MAX_SUBSCRIPTIONS, thread_id=TOPIC)
    world.store.follow_person(PersonRule(("Dezun Dong",)))  # watched: kept up to date

    outcome = await world.subscribing.subscribe_person(CHAT, 0, PersonRule(("Dezun Dong",)))

    assert outcome == OverLimit()
    assert world.chats.subscribed_ids(CHAT) == []
    assert world.arxiv.requests == []


async def test_a_spent_budget_stops_a_new_name_before_arxiv_is_asked(world: World) -> None:
    world.budget.take(CHAT, lookup=False)
    world.budget.take(CHAT, lookup=False)

    outcome = await world.subscribing.subscribe_person(CHAT, 0, PersonRule(("Dezun Dong",)))

    assert isinstance(outcome, BudgetSpent)
    assert outcome.wait > 0
    assert world.arxiv.requests == []
    assert world.rounds_asked == []
    assert world.store.find_followed("Dezun Dong") is None


async def test_a_name_arxiv_lists_nothing_under_stores_nothing_and_asks_no_round(
    world: World,
) -> None:
    outcome = await world.subscribing.subscribe_person(CHAT, 0, PersonRule(("Nobody Atall",)))

    assert outcome == NotFound()
    assert world.store.find_followed("Nobody Atall") is None
    assert world.rounds_asked == []
    assert len(world.arxiv.requests) == 1
    # No follow was started, so the chat may still start its two; the look-up counted.
    assert world.budget.standing(CHAT).follows == 2
    assert world.budget.standing(CHAT).lookups == 3


async def test_a_new_name_is_followed_for_the_chat_and_a_round_is_asked_for(
    world: World,
) -> None:
    outcome = await world.subscribing.subscribe_person(CHAT, TOPIC, PersonRule(("Dezun Dong",)))

    assert isinstance(outcome, Subscribed)
    assert outcome.start is Start.NEW
    assert outcome.found >= len(dezun_dong_records())
    assert world.chats.subscribed_ids(CHAT, thread_id=TOPIC) == [outcome.followed.id]
    assert world.rounds_asked == [None]


async def test_a_kept_author_costs_no_look_up_and_no_round(world: World) -> None:
    world.store.follow_person(PersonRule(("Dezun Dong",)))  # watched: kept up to date
    world.budget.take(CHAT, lookup=False)
    world.budget.take(CHAT, lookup=False)  # spent: a kept author does not need it

    outcome = await world.subscribing.subscribe_person(CHAT, 0, PersonRule(("Dezun Dong",)))

    assert isinstance(outcome, Subscribed)
    assert outcome.start is Start.KEPT
    assert world.arxiv.requests == []
    assert world.rounds_asked == []


async def test_the_watched_authors_are_refused_whole_when_they_do_not_fit(world: World) -> None:
    fill(world, CHAT, MAX_SUBSCRIPTIONS - 1)
    watched = [PersonRule(("Dezun Dong",)), PersonRule(("Wei Wang",))]

    assert await world.subscribing.subscribe_watched(CHAT, 0, watched) == OverLimit()
    assert len(world.chats.subscribed_ids(CHAT)) == MAX_SUBSCRIPTIONS - 1

    joined = await world.subscribing.subscribe_watched(OTHER_CHAT, 0, watched)
    assert isinstance(joined, WatchedJoined)
    assert [f.label for f in joined.added] == ["Dezun Dong", "Wei Wang"]


def test_find_named_reads_author_ids_in_any_form_and_names_in_their_categories(
    engine: Engine,
) -> None:
    store = Store(engine)
    person, _ = store.follow_identity(Identity("arxiv", "dong_d_1"), name="Dezun Dong")
    in_dc, _ = store.follow_person(PersonRule(("Wei Wang",), ("cs.DC",)))

    for text in ("arxiv:dong_d_1", "https://arxiv.org/a/dong_d_1", "dong_d_1"):
        found = find_named(store, text)
        assert found is not None and found.id == person.id, text
    found = find_named(store, "Wei Wang", ("cs.DC",))
    assert found is not None and found.id == in_dc.id
    assert find_named(store, "Wei Wang") is None
    # Meant as an author id but wrong: looked up as a name, and nobody follows that name.
    assert find_named(store, "arxiv:no such id!") is None


async def test_a_new_follow_spends_one_and_a_chat_found_full_gets_it_back(world: World) -> None:
    outcome = await world.subscribing.subscribe_person(CHAT, 0, PersonRule(("Dezun Dong",)))
    assert isinstance(outcome, Subscribed)
    assert world.budget.standing(CHAT).follows == 1

    fill(world, OTHER_CHAT, MAX_SUBSCRIPTIONS)
    rule = PersonRule(("Wei Wang",), ("cs.DC",))
    assert await world.subscribing.choose(OTHER_CHAT, 0, rule, total=12) == OverLimit()
    assert world.budget.standing(OTHER_CHAT).follows == 2


async def test_a_choice_of_a_name_someone_else_keeps_up_to_date_costs_nothing(
    world: World,
) -> None:
    rule = PersonRule(("Wei Wang",), ("cs.DC",))
    assert isinstance(await world.subscribing.choose(OTHER_CHAT, 0, rule, total=12), Subscribed)
    assert world.budget.standing(OTHER_CHAT).follows == 1
    await world.subscribing.poller.poll()  # now it is kept up to date
    world.budget.take(CHAT, lookup=False)
    world.budget.take(CHAT, lookup=False)  # spent

    outcome = await world.subscribing.choose(CHAT, 0, rule, total=12)

    assert isinstance(outcome, Subscribed) and outcome.start is Start.KEPT
