"""/paper for any arXiv paper, end to end: a paper the store lacks is asked of the fake arXiv
API by `id_list` (one request, within the chat's look-up budget), stored linked to no follow
and shown; missing and refused ids, versions, old-style ids, a spent budget and arXiv failing.
The real Application long-polls the fake Bot API; see `tests.harness.bots`.
"""

from __future__ import annotations

from tests.fakes.corpus import make_record
from tests.harness.bots import GROUP, USER, Bot
from watcher.arxiv.records import Record
from watcher.store.budgets import FIRST_ALLOWANCE, LOOKUPS_PER_FOLLOW, LookupBudgets


def id_requests(bot: Bot) -> list[str]:
    """The `id_list` of each API request the fake saw that had one."""
    return [r.params["id_list"] for r in bot.arxiv.api_requests() if r.params.get("id_list")]


def on_arxiv(bot: Bot, record: Record) -> Record:
    bot.arxiv.records.append(record)
    return record


async def test_a_paper_not_stored_is_fetched_once_stored_and_never_announced(bot: Bot) -> None:
    dezun = bot.store.find_followed("Dezun Dong")
    assert dezun is not None
    bot.chats.seen(USER, kind="private")
    bot.chats.subscribe(USER, dezun.id)
    stranger = on_arxiv(bot, make_record(arxiv_id="2612.00101", authors=["Nobody Followed"]))
    his = on_arxiv(bot, make_record(arxiv_id="2612.00102", authors=["Dezun Dong"]))

    answer = await bot.ask_one(GROUP, "/paper 2612.00101", chat_type="group")

    assert answer.startswith(f"📄 Paper · arXiv:2612.00101v1\n{stranger.title}\n")
    assert answer.endswith("\n\n(Fetched from arXiv just now.)")
    assert bot.store.paper("2612.00101") == stranger
    assert bot.store.paper_followed_ids("2612.00101") == set()
    assert (
        await bot.ask_one(GROUP, "/paper 2612.00101v1", chat_type="group")
        == answer.rsplit("\n\n", 1)[0]
    )  # the stored one now, without a word of arXiv
    assert id_requests(bot) == ["2612.00101"]

    # A followed author's new paper looked up before the poll found it: the look-up tells
    # nobody, and it stops nobody being told.
    await bot.ask(GROUP, "/paper 2612.00102", chat_type="group")
    assert bot.service.outbox.stats().pending == 0
    report = await bot.service.poller.poll(force=True)
    assert [r.arxiv_id for r in report.new] == [his.arxiv_id]
    assert bot.service.outbox.stats().pending == 1  # USER's announcement of it, once
    assert bot.store.paper_followed_ids("2612.00101") == set()


async def test_missing_ids_malformed_ids_and_arxiv_failing_are_answered_clearly(bot: Bot) -> None:
    assert await bot.ask_one(USER, "/paper 2609.99999") == (
        # Issue 30, item 5: no well-formed id "looks like" another to the reader.
        "arXiv has no paper arXiv:2609.99999. Check its digits; a paper announced this evening "
        "reaches arXiv's API only after midnight US Eastern."
    )
    bot.arxiv.malformed_ids.add("2609.00007")
    assert await bot.ask_one(USER, "/paper 2609.00007") == (
        "arXiv has no paper arXiv:2609.00007: it answered “incorrect id format for "
        "2609.00007”. An id looks like 2604.01234, 2604.01234v2 or math/0601001."
    )
    assert await bot.ask_one(USER, "/paper hello") == (
        "'hello' is not an arXiv id.\nFor example: /paper 2604.01234"
    )
    assert id_requests(bot) == ["2609.99999", "2609.00007"]  # "hello" never reached arXiv
    assert bot.store.paper("2609.99999") is None

    on_arxiv(bot, make_record(arxiv_id="2612.00400"))
    bot.arxiv.inject("503", times=2)  # the harness's client tries twice
    assert await bot.ask_one(USER, "/paper 2612.00400") == (
        "⚠️ arXiv could not be asked just now (arXiv answered HTTP 503). Please try again in a "
        "few minutes."
    )
    assert bot.store.paper("2612.00400") is None
    assert (await bot.ask_one(USER, "/paper 2612.00400")).startswith("📄 Paper · arXiv:2612.00400")


async def test_a_version_is_shown_when_asked_for_and_old_style_ids_are_found(bot: Bot) -> None:
    def version(number: int) -> Record:
        return make_record(arxiv_id="2612.00200", version=number, title=f"Title of v{number}")

    bot.arxiv.history += [version(1), version(2)]
    on_arxiv(bot, version(3))

    second = await bot.ask_one(USER, "/paper 2612.00200v2")

    assert second.startswith("📄 Paper · arXiv:2612.00200v2\nTitle of v2\n")
    assert second.endswith("(This is v2, from arXiv; the newest is v3.)")
    assert id_requests(bot) == ["2612.00200,2612.00200v2"]  # one request for both
    assert bot.store.paper("2612.00200") == version(3)  # the current version is the one kept
    newest = await bot.ask_one(USER, "/paper 2612.00200")
    assert newest.startswith("📄 Paper · arXiv:2612.00200v3\nTitle of v3\n")
    first = await bot.ask_one(USER, "https://arxiv.org/abs/2612.00200v1")
    assert first.startswith("📄 Paper · arXiv:2612.00200v1\nTitle of v1\n")
    assert first.endswith("(This is v1, from arXiv; the newest is v3.)")
    none = await bot.ask_one(USER, "/paper 2612.00200v7")
    assert none.endswith("(arXiv has no v7 of this paper; this is v3, the newest I know.)")
    assert id_requests(bot)[1:] == ["2612.00200v1", "2612.00200v7"]
    assert bot.store.paper("2612.00200") == version(3)

    old = on_arxiv(bot, make_record(arxiv_id="math/0601001", primary_category="math.GT"))
    answer = await bot.ask_one(USER, "/paper math.GT/0601001")  # as references print it
    assert answer.startswith(f"📄 Paper · arXiv:math/0601001v1\n{old.title}\n")
    assert bot.store.paper("math/0601001") == old
    again = await bot.ask_one(USER, "/paper math/0601001")
    assert again.startswith("📄 Paper · arXiv:math/0601001v1\n")
    assert id_requests(bot)[3:] == ["math/0601001"]


async def test_a_spent_budget_keeps_arxiv_out_but_not_the_store(bot: Bot) -> None:
    on_arxiv(bot, make_record(arxiv_id="2612.00300"))
    budgets = LookupBudgets(bot.chats.engine, per_hour=bot.service.settings.backfills_per_chat_hour)
    for _ in range(FIRST_ALLOWANCE * LOOKUPS_PER_FOLLOW):
        assert budgets.take_lookup(USER) is None
    assert budgets.standing(USER).follows == FIRST_ALLOWANCE  # a look-up spends no follow

    answer = await bot.ask_one(USER, "/paper 2612.00300")

    assert answer == (
        "This chat has asked arXiv for enough papers for now; try again in 6 minutes. Stored "
        "papers are still shown at once."
    )
    assert id_requests(bot) == []
    assert (await bot.ask_one(USER, "/paper 2604.03117")).startswith("📄 Paper · arXiv:2604.03117")
    assert (await bot.ask_one(GROUP, "/paper 2612.00300", chat_type="group")).startswith(
        "📄 Paper · arXiv:2612.00300v1"
    )  # another chat's budget
