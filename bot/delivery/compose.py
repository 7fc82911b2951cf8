"""What each send carries, and how it goes out: the message for one delivery (news of a
paper), for a summary and for a digest part, with its keyboard; `send` posts it as HTML, and
as plain text when Telegram refuses the HTML, with no link preview unless the destination
asked for one (/preview on: the paper's abstract page, small, above the news). Deliveries to a forum
topic carry its `message_thread_id`, and so do summaries and digest parts.

A paper goes to many chats, so its message is rendered once for every chat that marks the same
followed authors in it and speaks the same language (`PaperMessages`, a small cache; `Follows`
says whom each chat marks). Everything here speaks the language speaking now (`bot.i18n`): the
sender sets each destination's around its send.
The follows of a chat linked to the paper are what brought it there: its topics among them are
named ("🔎 topic"), and one of them (a person first) is what the "Unfollow …" or "Mute topic"
button stops.

A chat that came back to many waiting papers (`PendingDelivery.summarize`, see
`watcher.store.chats`) gets one summary message instead of one message each: its flagged
deliveries go out together, and are marked sent together once Telegram confirmed that one
message. A crash in between re-sends at most that summary.

Digests (`watcher.store.digests`) work the same way: a claimed digest's messages are pending rows,
and a delivery carrying a digest part sends the destination's earliest unsent part, every
delivery of that part confirmed by its one message. Parts go out under the same limits and
answers as any delivery (429, parking, an inactive chat); a crash re-sends at most the part
in flight.
"""

from __future__ import annotations

import logging
from collections import OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from telegram import (
    Bot,
    CopyTextButton,
    InlineKeyboardButton,
    InlineKeyboardMarkup,
    LinkPreviewOptions,
    SwitchInlineQueryChosenChat,
)
from telegram.constants import ParseMode
from telegram.error import TelegramError

from bot.delivery.answers import cannot_parse
from bot.i18n import current_language
from bot.render import Button, Finder, Message, render_paper, render_summary
from bot.render.actions import Cause
from watcher.arxiv.records import Record
from watcher.arxiv.taxonomy import category_name
from watcher.core.delivery import Audience
from watcher.core.views import PendingDelivery, PendingDigestPart
from watcher.follows.names import is_same_person
from watcher.kinds import FollowKind, NewsKind

log = logging.getLogger(__name__)

RENDER_CACHE_SIZE = 64  # one paper goes to many chats: render it once
NO_PREVIEW = LinkPreviewOptions(is_disabled=True)  # a paper's links are its buttons


@dataclass(frozen=True, slots=True)
class Composed:
    """One message ready to send: text (HTML, and plain) and the keyboard under it."""

    message: Message
    markup: InlineKeyboardMarkup | None = None
    preview: str | None = None  # the page previewed above the text (/preview on); else none

    @property
    def link_preview(self) -> LinkPreviewOptions:
        """No preview, or `preview`'s page small and above the text."""
        if self.preview is None:
            return NO_PREVIEW
        return LinkPreviewOptions(url=self.preview, prefer_small_media=True, show_above_text=True)

    def text(self, *, plain: bool = False) -> tuple[str, ParseMode | None]:
        """The text to send and its parse mode: the HTML, or with `plain` the text without
        markup, for when Telegram refused the HTML."""
        return (self.message.plain, None) if plain else (self.message.html, ParseMode.HTML)


def compose_summary(covered: Sequence[PendingDelivery], follows: Follows) -> Composed:
    """One message for the waiting deliveries a summary covers (one destination's), each paper
    marked with the destination's follows that found it (`follows`: read for these papers)."""
    papers = [(pending.record, NewsKind.of(pending.kind)) for pending in covered]
    finders = []
    for pending in covered:
        mine = follows.topics.get((pending.chat_id, pending.thread_id), frozenset())
        known = [f for f in follows.found_by(pending.record, mine) if f in follows.labels]
        people_first = sorted(known, key=lambda f: follows.labels[f][1])
        finders.append([Finder(*follows.labels[f]) for f in people_first])
    return Composed(render_summary(papers, finders))


def compose_digest_part(part: PendingDigestPart) -> Composed:
    """A digest message as it was rendered when the digest was claimed."""
    return Composed(Message(part.html, part.plain))


@dataclass(frozen=True, slots=True)
class Follows:
    """Who is marked ★ in a chat's message: the followed authors THAT chat (topic) subscribes to."""

    names: dict[int, tuple[str, ...]] = field(default_factory=dict)  # by followed author id
    # (chat id, thread id) -> the followed author ids that topic subscribes to
    topics: dict[tuple[int, int], frozenset[int]] = field(default_factory=dict)
    # by followed author id: how the follow is shown, and whether it is a topic
    labels: dict[int, tuple[str, bool]] = field(default_factory=dict)
    # (arXiv id, followed author id) for each paper about to be sent and each follow it is
    # linked to (`paper_match`): which of a chat's follows found it
    links: frozenset[tuple[str, int]] = frozenset()

    def found_by(self, record: Record, follows: frozenset[int]) -> tuple[int, ...]:
        """Which of `follows` (a chat's) found the paper, in id order."""
        return tuple(f for f in sorted(follows) if (record.arxiv_id, f) in self.links)


def who_follows_whom(audience: Audience) -> Follows:
    """Whom each chat's topics follow, the names and labels of those follows, and which of them
    each paper is linked to, as the core read them for the chats about to be served."""
    followed = audience.followed
    return Follows(
        {f.id: f.names for f in followed},
        audience.topics,
        {f.id: (f.label, f.kind == FollowKind.TOPIC) for f in followed},
        audience.links,
    )


