"""The Telegram commands: each handler parses its arguments, asks the core, renders and replies.

One module per area, each a small class bound to the core through a `ServiceContext`:

- `welcome`: /start, /help, unknown commands and plain text;
- `subscriptions`: /subscribe, /unsubscribe, /subscriptions, /revisions;
- `digest`: /digest and /timezone;
- `topics`: /watch, /unwatch;
- `questions`: /recent, /subject, /subjects, /paper and the paging buttons;
- `admin`: /stats;
- `membership`: blocked, removed, unblocked or added; group migrations;
- `gate` (with `budget`): flood control before every handler;
- `errors`: the one error handler;
- `common`: replying, usage answers, the admin check, the inline keyboard.

`register` attaches them all to an Application. Wrong arguments get a one-line usage answer
(see `bot.arguments`); failures go to the error handler.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from telegram import Update
from telegram.ext import (
    CallbackQueryHandler,
    ChatMemberHandler,
    CommandHandler,
    MessageHandler,
    TypeHandler,
    filters,
)

from bot.handlers.admin import Admin
from bot.handlers.budget import CommandBudget
from bot.handlers.common import ON_CHAT_MIGRATED, keyboard
from bot.handlers.digest import DigestCommands
from bot.handlers.errors import SORRY, ErrorHandler
from bot.handlers.gate import SLOW_DOWN, Gate
from bot.handlers.membership import Membership
from bot.handlers.offers import PREFIX as OFFER_PREFIX
from bot.handlers.questions import Questions
from bot.handlers.subscriptions import LOOKUP_PATIENCE, Subscriptions
from bot.handlers.topics import Topics
from bot.handlers.welcome import HELP, Welcome
from watcher.service import ServiceContext

if TYPE_CHECKING:
    from bot.app import BotApplication

__all__ = [
    "HELP",
    "LOOKUP_PATIENCE",
    "SLOW_DOWN",
    "SORRY",
    "CommandBudget",
    "keyboard",
    "register",
]

# New messages and channel posts; an edited message is not a new command.
_FRESH = filters.UpdateType.MESSAGE | filters.UpdateType.CHANNEL_POST
_GATE_GROUP = -1  # runs before every handler, and may stop the update there


def register(
    application: BotApplication,
    service: ServiceContext,
    *,
    budget: CommandBudget | None = None,
    on_chat_back: Callable[[], None] | None = None,
    lookup_patience: float = LOOKUP_PATIENCE,
    on_unsubscribed: Callable[[int], None] | None = None,
    on_digest_changed: Callable[[], None] | None = None,
) -> None:
    """Attach every command, the gate before them, and the error handler to `application`.

    `on_chat_back()` is called when a parked chat (blocked, removed) comes back, by a command
    or by letting the bot in again: its pending deliveries are due now. `on_unsubscribed(chat)`
    after /unsubscribe dropped the deliveries the chat no longer wants. `on_digest_changed()`
    after /digest or /timezone changed when a digest is due (or sent one at once).
    """
    membership = Membership(service.chats, on_chat_back=on_chat_back)
    application.bot_data[ON_CHAT_MIGRATED] = membership.moved
    welcome = Welcome(service)
    subscriptions = Subscriptions(
        service, lookup_patience=lookup_patience, on_unsubscribed=on_unsubscribed
    )
    topics = Topics(
        service, backfills=subscriptions.backfills, on_unsubscribed=on_unsubscribed
    )  # one budget of arXiv look-ups a chat, for names and topics
    questions = Questions(service)
    admin = Admin(service)
    digest = DigestCommands(service, on_changed=on_digest_changed)

    gate = Gate(membership, budget or CommandBudget())
    application.add_handler(TypeHandler(Update, gate.check), group=_GATE_GROUP)
    by_name = {
        "start": welcome.start,
        "help": welcome.help,
        "subscribe": subscriptions.subscribe,
        "unsubscribe": subscriptions.unsubscribe,
        "subscriptions": subscriptions.subscriptions,
        "watch": topics.watch,
        "unwatch": topics.unwatch,
        "recent": questions.recent,
        "subject": questions.subject,
        "subjects": questions.subjects,
        "paper": questions.paper,
        "revisions": subscriptions.revisions,
        "digest": digest.digest,
        "timezone": digest.timezone,
        "stats": admin.stats,
    }
    for name, callback in by_name.items():
        application.add_handler(CommandHandler(name, callback, filters=_FRESH))
    application.add_handler(CallbackQueryHandler(subscriptions.choose, pattern=f"^{OFFER_PREFIX}"))
    application.add_handler(CallbackQueryHandler(questions.page))
    application.add_handler(ChatMemberHandler(membership.changed, ChatMemberHandler.MY_CHAT_MEMBER))
    application.add_handler(MessageHandler(filters.StatusUpdate.MIGRATE, membership.migrated))
    application.add_handler(
        MessageHandler(filters.StatusUpdate.FORUM_TOPIC_REOPENED, membership.topic_reopened)
    )
    application.add_handler(MessageHandler(filters.COMMAND & _FRESH, welcome.unknown_command))
    application.add_handler(
        MessageHandler(
            filters.TEXT & ~filters.COMMAND & filters.ChatType.PRIVATE & filters.UpdateType.MESSAGE,
            welcome.plain_text,
        )
    )
    application.add_error_handler(ErrorHandler(membership).on_error)
