"""The list /authors answers with: a paper's authors, a page at a time, each with a button that
follows that person, and the callback data those buttons carry.

A page lists `PER_PAGE` authors, numbered as arXiv orders them, the ones this chat follows
marked ★, with one button each, two a row; a longer list gets "◀ Previous" and "Next ▶" (so a
484-author collaboration is 25 pages, and a page never nears Telegram's 100 buttons or 4096
characters). The data names the paper and the author's position, never the name, so it stays
far below Telegram's 64 bytes whatever the name: `w:f:POSITION:MARK:ID` follows the author at
POSITION (MARK: `watcher.core.coauthors.author_mark`, so a press on a list whose author list
changed since is told apart), `w:p:PAGE:ID` turns the page. Pure: no I/O.
"""

from __future__ import annotations

import html
import re
from dataclasses import dataclass

from bot.i18n import _, ngettext
from bot.render import MAX_CALLBACK_DATA_BYTES, Button, Message
from bot.render.styled import clip
from watcher.core.coauthors import AuthorEntry, AuthorList

PREFIX = "w:"
FOLLOW, PAGE = "f", "p"
PER_PAGE = 20
_PER_ROW = 2
_NAME_IN_BUTTON = 24  # a long name is cut on its button; the list above shows it in full
_NAME_IN_LINE = 120  # arXiv's author names are short; a freak one must not fill the message
_TITLE = 300
_MARK = re.compile(r"[0-9a-f]{6}")


@dataclass(frozen=True, slots=True)
class FollowPress:
    """A "Follow" button: the author at `position` (0-based) of `arxiv_id`, named by `mark`."""

    arxiv_id: str
    position: int
    mark: str


@dataclass(frozen=True, slots=True)
class PagePress:
    """A "Previous"/"Next" button: page `page` (0-based) of `arxiv_id`'s authors."""

    arxiv_id: str
    page: int


def page_of(position: int) -> int:
    """The page the author at `position` is listed on."""
    return position // PER_PAGE


def pages(listing: AuthorList) -> int:
    return max(1, -(-len(listing.authors) // PER_PAGE))


def author_page(listing: AuthorList, page: int, *, asked_version: int | None = None) -> Message:
    """Page `page` of the paper's authors (the last one if it is past the end)."""
    record, authors = listing.record, listing.authors
    total = pages(listing)
    page = min(max(page, 0), total - 1)
    shown = authors[page * PER_PAGE : (page + 1) * PER_PAGE]
    paper = html.escape(record.versioned_id)
    head = (
        ngettext(
            "👥 Authors of arXiv:{paper} ({n} author, page {page} of {pages})",
            "👥 Authors of arXiv:{paper} ({n} authors, page {page} of {pages})",
            len(authors),
            paper=paper,
            page=page + 1,
            pages=total,
        )
        if total > 1
        else ngettext(
            "👥 Authors of arXiv:{paper} ({n} author)",
            "👥 Authors of arXiv:{paper} ({n} authors)",
            len(authors),
            paper=paper,
        )
    )
    lines = [head, f"<b>{html.escape(clip(record.title, _TITLE))}</b>"]
    if asked_version is not None and asked_version != record.version:
        lines.append(
            _(
                "(These are the authors of v{version}, the newest I know, not of v{asked}.)",
                version=record.version,
                asked=asked_version,
            )
        )
    lines.append("")
    lines += [_line(author) for author in shown]
    lines.append("")
    lines.append(
        _(
            "A button follows that person here, as /subscribe NAME would; ★ marks those followed "
            "here already."
        )
        if any(a.followed for a in authors)
        else _("A button follows that person here, as /subscribe NAME would.")
    )
    buttons = [_button(record.arxiv_id, author) for author in shown]
    rows = [tuple(buttons[i : i + _PER_ROW]) for i in range(0, len(buttons), _PER_ROW)]
    steps = ((_("◀ Previous"), page - 1, page > 0), (_("Next ▶"), page + 1, page + 1 < total))
    turns = [
        Button(text, callback_data=data)
        for text, to, wanted in steps
        if wanted and _fits(data := f"{PREFIX}{PAGE}:{to}:{record.arxiv_id}")
    ]
    if turns:
        rows.append(tuple(turns))
    return Message.from_html("\n".join(lines), tuple(row for row in rows if row))


def _line(author: AuthorEntry) -> str:
    star = " ★" if author.followed else ""
    return f"{author.position + 1}. {html.escape(clip(author.name, _NAME_IN_LINE))}{star}"


def _button(arxiv_id: str, author: AuthorEntry) -> Button:
    data = f"{PREFIX}{FOLLOW}:{author.position}:{author.mark}:{arxiv_id}"
    sign = "★" if author.followed else "➕"
    text = f"{sign} {clip(author.name, _NAME_IN_BUTTON)}"
    if not _fits(data):  # an arXiv id always fits; an absurd stored one only pages
        data = f"{PREFIX}{FOLLOW}:-"
    return Button(text, callback_data=data)


def _fits(data: str) -> bool:
    return len(data.encode("utf-8")) <= MAX_CALLBACK_DATA_BYTES


def parse_press(data: str) -> FollowPress | PagePress | None:
    """What a button of the list asks for; None for data no button of it carries (old,
    forged, or one whose paper id did not fit)."""
    if not data.startswith(PREFIX):
        return None
    verb, _sep, rest = data.removeprefix(PREFIX).partition(":")
    if verb == FOLLOW:
        position, _sep, rest = rest.partition(":")
        mark, _sep, arxiv_id = rest.partition(":")
        if _number(position) and _MARK.fullmatch(mark) and arxiv_id:
            return FollowPress(arxiv_id, int(position), mark)
    if verb == PAGE:
        page, _sep, arxiv_id = rest.partition(":")
        if _number(page) and arxiv_id:
            return PagePress(arxiv_id, int(page))
    return None


def _number(text: str) -> bool:
    return text.isascii() and text.isdigit() and len(text) <= 5
