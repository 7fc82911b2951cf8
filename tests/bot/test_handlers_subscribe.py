"""/subscribe by name, /unsubscribe, /subscriptions, and the chat settings /revisions and /stats,
end to end: the real Application long-polls the fake Bot API over HTTP, asks the real store
(SQLite or PostgreSQL) and fetches from the fake arXiv (see `tests.harness.bots`).

One chat's updates are handled one at a time in the order sent, so "nothing was answered" is
checked by sending a sentinel command afterwards in the same chat, or by `Bot.settled()`.
"""

from __future__ import annotations

from zoneinfo import ZoneInfo

import pytest
from sqlalchemy import Engine

from tests.harness.bots import ADMIN_CHAT, GROUP, USER, Bot, dezun_count, running_bot
from watcher.store.chats import MAX_SUBSCRIPTIONS

# --- /subscribe, /unsubscribe, /subscriptions -------------------------------------------------


async def test_subscribe_without_a_name_follows_the_watched_authors(bot: Bot) -> None:
    answer = await bot.ask_one(USER, "/subscribe")

    assert answer == (
        f"✅ This chat now follows Dezun Dong ({dezun_count(bot)} papers on record). "
        "New papers will be posted here."
    )
    dezun = bot.store.find_followed("Dezun Dong")
    assert dezun is not None
    assert bot.chats.subscribed_ids(USER) == [dezun.id]
    again = await bot.ask_one(USER, "/subscribe")
    assert again.startswith("This chat already follows Dezun Dong.")


async def test_a_chat_that_brings_back_a_name_nobody_polled_is_not_told_again(
    bot: Bot,
) -> None:
    """A group that never followed the name was told "Its papers are being fetched again"."""
    await bot.ask_one(USER, "/subscribe Yemao Xu")
    await bot.service.poller.poll()
    await bot.ask_one(USER, "/unsubscribe Yemao Xu")  # nobody polls the name now

    bot.telegram.set_admins(GROUP, [7])
    answer = await bot.ask_one(GROUP, "/subscribe Yemao Xu", user_id=7, chat_type="group")

    assert answer == (
        "✅ This chat now follows Yemao Xu (3 papers on record). Their latest papers are being "
        "checked on arXiv; new ones will be posted here."
    )


async def test_subscribe_a_name_answers_at_once_and_the_poller_fetches_its_history(
    bot: Bot,
) -> None:
    asked = len(bot.arxiv.api_requests())

    answer = await bot.ask_one(USER, "/subscribe  yemao   XU")

    assert answer == (
        "✅ This chat now follows yemao XU: arXiv lists 3 papers under that name. Their history "
        "is being fetched; new papers will be posted here."
    )
    (lookup,) = bot.arxiv.api_requests()[asked:]  # the answer cost one request, no poll
    assert lookup.params["max_results"] == "100"  # the count, and a sample's categories
    followed = bot.store.find_followed("Yemao Xu")
    assert followed is not None
    assert not followed.backfilled and not followed.watched
    assert bot.chats.subscribed_ids(USER) == [followed.id]

    report = await bot.service.poller.poll()  # the scheduler's next round

    assert report.backfilled == 3 and report.new == []
    followed = bot.store.find_followed("Yemao Xu")
    assert followed is not None and followed.backfilled and followed.record_count == 3
    recent = await bot.ask_one(USER, "/recent")
    assert recent.startswith("Newest · your follows · 3\n")
    assert "OD-SGD" in recent


async def test_subscribe_an_author_already_fetched_needs_no_arxiv_request(bot: Bot) -> None:
    requests = len(bot.arxiv.api_requests())

    answer = await bot.ask_one(USER, "/subscribe Dong Dezun")

    assert answer.startswith(f"✅ This chat now follows Dezun Dong: {dezun_count(bot)} papers")
    assert len(bot.arxiv.api_requests()) == requests


async def test_subscribe_a_person_in_categories_follows_only_their_papers_there(bot: Bot) -> None:
    plain = bot.store.find_followed("Dezun Dong")
    assert plain is not None
    papers = [bot.store.paper(r.arxiv_id) for r in bot.store.recent(limit=100)]
    in_dc = {p.arxiv_id for p in papers if p is not None and "cs.DC" in p.categories}
    assert 0 < len(in_dc) < plain.record_count  # the author has papers in and out of cs.DC

    answer = await bot.ask_one(USER, "/subscribe dong dezun IN cs.dc")
    # arXiv's loose author search lists look-alikes too; the poll keeps only the person's papers.
    assert answer.startswith("✅ This chat now follows dong dezun in cs.DC: arXiv lists ")
    assert "AND (cat:cs.DC)" in bot.arxiv.api_requests()[-1].params["search_query"]
    await bot.service.poller.poll()

    narrowed = bot.store.find_followed("Dezun Dong", categories=["cs.DC"])
    assert narrowed is not None and narrowed.id != plain.id
    assert narrowed.record_count == len(in_dc)
    assert bot.chats.subscribed_ids(USER) == [narrowed.id]
    again = await bot.ask_one(USER, "/subscribe Dezun Dong in cs.DC")
    assert again.startswith("This chat already follows dong dezun in cs.DC.")
    gone = await bot.ask_one(USER, "/unsubscribe Dezun Dong in cs.DC")
    assert gone == "✅ This chat no longer follows dong dezun in cs.DC."


