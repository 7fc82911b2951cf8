"""Whether a chat can be written to: it spoke to us, blocked or removed the bot, or migrated.

A chat that blocks the bot (or removes it) is deactivated: its deliveries stay pending, parked,
until it comes back. Any command, or being unblocked or added again, brings it back, and then
`events.chat_back()` is called (the front end wakes the delivery sender with it), so the parked
deliveries go out at once.

A chat where the bot may not post for now (no rights, a closed topic) is parked by the sender
(`watcher.store.parking`). A `my_chat_member` update that shows the bot's rights back, or a topic's
"reopened" service message, makes those parked deliveries due at once.

A group the bot is added to (or added back to) gets one short welcome: what the bot does, and
that its administrators set it up with /subscribe (and /suggest on, for papers like those). A
channel gets none: its readers did not ask.
"""

from __future__ import annotations

import logging

from telegram import (
    Chat,
    ChatMember,
    ChatMemberAdministrator,
    ChatMemberMember,
    ChatMemberOwner,
    ChatMemberRestricted,
    Update,
    User,
)
from telegram.constants import ChatMemberStatus, ChatType

from bot.handlers.common import Context, DeliveryEvents, chat_title, reply, topic_of
from bot.i18n import N_, _, language_of_user, speak
from watcher.core import Core
from watcher.core.views import NO_THREAD

log = logging.getLogger(__name__)

_GONE = frozenset({ChatMemberStatus.BANNED, ChatMemberStatus.LEFT})
_GROUPS = frozenset({ChatType.GROUP, ChatType.SUPERGROUP})

GROUP_WELCOME = N_(
    "👋 Thanks for adding me. I post each new arXiv paper by the authors this group follows, "
    "once. An administrator sets me up with /subscribe NAME, for example "
    "<code>/subscribe Dezun Dong</code>; /suggest on adds papers like theirs; /help lists the "
    "rest."
)


def language_hint(user: User | None) -> str | None:
    """The language a person's Telegram client asks for, among the bot's; None when no person
    wrote (a channel post, an anonymous administrator: Telegram's stand-in bots)."""
    if user is None or user.is_bot:
        return None
    return language_of_user(user.language_code)


class Membership:
    """The chats' reachability, kept by the core (`Core.presence`)."""

    def __init__(self, service: Core, *, events: DeliveryEvents) -> None:
        self.presence = service.presence
        self.events = events

    async def seen(
        self, chat: Chat, *, language: str | None = None, thread_id: int = NO_THREAD
    ) -> str | None:
        """The chat spoke to us or let us in: it is reachable (again). `language`: what the
        person who wrote (or let us in) asked for, the chat's if it has none yet. Returns the
        language the destination (`thread_id`) speaks now."""
        came_back, speaks = await self.presence.seen(
            chat.id, kind=chat.type, title=chat_title(chat), language=language, thread_id=thread_id
        )
        if came_back:
            log.info("chat %s is back; its parked deliveries are due", chat.id)
            self.events.chat_back()
        return speaks

    async def gone(self, chat_id: int, *, reason: str) -> None:
        """The chat refused us: park its deliveries until it comes back."""
        await self.presence.gone(chat_id, reason=reason)

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
            return
        speak(await self.seen(chat, language=language_hint(change.from_user)))
        if not may_post(change.new_chat_member, chat_type=chat.type):
            return
        if change.old_chat_member.status in _GONE and chat.type in _GROUPS:
            log.info("added to %s %s: welcomed", chat.type, chat.id)
            await reply(update, context, _(GROUP_WELCOME))
        await self._retry_parked(chat.id, None, "the bot may post again")

    async def topic_reopened(self, update: Update, context: Context) -> None:
        """A forum topic was reopened: deliveries parked because it was closed are due now."""
        message = update.effective_message
        if message is None or message.forum_topic_reopened is None:
            return
        await self._retry_parked(message.chat.id, topic_of(message), "its topic was reopened")

    async def _retry_parked(self, chat_id: int, thread_id: int | None, why: str) -> None:
        parked = await self.presence.retry_parked(chat_id, thread_id)
        if parked:
            log.info("chat %s: %s; its parked deliveries are due", chat_id, why)
            self.events.chat_back()

    async def migrated(self, update: Update, context: Context) -> None:
        """A group became a supergroup: its chat id changes, and so must ours."""
        message = update.effective_message
        if message is not None and message.migrate_to_chat_id is not None:
            await self.moved(message.chat.id, message.migrate_to_chat_id)

    async def moved(self, old_id: int, new_id: int) -> None:
        """The chat `old_id` is now `new_id`: its subscriptions and deliveries move with it."""
        await self.presence.moved(old_id, new_id)
        self.events.chat_back()  # what it was owed is due at its new id


def may_post(member: ChatMember, *, chat_type: str) -> bool:
    """Whether the bot, as this member of a chat of `chat_type`, may post text there."""
    if isinstance(member, ChatMemberOwner):
        return True
    if isinstance(member, ChatMemberAdministrator):
        # In a channel only an administrator with the right to post may; in a group, any admin.
        return chat_type != ChatType.CHANNEL or bool(member.can_post_messages)
    if isinstance(member, ChatMemberRestricted):
        return member.is_member and member.can_send_messages
    return isinstance(member, ChatMemberMember) and chat_type != ChatType.CHANNEL
