"""The gate every update passes before its handler: the language the answers speak, flood
control per chat, and noting that a chat which asks something is reachable.

The language is the destination's (`watcher.core.chat_settings.ChatSettings.language`: its
/language, else what its chat's first writer's Telegram client asked for), set for the rest of
the update's handling (`bot.i18n.speak`): every `_()` of the handler that follows speaks it.
A chat's first writer's `language_code` is noted as the chat's language when it has none yet.
"""

from __future__ import annotations

import logging

from telegram import Update
from telegram.constants import ChatType
from telegram.ext import ApplicationHandlerStop

from bot.handlers.budget import CommandBudget
from bot.handlers.common import Context, reply, topic_of
from bot.handlers.membership import Membership, language_hint
from bot.i18n import N_, _, speak
from watcher.core.chat_settings import ChatSettings

log = logging.getLogger(__name__)

SLOW_DOWN = N_(
    "Slow down, please: too many commands at once. I will answer again in a few seconds."
)


class Gate:
    """Runs before every handler (PTB group -1) and may stop the update there."""

    def __init__(
        self, membership: Membership, budget: CommandBudget, chat_settings: ChatSettings
    ) -> None:
        self.membership = membership
        self.budget = budget
        self.chat_settings = chat_settings

    async def check(self, update: Update, context: Context) -> None:
        """Speak the destination's language; throttle a flooding chat, and note that a chat
        which asks something is reachable (and, the first time, its writer's language). A
        command costs one database transaction here, as it did before languages."""
        speak(None)  # an update that names no chat is answered in the default
        chat = update.effective_chat
        if chat is None:
            return
        topic = topic_of(update.effective_message)
        if not _is_interaction(update, context.bot.username):
            return  # nothing answers it here; the welcome reads its language with `seen`
        verdict = self.budget.take(chat.id)
        if verdict != "serve":
            if verdict == "warn":
                log.info("chat %s is over its command budget; ignoring it for a while", chat.id)
                speak(await self.chat_settings.language(chat.id, topic))
            query = update.callback_query
            if query is not None:
                await query.answer(_(SLOW_DOWN) if verdict == "warn" else None)
            elif verdict == "warn":
                await reply(update, context, _(SLOW_DOWN))
            raise ApplicationHandlerStop
        if update.callback_query is not None:
            speak(await self.chat_settings.language(chat.id, topic))
            return
        hint = language_hint(update.effective_user)
        speak(await self.membership.seen(chat, language=hint, thread_id=topic))


def _is_interaction(update: Update, bot_username: str) -> bool:
    """Whether the update asks the bot something (and so counts against the chat's budget).

    A command addressed to another bot (`/help@otherbot`) asks us nothing.
    """
    if update.callback_query is not None:
        return True
    message = update.message or update.channel_post
    # A file sent with a command as its caption (/import) asks too.
    text = message.text or message.caption if message is not None else None
    if message is None or not text:
        return False
    if text.startswith("/"):
        _command, at, addressee = text.split(maxsplit=1)[0].partition("@")
        return not at or addressee.casefold() == bot_username.casefold()
    return message.chat.type == ChatType.PRIVATE