async def test_a_slow_arxiv_answer_does_not_hold_up_other_chats(
    engine: Engine, database_url: str
) -> None:
    async with running_bot(engine, database_url, arxiv_timeout=5) as bot:
        bot.arxiv.inject("timeout")  # arXiv holds the first request until the client gives up

        bot.telegram.user_sends(USER, "/subscribe Yemao Xu")
        await bot.until(lambda: bot.arxiv.api_requests())
        other = await bot.ask_one(USER + 1, "/help")
        mine = await bot.ask_one(USER, "/subscriptions")  # the same chat is served meanwhile

        assert other.startswith("Commands")
        assert mine.startswith("This chat follows nobody yet.")
        await bot.until(lambda: len(bot.telegram.sent(USER)) == 2)
        assert bot.last(USER).text.startswith("✅ This chat now follows Yemao Xu: arXiv lists 3")


SUBSCRIBE_EXAMPLE = "\nFor example: /subscribe Dezun Dong"


async def test_subscribe_a_single_word_is_refused_before_asking_arxiv(bot: Bot) -> None:
    asked = len(bot.arxiv.requests)

    answer = await bot.ask_one(USER, "/subscribe Li")

    assert answer == (
        "A name needs a given name and a family name, as arXiv lists the author."
        + SUBSCRIBE_EXAMPLE
    )
    assert len(bot.arxiv.requests) == asked
    assert bot.store.find_followed("Li") is None


async def test_subscribe_a_name_arxiv_does_not_know_leaves_nothing_behind(bot: Bot) -> None:
    asked = len(bot.arxiv.api_requests())

    answer = await bot.ask_one(USER, "/subscribe Nobody Atall")

    assert len(bot.arxiv.api_requests()) == asked + 1
    assert answer == (
        "arXiv lists no papers by Nobody Atall, so this chat does not follow that name; check "
        "the spelling of the full name." + SUBSCRIBE_EXAMPLE
    )
    assert bot.store.find_followed("Nobody Atall") is None
    assert bot.chats.subscribed_ids(USER) == []


async def test_subscribe_while_arxiv_fails_says_so_and_changes_nothing(bot: Bot) -> None:
    bot.arxiv.inject("503", times=10)

    answer = await bot.ask_one(USER, "/subscribe Yemao Xu")

    assert answer == (
        "⚠️ I could not reach arXiv just now (arXiv answered HTTP 503), so this chat does not "
        "follow Yemao Xu yet. Please try again in a few minutes."
    )
    assert bot.store.find_followed("Yemao Xu") is None
    assert bot.chats.subscribed_ids(USER) == []


@pytest.mark.parametrize(
    ("text", "answer"),
    [
        (
            "/subscribe " + "x" * 5000,
            "That name is too long (at most 100 characters)." + SUBSCRIBE_EXAMPLE,
        ),
        (
            "/subscribe ?!... ---",
            "An author name has only letters, spaces and . - ' , in it." + SUBSCRIBE_EXAMPLE,
        ),
        (
            "/subscribe .. --",
            "That does not look like a name." + SUBSCRIBE_EXAMPLE,
        ),
        (
            "/subscribe Li",
            "A name needs a given name and a family name, as arXiv lists the author."
            + SUBSCRIBE_EXAMPLE,
        ),
        (
            "/subscribe Wei Wang in cs.DC,cs.NI,cs.AI,cs.LG",
            "4 categories given; at most 3.\nFor example: /subscribe Wei Wang in cs.DC,cs.NI",
        ),
        (
            "/subscribe Wei Wang in cs.dcc",
            "'cs.dcc' is not an arXiv category; did you mean cs.DC, cs.CC or cs.SD?"
            + SUBSCRIBE_EXAMPLE,
        ),
        (  # only looked up, so any name; what was typed is echoed, escaped
            "/unsubscribe <b>x</b>",
            "This chat does not follow <b>x</b>.\nSee what it follows with: /subscriptions",
        ),
    ],
)
async def test_bad_names_get_one_sentence_and_an_example(bot: Bot, text: str, answer: str) -> None:
    assert await bot.ask_one(USER, text) == answer
    assert len(bot.store.followed()) == 1


async def test_a_chat_follows_at_most_fifty_authors(bot: Bot) -> None:
    bot.chats.seen(USER, kind="private")
    for number in range(MAX_SUBSCRIPTIONS):
        followed, _ = bot.store.follow([f"Author {chr(ord('a') + number % 26)}{number // 26}x"])
        bot.chats.subscribe(USER, followed.id)

    answer = await bot.ask_one(USER, "/subscribe Yemao Xu")

    assert answer == (
        "This chat already follows 50 authors and topics, the most allowed, so stop one first.\n"
        "For example: /unsubscribe Dezun Dong"
    )
    assert bot.store.find_followed("Yemao Xu") is None


