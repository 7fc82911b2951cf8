""" "Suggested for you" (issue 32): the message of one batch's suggestions for a destination
(`render_suggestions`), with 👍 and 👎 under each paper, and the same papers as the last section
of a digest (`suggestion_section`, without buttons: a digest part carries no keyboard, and
/suggest sends them with their buttons).

Each paper is three lines: its number and linked title; its first authors ("et al." past
`LEADING_AUTHORS`) and primary category; and why it was suggested, "like: <title>" (the paper
the chat was told of that it is most like) or the words they share. The wrapper is translated,
the title and the words are never. Every entry gets an equal share of one message, so ten
papers with the longest titles and names still fit Telegram's limit: a title gets what the
other two lines leave.

A button's callback data is "sg:" then "+" (👍, more like this) or "-" (👎, less) and the arXiv id
without its version ("sg:+:2604.01234"), far below Telegram's 64 bytes; the arXiv id rather than
a row id, so a press on an old message still finds the paper while it is stored. The press is
answered by `bot.handlers.suggest`.
"""

from __future__ import annotations

import html
from collections.abc import Sequence
from dataclasses import dataclass

from bot.i18n import N_, _, ngettext
from bot.render.paper import first_authors
from bot.render.styled import (
    BUDGET,
    MAX_CALLBACK_DATA_BYTES,
    Button,
    Line,
    Message,
    Span,
    clip,
    line_units,
    message_of,
    spans_of,
    units,
)
from watcher.arxiv.latex import latex_to_text
from watcher.suggestions.shown import SuggestedPaper

PREFIX = "sg:"
MORE, LESS = "+", "-"
LEADING_AUTHORS = 3  # named before "et al."
NAME_LIMIT = 30
CATEGORY_LIMIT = 20
LIKE_LIMIT = 80  # the title of the paper a suggestion is like
WORD_LIMIT = 30  # each shared word
SHARED_SHOWN = 3  # shared words named at most
TITLE_LIMIT = 200  # at most; a crowded message gives a title less
MIN_TITLE = 20
HEADING = N_("Suggested for you")


@dataclass(frozen=True, slots=True)
class Vote:
    """A pressed 👍 (`liked`) or 👎 under a suggestion, and the paper's arXiv id."""

    arxiv_id: str
    liked: bool


def vote_data(arxiv_id: str, *, liked: bool) -> str | None:
    """The callback data of a 👍 or 👎 button; None for an id too long to fit (no button)."""
    data = f"{PREFIX}{MORE if liked else LESS}:{arxiv_id}"
    return data if len(data.encode("utf-8")) <= MAX_CALLBACK_DATA_BYTES else None


def parse_vote(data: str) -> Vote | None:
    """The vote a button's data carries; None when it is no vote's (an old or forged press)."""
    if not data.startswith(PREFIX):
        return None
    verb, colon, arxiv_id = data.removeprefix(PREFIX).partition(":")
    if verb not in (MORE, LESS) or not colon or not arxiv_id or len(arxiv_id) > 40:
        return None
    return Vote(arxiv_id, liked=verb == MORE)


def render_suggestions(papers: Sequence[SuggestedPaper], *, day: str) -> Message:
    """One batch's suggestions for a destination: "✨ Suggested for you · <day>", each paper's
    three lines, a line saying what the buttons do; a row of 👍 N and 👎 N under the message for
    each paper N. `day` is the batch's date as the reader's language writes it."""
    heading = Line((Span("✨ "), Span(_("Suggested for you · {day}", day=day), ("b",))))
    footer = Line((Span(_("👍 more like this, 👎 less; /suggest off stops them."), ("i",)),))
    fixed = line_units(heading) + 1 + line_units(footer) + 2
    share = (BUDGET - fixed) // max(1, len(papers))
    lines = [heading]
    rows: list[tuple[Button, ...]] = []
    for number, paper in enumerate(papers, start=1):
        lines += [Line(()), *suggestion_entry(number, paper, share=share - 1)]
        row = tuple(
            Button(f"{sign} {number}", callback_data=data)
            for sign, liked in (("👍", True), ("👎", False))
            if (data := vote_data(paper.record.arxiv_id, liked=liked)) is not None
        )
        if row:
            rows.append(row)
    lines += [Line(()), footer]
    return message_of(lines, tuple(rows))


def suggestion_section(papers: Sequence[SuggestedPaper], *, room: int) -> list[Line]:
    """A digest's "Suggested for you" section in at most `room` UTF-16 units (its newlines
    counted, and the blank line before it): the heading and as many entries as fit, then
    "… and N more: /suggest" for the others; nothing when not even one fits."""
    if not papers:
        return []
    heading = Line((Span("✨ "), Span(_(HEADING), ("b",))))
    lines = [Line(()), heading]
    used = 1 + line_units(heading) + 1
    share = min(room - used, (BUDGET - used) // len(papers))
    for index, paper in enumerate(papers):
        entry = suggestion_entry(index + 1, paper, share=share)
        cost = sum(line_units(line) + 1 for line in entry)
        rest = len(papers) - index - 1
        more = Line((Span(_more(rest)),)) if rest else None
        tail = line_units(more) + 1 if more is not None else 0
        if used + cost + tail > room:
            if index == 0:
                return []
            lines.append(Line((Span(_more(rest + 1)),)))
            return lines
        lines += entry
        used += cost
    return lines


def suggestion_entry(number: int, paper: SuggestedPaper, *, share: int) -> list[Line]:
    """A suggested paper's three lines, in at most `share` UTF-16 units with their newlines:
    the numbered linked title (it gets what the other two leave, up to `TITLE_LIMIT`), the
    first authors and the primary category, and why it was suggested."""
    record = paper.record
    details = first_authors(
        record.author_names, lambda _name: False, limit=NAME_LIMIT, leading=LEADING_AUTHORS
    )
    if record.primary_category:
        details.append(Span(" · " + clip(record.primary_category, CATEGORY_LIMIT)))
    who = Line((Span("   👥 "), *details))
    why = Line((Span("   💡 "), *_why(paper)))
    numbered = f"{number}. "
    room = share - 3 - units(numbered) - line_units(who) - line_units(why)
    limit = max(MIN_TITLE, min(TITLE_LIMIT, room))
    title = clip(" ".join(latex_to_text(record.title).split()) or _("(no title)"), limit)
    return [
        Line((Span(numbered), Span(title, ("b",), href=record.abs_url or None))),
        who,
        why,
    ]


def _why(paper: SuggestedPaper) -> list[Span]:
    """ "like: <i>title</i>" or "shared words: <i>rdma, infiniband</i>", in the language
    speaking now; the title and the words as they are."""
    reason = paper.reason
    if reason.like is not None:
        like = clip(" ".join(latex_to_text(reason.like).split()), LIKE_LIMIT)
        return spans_of(_("like: <i>{title}</i>", title=html.escape(like, quote=False)))
    words = ", ".join(clip(word, WORD_LIMIT) for word in reason.shared[:SHARED_SHOWN])
    if not words:
        return [Span(_("close to what this chat reads"))]
    return spans_of(_("shared words: <i>{words}</i>", words=html.escape(words, quote=False)))


def _more(n: int) -> str:
    """The line for the suggestions a digest had no room for."""
    return ngettext("… and {n} more: /suggest", "… and {n} more: /suggest", n)
