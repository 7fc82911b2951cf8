"""Finding one's way: /start (what the bot does, whom it watches), and the answer to an unknown
command, which points at /help (`bot.handlers.commands`). Plain text is `Questions.plain_text`'s.
"""

from __future__ import annotations

import difflib
import html
from collections.abc import Sequence

from telegram import Update
from telegram.constants import ChatType

from bot.handlers.common import (
    Context,
    ServiceHandlers,
    bold_list,
    place_of,
    refusal,
    reply,
)
from bot.i18n import _, ngettext
from watcher.core import Core
from watcher.core.views import NO_THREAD
from watcher.follows.followed import Followed
from watcher.kinds import FollowKind


class Welcome(ServiceHandlers):
    """/start, and pointers to /help for anything the bot does not understand; `commands` are
    the bot's command names, for the "did you mean" of a mistyped one."""

    def __init__(self, service: Core, *, commands: Sequence[str] = ()) -> None:
        super().__init__(service)
        self.commands = tuple(commands)

    async def start(self, update: Update, context: Context) -> None:
        """/start: what the bot does, whom it watches, how to subscribe."""
        place = place_of(update)
        follows = await self.service.questions.follows(place.chat_id, place.thread_id)
        watched = bold_list([str(rule) for rule in self.settings.followed_specs])
        lines = [
            _(
                "👋 I watch arXiv for new papers by the authors you follow, and post each new "
                "abstract here once."
            ),
            _("I watch {names}.", names=watched) if watched else _("I watch nobody yet."),
            "",
        ]
        if follows:
            counted = _counted(follows)
            lines.append(
                _("This topic follows {counted}: see /subscriptions.", counted=counted)
                if place.thread_id != NO_THREAD
                else _("This chat follows {counted}: see /subscriptions.", counted=counted)
            )
        elif watched:
            lines.append(_("• /subscribe: follow the authors I watch, in this chat"))
        lines += [
            _("• /subscribe NAME: follow anyone, e.g. /subscribe Dezun Dong"),
            _("• /recent: the newest papers"),
            _("• /help: every command"),
        ]
        await reply(update, context, "\n".join(lines))

    async def unknown_command(self, update: Update, context: Context) -> None:
        """A command this bot does not have: point at /help (unless it was for another bot)."""
        if _addressed_to_other_bot(update, context.bot.username):
            return
        message = update.effective_message
        command = message.text.split(maxsplit=1)[0] if message and message.text else ""
        shown = html.escape(command[:40])
        typed = command.removeprefix("/").partition("@")[0].casefold()
        near = difflib.get_close_matches(typed, self.commands, n=1, cutoff=0.75)
        if near:
            wrong = _(
                "I do not know {command}. Did you mean {near}?", command=shown, near="/" + near[0]
            )
        elif shown:
            wrong = _("I do not know {command}.", command=shown)
        else:
            wrong = _("I do not know that command.")
        await reply(update, context, refusal(wrong, "/help", lead=_("See them with:")))


def _counted(follows: list[Followed]) -> str:
    """ "2 authors and 1 topic": authors and topics counted apart, a zero count left out."""
    topics = sum(1 for followed in follows if followed.kind == FollowKind.TOPIC)
    authors = len(follows) - topics
    of_authors = ngettext("{n} author", "{n} authors", authors)
    of_topics = ngettext("{n} topic", "{n} topics", topics)
    if authors and topics:
        return _("{authors} and {topics}", authors=of_authors, topics=of_topics)
    return of_authors if authors else of_topics


def _addressed_to_other_bot(update: Update, bot_username: str) -> bool:
    message = update.effective_message
    if message is None or not message.text:
        return False
    command = message.text.split(maxsplit=1)[0]
    _name, at, suffix = command.partition("@")
    if at:
        return suffix.casefold() != bot_username.casefold()
    # In groups and channels other bots may share unaddressed commands: stay quiet there.
    return message.chat.type != ChatType.PRIVATE
