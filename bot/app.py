"""Building the python-telegram-bot Application: token, API address, handlers, error handler.

`build_application` is what the front end (`bot.frontend`) starts; `COMMANDS` is the menu it
publishes with setMyCommands. Nothing here runs anything.
"""

from __future__ import annotations

from typing import Any

from telegram import BotCommand, Update
from telegram.ext import (
    Application,
    ApplicationBuilder,
    BaseRateLimiter,
    CallbackQueryHandler,
    ChatMemberHandler,
    CommandHandler,
    MessageHandler,
    TypeHandler,
    filters,
)

from bot.handlers import CommandBudget, Commands
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

# New messages and channel posts; an edited message is not a new command.
_FRESH = filters.UpdateType.MESSAGE | filters.UpdateType.CHANNEL_POST
_GATE_GROUP = -1  # runs before every handler, and may stop the update there


def build_application(
    context: ServiceContext,
    *,
    rate_limiter: BaseRateLimiter[Any] | None = None,
    command_budget: CommandBudget | None = None,
) -> BotApplication:
    """The bot, with every command registered and one error handler; not yet started."""
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
    register(application, Commands(context, budget=command_budget))
    return application


def register(application: BotApplication, commands: Commands) -> None:
    """Attach the handlers of `commands` to `application`."""
    application.add_handler(TypeHandler(Update, commands.gate), group=_GATE_GROUP)
    by_name = {
        "start": commands.start,
        "help": commands.help,
        "subscribe": commands.subscribe,
        "unsubscribe": commands.unsubscribe,
        "subscriptions": commands.subscriptions,
        "recent": commands.recent,
        "subject": commands.subject,
        "subjects": commands.subjects,
        "paper": commands.paper,
        "revisions": commands.revisions,
        "stats": commands.stats,
    }
    for name, callback in by_name.items():
        application.add_handler(CommandHandler(name, callback, filters=_FRESH))
    application.add_handler(CallbackQueryHandler(commands.page))
    application.add_handler(
        ChatMemberHandler(commands.membership, ChatMemberHandler.MY_CHAT_MEMBER)
    )
    application.add_handler(MessageHandler(filters.StatusUpdate.MIGRATE, commands.migrated))
    application.add_handler(MessageHandler(filters.COMMAND & _FRESH, commands.unknown_command))
    application.add_handler(
        MessageHandler(
            filters.TEXT & ~filters.COMMAND & filters.ChatType.PRIVATE & filters.UpdateType.MESSAGE,
            commands.plain_text,
        )
    )
    application.add_error_handler(commands.on_error)
