"""The one error handler: whatever a handler raised is logged, and the user is told something
went wrong, never how. A chat that refuses our reply (blocked, removed) is parked instead. A
group that became a supergroup while its command was handled (`ChatMigrated` from a call other
than the reply, which handles its own) is moved, and asked to send the command again.
"""

from __future__ import annotations

import logging

from telegram import Update
from telegram.error import ChatMigrated, Forbidden, RetryAfter, TelegramError

from bot.handlers.common import NO_PREVIEW, Context, topic_of
from bot.handlers.membership import Membership
from bot.i18n import N_, _

log = logging.getLogger(__name__)

SORRY = N_("Something went wrong on our side; please try again.")
UPGRADED = N_(
    "This group has just become a supergroup, so I could not finish that command. "
    "Please send it again here."
)


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
        if isinstance(error, ChatMigrated) and chat is not None:
            log.info("chat %s became %s while a command was handled", chat.id, error.new_chat_id)
            await self.membership.moved(chat.id, error.new_chat_id)
            try:
                await context.bot.send_message(
                    error.new_chat_id, _(UPGRADED), link_preview_options=NO_PREVIEW
                )
            except TelegramError as again:
                log.warning("could not tell chat %s: %s", error.new_chat_id, again)
            return
        log.error("handling an update failed", exc_info=error)
        if chat is None or isinstance(error, RetryAfter):
            return  # no one to tell, or Telegram asked for quiet
        message = update.effective_message if isinstance(update, Update) else None
        try:
            await context.bot.send_message(
                chat.id,
                _(SORRY),
                message_thread_id=topic_of(message) or None,  # General may be closed
                link_preview_options=NO_PREVIEW,
            )
        except TelegramError as again:
            log.warning("could not tell chat %s about the error: %s", chat.id, again)
