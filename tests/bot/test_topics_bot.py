"""/watch, /unwatch and /subscriptions with topics: the real Application long-polling the fake
Bot API, the real store, the fake arXiv; and a topic's paper reaching the chat through the poll
and the delivery sender."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy import Engine

from tests.fakes.corpus import make_record
from tests.harness.bots import GROUP, USER, Bot, running_front_end
from watcher.follows.topics import parse_topic

WATCH = '/watch "remote direct memory access" RDMA in cs.DC'
SHOWN = '"remote direct memory access" rdma'


def topics(bot: Bot) -> list[str]:
    return [f.label for f in bot.store.followed() if f.kind == "topic"]


async def test_watch_follows_a_topic_and_subscriptions_lists_it_with_the_people(bot: Bot) -> None:
    answer = await bot.ask_one(USER, WATCH)

    assert answer.startswith(f"✅ This chat now watches {SHOWN} in cs.DC: new papers")
    assert "Papers that came out before now are not announced." in answer
    assert topics(bot) == [f"{SHOWN} in cs.DC"]
    again = await bot.ask_one(USER, "/watch rdma “Remote Direct Memory Access” in CS.dc")
    assert again.startswith(f"This chat already watches {SHOWN} in cs.DC.")
    await bot.ask_one(USER, "/subscribe")

    listing = await bot.ask_one(USER, "/subscriptions")

    assert listing.startswith("This chat follows 1 author and 1 topic:")
    assert "• Dezun Dong:" in listing
    assert f"Topics (/unwatch N stops topic N):\n1. {SHOWN} in cs.DC: 0 papers" in listing


async def test_a_failing_topic_is_listed_with_its_failed_tries_counted_in_words(bot: Bot) -> None:
    await bot.ask_one(USER, WATCH)
    (topic,) = [f for f in bot.store.followed() if f.kind == "topic"]
    now = datetime.now(UTC)

    def fail_once() -> None:
        bot.store.record_poll_failure([topic.id], error="HTTP 503", now=now, next_poll=now)

    fail_once()
    once = await bot.ask_one(USER, "/subscriptions")
    fail_once()
    twice = await bot.ask_one(USER, "/subscriptions")

    line = f"1. {SHOWN} in cs.DC: 0 papers, not fetched yet (⚠️ the last "
    assert f"{line}try failed; retrying)" in once
    assert f"{line}2 tries failed; retrying)" in twice


@pytest.mark.parametrize(
    ("text", "answer"),
    [
        ("/watch", "No topic given: words, then in and a category."),
        ("/watch RDMA", "At least one category is required (in cs.DC, for example)"),
        ("/watch RDMA in cs.DX", "'cs.DX' is not an arXiv category; did you mean"),
        ("/watch RDMA in cs.DC cs.NI cs.OS cs.AR", "4 categories given; at most 3"),
        ("/watch -ethernet in cs.NI", "A topic of excluded words only"),
        ('/watch "" in cs.NI', "The topic is empty"),
        ("/watch " + "x" * 101 + " in cs.DC", "That topic is too long"),
        # Issue 30, item 5: /unwatch's own reason, not /watch's "At least one category…".
        ("/unwatch RDMA", "/unwatch stops a topic by its number in the /unwatch list, or by its"),
        (
            "/unwatch cs.dc",
            "To stop the topic of all of cs.DC, put in before it.\nFor example: /unwatch in cs.DC",
        ),
        ("/unwatch RDMA in cs.DX", "'cs.DX' is not an arXiv category; did you mean"),
        ("/unwatch -ethernet in cs.NI", "A topic of excluded words only"),
        ("/unwatch RDMA in cs.NI", "This chat does not watch rdma in cs.NI."),
        ("/unwatch 0", "This chat has no topic number 0 (it has none)."),
    ],
)
async def test_bad_topics_get_one_sentence_and_an_example_and_change_nothing(
    bot: Bot, text: str, answer: str
) -> None:
    reply = await bot.ask_one(USER, text)

    assert reply.startswith(answer)
    assert reply.count("\n") == 1 and bot.last(USER).html.endswith("</code>")
    assert topics(bot) == []
    assert bot.chats.subscribed_ids(USER) == []


async def test_unwatch_lists_the_topics_then_stops_one_by_number_or_by_text(bot: Bot) -> None:
    assert (await bot.ask_one(USER, "/unwatch")).startswith("This chat watches no topic yet.")
    await bot.ask_one(USER, WATCH)
    await bot.ask_one(USER, "/watch InfiniBand in cs.NI")

    listing = await bot.ask_one(USER, "/unwatch")

    assert listing == (
        "This chat watches 2 topics:\n"
        f"1. {SHOWN} in cs.DC\n"
        "2. infiniband in cs.NI\n"
        "/unwatch N stops topic N, e.g. /unwatch 1."
    )
    assert (await bot.ask_one(USER, "/unwatch 3")).startswith("This chat has no topic number 3")
    assert await bot.ask_one(USER, "/unwatch 2") == (
        "✅ This chat no longer watches infiniband in cs.NI."
    )
    assert await bot.ask_one(USER, '/unwatch RDMA "remote direct memory access" in cs.dc') == (
        f"✅ This chat no longer watches {SHOWN} in cs.DC."
    )
    assert bot.chats.subscribed_ids(USER) == []


async def test_in_a_group_only_administrators_watch(bot: Bot) -> None:
    bot.telegram.set_admins(GROUP, [7], creator_id=8)
    member = {"chat_type": "group", "title": "Readers", "user_id": 9}

    answer = await bot.ask_one(GROUP, WATCH, **member)

    assert answer == (
        "Only this group's administrators can change what it follows.\n"
        "Anyone can ask: /subscriptions"
    )
    assert topics(bot) == []
    accepted = await bot.ask_one(GROUP, WATCH, **{**member, "user_id": 7})
    assert accepted.startswith(f"✅ This chat now watches {SHOWN} in cs.DC")


async def test_in_a_group_a_member_neither_unwatches_nor_unsubscribes_by_name(bot: Bot) -> None:
    bot.telegram.set_admins(GROUP, [7], creator_id=8)
    member = {"chat_type": "group", "title": "Readers", "user_id": 9}
    admin = {**member, "user_id": 7}
    await bot.ask_one(GROUP, WATCH, **admin)
    await bot.ask_one(GROUP, "/subscribe", **admin)
    following = sorted(bot.chats.subscribed_ids(GROUP))
    assert len(following) == 2

    for command in (
        "/unwatch 1",
        f"/unwatch {WATCH.removeprefix('/watch ')}",
        "/unsubscribe Dezun Dong",
    ):
        answer = await bot.ask_one(GROUP, command, **member)
        assert answer.startswith("Only this group's administrators can change what it follows.")

    assert sorted(bot.chats.subscribed_ids(GROUP)) == following
    stopped = await bot.ask_one(GROUP, "/unwatch 1", **admin)
    assert stopped == f"✅ This chat no longer watches {SHOWN} in cs.DC."


async def test_a_topic_announces_a_new_paper_once_and_never_its_past(
    engine: Engine, database_url: str
) -> None:
    async with running_front_end(engine, database_url) as bot:
        # Within the poll window (POLL_WINDOW_DAYS): a topic's first poll reads only the window.
        now = datetime.now(UTC)
        past = make_record(
            arxiv_id="2611.50001",
            title="RDMA Transports, Before",
            abstract="Remote direct memory access for clusters.",
            published=now - timedelta(days=1),
            authors=["Ada Topicwriter"],  # nobody followed: only the topic finds it
        )
        bot.arxiv.add(past)
        await bot.ask_one(USER, WATCH)
        first = await bot.service.poller.poll()
        assert first.new == [] and first.backfilled >= 1

        new = make_record(
            arxiv_id="2611.50002",
            title="RDMA Transports, After",
            abstract="Remote direct memory access, faster.",
            published=now,
            authors=["Ada Topicwriter"],
        )
        bot.arxiv.add(new)
        second = await bot.service.poller.poll(force=True)
        assert [r.arxiv_id for r in second.new] == [new.arxiv_id]
        await bot.until(lambda: any(new.title in m.text for m in bot.telegram.sent(USER)))
        await bot.service.poller.poll(force=True)
        await bot.settled()

        sent = [m.text for m in bot.telegram.sent(USER)]
        assert sum(new.title in text for text in sent) == 1
        assert not any(past.title in text for text in sent)
        assert parse_topic(WATCH.removeprefix("/watch ")).matches(
            new.title, new.abstract, ["cs.DC"]
        )


async def test_a_topic_announces_the_plural_of_its_words_and_never_a_longer_word(
    engine: Engine, database_url: str
) -> None:
    """Issue 30: `interconnection network` missed "…Interconnection Networks"; "RDMA" must still
    never match "RDMAX"."""
    async with running_front_end(engine, database_url) as bot:
        now = datetime.now(UTC)
        await bot.ask_one(USER, "/watch interconnection network in cs.NI")
        await bot.ask_one(USER, "/watch RDMA in cs.NI")
        await bot.service.poller.poll(force=True)
        plural = make_record(
            arxiv_id="2611.50011",
            title="Adaptive Routing for Low-Latency Interconnection Networks",
            abstract="Interconnection networks carry the traffic of large machines.",
            published=now,
            authors=["Ada Topicwriter"],
            primary_category="cs.NI",
            categories=("cs.NI",),
        )
        longer = make_record(
            arxiv_id="2611.50012",
            title="RDMAX: Memory Semantics for Interconnect",
            abstract="RDMAX extends memory access across hosts.",
            published=now,
            authors=["Ada Topicwriter"],
            primary_category="cs.NI",
            categories=("cs.NI",),
        )
        bot.arxiv.add(plural)
        bot.arxiv.add(longer)
        await bot.service.poller.poll(force=True)
        await bot.until(lambda: any(plural.title in m.text for m in bot.telegram.sent(USER)))
        await bot.settled()

        sent = [m.text for m in bot.telegram.sent(USER)]
        announced = [text for text in sent if plural.title in text]
        assert len(announced) == 1 and "interconnection network" in announced[0]
        assert not any(longer.title in text for text in sent)
        listing = await bot.ask_one(USER, "/unwatch")
        assert "1. interconnection network in cs.NI" in listing  # shown as typed, not stemmed
