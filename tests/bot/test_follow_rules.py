"""What a chat asks for belongs to that chat (issue 29, items 1 and 3), through the real front end
(commands and delivery sender) on the fake Bot API and the fake arXiv, on both databases:

- an /import with an alias line leaves what other chats receive unchanged: the alias's paper
  reaches the importing chat alone, and the follow other chats share keeps its names;
- an /import of an author id arXiv does not know is skipped with /subscribe's reason, and the
  service stays healthy;
- a follow that only fails (an author id arXiv stopped knowing, a name arXiv errors on) never
  makes the service unhealthy, and is shown with its cause to its chats (/subscriptions) and
  to the administrators (one message, and /stats).
"""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest
from sqlalchemy import Engine

from bot.failing_notice import FailingNotices
from tests.fakes.corpus import make_record
from tests.fakes.telegram import SentMessage
from tests.harness.bots import ADMIN_CHAT, USER, Bot, running_front_end
from watcher.follows.identity import Identity
from watcher.follows.rules import PersonRule
from watcher.polling.failing_groups import ALONE_AFTER
from watcher.polling.failures import UNHEALTHY_FAILURES
from watcher.runtime.health import verdict

OTHER = 43  # a chat following the watched author, which must not feel USER's import


@pytest.fixture
async def front_end(engine: Engine, database_url: str) -> AsyncIterator[Bot]:
    async with running_front_end(engine, database_url) as bot:
        yield bot


async def import_text(bot: Bot, chat_id: int, text: str) -> SentMessage:
    """Send a follow list with /import as its caption; the question the bot answers with."""
    before = len(bot.telegram.sent(chat_id))
    bot.telegram.user_sends_document(
        chat_id, text.encode(), caption="/import", file_name="follows.txt"
    )
    await bot.until(lambda: len(bot.telegram.sent(chat_id)) > before)
    return bot.last(chat_id)


async def confirm(bot: Bot, question: SentMessage) -> None:
    """Press the question's "Import" button; the question edited into its answer."""
    markup = question.reply_markup
    assert markup is not None
    go = markup["inline_keyboard"][0][0]["callback_data"]
    edits = len(bot.telegram.edits)
    bot.telegram.press_button(question.chat_id, question.message_id, go)
    await bot.until(lambda: len(bot.telegram.edits) > edits)
    answer = bot.telegram.edits[-1].text
    assert answer is not None and answer.startswith("✅ Imported: "), answer


def titles(bot: Bot, chat_id: int) -> list[str]:
    return [m.text for m in bot.telegram.sent(chat_id)]


async def test_an_alias_import_reaches_the_importing_chat_alone(front_end: Bot) -> None:
    bot = front_end
    await bot.ask_one(OTHER, "/subscribe")  # the watched author, Dezun Dong
    shared = bot.store.find_person(PersonRule(("Dezun Dong",)))
    assert shared is not None and shared.aliases == ()

    question = await import_text(bot, USER, "subscribe Dezun Dong|Wei Wang\n")
    assert question.text.startswith("📥 This chat will follow Dezun Dong.")
    assert "1 of them starts a history" in question.text  # its own follow, its own allowance
    await confirm(bot, question)
    await bot.service.poller.poll(force=True)  # the new follow's history, stored silently

    # The follow other chats share matches what it did; the importing chat has its own.
    after = bot.store.find_person(PersonRule(("Dezun Dong",)))
    assert after is not None and after.id == shared.id and after.aliases == ()
    own = bot.store.find_person(PersonRule(("Dezun Dong", "Wei Wang")))
    assert own is not None and own.id != shared.id and own.backfilled
    assert bot.chats.subscribed_ids(USER) == [own.id]
    assert bot.chats.subscribed_ids(OTHER) == [shared.id]

    other_before = titles(bot, OTHER)
    bot.arxiv.add(
        make_record(arxiv_id="2612.00042", title="Only By The Alias", authors=["Wei Wang"])
    )
    bot.arxiv.add(make_record(arxiv_id="2612.00043", title="By Both", authors=["Dezun Dong"]))
    await bot.service.poller.poll(force=True)

    await bot.until(lambda: any("Only By The Alias" in text for text in titles(bot, USER)))
    await bot.until(lambda: any("By Both" in text for text in titles(bot, OTHER)))
    await bot.until(lambda: any("By Both" in text for text in titles(bot, USER)))
    await bot.until(lambda: bot.service.outbox.stats().pending == 0)
    got = [text for text in titles(bot, OTHER) if text not in other_before]
    assert len(got) == 1 and "By Both" in got[0]  # and never the alias's paper

    # /unsubscribe NAME stops the chat's own follow of the name, and nobody else's.
    answer = await bot.ask_one(USER, "/unsubscribe Dezun Dong")
    assert answer == "✅ This chat no longer follows Dezun Dong."
    assert bot.chats.subscribed_ids(USER) == []
    assert bot.chats.subscribed_ids(OTHER) == [shared.id]


