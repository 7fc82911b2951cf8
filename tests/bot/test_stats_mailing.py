"""/stats shows the last arXiv mailing seen, its first source and delay, and the listing's
probes (issue 20, item 7)."""

from __future__ import annotations

from datetime import UTC, date, datetime

from tests.harness.bots import ADMIN_CHAT, Bot


async def test_stats_shows_the_last_mailing_and_the_listing_probes(bot: Bot) -> None:
    assert "arXiv: " not in await bot.ask_one(ADMIN_CHAT, "/stats")  # none seen yet
    bot.store.record_listing_probes(date(2026, 12, 2), 2)
    bot.store.record_mailing_seen(
        date(2026, 12, 2), source="listing", at=datetime(2026, 12, 2, 1, 1, tzinfo=UTC)
    )
    answer = await bot.ask_one(ADMIN_CHAT, "/stats")
    assert (
        "arXiv: last mailing 2026-12-02, first from the listing at 2026-12-02 01:01 UTC, "
        "1 min after the announcement; 2 listing probes for the mailing of 2026-12-02 "
        "(1 beyond the first)"
    ) in answer
