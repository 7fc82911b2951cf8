"""Who may act for a chat: the one place that decides it (README, "Who may do what, where").

| where | commands that change the chat | presses that change it | reading, Cite, paging |
|---|---|---|---|
| private chat | the person | the person | the person |
| group, supergroup, forum topic | its administrators | its administrators | anyone |
| channel | its administrators (Telegram's rule) | its administrators (asked) | any reader |

A command is a message, and Telegram says who sent it. In a channel only administrators can
post, so a channel post is always allowed. In a group an anonymous administrator posts as the
group itself (`sender_chat` is the chat, `from` is GroupAnonymousBot) and counts as one; someone
posting as another chat (their own channel, a linked channel) hides who they are, so they are
asked to post as themself. Anyone else is looked up with getChatMember.

A button press is another matter: any reader of a channel, and any member of a group, can press
any button they see, and Telegram checks nothing. So a press of a question that changes the
chat is checked against the presser, who is always named (a press is never anonymous, not even
an anonymous administrator's, whose status is still "administrator"): getChatMember. A forum
topic is its group's: its administrators act for every topic.

getChatMember answers are kept `KEEP_VERDICT` seconds, for at most `MAX_KEPT` (chat, user)
pairs, the oldest dropped first, so a reader pressing again and again costs one request a
minute; a press notices a promotion or demotion within that time. A command always asks afresh
(commands are few, and a group's upgrade to a supergroup shows up there as `ChatMigrated`, left
to the error handler). A getChatMember that
fails (400 or 403: the bot may not see the members; 429; a network fault; a 5xx) means "not
allowed", answered as "could not check", logged, and not kept: the next press asks again.
"""

from __future__ import annotations

import logging
import time
from collections import OrderedDict
from collections.abc import Callable
from enum import Enum

from telegram import Bot, Update
from telegram.constants import ChatMemberStatus, ChatType
from telegram.error import ChatMigrated, TelegramError
from telegram.ext import ContextTypes

from bot.i18n import N_, _

log = logging.getLogger(__name__)

# Telegram's stand-ins for who posts "as a chat": a channel (a user posting as their own
# channel, or a linked channel's post), and an anonymous administrator posting as the group.
CHANNEL_BOT_ID = 136817688
GROUP_ANONYMOUS_BOT_ID = 1087968824
STAND_INS = frozenset({CHANNEL_BOT_ID, GROUP_ANONYMOUS_BOT_ID})
KEEP_VERDICT = 60.0  # seconds a getChatMember answer is trusted
MAX_KEPT = 4096  # (chat, user) answers kept at most
_ADMIN_CACHE = "admin verdicts"  # bot_data key of the application's `AdminCache`
_MANAGERS = frozenset({ChatMemberStatus.OWNER, ChatMemberStatus.ADMINISTRATOR})


class Verdict(Enum):
    """Whether the sender or presser may change the chat, and if not, why not."""

    ALLOWED = "allowed"
    NOT_ADMIN = "not an administrator"
    AS_ANOTHER_CHAT = "posting as another chat"  # cannot be looked up: post as yourself
    UNCHECKED = "could not check"  # getChatMember failed


class AdminCache:
    """getChatMember's answers about (chat, user), kept briefly and boundedly."""

    def __init__(
        self,
        *,
        keep: float = KEEP_VERDICT,
        most: int = MAX_KEPT,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.keep = keep
        self.most = most
        self.clock = clock
        self._kept: OrderedDict[tuple[int, int], tuple[float, bool]] = OrderedDict()

    async def is_admin(
        self, bot: Bot, chat_id: int, user_id: int, *, kept: bool = True
    ) -> bool | None:
        """Whether the user administers the chat; None when Telegram could not say.

        `kept` False asks Telegram even when an answer is kept (and keeps the new one).
        Raises `ChatMigrated`: the group became a supergroup, which the error handler moves.
        """
        now = self.clock()
        key = (chat_id, user_id)
        known = self._kept.get(key)
        if kept and known is not None and known[0] > now:
            return known[1]
        try:
            member = await bot.get_chat_member(chat_id, user_id)
        except ChatMigrated:
            raise
        except TelegramError as error:
            log.warning(
                "getChatMember about user %s in chat %s failed (%s: %s); their press or "
                "command is refused",
                user_id,
                chat_id,
                type(error).__name__,
                error,
            )
            return None
        admin = member.status in _MANAGERS
        self._kept.pop(key, None)
        self._kept[key] = (now + self.keep, admin)
        while len(self._kept) > self.most:
            self._kept.popitem(last=False)
        return admin


def admin_cache(context: ContextTypes.DEFAULT_TYPE) -> AdminCache:
    """The application's `AdminCache` (one for all handlers, made at the first question)."""
    cache = context.bot_data.get(_ADMIN_CACHE)
    if not isinstance(cache, AdminCache):
        cache = context.bot_data[_ADMIN_CACHE] = AdminCache()
    return cache


async def may_change(update: Update, context: ContextTypes.DEFAULT_TYPE) -> Verdict:
    """Whether whoever sent this update (a command, or a button press) may change the chat."""
    chat = update.effective_chat
    assert chat is not None
    if chat.type == ChatType.PRIVATE:
        return Verdict.ALLOWED
    query = update.callback_query
    if query is None:
        message = update.effective_message
        assert message is not None
        if chat.type == ChatType.CHANNEL:
            return Verdict.ALLOWED  # in a channel only administrators can post at all
        if message.sender_chat is not None:
            # An anonymous administrator speaks as the group itself; anyone speaking as another
            # chat cannot be looked up: the user is a stand-in.
            if message.sender_chat.id == chat.id:
                return Verdict.ALLOWED
            return Verdict.AS_ANOTHER_CHAT
    user = update.effective_user  # for a press: who pressed, never a stand-in
    if user is None or user.id in STAND_INS:
        return Verdict.NOT_ADMIN
    # A command is asked about afresh: commands are few, and a group's upgrade to a supergroup
    # shows up there (`ChatMigrated`); presses, which anyone can repeat, use a kept answer.
    admin = await admin_cache(context).is_admin(
        context.bot, chat.id, user.id, kept=query is not None
    )
    if admin is None:
        return Verdict.UNCHECKED
    return Verdict.ALLOWED if admin else Verdict.NOT_ADMIN


# What a refusal says may not be changed: noun phrases marked for the catalog (`N_`), said
# where the refusal is (`only_admins`).
FOLLOWS = N_("what it follows")
DIGEST = N_("its digest")
TIME_ZONE = N_("its time zone")
SPEAKING = N_("how I speak here")
READING_LIST = N_("its reading list")


def only_admins(chat_type: str, what: str = FOLLOWS) -> str:
    """The answer to someone who is not an administrator (one sentence); `what`: one of the
    noun phrases above, said in the language speaking now. A forum topic is its group's."""
    if chat_type == ChatType.CHANNEL:
        return _("Only this channel's administrators can change {what}.", what=_(what))
    return _("Only this group's administrators can change {what}.", what=_(what))


def could_not_check(chat_type: str) -> str:
    """The answer when getChatMember failed (one sentence and what to do)."""
    if chat_type == ChatType.CHANNEL:
        return _(
            "I could not check that you administer this channel, so nothing was changed. "
            "Try again in a minute."
        )
    return _(
        "I could not check that you administer this group, so nothing was changed. "
        "Try again in a minute."
    )