class PaperMessages:
    """News of a paper, composed once for every chat that marks the same followed authors in
    it and speaks the same language (the one speaking now); the last `size` of them are kept.
    `follows` is set for the chats about to be served."""

    def __init__(self, size: int = RENDER_CACHE_SIZE) -> None:
        self.size = size
        self.follows = Follows()
        self._composed: OrderedDict[
            tuple[str, int, NewsKind, frozenset[int], tuple[int, ...], str], Composed
        ] = OrderedDict()

    def marker(self, chat_id: int, thread_id: int) -> Callable[[str], bool]:
        """Whether an author is one that the chat's topic follows (marked ★)."""
        follows = self.follows.topics.get((chat_id, thread_id), frozenset())
        names = self.follows.names
        followed = [names[i] for i in sorted(follows) if i in names]

        def marked(author: str) -> bool:
            return any(is_same_person(author, known) for known in followed)

        return marked

    def compose(self, record: Record, kind: NewsKind, chat_id: int, thread_id: int) -> Composed:
        """The message for news of `record` in a chat's topic, its followed authors marked."""
        follows = self.follows.topics.get((chat_id, thread_id), frozenset())
        found = self.follows.found_by(record, follows)
        key = (record.arxiv_id, record.version, kind, follows, found, current_language())
        composed = self._composed.get(key)
        if composed is not None:
            self._composed.move_to_end(key)
            return composed
        marked = self.marker(chat_id, thread_id)
        labels = self.follows.labels
        topics = [labels[f][0] for f in found if f in labels and labels[f][1]]
        message = render_paper(
            record, marked=marked, kind=kind, category_name=category_name, topics=topics,
            cause=_cause(found, labels),
        )  # fmt: skip
        composed = Composed(message, markup_of(message))
        self._composed[key] = composed
        if len(self._composed) > self.size:
            self._composed.popitem(last=False)
        return composed


async def send(
    bot: Bot,
    composed: Composed,
    chat_id: int,
    thread_id: int,
    what: str,
    *,
    silent: bool = False,
    paid: bool = False,
) -> int:
    """Send the HTML message to the chat (and forum topic), falling back to plain text if
    Telegram cannot parse it; the id of the message Telegram has. Other refusals raise.
    `silent`: it arrives without a sound (`disable_notification`, /silent on). `paid`: sent as a
    paid broadcast (`allow_paid_broadcast`, TELEGRAM_PAID_BROADCAST=on)."""
    try:
        return await _send_text(bot, composed, chat_id, thread_id, silent=silent, paid=paid)
    except TelegramError as error:
        if not cannot_parse(error):
            raise
        log.warning(
            "Telegram could not parse the HTML of %s (%s); sending plain text to chat %d",
            what,
            error.message,
            chat_id,
        )
        return await _send_text(
            bot, composed, chat_id, thread_id, plain=True, silent=silent, paid=paid
        )


async def _send_text(
    bot: Bot,
    composed: Composed,
    chat_id: int,
    thread_id: int,
    *,
    plain: bool = False,
    silent: bool = False,
    paid: bool = False,
) -> int:
    text, parse_mode = composed.text(plain=plain)
    sent = await bot.send_message(
        chat_id,
        text,
        message_thread_id=thread_id or None,
        parse_mode=parse_mode,
        link_preview_options=composed.link_preview,
        reply_markup=composed.markup,
        disable_notification=silent or None,
        allow_paid_broadcast=paid or None,
    )
    return sent.message_id


def _cause(found: Sequence[int], labels: dict[int, tuple[str, bool]]) -> Cause | None:
    """The follow an "Unfollow …" button stops: the first person (or identity) among those that
    found the paper, else the first topic; None if none is known (the chat left meanwhile)."""
    known = [f for f in found if f in labels]
    ordered = [f for f in known if not labels[f][1]] + [f for f in known if labels[f][1]]
    if not ordered:
        return None
    label, topic = labels[ordered[0]]
    return Cause(ordered[0], label, topic)


def topic_note(thread_id: int) -> str:
    """ " (topic N)" for a forum topic's log lines; nothing for a chat's General."""
    return f" (topic {thread_id})" if thread_id else ""


def markup_of(message: Message) -> InlineKeyboardMarkup | None:
    """The PTB inline keyboard for a rendered message's buttons (None when it has none)."""
    rows = [[inline_button(button) for button in row] for row in message.buttons]
    rows = [row for row in rows if row]
    return InlineKeyboardMarkup(rows) if rows else None


def inline_button(button: Button) -> InlineKeyboardButton:
    """One rendered button as PTB's: a link, callback data, a copy button (`CopyTextButton`) or
    a share button (`SwitchInlineQueryChosenChat`: any private chat, group or channel)."""
    if button.copy_text is not None:
        return InlineKeyboardButton(button.text, copy_text=CopyTextButton(button.copy_text))
    if button.share_query is not None:
        chosen = SwitchInlineQueryChosenChat(
            query=button.share_query,
            allow_user_chats=True,
            allow_group_chats=True,
            allow_channel_chats=True,
        )
        return InlineKeyboardButton(button.text, switch_inline_query_chosen_chat=chosen)
    return InlineKeyboardButton(button.text, url=button.url, callback_data=button.callback_data)
