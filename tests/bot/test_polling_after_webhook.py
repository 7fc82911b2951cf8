"""Long polling stays the default, and switching back to it from webhook mode just works: the
front end deletes the webhook before its first getUpdates, which Telegram refuses (409) while a
webhook is set."""

from __future__ import annotations

from sqlalchemy import Engine

from bot.frontend import TelegramFrontend
from tests.fakes.telegram import FakeTelegram, RateLimits
from tests.harness.bots import BOT, USER, running_service
from tests.harness.patience import PATIENCE


async def test_switching_back_to_long_polling_deletes_the_webhook_first(
    engine: Engine, database_url: str
) -> None:
    with FakeTelegram(rate_limits=RateLimits.disabled(), bot_username=BOT) as telegram:
        # What an earlier run in webhook mode left registered.
        telegram.webhooks.set_webhook(
            {"url": "https://bot.example.org/hook", "secret_token": "left-by-webhook-mode"}
        )
        async with running_service(engine, database_url, telegram=telegram) as (_, _, service):
            assert service.settings.telegram_webhook_url is None
            front_end = TelegramFrontend(service)
            await front_end.start()
            try:
                telegram.user_sends(USER, "/start")
                await telegram.wait_for(lambda: telegram.sent(USER), PATIENCE)
            finally:
                await front_end.stop()

    assert telegram.webhooks.url == ""
    methods = [request.method for request in telegram.requests]
    assert "setWebhook" not in methods
    assert methods.index("deleteWebhook") < methods.index("getUpdates")
    assert [r for r in telegram.requests if r.status == 409] == []  # no Conflict
