"""The one error handler: whatever a handler raised is logged, and the user is told something
went wrong, never how. A chat that refuses our reply (blocked, removed) is parked instead.
"""

from __future__ import annotations

import logging

from telegram import Update
from telegram.error import Forbidden, RetryAfter, TelegramError

from bot.handlers.common import NO_PREVIEW, Context
from bot.handlers.membership import Membership

log = logging.getLogger(__name__)

SORRY = "Something went wrong on our side; please try again."


class ErrorHandler:
    """PTB's error handler for every update."""

    def __init__(self, membership: Membership) -> None:
        self.membership = membership

    async def on_error(self, update: object, context: Context) -> None:
        """The one error handler: log it, and tell the user (never the details)."""
        error = context.error
        chat = update.effective_chat if isinstance(update, Update) else None
        if isinstance(error, Forbidden) and chat is not None:
            log.info("chat %s refused a reply: %s", chat.id, error)
            await self.membership.gone(chat.id, reason=str(error))
            return
        log.error("handling an update failed", exc_info=error)
        if chat is None or isinstance(error, RetryAfter):
            return  # no one to tell, or Telegram asked for quiet
        try:
            await context.bot.send_message(chat.id, SORRY, link_preview_options=NO_PREVIEW)
        except TelegramError as again:
            log.warning("could not tell chat %s about the error: %s", chat.id, again)
