"""Building the python-telegram-bot Application: token, API address, handlers, error handler,
and the order in which updates are handled.

`build_application` is what the front end (`bot.frontend`) starts, asking for the updates in
`ALLOWED_UPDATES`. Nothing here runs anything.

Updates of different chats are handled concurrently, those of one chat one after the other
(`PerChatUpdates`): a reply waits for its chat's send slot (1 a second in a private chat, 20 a
minute in a group), and one chat flooding commands must slow down only itself, while each chat
still gets its answers in the order it asked.
"""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import Awaitable
from dataclasses import dataclass, field
from typing import Any

from telegram import Update
from telegram.ext import Application, ApplicationBuilder, BaseRateLimiter, BaseUpdateProcessor
from telegram.request import HTTPXRequest

from bot.handlers import CommandBudget, DeliveryEvents, register
from bot.network_blips import quiet_not_json_answers
from watcher.core import Core
from watcher.errors import ConfigError
from watcher.tls import shared_ssl_context

# Whatever the rate limiter's argument type, the application is used the same way.
BotApplication = Application[Any, Any, Any, Any, Any, Any]

# The kinds of update the bot asks Telegram for, by long polling and by webhook alike: those its
# handlers read. Named, not left to Telegram's default, so that inline queries (`@bot QUERY`,
# `bot.handlers.inline`) are sure to come, whatever a webhook was set with before.
ALLOWED_UPDATES = [
    Update.MESSAGE,
    Update.EDITED_MESSAGE,
    Update.CHANNEL_POST,
    Update.EDITED_CHANNEL_POST,
    Update.CALLBACK_QUERY,
    Update.INLINE_QUERY,
    Update.MY_CHAT_MEMBER,
]

# Updates handled at once, all chats together; beyond that they wait their turn. Each chat has
# at most a few at a time (its CommandBudget), so this is many chats, not one chat's flood.
MAX_CONCURRENT_UPDATES = 256


@dataclass(slots=True)
class _ChatTurn:
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    users: int = 0  # updates holding or waiting on the lock; forgotten at zero


class PerChatUpdates(BaseUpdateProcessor):
    """Handle updates of different chats concurrently, and those of one chat in arrival order.

    PTB starts every update's processing as a task in arrival order, and an `asyncio.Lock`
    admits its waiters first come, first served, so one chat's updates keep their order.
    Updates without a chat are not ordered.
    """

    def __init__(self, max_concurrent_updates: int = MAX_CONCURRENT_UPDATES) -> None:
        super().__init__(max_concurrent_updates)
        self._turns: dict[int, _ChatTurn] = {}

    @property
    def chats_in_progress(self) -> int:
        """How many chats have an update being handled or waiting (bounded memory, for tests)."""
        return len(self._turns)

    async def do_process_update(self, update: object, coroutine: Awaitable[Any]) -> None:
        chat = update.effective_chat if isinstance(update, Update) else None
        if chat is None:
            await coroutine
            return
        turn = self._turns.get(chat.id)
        if turn is None:
            turn = self._turns[chat.id] = _ChatTurn()
        turn.users += 1
        started = False
        try:
            async with turn.lock:
                started = True
                await coroutine
        finally:
            turn.users -= 1
            if turn.users == 0:
                del self._turns[chat.id]
            if not started and inspect.iscoroutine(coroutine):
                coroutine.close()  # cancelled while waiting: never run, so never awaited

    async def initialize(self) -> None:
        return None

    async def shutdown(self) -> None:
        return None


def build_application(
    context: Core,
    *,
    rate_limiter: BaseRateLimiter[Any] | None = None,
    command_budget: CommandBudget | None = None,
    events: DeliveryEvents | None = None,
) -> BotApplication:
    """The bot, with every command registered and one error handler; not yet started.

    `events` hears what the delivery side must act on (see `bot.handlers.register`).
    """
    settings = context.settings
    quiet_not_json_answers()
    shared_tls = {"verify": shared_ssl_context()}
    if settings.telegram_bot_token is None:
        raise ConfigError("TELEGRAM_BOT_TOKEN is not set")
    builder = (
        ApplicationBuilder()
        .token(settings.telegram_bot_token.get_secret_value())
        .base_url(str(settings.telegram_api_url))
        # Files (/import) come from the same server: `…/bot` becomes `…/file/bot`.
        .base_file_url(file_url(str(settings.telegram_api_url)))
        .concurrent_updates(PerChatUpdates())
        # PTB's two clients (sending, getUpdates) share the process's TLS context instead of
        # loading certifi's roots into one each (watcher.tls). Pool sizes are PTB's defaults.
        .request(HTTPXRequest(connection_pool_size=256, httpx_kwargs=shared_tls))
        .get_updates_request(HTTPXRequest(connection_pool_size=1, httpx_kwargs=shared_tls))
    )
    if rate_limiter is not None:
        builder = builder.rate_limiter(rate_limiter)
    application: BotApplication = builder.build()
    register(application, context, budget=command_budget, events=events)
    return application


def file_url(api_url: str) -> str:
    """The Bot API's file address for its method address `api_url`, as Telegram serves them:
    `https://api.telegram.org/bot` gives `https://api.telegram.org/file/bot` (a local Bot API
    server, or the test double, alike). PTB appends the token and the file's path."""
    head, _, tail = api_url.rstrip("/").rpartition("/")
    return f"{head}/file/{tail}"