async def test_unsubscribe_of_a_name_followed_in_a_category_names_that_follow(bot: Bot) -> None:
    """Issue 30, item 5: "does not follow ke wu" when the chat follows "Ke Wu in cs.DC"."""
    assert (await bot.ask_one(USER, "/subscribe Yemao Xu in cs.DC")).startswith("✅")

    assert await bot.ask_one(USER, "/unsubscribe yemao xu") == (
        "This chat does not follow yemao xu, but it follows Yemao Xu in cs.DC.\n"
        "Stop that with: /unsubscribe Yemao Xu in cs.DC"
    )
    assert "but it follows Yemao Xu in cs.DC." in await bot.ask_one(USER, "/unsubscribe Yemao Xy")
    assert await bot.ask_one(USER, "/unsubscribe Yemao Xu in cs.DC") == (
        "✅ This chat no longer follows Yemao Xu in cs.DC."
    )


async def test_unsubscribe_one_author_then_another(bot: Bot) -> None:
    await bot.ask(USER, "/subscribe")
    await bot.ask(USER, "/subscribe Yemao Xu")

    assert await bot.ask_one(USER, "/unsubscribe yemao xu") == (
        "✅ This chat no longer follows Yemao Xu."
    )
    assert await bot.ask_one(USER, "/unsubscribe Yemao Xu") == (
        "This chat does not follow Yemao Xu.\nSee what it follows with: /subscriptions"
    )
    assert await bot.ask_one(USER, "/unsubscribe Dezun Dong") == (
        "✅ This chat no longer follows Dezun Dong."
    )
    assert bot.chats.subscribed_ids(USER) == []


async def test_subscriptions_lists_counts_and_last_poll(bot: Bot) -> None:
    assert (await bot.ask_one(USER, "/subscriptions")).startswith("This chat follows nobody yet.")
    await bot.ask(USER, "/subscribe")
    dezun = bot.store.find_followed("Dezun Dong")
    assert dezun is not None
    assert dezun.last_success is not None

    answer = await bot.ask_one(USER, "/subscriptions")

    assert answer == (
        "This chat follows 1 author:\n"
        f"• Dezun Dong: {dezun.record_count} papers, "
        f"last checked {dezun.last_success.day} {dezun.last_success:%b %Y, %H:%M} UTC\n"
        "Settings\n"
        "Digest: off, one message per paper (/digest).\n"
        "Time zone: UTC (/timezone).\n"
        "Language: English (/language).\n"
        "Quiet hours: off.\n"
        "Paused: no.\n"
        "Format: full (/format).\n"
        "Sound: on.\n"
        "Link preview: off.\n"
        "New versions of papers: off (/revisions on to change)."
    )


async def test_subscriptions_shows_the_last_poll_on_the_chats_clock(bot: Bot) -> None:
    await bot.ask(USER, "/subscribe")
    await bot.ask(USER, "/timezone Asia/Shanghai")  # UTC+8 all year: no summer time to guess
    dezun = bot.store.find_followed("Dezun Dong")
    assert dezun is not None and dezun.last_success is not None

    answer = await bot.ask_one(USER, "/subscriptions")

    local = dezun.last_success.astimezone(ZoneInfo("Asia/Shanghai"))
    assert f"last checked {local.day} {local:%b %Y, %H:%M} CST\n" in answer, answer
    assert " UTC" not in answer


# --- /revisions and /stats --------------------------------------------------------------------


async def test_revisions_is_a_setting_off_by_default(bot: Bot) -> None:
    assert await bot.ask_one(USER, "/revisions") == (
        "New versions of papers are off for this chat. /revisions on changes that."
    )
    assert await bot.ask_one(USER, "/revisions on") == (
        "✅ This chat will now be told about new versions of papers."
    )
    assert bot.chats.wants_revisions(USER)
    assert await bot.ask_one(USER, "/revisions") == (
        "New versions of papers are on for this chat. /revisions off changes that."
    )
    assert await bot.ask_one(USER, "/revisions maybe") == (
        "'maybe' is neither on nor off.\nFor example: /revisions on"
    )
    await bot.ask(USER, "/revisions off")
    assert not bot.chats.wants_revisions(USER)


async def test_stats_only_for_admin_chats(bot: Bot) -> None:
    assert (await bot.ask_one(USER, "/stats")).startswith("/stats is for the service's admin")
    await bot.ask(USER, "/subscribe")
    dezun = bot.store.find_followed("Dezun Dong")
    assert dezun is not None

    answer = await bot.ask_one(ADMIN_CHAT, "/stats")

    assert "Chats: 2 (2 active); subscriptions: 1" in answer
    assert f"Papers stored: {bot.store.count()}" in answer
    assert "Deliveries: 0 pending, 0 parked, 0 held for digests, 0 sent, 0 failed" in answer
    assert (
        f"• Dezun Dong: {dezun.record_count} papers, "
        f"last success {dezun.last_success.day} {dezun.last_success:%b %Y, %H:%M} UTC"
    ) in answer
