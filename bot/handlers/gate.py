"""The gate every update passes before its handler: flood control per chat, and noting that a
chat which asks something is reachable.
"""

from __future__ import annotations

import logging

from telegram import Update
from telegram.constants import ChatType
from telegram.ext import ApplicationHandlerStop

from bot.handlers.budget import CommandBudget
from bot.handlers.common import Context, reply
from bot.handlers.membership import Membership
from bot.i18n import N_

log = logging.getLogger(__name__)

SLOW_DOWN = N_(
    "Slow down, please: too many commands at once. I will answer again in a few seconds."
)


class Gate:
    """Runs before every handler (PTB group -1) and may stop the update there."""

    def __init__(self, membership: Membership, budget: CommandBudget) -> None:
        self.membership = membership
        self.budget = budget

    async def check(self, update: Update, context: Context) -> None:
        """Throttle a flooding chat, and note that a chat which asks something is reachable."""
        chat = update.effective_chat
        if chat is None or not _is_interaction(update, context.bot.username):
            return
        verdict = self.budget.take(chat.id)
        if verdict != "serve":
            if verdict == "warn":
                log.info("chat %s is over its command budget; ignoring it for a while", chat.id)
            query = update.callback_query
            if query is not None:
                await query.answer(SLOW_DOWN if verdict == "warn" else None)
            elif verdict == "warn":
                await reply(update, context, SLOW_DOWN)
            raise ApplicationHandlerStop
        if update.callback_query is None:
            await self.membership.seen(chat)


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
        _, at, addressee = text.split(maxsplit=1)[0].partition("@")
        return not at or addressee.casefold() == bot_username.casefold()
    return message.chat.type == ChatType.PRIVATE
