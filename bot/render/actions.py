"""The buttons under a paper, and the callback data its buttons carry.

Up to three rows: the links (the abstract page, the PDF and the HTML page when arXiv has one);
then what the reader does with the paper: "Cite" (answered with the paper's BibTeX), "🔖 Save"
(onto the chat's reading list, /saved; once saved it reads "🗑 Unsave", `save_button`), "↗ Share"
(Telegram asks for a chat and starts the bot's inline mode there with the paper's id:
`switch_inline_query_chosen_chat`) and "📋 Copy id" (copies "arXiv:2412.01234": `copy_text`);
then, under news a follow caused, "Unfollow NAME" or "Mute topic" (which asks first, and stops
that follow in that chat only). More than four buttons in a row leave each too narrow for its
label on a phone. The handlers are `bot.handlers.paper_buttons` and `bot.handlers.saved`.

Callback data stays far below Telegram's 64 bytes: "a:" then a letter for the action, the follow's
id where it needs one, and the arXiv id without its version ("a:c:2604.01234",
"a:s:2604.01234", "a:u:17:hep-th/9901001"). The arXiv id, not a row id, so that a press on an
old message finds the paper as long as it is stored, whatever happened to the rows in between.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import UTC, datetime

from bot.i18n import N_, _
from bot.render.styled import (
    MAX_CALLBACK_DATA_BYTES,
    MAX_COPY_TEXT,
    MAX_INLINE_QUERY,
    Button,
    clip,
)
from watcher.arxiv.records import Record

PREFIX = "a:"
CITE, UNFOLLOW, CONFIRM, KEEP = "c", "u", "y", "k"
SAVE, UNSAVE = "s", "x"
# Button labels, translated where a button is made.
SAVE_TEXT, UNSAVE_TEXT = N_("🔖 Save"), N_("🗑 Unsave")
SHARE_TEXT, COPY_TEXT = N_("↗ Share"), N_("📋 Copy id")
_NAME_IN_BUTTON = 24  # a long name is cut: the confirmation names it in full

# arXiv renders HTML from the LaTeX source of papers submitted since December 2023 (new-style
# ids from 2312 on); older papers mostly have none, and a link to a missing page helps nobody.
HTML_SINCE = datetime(2023, 12, 1, tzinfo=UTC)
_NEW_STYLE_ID = re.compile(r"(\d{2})(\d{2})\.\d{4,5}")


@dataclass(frozen=True, slots=True)
class Cause:
    """The follow that brought a paper to a chat: its id, how it is shown, whether a topic."""

    followed_id: int
    label: str
    topic: bool = False


@dataclass(frozen=True, slots=True)
class Action:
    """What a pressed button asks: `verb` one of CITE, SAVE, UNSAVE, UNFOLLOW, CONFIRM, KEEP."""

    verb: str
    arxiv_id: str = ""
    followed_id: int | None = None


def html_url(record: Record) -> str | None:
    """The paper's HTML page (arxiv.org/html/ID) when arXiv has one: new-style ids from 2312
    on. Older ids and old-style ones ("hep-th/9901001") get none."""
    match = _NEW_STYLE_ID.fullmatch(record.arxiv_id)
    if match is None:
        return None
    year, month = 2000 + int(match.group(1)), int(match.group(2))
    if datetime(year, month, 1, tzinfo=UTC) < HTML_SINCE:
        return None
    return f"https://arxiv.org/html/{record.arxiv_id}"


def paper_rows(record: Record, cause: Cause | None = None) -> tuple[tuple[Button, ...], ...]:
    """The rows under a paper: Abstract, PDF, HTML (if any); then Cite, Save, Share, Copy id;
    then the cause's "Unfollow …" or "Mute topic" when a follow brought it."""
    links = ((_("📄 Abstract"), record.abs_url), ("📥 PDF", record.pdf_url),
             ("🌐 HTML", html_url(record)))  # fmt: skip
    row = tuple(Button(text, url=url) for text, url in links if url)
    actions: list[Button] = []
    cite = f"{PREFIX}{CITE}:{record.arxiv_id}"
    if _fits(cite):  # an arXiv id always fits; an absurd stored one gets no button
        actions.append(Button(_("❝ Cite"), callback_data=cite))
        actions.append(save_button(record.arxiv_id, saved=False))
    if 1 <= len(record.arxiv_id) <= MAX_INLINE_QUERY:
        actions.append(Button(_(SHARE_TEXT), share_query=record.arxiv_id))
    copied = f"arXiv:{record.arxiv_id}"
    if len(copied) <= MAX_COPY_TEXT:
        actions.append(Button(_(COPY_TEXT), copy_text=copied))
    stop: tuple[Button, ...] = ()
    unfollow = f"{PREFIX}{UNFOLLOW}:{cause.followed_id}:{record.arxiv_id}" if cause else ""
    if cause is not None and _fits(unfollow):
        stop = (Button(unfollow_text(cause), callback_data=unfollow),)
    return tuple(r for r in (row, tuple(actions), stop) if r)


def save_button(arxiv_id: str, *, saved: bool) -> Button:
    """ "🔖 Save" for a paper not on the chat's list, "🗑 Unsave" for one on it."""
    if saved:
        return Button(_(UNSAVE_TEXT), callback_data=f"{PREFIX}{UNSAVE}:{arxiv_id}")
    return Button(_(SAVE_TEXT), callback_data=f"{PREFIX}{SAVE}:{arxiv_id}")


def _fits(data: str) -> bool:
    return len(data.encode("utf-8")) <= MAX_CALLBACK_DATA_BYTES


def unfollow_text(cause: Cause) -> str:
    """The button's text: "Mute topic", or "Unfollow NAME" with a long name cut."""
    if cause.topic:
        return _("🔕 Mute topic")
    return _("🔕 Unfollow {name}", name=clip(cause.label, _NAME_IN_BUTTON))


def confirm_row(followed_id: int, arxiv_id: str, *, topic: bool) -> tuple[Button, ...]:
    """The confirmation's two buttons: stop the follow, or keep it."""
    return (
        Button(
            _("Yes, mute it") if topic else _("Yes, unfollow"),
            callback_data=f"{PREFIX}{CONFIRM}:{followed_id}:{arxiv_id}",
        ),
        Button(_("Keep"), callback_data=f"{PREFIX}{KEEP}"),
    )


def parse_action(data: str) -> Action | None:
    """The action a button's callback data asks for; None for data no button of ours makes."""
    if not data.startswith(PREFIX):
        return None
    verb, __, rest = data.removeprefix(PREFIX).partition(":")
    if verb == KEEP and not rest:
        return Action(KEEP)
    if verb in (CITE, SAVE, UNSAVE) and rest:
        return Action(verb, rest)
    if verb in (UNFOLLOW, CONFIRM):
        followed, __, arxiv_id = rest.partition(":")
        if followed.isascii() and followed.isdigit() and arxiv_id:
            return Action(verb, arxiv_id, int(followed))
    return None
