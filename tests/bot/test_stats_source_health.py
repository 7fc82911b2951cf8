"""/stats names a source of arXiv whose answers stopped parsing (issue 28, item 4)."""

from __future__ import annotations

from datetime import UTC, datetime

from tests.harness.bots import ADMIN_CHAT, Bot

BROKEN = datetime(2026, 12, 4, 1, 1, tzinfo=UTC)


async def test_stats_names_the_source_that_does_not_parse_until_it_reads_again(bot: Bot) -> None:
    assert "Not parsing" not in await bot.ask_one(ADMIN_CHAT, "/stats")
    bot.store.record_parse_failure(
        "listing", url="https://arxiv.org/list/cs/new", problem="a section headed 'X <b>'",
        now=BROKEN, admin_chats=[], wording=str,
    )  # fmt: skip
    answer = await bot.ask_one(ADMIN_CHAT, "/stats")
    assert (
        "⚠️ Not parsing: listing since 4 Dec 2026, 01:01 UTC, 1 failed read; "
        "https://arxiv.org/list/cs/new: a section headed 'X <b>'"
    ) in answer
    bot.store.record_parse_success("listing", now=BROKEN, admin_chats=[], wording=str)
    assert "Not parsing" not in await bot.ask_one(ADMIN_CHAT, "/stats")
