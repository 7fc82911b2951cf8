"""The admin notices reach the admin chats once each (issue 28, item 4): the real
`AdminNoticeSender` against the fake Bot API, the notices queued by the real store. A 429 is
waited out and the notice sent once; a chat Telegram refuses is kept as refused, not retried;
a notice is marked sent only after Telegram confirmed it."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime

from bot.delivery.admin_notices import AdminNoticeSender
from tests.fakes.telegram import Fault
from tests.harness.bots import ADMIN_CHAT, Bot

NOW = datetime(2026, 12, 4, 1, 1, tzinfo=UTC)
UNKNOWN_CHAT = 0  # the fake Bot API answers "chat not found", as Telegram does


async def test_notices_are_sent_once_through_a_429_and_a_refusal_is_not_retried(
    bot: Bot,
) -> None:
    bot.telegram.inject(Fault.flood(retry_after=1))
    bot.store.record_parse_failure(
        "listing", url="https://arxiv.org/list/cs/new", problem="names no mailing date", now=NOW,
        admin_chats=[UNKNOWN_CHAT, ADMIN_CHAT], wording=lambda h: f"{h.source} broken: {h.url}",
    )  # fmt: skip
    sender = AdminNoticeSender(bot.app.bot, bot.service.delivery)
    task = asyncio.create_task(sender.run())
    try:
        await bot.until(lambda: bot.telegram.sent(ADMIN_CHAT))
        await bot.until(lambda: not bot.store.pending_admin_notices())
    finally:
        await sender.stop()
        await task
    (sent,) = bot.telegram.sent(ADMIN_CHAT)
    assert sent.text == "listing broken: https://arxiv.org/list/cs/new"
    assert sent.link_preview_options == {"is_disabled": True}  # issue 33: LinkPreviewOptions
    assert bot.telegram.faults_pending() == 0  # the 429 was met, and waited out

    # Nothing is owed any more: the refused notice is kept as refused, not retried.
    assert bot.store.pending_admin_notices() == []
