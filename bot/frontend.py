"""The Telegram front end: the bot's lifecycle inside `arxiv-watcher run`.

`run_service` finds this class through the `arxiv_watcher.frontends` entry point and drives it
through the `Frontend` protocol. PTB's `run_polling` wants to own the event loop and the signal
handlers, which belong to the service here, so the Application is run by hand: initialize,
start, long polling (or, with TELEGRAM_WEBHOOK_URL, our webhook listener: `bot.webhook`); and
the reverse on stop. Next to it runs the delivery sender, which drains
the outbox, and the admin notices' sender (`bot.delivery.admin_notices`); every request of
them all goes through one rate limiter. At start, the command menus and descriptions of every
language are set in the background (`bot.menus`).
"""

from __future__ import annotations

import asyncio
import logging
from typing import TYPE_CHECKING

from telegram.error import InvalidToken, NetworkError

from bot.app import ALLOWED_UPDATES, BotApplication, build_application
from bot.delivery import DeliverySender
from bot.delivery.admin_notices import AdminNoticeSender
from bot.failing_notice import FailingNotices
from bot.handlers import commands_menu
from bot.menus import MenuPublisher
from bot.network_blips import on_polling_error
from bot.ratelimit import TelegramRateLimiter
from watcher.core import Core
from watcher.errors import ConfigError
from watcher.polling.poll import PollReport

if TYPE_CHECKING:
    from bot.webhook import WebhookListener

log = logging.getLogger(__name__)

FIRST_PAUSE, MAX_PAUSE = 5, 300  # seconds between tries to reach the Bot API at start