async def test_an_import_of_an_unknown_author_id_is_skipped_and_health_stays_ok(
    front_end: Bot, engine: Engine
) -> None:
    bot = front_end
    bot.arxiv.claim("dong_d_1", ["2612.00001"])
    bot.arxiv.add(make_record(arxiv_id="2612.00001", authors=["Dezun Dong"]))

    question = await import_text(
        bot, USER, "subscribe arxiv:dong_d_1\nsubscribe arxiv:nobody_n_1\n"
    )

    assert question.text.splitlines() == [
        "📥 This chat will follow arxiv:dong_d_1.",
        "1 of them starts a history, from this chat's allowance of new follows.",
        "Skipped (1):",
        "• line 2, arxiv:nobody_n_1: arXiv knows no author id nobody_n_1; the id is the end of "
        "an arXiv author page's address",
    ]
    # /subscribe gives the same reason.
    refused = await bot.ask_one(USER, "/subscribe arxiv:nobody_n_1")
    assert refused.startswith(
        "arXiv knows no author id nobody_n_1; the id is the end of an arXiv author page's address."
    )
    requests = len(bot.arxiv.author_requests())
    await confirm(bot, question)  # plans again, on arXiv's remembered answers: no new question
    assert len(bot.arxiv.author_requests()) == requests
    assert bot.store.find_identity("arxiv:nobody_n_1") is None
    for _ in range(UNHEALTHY_FAILURES):
        await bot.service.poller.poll(force=True)
    result = verdict(bot.service.settings, engine, [])
    assert result.healthy and result.line.startswith("ok: last successful poll "), result.line


async def test_a_follow_that_only_fails_is_reported_and_leaves_the_service_healthy(
    front_end: Bot, engine: Engine
) -> None:
    bot = front_end
    bot.chats.seen(USER, kind="private")
    # An author id arXiv stopped knowing, and a name whose every query arXiv fails.
    gone, _ = bot.store.follow_identity(Identity("arxiv", "gone_g_1"), name="Gone Person")
    failing, _ = bot.store.follow(["Always Fails"], watched=False)
    bot.chats.subscribe(USER, gone.id)
    bot.chats.subscribe(USER, failing.id)
    bot.arxiv.fail_queries('au:"Always Fails"', "500")

    notices = FailingNotices()  # as the front end keeps them, told after each poll cycle

    async def cycle() -> None:
        await notices.tell(bot.app.bot, bot.service, await bot.service.poller.poll(force=True))

    for _ in range(ALONE_AFTER + 1):  # past the split that leaves the failing name alone
        await cycle()

    states = {f.name: f.consecutive_failures for f in bot.store.followed()}
    assert states["Gone Person"] > UNHEALTHY_FAILURES and states["Always Fails"] > ALONE_AFTER
    assert states["Dezun Dong"] == 0
    result = verdict(bot.service.settings, engine, [])
    assert result.healthy, result.line
    assert "failing: Always Fails, Gone Person (arxiv:gone_g_1)" in result.line

    listed = (await bot.ask_one(USER, "/subscriptions")).splitlines()
    assert any(
        line.startswith("• Always Fails: ")
        and line.endswith("failed: arXiv answered HTTP 500; retrying)")
        for line in listed
    ), listed
    assert any(
        line.startswith("• Gone Person (arxiv:gone_g_1): ")
        and line.endswith(
            "(⚠️ arXiv no longer knows this author id; /unsubscribe it, or follow them by name)"
        )
        for line in listed
    ), listed
    # The administrators were told of each once: the author id at its 3rd failure, the name
    # only once it was polled alone and still failed (its query's mates are not to blame).
    gone_told, name_told = titles(bot, ADMIN_CHAT)
    for told in (gone_told, name_told):
        assert told.startswith("⚠️ Failing on its own (the service is healthy; /stats lists it):")
    assert "• Gone Person (arxiv:gone_g_1): 3 failed in a row, last: arXiv knows no " in gone_told
    assert "• Always Fails: 8 failed in a row, last: arXiv answered HTTP 500; " in name_told
    await cycle()
    assert len(titles(bot, ADMIN_CHAT)) == 2  # once each
    stats = await bot.ask_one(ADMIN_CHAT, "/stats")
    assert "failed in a row, last: arXiv knows no author id gone_g_1" in stats
    assert "failed in a row, last: arXiv answered HTTP 500" in stats

    # arXiv failing every follow is the service's fault, and still makes it unhealthy.
    bot.arxiv.fail_queries("Dezun Dong", "503")
    for _ in range(UNHEALTHY_FAILURES):
        await cycle()
    assert len(titles(bot, ADMIN_CHAT)) == 3  # and the answer to /stats; no notice
    result = verdict(bot.service.settings, engine, [])
    assert not result.healthy and result.line.startswith("unhealthy: polling fails for "), result
