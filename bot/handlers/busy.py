"""The "typing…" status a chat sees while the bot asks arXiv on its behalf (/subscribe, /paper).

Telegram shows a chat action for 5 seconds at most, or until the bot's next message arrives, so
`typing_shown` sends one at once and again every `TYPING_REFRESH` seconds until its block ends.
The status is a courtesy: a failure to send it is logged at DEBUG and ends it, never the command.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator

from telegram import Bot, Update
from telegram.constants import ChatAction
from telegram.error import TelegramError

from bot.handlers.common import Context, topic_of

log = logging.getLogger(__name__)

TYPING_REFRESH = 4.5  # seconds; Telegram clears a status after 5


@contextlib.asynccontextmanager
async def typing_shown(update: Update, context: Context) -> AsyncIterator[None]:
    """Show "typing…" in the update's chat (its forum topic) for as long as the block runs."""
    chat = update.effective_chat
    if chat is None:
        yield
        return
    thread = topic_of(update.effective_message) or None
    showing = asyncio.create_task(
        _keep_typing(context.bot, chat.id, thread), name=f"typing-{chat.id}"
    )
    try:
        yield
    finally:
        showing.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await showing


async def _keep_typing(bot: Bot, chat_id: int, thread: int | None) -> None:
    while True:
        try:
            await bot.send_chat_action(chat_id, ChatAction.TYPING, message_thread_id=thread)
        except TelegramError as error:
            log.debug("no typing status in chat %s: %s", chat_id, error)
            return
        await asyncio.sleep(TYPING_REFRESH)
