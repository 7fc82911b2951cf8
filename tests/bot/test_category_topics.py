"""/watch in CATEGORY, a topic with no words, end to end: the answer says how many papers a day
the category usually brings (from the last week in the store, once a whole-category topic of it
has been polled) or that it is not known, and suggests /digest for a busy one; wrong categories
are refused; the poll then announces every new paper of the category, and none from before.
The real Application long-polls the fake Bot API; see `tests.harness.bots`.
"""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime, timedelta

from tests.fakes.corpus import make_record
from tests.harness.bots import USER, Bot
from watcher.arxiv.records import Record

OTHER = USER + 1  # another private chat


def in_category(number: int, category: str, *, days_ago: float, month: str = "2612") -> Record:
    published = datetime.now(UTC) - timedelta(days=days_ago)
    return make_record(
        arxiv_id=f"{month}.{number:05d}",
        title=f"Nothing in Common {number}",
        authors=["Some One Else"],
        primary_category=category,
        published=published,
    )


async def test_watch_in_a_category_refuses_wrong_ones_says_how_busy_it_is_and_announces(
    bot: Bot,
) -> None:
    bot.arxiv.records += [in_category(n, "cs.DC", days_ago=n / 12) for n in range(1, 78)]
    bot.arxiv.records += [in_category(n, "cs.NI", days_ago=1) for n in range(100, 114)]

    four = await bot.ask_one(USER, "/watch in cs.DC,cs.NI,cs.OS,cs.AR")
    unknown = await bot.ask_one(USER, "/watch in cs.DX")
    bare = await bot.ask_one(USER, "/watch in")
    assert four.startswith("4 categories given; at most 3.\nFor example: /watch")
    assert unknown.startswith(
        "'cs.DX' is not an arXiv category; did you mean cs.SD, cs.DS, cs.DM?\nFor example: /watch"
    )
    assert bare.startswith("At least one category is required")
    assert bot.chats.subscribed_ids(USER) == []

    first = await bot.ask_one(USER, "/watch in cs.DC")

    assert first.startswith(
        "✅ This chat now watches all of cs.DC: every new paper in cs.DC (primary or "
        "cross-list) will be posted here. Papers that came out before now are not announced.\n"
        "How many papers a day that means is not known yet"
    )
    assert [f.label for f in bot.store.followed() if f.kind == "topic"] == ["all of cs.DC"]
    report = await bot.service.poller.poll()  # the topic's first poll: silent
    assert report.new == [] and report.failures == {}
    assert bot.service.outbox.stats().pending == 0

    busy = await bot.ask_one(OTHER, "/watch in CS.dc")
    assert busy.endswith(
        "That usually means about 11 papers a day (77 last week). That is a lot of messages: "
        "/digest daily 8am sends them as one a day."
    )
    again = await bot.ask_one(USER, "/watch in cs.DC")
    assert again.startswith("This chat already watches all of cs.DC.")
    both = await bot.ask_one(USER, "/watch in cs.NI,cs.DC")  # cs.NI is not kept whole yet
    assert both.endswith("/digest daily 8am gathers a day's papers into one message.")
    await bot.service.poller.poll()
    assert (await bot.ask_one(OTHER, "/watch in cs.NI")).endswith(
        "That usually means about 2 papers a day (14 last week)."
    )

    new = in_category(500, "cs.DC", days_ago=0)
    old = replace(  # announced long before the topic, cross-listed to cs.DC only now
        in_category(501, "cs.OS", days_ago=40, month="2610"),
        categories=("cs.OS", "cs.DC"),
        updated=datetime.now(UTC),
    )
    bot.arxiv.records += [new, old]
    report = await bot.service.poller.poll(force=True)

    assert [r.arxiv_id for r in report.new] == [new.arxiv_id]
    assert bot.store.paper(old.arxiv_id) is not None  # stored for the topic, silently
    assert bot.service.outbox.stats().pending == 2  # one a chat, however many of its topics
    listing = await bot.ask_one(USER, "/unwatch")
    assert "1. all of cs.DC\n2. all of cs.DC,cs.NI\n" in listing
    assert (await bot.ask_one(USER, "/unwatch in cs.DC")).startswith(
        "✅ This chat no longer watches all of cs.DC."
    )
