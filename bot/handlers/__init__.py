"""The Telegram commands: each handler parses its arguments, asks the core, renders and replies.

One module per area, each a small class bound to the core through a `Core`:

- `commands`: the one table of commands: the menu, the routing below, and /help (its rows'
  kinds: `command_kinds`; the rows of what a chat follows: `follow_commands`);
- `welcome`: /start, unknown commands and plain text;
- `subscriptions`: /subscribe, /unsubscribe, /subscriptions, /revisions, and their answers
  (`follow_answers`) to what the core decided (`watcher.core.subscribing`); /unsubscribe alone asks
  first (`unfollow_all`); a name that looks like several people gets a question (`offers`);
- `digest`: /digest and /timezone;
- `speaking`: /pause, /resume, /quiet, /silent, /format, /preview;
- `language`: /language, the language the bot speaks in a chat or topic, and its buttons;
- `coauthors`: /authors, a paper's authors with a button each that follows that person (its
  pages: `author_list`);
- `topics`: /watch, /unwatch;
- `exclude`: /exclude, the words whose papers a chat never wants to see;
- `suggest`: /suggest, "Suggested for you", and the 👍/👎 under a suggestion;
- `questions`: /recent, /subject, /subjects, /paper (its answers: `paper_answers`) and the
  paging buttons;
- `paper_buttons`: "Cite" and "Unfollow …" / "Mute topic" under a paper;
- `saved`: the chat's reading list: "🔖 Save" / "🗑 Unsave" under a paper, /saved, /saved bib;
- `admin`: /stats;
- `why`: /why, what came today or why nothing did;
- `inline`: inline mode, `@bot QUERY` in any chat: papers by id, name or words, as cards;
- `takeout`: /export and /import (a file of the follows and settings), and its question;
- `membership`: blocked, removed, unblocked or added; group migrations;
- `gate` (with `budget`): the language of the answers, and flood control, before every handler;
- `errors`: the one error handler;
- `permissions`: who may act for a chat (commands and button presses), in one place;
- `common`: replying, usage answers, the refusals of non-administrators, the inline keyboard;
- `busy` and `growing_answer`: the typing status while arXiv is asked, and a several-name answer
  shown as its names are decided.

`register` attaches them all to an Application. Wrong arguments get a one-line usage answer
(see `bot.arguments`); failures go to the error handler.
"""

from __future__ import annotations

from typing import Any

from telegram import Update
from telegram.ext import (
    Application,
    CallbackQueryHandler,
    ChatMemberHandler,
    CommandHandler,
    InlineQueryHandler,
    MessageHandler,
    TypeHandler,
    filters,
)

from bot.handlers.admin import Admin
from bot.handlers.author_list import PREFIX as AUTHOR_LIST_PREFIX
from bot.handlers.budget import CommandBudget
from bot.handlers.coauthors import CoauthorCommands
from bot.handlers.command_kinds import Handlers
from bot.handlers.commands import COMMAND_TABLE, commands_menu, help_overview
from bot.handlers.common import ON_CHAT_MIGRATED, DeliveryEvents, NoDelivery, keyboard
from bot.handlers.digest import DigestCommands
from bot.handlers.errors import SORRY, ErrorHandler
from bot.handlers.exclude import ExcludeCommands
from bot.handlers.gate import SLOW_DOWN, Gate
from bot.handlers.inline import InlineMode
from bot.handlers.language import LANGUAGE_PREFIX, LanguageCommands
from bot.handlers.membership import Membership
from bot.handlers.offers import PREFIX as OFFER_PREFIX
from bot.handlers.paper_buttons import PaperButtons
from bot.handlers.questions import Questions
from bot.handlers.saved import SavedPapers
from bot.handlers.speaking import SpeakingCommands
from bot.handlers.subscriptions import Subscriptions
from bot.handlers.suggest import SuggestCommands
from bot.handlers.takeout import PREFIX as TAKEOUT_PREFIX
from bot.handlers.takeout import Takeout
from bot.handlers.topics import Topics
from bot.handlers.unfollow_all import PREFIX as UNFOLLOW_ALL_PREFIX
from bot.handlers.welcome import Welcome
from bot.handlers.why import WhyCommand
from bot.menus import MenuPublisher
from bot.render.actions import PREFIX as PAPER_BUTTON_PREFIX
from bot.render.saved import PREFIX as SAVED_PREFIX
from bot.render.suggested import PREFIX as SUGGESTED_PREFIX
from watcher.core import Core

__all__ = [
    "SLOW_DOWN",
    "SORRY",
    "CommandBudget",
    "DeliveryEvents",
    "commands_menu",
    "help_overview",
    "keyboard",
    "register",
]

