"""What every handler shares: replying, usage answers, the refusals of whoever may not change a
chat (who may is decided in `bot.handlers.permissions`), the inline keyboard of a rendered
message, the base class holding the core, what the commands tell the delivery side
(`DeliveryEvents`), and small text helpers.

Replies are HTML with link previews off; anything a user typed is escaped before it is echoed.
A reply lands in the forum topic of the command it answers, and in groups it quotes that command.
A reply to a group that has just become a supergroup (`ChatMigrated`) moves the chat
(`on_chat_migrated`, set by `bot.handlers.register`) and goes to the supergroup.
Every reply fits Telegram's 4096 characters: lists are capped where they are built
(`capped_lines`, `bold_names`), and `fit_reply` trims whatever still overflows, as a last guard.
"""

from __future__ import annotations

import html
import logging
import re
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, tzinfo
from typing import Protocol

from telegram import (
    Chat,
    InlineKeyboardMarkup,
    LinkPreviewOptions,
    ReplyParameters,
    Update,
)
from telegram import (
    Message as TelegramMessage,
)
from telegram.constants import ChatType, ParseMode
from telegram.error import BadRequest, ChatMigrated
from telegram.ext import ContextTypes

from bot.arguments import Refused
from bot.delivery.compose import markup_of
from bot.handlers.permissions import FOLLOWS, Verdict, could_not_check, may_change, only_admins
from bot.i18n import N_, _, ngettext
from bot.i18n.dates import day_and_time
from bot.render import MAX_MESSAGE_LENGTH, Message, visible_length
from watcher.core import Core
from watcher.core.views import NO_THREAD
from watcher.errors import UsageError
from watcher.follows.followed import Followed

log = logging.getLogger(__name__)

Context = ContextTypes.DEFAULT_TYPE
# bot_data key of `async (old chat id, new chat id)`: moves a chat that became a supergroup.
ON_CHAT_MIGRATED = "on_chat_migrated"
_GROUPS = frozenset({ChatType.GROUP, ChatType.SUPERGROUP})
POST_AS_YOURSELF = N_(
    "You are posting as a channel, so I cannot tell whether you administer this group.\n"
    "Post as yourself, then send the command again, e.g. <code>/subscribe Dezun Dong</code>"
)

NO_PREVIEW = LinkPreviewOptions(is_disabled=True)
# Names listed in one sentence ("follows A, B, C … and 7 more"); the rest are counted.
MAX_NAMES_IN_A_SENTENCE = 10
_TAG = re.compile(r"<(/?)[a-zA-Z][^>]*>")


class ServiceHandlers:
    """Base of the handler groups: the core they ask, through a `Core`.

    Every question and change is one async call on a group of the core (`Core.follows`,
    `Core.questions`, `Core.chat_settings`, ...); a handler parses, renders and answers.
    """

    def __init__(self, service: Core) -> None:
        self.service = service
        self.settings = service.settings


class DeliveryEvents(Protocol):
    """What the commands tell the delivery side (the front end hands them to the sender)."""

    def chat_back(self) -> None:
        """A parked chat (blocked, removed) came back: its pending deliveries are due now."""

    def unsubscribed(self, chat_id: int) -> None:
        """/unsubscribe or /unwatch dropped deliveries the chat no longer wants."""

    def digest_changed(self) -> None:
        """/digest or /timezone changed when a digest is due (or sent one at once)."""

    def speaking_changed(self) -> None:
        """/pause, /resume, /quiet, /silent, /format or /timezone changed what may go out."""


class NoDelivery:
    """`DeliveryEvents` when nothing delivers: the commands alone, as in the handler tests."""

    def chat_back(self) -> None:
        return None

    def unsubscribed(self, chat_id: int) -> None:
        return None

    def digest_changed(self) -> None:
        return None

    def speaking_changed(self) -> None:
        return None


