"""Building the python-telegram-bot Application: token, API address, handlers, error handler.

`build_application` is what the front end (`bot.frontend`) starts; `COMMANDS` is the menu it
publishes with setMyCommands. Nothing here runs anything.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from telegram import BotCommand
from telegram.ext import Application, ApplicationBuilder, BaseRateLimiter

from bot.handlers import CommandBudget, register
from watcher.errors import ConfigError
from watcher.service import ServiceContext

# Whatever the rate limiter's argument type, the application is used the same way.
BotApplication = Application[Any, Any, Any, Any, Any, Any]

COMMANDS: list[BotCommand] = [
    BotCommand("start", "What this bot does"),
    BotCommand("subscribe", "Follow the watched authors, or /subscribe NAME"),
    BotCommand("unsubscribe", "Stop following NAME, or everything"),
    BotCommand("subscriptions", "What this chat follows"),
    BotCommand("recent", "The newest papers: /recent [N]"),
    BotCommand("subject", "Newest papers in a category: /subject cs.DC"),
    BotCommand("subjects", "Categories of the stored papers"),
    BotCommand("paper", "One paper in full: /paper 2604.01234"),
    BotCommand("revisions", "New versions of papers: /revisions on|off"),
    BotCommand("stats", "Service health (administrators)"),
    BotCommand("help", "Every command, with examples"),
]


def build_application(
    context: ServiceContext,
    *,
    rate_limiter: BaseRateLimiter[Any] | None = None,
    command_budget: CommandBudget | None = None,
    on_chat_back: Callable[[], None] | None = None,
) -> BotApplication:
    """The bot, with every command registered and one error handler; not yet started.

    `on_chat_back()` runs when a blocked or removed chat comes back (see `bot.handlers.register`).
    """
    settings = context.settings
    if settings.telegram_bot_token is None:
        raise ConfigError("TELEGRAM_BOT_TOKEN is not set")
    builder = (
        ApplicationBuilder()
        .token(settings.telegram_bot_token.get_secret_value())
        .base_url(str(settings.telegram_api_url))
    )
    if rate_limiter is not None:
        builder = builder.rate_limiter(rate_limiter)
    application: BotApplication = builder.build()
    register(application, context, budget=command_budget, on_chat_back=on_chat_back)
    return application