# New messages and channel posts; an edited message is not a new command.
_FRESH = filters.UpdateType.MESSAGE | filters.UpdateType.CHANNEL_POST
# A file sent with /import as its caption (commands in captions are no CommandHandler's).
_IMPORT_CAPTION = r"^/import(?:@\w+)?(?:\s|$)"
_GATE_GROUP = -1  # runs before every handler, and may stop the update there


def register(
    application: Application[Any, Any, Any, Any, Any, Any],
    service: Core,
    *,
    budget: CommandBudget | None = None,
    events: DeliveryEvents | None = None,
) -> None:
    """Attach every command (routed by `COMMAND_TABLE`), the gate before them, and the error
    handler to `application`.

    `events` hears what the delivery side must act on (`DeliveryEvents`): a parked chat came
    back, a chat unsubscribed, a digest moved. What the commands ask of arXiv is the core's
    (`Core.lookups`).
    """
    events = events or NoDelivery()
    membership = Membership(service, events=events)
    application.bot_data[ON_CHAT_MIGRATED] = membership.moved
    handlers = Handlers(
        welcome=Welcome(service, commands=[command.name for command in COMMAND_TABLE]),
        subscriptions=Subscriptions(service, events=events),
        coauthors=CoauthorCommands(service),
        topics=Topics(service, events=events),
        questions=Questions(service),
        digest=DigestCommands(service, events=events),
        speaking=SpeakingCommands(service, events=events),
        admin=Admin(service),
        takeout=Takeout(service, events=events),
        saved=SavedPapers(service),
        exclude=ExcludeCommands(service),
        suggest=SuggestCommands(service),
        why=WhyCommand(service),
        language=LanguageCommands(
            service, events=events, menus=MenuPublisher(application.bot, commands_menu)
        ),
    )

    gate = Gate(membership, budget or CommandBudget(), service.chat_settings)
    application.add_handler(TypeHandler(Update, gate.check), group=_GATE_GROUP)
    for command in COMMAND_TABLE:
        application.add_handler(
            CommandHandler(command.name, command.route(handlers), filters=_FRESH)
        )
    application.add_handler(
        CallbackQueryHandler(handlers.subscriptions.choose, pattern=f"^{OFFER_PREFIX}")
    )
    application.add_handler(
        CallbackQueryHandler(
            handlers.subscriptions.unfollow_all.press, pattern=f"^{UNFOLLOW_ALL_PREFIX}"
        )
    )
    application.add_handler(
        CallbackQueryHandler(
            PaperButtons(service, events=events, saved=handlers.saved).press,
            pattern=f"^{PAPER_BUTTON_PREFIX}",
        )
    )
    application.add_handler(CallbackQueryHandler(handlers.saved.page, pattern=f"^{SAVED_PREFIX}:"))
    application.add_handler(
        CallbackQueryHandler(handlers.suggest.press, pattern=f"^{SUGGESTED_PREFIX}")
    )
    application.add_handler(
        CallbackQueryHandler(handlers.language.press, pattern=f"^{LANGUAGE_PREFIX}")
    )
    application.add_handler(
        CallbackQueryHandler(handlers.takeout.press, pattern=f"^{TAKEOUT_PREFIX}")
    )
    application.add_handler(
        CallbackQueryHandler(handlers.coauthors.press, pattern=f"^{AUTHOR_LIST_PREFIX}")
    )
    application.add_handler(CallbackQueryHandler(handlers.questions.page))
    application.add_handler(InlineQueryHandler(InlineMode(service).answer))
    application.add_handler(ChatMemberHandler(membership.changed, ChatMemberHandler.MY_CHAT_MEMBER))
    application.add_handler(MessageHandler(filters.StatusUpdate.MIGRATE, membership.migrated))
    application.add_handler(
        MessageHandler(filters.StatusUpdate.FORUM_TOPIC_REOPENED, membership.topic_reopened)
    )
    application.add_handler(
        MessageHandler(
            filters.Document.ALL & filters.CaptionRegex(_IMPORT_CAPTION) & _FRESH,
            handlers.takeout.import_file,
        )
    )
    application.add_handler(
        MessageHandler(filters.COMMAND & _FRESH, handlers.welcome.unknown_command)
    )
    application.add_handler(
        MessageHandler(
            filters.TEXT & ~filters.COMMAND & filters.ChatType.PRIVATE & filters.UpdateType.MESSAGE,
            handlers.questions.plain_text,
        )
    )
    application.add_error_handler(ErrorHandler(membership).on_error)