# --- where an update belongs -----------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Place:
    """A chat, and the forum topic in it (`NO_THREAD` for General or a chat without topics)."""

    chat_id: int
    thread_id: int = NO_THREAD

    @property
    def here(self) -> str:
        """How replies name it: each forum topic follows its own authors."""
        return _("This topic") if self.thread_id != NO_THREAD else _("This chat")


def topic_of(message: TelegramMessage | None) -> int:
    """The forum topic a message was posted in; `NO_THREAD` for General or no topics.

    Outside forums `message_thread_id` names a chain of replies, not a topic: it is ignored.
    """
    if message is None or not message.is_topic_message or message.message_thread_id is None:
        return NO_THREAD
    return message.message_thread_id


def command_text(update: Update) -> str:
    """What follows the command word (`/subscribe@bot`), its line breaks kept: PTB's
    `context.args` splits on every space and new line, and some commands read lines."""
    message = update.effective_message
    text = (message.text or "") if message is not None else ""
    parts = text.split(maxsplit=1)
    if not parts or not parts[0].startswith("/"):
        return text.strip()
    return parts[1].strip() if len(parts) > 1 else ""


def place_of(update: Update) -> Place:
    chat = update.effective_chat
    assert chat is not None
    return Place(chat.id, topic_of(update.effective_message))


# --- replying ---------------------------------------------------------------------------------


def keyboard(message: Message) -> InlineKeyboardMarkup | None:
    """The PTB inline keyboard for a rendered message's buttons (None when it has none)."""
    return markup_of(message)


def quoting(update: Update) -> ReplyParameters | None:
    """In a group, a reply to the update's message (the command, or the message whose button was
    pressed), sent even if that message is deleted meanwhile; elsewhere None."""
    chat, message = update.effective_chat, update.effective_message
    if chat is None or message is None or chat.type not in _GROUPS:
        return None
    return ReplyParameters(message.message_id, allow_sending_without_reply=True)


async def reply(
    update: Update, context: Context, answer: str | Message, *, quote_pressed: bool = False
) -> TelegramMessage:
    """Send `answer` (HTML, with its buttons if it is a rendered `Message`) to the update's chat,
    in the forum topic it came from; in a group, quoting the command it answers (and, with
    `quote_pressed`, the message whose button asked for it). Returns the message sent (to edit
    it later)."""
    chat = update.effective_chat
    assert chat is not None
    message = answer if isinstance(answer, Message) else Message.from_html(answer)
    text, markup = fit_reply(message.html), keyboard(message)
    asked = update.message or update.channel_post  # a command; not a button under our message
    try:
        if asked is not None:
            # PTB puts the reply in the command's forum topic, and quotes it if asked to.
            return await asked.reply_text(
                text,
                do_quote=chat.type in _GROUPS,
                allow_sending_without_reply=True,  # the command may be deleted meanwhile
                parse_mode=ParseMode.HTML,
                link_preview_options=NO_PREVIEW,
                reply_markup=markup,
            )
        thread = topic_of(update.effective_message)
        return await context.bot.send_message(
            chat.id,
            text,
            message_thread_id=thread or None,
            parse_mode=ParseMode.HTML,
            link_preview_options=NO_PREVIEW,
            reply_markup=markup,
            reply_parameters=quoting(update) if quote_pressed else None,
        )
    except ChatMigrated as error:
        # The group became a supergroup after sending this: it has a new id and no topics yet.
        log.info("chat %s became %s; the reply goes to the new id", chat.id, error.new_chat_id)
        on_migrated: Callable[[int, int], Awaitable[None]] | None = context.bot_data.get(
            ON_CHAT_MIGRATED
        )
        if on_migrated is not None:
            await on_migrated(chat.id, error.new_chat_id)
        return await context.bot.send_message(
            error.new_chat_id,
            text,
            parse_mode=ParseMode.HTML,
            link_preview_options=NO_PREVIEW,
            reply_markup=markup,
        )


