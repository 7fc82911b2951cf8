"""Compact announcements (`/format compact`): one line per paper, the linked title, the chat's
followed authors marked ★, and the primary category; several papers found together share one
message, as many as fit under Telegram's limit (`render_compact` splits them into several when
they do not). Pure: records in, messages out, each saying which papers it carries.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from bot.i18n import _, ngettext
from bot.render.paper import author_name
from bot.render.styled import BUDGET, Line, Message, Span, clip, line_units, message_of
from watcher.arxiv.latex import latex_to_text
from watcher.arxiv.records import Record
from watcher.kinds import NewsKind

TITLE_LIMIT = 300  # a title longer than this is cut: a line must leave room for others
NAME_LIMIT = 60
MARKED_SHOWN = 3  # followed authors named on a line; more are counted
CATEGORY_LIMIT = 40


@dataclass(frozen=True, slots=True)
class CompactEntry:
    """One paper's news for a compact message; `marked` says whether an author is followed."""

    record: Record
    kind: NewsKind
    marked: Callable[[str], bool]


@dataclass(frozen=True, slots=True)
class CompactMessage:
    """One message of compact lines, and the indices (into the entries given) it carries."""

    message: Message
    covers: tuple[int, ...]


def render_compact(
    entries: Sequence[CompactEntry], *, budget: int = BUDGET
) -> list[CompactMessage]:
    """The entries' lines, in order, packed into as few messages as fit `budget` each (in
    UTF-16 units, as Telegram counts). Every entry is in exactly one message."""
    messages: list[CompactMessage] = []
    lines: list[Line] = []
    covers: list[int] = []
    used = 0
    for index, entry in enumerate(entries):
        line = compact_line(entry)
        cost = line_units(line) + (1 if lines else 0)  # the newline before it
        if lines and used + cost > budget:
            messages.append(CompactMessage(message_of(lines), tuple(covers)))
            lines, covers, used = [], [], 0
            cost = line_units(line)
        lines.append(line)
        covers.append(index)
        used += cost
    if lines:
        messages.append(CompactMessage(message_of(lines), tuple(covers)))
    return messages


def compact_line(entry: CompactEntry) -> Line:
    """ "🔄 Title (v2) · ★ Dezun Dong · cs.DC": the title linked to the abstract page."""
    record = entry.record
    title = clip(" ".join(latex_to_text(record.title).split()) or _("(no title)"), TITLE_LIMIT)
    spans = [Span("🔄 ")] if entry.kind == NewsKind.REVISION else []
    spans.append(Span(title, href=record.abs_url or None))
    if entry.kind == NewsKind.REVISION:
        spans.append(Span(f" (v{record.version})"))
    marked = [author.name for author in record.authors if entry.marked(author.name)]
    for position, name in enumerate(marked[:MARKED_SHOWN]):
        spans.append(Span(" · " if position == 0 else ", "))
        spans += author_name(clip(" ".join(name.split()), NAME_LIMIT), marked=True, tags=("b",))
    if len(marked) > MARKED_SHOWN:
        more = len(marked) - MARKED_SHOWN  # followed authors, not papers: a msgid of its own
        spans.append(Span(" " + ngettext("and {n} more", "and {n} more", more)))
    if record.primary_category:
        spans.append(Span(f" · {clip(record.primary_category, CATEGORY_LIMIT)}"))
    return Line(tuple(spans))
