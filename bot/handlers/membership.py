"""Whether a chat can be written to: it spoke to us, blocked or removed the bot, or migrated.

A chat that blocks the bot (or removes it) is deactivated: its deliveries stay pending, parked,
until it comes back. Any command, or being unblocked or added again, brings it back, and then
`on_chat_back` is called (the front end wakes the delivery sender with it), so the parked
deliveries go out at once.
"""

from __future__ import annotations

import logging
from collections.abc import Callable

from telegram import Chat, Update
from telegram.constants import ChatMemberStatus, ChatType

from bot.handlers.common import Context, chat_title
from watcher.aio import in_db_thread
from watcher.chats import Chats

log = logging.getLogger(__name__)

_GONE = frozenset({ChatMemberStatus.BANNED, ChatMemberStatus.LEFT})


class Membership:
    """The chats' reachability, kept in `Chats`."""

    def __init__(self, chats: Chats, *, on_chat_back: Callable[[], None] | None = None) -> None:
        self.chats = chats
        self.on_chat_back = on_chat_back

    async def seen(self, chat: Chat) -> None:
        """The chat spoke to us or let us in: it is reachable (again)."""
        came_back = await in_db_thread(
            self.chats.seen, chat.id, kind=chat.type, title=chat_title(chat)
        )
        if came_back:
            log.info("chat %s is back; its parked deliveries are due", chat.id)
            if self.on_chat_back is not None:
                self.on_chat_back()

    async def gone(self, chat_id: int, *, reason: str) -> None:
        """The chat refused us: park its deliveries until it comes back."""
        await in_db_thread(self.chats.deactivate, chat_id, reason=reason)

    async def changed(self, update: Update, context: Context) -> None:
        """The bot was blocked, removed, unblocked or added: park or resume the chat."""
        change = update.my_chat_member
        if change is None:
            return
        chat = change.chat
        if change.new_chat_member.status in _GONE:
            reason = (
                "the user blocked the bot"
                if chat.type == ChatType.PRIVATE
                else f"the bot was removed from the {chat.type}"
            )
            log.info("chat %s is gone: %s", chat.id, reason)
            await self.gone(chat.id, reason=reason)
        else:
            await self.seen(chat)

    async def migrated(self, update: Update, context: Context) -> None:
        """A group became a supergroup: its chat id changes, and so must ours."""
        message = update.effective_message
        if message is not None and message.migrate_to_chat_id is not None:
            await in_db_thread(self.chats.migrate, message.chat.id, message.migrate_to_chat_id)