async def edit_answer(update: Update, context: Context, text: str) -> None:
    """A question (a button's message) becomes its answer, without buttons; if it is gone, the
    answer is sent anew."""
    query = update.callback_query
    assert query is not None
    try:
        await query.edit_message_text(
            text, parse_mode=ParseMode.HTML, link_preview_options=NO_PREVIEW
        )
    except BadRequest:
        await reply(update, context, text)


async def managed_press(
    update: Update, context: Context, *, stale: str, declined: tuple[str, str]
) -> str | None:
    """The data of a pressed button of a question that changes what the chat follows, when it
    is left to act on; None when the press was answered here: `stale` (its message is gone),
    a presser who may not change the chat (`refuse_press`), or the question's "no" button
    (`declined`: its data, and the text the question becomes)."""
    query = update.callback_query
    assert query is not None
    if update.effective_chat is None or query.message is None:
        await query.answer(stale)
        return None
    if await refuse_press(update, context):
        return None
    if query.data == declined[0]:
        await query.answer()
        await edit_answer(update, context, declined[1])
        return None
    return query.data or ""


async def reply_usage(update: Update, context: Context, error: UsageError) -> None:
    """Answer wrong arguments: what was wrong, and an example when the error has one."""
    if isinstance(error, Refused):
        await reply(update, context, refusal(html.escape(error.wrong), error.example))
        return
    await reply(update, context, html.escape(str(error)))


def refusal(wrong: str, example: str, *, lead: str | None = None) -> str:
    """Every refusal's shape: one sentence (HTML) saying what was wrong, then one example
    command as code, on a line of its own. `lead` (already said) introduces the example:
    "For example:" by default; the example is a command, never translated."""
    shown = _("For example:") if lead is None else lead
    space = "" if shown.endswith("：") else " "  # none after a full-width colon
    return f"{wrong}\n{shown}{space}<code>{html.escape(example)}</code>"