class TelegramFrontend:
    """Commands over long polling or a webhook, and delivery of the outbox, until `stop()`. It
    is the commands' `DeliveryEvents`: what they report, it passes on to the delivery sender."""

    def __init__(self, context: Core) -> None:
        if context.settings.telegram_bot_token is None:
            raise ValueError("the Telegram front end needs TELEGRAM_BOT_TOKEN")
        self.context = context
        self.rate_limiter = TelegramRateLimiter.from_settings(context.settings)
        self.application: BotApplication | None = None
        self.sender: DeliverySender | None = None
        self._sender_task: asyncio.Task[None] | None = None
        self.notices: AdminNoticeSender | None = None
        self._notices_task: asyncio.Task[None] | None = None
        self._webhook: WebhookListener | None = None
        self.failing = FailingNotices()  # what the administrators and chats were told is failing
        self._failing_task: asyncio.Task[None] | None = None
        self._menus_task: asyncio.Task[None] | None = None

    def _failing_done(self) -> bool:
        """Whether no failing follow's notices are still being sent (the next cycle tells)."""
        return self._failing_task is None or self._failing_task.done()

    async def start(self) -> None:
        app = build_application(self.context, rate_limiter=self.rate_limiter, events=self)
        self.application = app
        await self._initialize(app)
        await app.start()
        # In the background: a 429 on a menu must not hold up the commands.
        self._menus_task = asyncio.create_task(
            MenuPublisher(app.bot, commands_menu).publish(), name="command-menus"
        )
        self._menus_task.add_done_callback(_report_menus_crash)
        assert app.updater is not None
        settings = self.context.settings
        if settings.telegram_webhook_url is None:
            # Deletes any webhook first, so switching back from webhook mode just works.
            await app.updater.start_polling(
                drop_pending_updates=False,
                allowed_updates=ALLOWED_UPDATES,
                error_callback=on_polling_error,
            )
            mode = "long polling"
        else:
            # Only here: the listener brings tornado, which long polling never needs.
            from bot.webhook import start_webhook

            self._webhook = await start_webhook(app.bot, app.update_queue, settings)
            host, port = settings.webhook_listen
            mode = f"webhook {settings.telegram_webhook_url}, listening on {host}:{port}"
        self.sender = DeliverySender(app.bot, self.context)
        self._sender_task = asyncio.create_task(self.sender.run(), name="delivery-sender")
        self._sender_task.add_done_callback(_report_crash)
        self.notices = AdminNoticeSender(app.bot, self.context.delivery)
        self._notices_task = asyncio.create_task(self.notices.run(), name="admin-notices")
        self._notices_task.add_done_callback(_report_crash)
        log.info("telegram bot @%s started (%s)", app.bot.username, mode)

    async def _initialize(self, app: BotApplication) -> None:
        """getMe until Telegram answers: a refused token stops the service, an unreachable API
        is waited for (the network may come up after us), with growing pauses."""
        pause = FIRST_PAUSE
        while True:
            try:
                await app.initialize()
                return
            except InvalidToken:
                # PTB's own message quotes the token; ours names the setting instead.
                raise ConfigError(
                    "TELEGRAM_BOT_TOKEN was refused by Telegram; ask @BotFather for the right one"
                ) from None
            except NetworkError as error:  # TimedOut included
                log.warning(
                    "cannot reach the Telegram Bot API at %s (%s); retrying in %d s",
                    self.context.settings.telegram_api_url, error.message, pause,
                )  # fmt: skip
                await asyncio.sleep(pause)
                pause = min(pause * 2, MAX_PAUSE)

    async def notify(self, report: PollReport) -> None:
        """A poll cycle ended; whatever it queued is sent now, and the administrators hear
        of a follow that now keeps failing on its own (`bot.failing_notice`).

        A revision may have moved a waiting delivery to the new version: what the sender
        fetched before is read again, so the message carries the newest content.
        """
        if self.notices is not None:
            self.notices.wake()  # a source may have stopped parsing, or read again
        if self.sender is None:
            return
        if self.application is not None and report.failures and self._failing_done():
            # A notice may go to a thousand chats at a group's 20 a minute: never in the poll's way.
            self._failing_task = asyncio.create_task(
                self.failing.tell(self.application.bot, self.context, report), name="failing-notice"
            )
            self._failing_task.add_done_callback(_report_failing_crash)
        if report.revisions:
            self.sender.refresh()
        else:  # new papers, or a batch read whole that queued suggestions
            self.sender.wake()

    # -- the commands' `DeliveryEvents`, handed to the sender -------------------------------

    def unsubscribed(self, chat_id: int) -> None:
        """/unsubscribe dropped deliveries: the sender must not send what it fetched of them."""
        if self.sender is not None:
            self.sender.forget(chat_id)

    def digest_changed(self) -> None:
        """/digest or /timezone moved a digest, or turned one off and so claimed it now."""
        if self.sender is not None:
            self.sender.digests_changed()

    def speaking_changed(self) -> None:
        """A chat paused, resumed, or changed its quiet hours or style: read them again."""
        if self.sender is not None:
            self.sender.speaking_changed()

    def chat_back(self) -> None:
        """A blocked or removed chat came back: its parked deliveries are due now."""
        if self.sender is not None:
            self.sender.wake()

    async def stop(self) -> None:
        """Stop taking updates, finish the sends in flight, then close the Application. A
        webhook stays registered: Telegram keeps the updates for the next active instance."""
        app = self.application
        if app is None:
            return
        if app.updater is not None and app.updater.running:
            await app.updater.stop()
        if self._webhook is not None:
            await self._webhook.stop()
            self._webhook = None
        if self.sender is not None:
            await self.sender.stop()
        if self._sender_task is not None:
            await asyncio.gather(self._sender_task, return_exceptions=True)
        if self.notices is not None:
            await self.notices.stop()
        if self._notices_task is not None:
            await asyncio.gather(self._notices_task, return_exceptions=True)
        if self._menus_task is not None:  # unfinished: the next start sets what differs
            self._menus_task.cancel()
            await asyncio.gather(self._menus_task, return_exceptions=True)
        if self._failing_task is not None:  # what it did not send, a restart tells
            self._failing_task.cancel()
            await asyncio.gather(self._failing_task, return_exceptions=True)
        if app.running:
            await app.stop()
        await app.shutdown()
        self.application = None
        log.info("telegram bot stopped")


def _report_crash(task: asyncio.Task[None]) -> None:
    if not task.cancelled() and task.exception() is not None:
        log.error("the delivery sender stopped", exc_info=task.exception())


def _report_failing_crash(task: asyncio.Task[None]) -> None:
    if not task.cancelled() and task.exception() is not None:
        log.error("telling of a failing follow failed", exc_info=task.exception())


def _report_menus_crash(task: asyncio.Task[None]) -> None:
    if not task.cancelled() and task.exception() is not None:
        log.error("setting the command menus failed", exc_info=task.exception())