def fit_reply(text: str, *, limit: int = MAX_MESSAGE_LENGTH) -> str:
    """`text` (HTML) cut to at most `limit` visible characters, as Telegram counts them.

    The cut falls at the end of a line where no tag is open, so the HTML stays valid, and a
    last line says how many lines were left out. Text without such a place is sent plain:
    tags dropped, cut, escaped.
    """
    if visible_length(text) <= limit:
        return text
    lines = text.split("\n")
    kept = 0
    depth = 0
    for count, line in enumerate(lines, start=1):
        for tag in _TAG.finditer(line):
            depth += -1 if tag.group(1) else 1
        if depth != 0:
            continue
        shown = "\n".join([*lines[:count], _cut_note(len(lines) - count)])
        if visible_length(shown) > limit:
            break
        kept = count
    if kept:
        return "\n".join([*lines[:kept], _cut_note(len(lines) - kept)])
    plain = html.unescape(_TAG.sub("", text))
    while (excess := visible_length(html.escape(plain)) - (limit - 1)) > 0:
        plain = plain[: len(plain) - (excess + 1) // 2]  # a character is one or two units
    return html.escape(plain) + "…"


def _cut_note(lines: int) -> str:
    return ngettext(
        "… ({n} more line not shown: too long for one message)",
        "… ({n} more lines not shown: too long for one message)",
        lines,
    )


def capped_lines(
    entries: Sequence[str],
    *,
    room: int,
    more: Callable[[int], str] | None = None,
) -> list[str]:
    """The first `entries` (HTML lines) that fit in `room` visible characters, then `more(n)`
    for the n left out (counted with the line breaks and the `more` line itself); by default
    "… and N more."."""
    if more is None:
        more = and_more
    used = 0
    for count, entry in enumerate(entries):
        needed = visible_length(entry) + 1
        rest = len(entries) - count - 1
        tail = visible_length(more(rest)) + 1 if rest else 0
        if used + needed + tail > room:
            return [*entries[:count], more(len(entries) - count)]
        used += needed
    return list(entries)


def and_more(n: int) -> str:
    """The line that stands for `n` lines left out of a list."""
    return ngettext("… and {n} more.", "… and {n} more.", n)


# --- who may change what a chat follows (decided in `bot.handlers.permissions`) -------------


async def refuse_press(update: Update, context: Context, *, what: str = FOLLOWS) -> bool:
    """True (and the press answered) when the presser of a button that changes the chat may not
    change it (`what` of it, an `N_` noun phrase of `bot.handlers.permissions`): in groups and
    channels, anyone but its administrators."""
    query = update.callback_query
    chat = update.effective_chat
    assert query is not None
    assert chat is not None
    verdict = await may_change(update, context)
    if verdict == Verdict.ALLOWED:
        return False
    refused = only_admins(chat.type, what)
    answer = could_not_check(chat.type) if verdict == Verdict.UNCHECKED else refused
    await query.answer(answer, show_alert=True)
    return True


async def refuse_non_admin(
    update: Update,
    context: Context,
    *,
    what: str = FOLLOWS,
    example: str = "/subscriptions",
) -> bool:
    """True (and the refusal sent) when the sender of a command may not change `what` of this
    chat: in groups, anyone but its administrators."""
    verdict = await may_change(update, context)
    if verdict == Verdict.ALLOWED:
        return False
    chat = update.effective_chat
    assert chat is not None
    if verdict == Verdict.AS_ANOTHER_CHAT:
        await reply(update, context, _(POST_AS_YOURSELF))
    elif verdict == Verdict.UNCHECKED:
        await reply(update, context, html.escape(could_not_check(chat.type)))
    else:
        wrong = only_admins(chat.type, what)
        await reply(update, context, refusal(wrong, example, lead=_("Anyone can ask:")))
    return True


# --- small text helpers -----------------------------------------------------------------------


def when(moment: datetime | None, zone: tzinfo = UTC) -> str:
    """ "30 Mar 2026, 08:00 CEST": a moment as `zone`'s clock shows it (UTC by default), in the
    language speaking now (`bot.i18n.dates`); "never" for None."""
    if moment is None:
        return _("never")
    local = moment.astimezone(zone)
    return f"{day_and_time(local)} {local.tzname() or 'UTC'}"


def local_time(moment: datetime, zone: tzinfo) -> str:
    """ "30 Mar 2026, 08:00 CEST": a moment as the chat's clock shows it, in the language
    speaking now; the zone's abbreviation (or offset) as the zone names it."""
    local = moment.astimezone(zone)
    label = local.tzname() or ""
    return day_and_time(local) + (f" {label}" if label else "")


def papers(n: int) -> str:
    """ "1 paper", "3 papers", in the language speaking now."""
    return ngettext("{n} paper", "{n} papers", n)


def bold_names(followed: Sequence[Followed], *, most: int = MAX_NAMES_IN_A_SENTENCE) -> str:
    """The authors' names in bold, escaped, comma-separated (HTML); past `most`, a count."""
    return bold_list([f.label for f in followed], most=most)


def bold_list(names: Sequence[str], *, most: int = MAX_NAMES_IN_A_SENTENCE) -> str:
    """`names` in bold, escaped, comma-separated (HTML): the first `most`, then "and N more"."""
    shown = ", ".join(f"<b>{html.escape(name)}</b>" for name in names[:most])
    if len(names) <= most:
        return shown
    rest = len(names) - most
    return ngettext("{names} and {n} more", "{names} and {n} more", rest, names=shown)


def plain_names(followed: Sequence[Followed]) -> str:
    """Up to three names as plain text, else how many authors (not escaped)."""
    if not followed:
        return _("nobody")
    if len(followed) <= 3:
        return ", ".join(f.label for f in followed)
    return ngettext("{n} author", "{n} authors", len(followed))


def chat_title(chat: Chat) -> str | None:
    title = chat.title or chat.full_name or chat.username
    return title[:255] if title else None
