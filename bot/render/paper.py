"""One paper in full, as news for a chat (`render_paper`) or as the answer to /paper
(`render_paper_lookup`): heading, the topics that found it (🔎), the title linked to the abstract
page, authors with the followed ones marked, categories, classes, dates, comment, journal
reference, and the abstract in a block quote (an expandable one when longer than
`EXPANDABLE_ABSTRACT`), cut to fit one message; with its rows of buttons
(`bot.render.actions`). A revision says what changed from the version stored before it and
shows the abstract again only when it changed. The author list (`author_spans`) is shared with
the digests.
"""

from __future__ import annotations

import html
from collections.abc import Callable, Sequence

from bot.i18n import N_, _, ngettext
from bot.render.actions import Cause, paper_rows
from bot.render.styled import (
    BUDGET,
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
from watcher.arxiv.records import Author, Record
from watcher.kinds import NewsKind

ID_LIMIT = 40  # an arXiv id with its version, as shown
MARKER = (
    "★ "  # in front of a followed author: survives the plain fallback and notification previews
)
MARKED_TAGS = ("b", "u")  # a followed author's name in a paper or a list: bold, underlined
_TITLE_LIMIT = 400
_AUTHORS_LIMIT = 700
_AUTHOR_NAME_LIMIT = 80
_ALL_AUTHORS_UP_TO = 10  # longer lists show the first few, the marked ones, and a count
_LEADING_AUTHORS = 5
_CATEGORIES_LIMIT = 300
_CLASS_LIMIT = 200  # an ACM or MSC class line
_COMMENT_LIMIT = 300
_JOURNAL_LIMIT = 300
_TOPIC_LIMIT = 200
_URL_LIMIT = 300
# An abstract longer than this goes in an expandable block quote (three lines, a tap opens the
# rest); a shorter one in a plain block quote, shown whole.
EXPANDABLE_ABSTRACT = 600
# How a revision names what it changed (`Record.changes`), in this order; translated at use.
_CHANGE_NAMES = {
    "title": N_("title"), "authors": N_("authors"), "abstract": N_("abstract"),
    "categories": N_("categories"), "comment": N_("comments"),
    "journal_ref": N_("journal reference"), "doi": N_("DOI"),
}  # fmt: skip


def author_name(name: str, *, marked: bool, tags: tuple[str, ...] = MARKED_TAGS) -> list[Span]:
    """An author's name as every message writes it: a followed one (`marked`) with `MARKER` in
    front and in `tags` (a compact line's: bold only), any other plain."""
    return [Span(MARKER), Span(name, tags)] if marked else [Span(name)]


def first_authors(
    authors: Sequence[str],
    marked: Callable[[str], bool],
    *,
    limit: int,
    leading: int = 1,
    also_marked: int = 2,
) -> list[Span]:
    """A compact line's authors: the first `leading`, then up to `also_marked` marked ones (★,
    as in announcements), each cut to `limit`, then "et al." when some are left out: "Ziyu
    Wang, ★ Dezun Dong et al."."""
    names = [" ".join(name.split()) for name in authors if name.strip()]
    if not names:
        return [Span(_("unknown authors"))]
    chosen = list(range(min(leading, len(names))))
    chosen += [i for i, name in enumerate(names) if i >= leading and marked(name)][:also_marked]
    spans: list[Span] = []
    for index in chosen:
        if spans:
            spans.append(Span(", "))
        spans += author_name(clip(names[index], limit), marked=marked(names[index]))
    if len(chosen) < len(names):
        spans.append(Span(" " + _("et al.")))
    return spans


def render_paper(
    record: Record,
    *,
    marked: Callable[[str], bool],
    kind: NewsKind = NewsKind.NEW,
    category_name: Callable[[str], str | None] = lambda category: None,
    topics: Sequence[str] = (),
    cause: Cause | None = None,
) -> Message:
    """News of one paper, in full: text (HTML, and plain) and its row of buttons.

    `kind` picks the first line: "🆕 New paper" or "🔄 Updated to vN". `marked(name)` says which
    authors to mark as followed (★ and bold-underlined). `topics`: the chat's topics that found
    it, each shown "🔎 topic". `cause`: the follow that brought it, which the "Unfollow …" or
    "Mute topic" button stops.
    """
    return _paper_message(
        record, kind, marked=marked, category_name=category_name, topics=topics, cause=cause
    )


def render_paper_lookup(
    record: Record,
    *,
    marked: Callable[[str], bool],
    category_name: Callable[[str], str | None] = lambda category: None,
) -> Message:
    """One paper looked up with /paper: as `render_paper`, but headed "📄 Paper", since it is
    not news."""
    return _paper_message(record, None, marked=marked, category_name=category_name)


def _paper_message(
    record: Record,
    kind: NewsKind | None,
    *,
    marked: Callable[[str], bool],
    category_name: Callable[[str], str | None],
    topics: Sequence[str] = (),
    cause: Cause | None = None,
) -> Message:
    found = [Line((Span("🔎 "), Span(clip(t, _TOPIC_LIMIT), ("i",)))) for t in topics]
    lines = _paper_lines(record, marked=marked, kind=kind, category_name=category_name, found=found)
    return message_of(lines, paper_rows(record, cause))


def _paper_lines(
    record: Record,
    *,
    marked: Callable[[str], bool],
    kind: NewsKind | None,
    category_name: Callable[[str], str | None],
    found: Sequence[Line] = (),
) -> list[Line]:
    """The paper's lines; `kind` None for a paper looked up (not news). `found`: the 🔎 lines
    of the topics that found it, under the heading, counted before the abstract is cut."""
    if kind is None:
        icon, status = "📄 ", _("Paper")
    elif kind == NewsKind.NEW:
        icon, status = "🆕 ", _("New paper")
    elif kind == NewsKind.REVISION:
        icon, status = "🔄 ", _("Updated to v{version}", version=record.version)
    else:
        raise ValueError(f"kind must be a NewsKind or None (looked up), got {kind!r}")
    title = clip(latex_to_text(record.title) or _("(no title)"), _TITLE_LIMIT)
    lines = [
        Line(
            (
                Span(icon),
                Span(status, ("b",)),
                Span(" · arXiv:"),
                Span(clip(record.versioned_id, ID_LIMIT), ("code",)),
            )
        ),
        *found,
        Line((Span(title, ("b",), href=record.abs_url or None),)),
    ]
    changes = record.changes if kind == NewsKind.REVISION else None
    if changes is not None:
        lines.append(Line((Span("✏️ "), *_changes_spans(changes))))
    if any(author.name.strip() for author in record.authors):
        lines.append(Line((Span("👥 "), *author_spans(record.authors, marked))))
    lines.append(
        Line((Span("📂 " + clip(_categories_text(record, category_name), _CATEGORIES_LIMIT)),))
    )
    for label, value in (("MSC", record.msc_class), ("ACM", record.acm_class)):
        if value and value.strip():
            lines.append(Line((Span(f"🏷 {label}: " + clip(value, _CLASS_LIMIT)),)))
    if kind == NewsKind.NEW or (kind is None and record.version == 1):
        dates = "📅 " + _("Submitted {date}", date=f"{record.published:%Y-%m-%d}")
    else:
        dates = f"📅 v1 {record.published:%Y-%m-%d} · v{record.version} {record.updated:%Y-%m-%d}"
    lines.append(Line((Span(dates),)))
    if record.comment and record.comment.strip():
        comment = clip(latex_to_text(record.comment), _COMMENT_LIMIT)
        lines.append(Line((Span("💬 "), Span(comment, ("i",)))))
    if record.journal_ref and record.journal_ref.strip():
        journal = clip(latex_to_text(record.journal_ref), _JOURNAL_LIMIT)
        lines.append(Line((Span("📰 " + journal),)))

    abstract = latex_to_text(record.abstract)
    if changes is not None and "abstract" not in changes:
        lines.append(Line((Span("📝 " + _("Abstract unchanged: on the abstract page.")),)))
    elif abstract:
        used = sum(line_units(line) for line in lines) + len(lines)  # each line and its newline
        expandable = units(abstract) > EXPANDABLE_ABSTRACT
        if units(abstract) <= BUDGET - used:
            lines.append(Line((Span(abstract),), quoted=True, expandable=expandable))
        else:
            url = clip(record.abs_url, _URL_LIMIT)
            pointer = Line((Span("✂ " + _("Abstract shortened. Full text: {url}", url=url)),))
            room = BUDGET - used - line_units(pointer) - 1
            shortened = clip(abstract, room)
            lines.append(Line((Span(shortened),), quoted=True, expandable=expandable))
            lines.append(pointer)
    return lines


def _changes_spans(changes: frozenset[str]) -> list[Span]:
    """ "Changed: title, abstract", or that none of what we keep changed."""
    names = [_(shown) for field, shown in _CHANGE_NAMES.items() if field in changes]
    if not names:
        return [Span(_("Same title, authors and abstract: the changes are in the paper itself."))]
    return spans_of(_("<b>Changed:</b> {fields}", fields=html.escape(", ".join(names))))


def _categories_text(record: Record, category_name: Callable[[str], str | None]) -> str:
    primary = record.primary_category
    name = category_name(primary)
    text = f"{primary} — {name}" if name else primary
    cross_lists = [category for category in record.categories if category != primary]
    if cross_lists:
        text += " · " + _("also {categories}", categories=", ".join(cross_lists))
    return text


def author_spans(
    authors: Sequence[Author],
    marked: Callable[[str], bool],
    *,
    limit: int = _AUTHORS_LIMIT,
    all_up_to: int = _ALL_AUTHORS_UP_TO,
    leading: int = _LEADING_AUTHORS,
) -> list[Span]:
    """The authors, the marked ones always among them, shortened to "… and N others" if long:
    all of them up to `all_up_to`, else the marked ones and the first `leading`, in `limit`."""
    authors = [author for author in authors if author.name.strip()]
    names = [clip(" ".join(author.name.split()), _AUTHOR_NAME_LIMIT) for author in authors]
    is_marked = [marked(author.name) for author in authors]
    if len(names) <= all_up_to:
        wanted = list(range(len(names)))
    else:
        # The marked authors come first in priority: they are why the message was sent.
        wanted = [index for index in range(len(names)) if is_marked[index]]
        wanted += [index for index in range(leading) if not is_marked[index]]
    # Take authors while an upper bound of the rendered length fits: a name, its marker, its
    # ", " and a possible "…, " before it, plus room for the closing " and N others".
    room = limit - units(_others(99999))
    shown: set[int] = set()
    for index in wanted:
        cost = units(names[index]) + len(MARKER) + len(", ") + len("…, ")
        if cost > room:
            break
        room -= cost
        shown.add(index)

    spans: list[Span] = []
    previous = -1
    for index in sorted(shown):
        if spans:
            spans.append(Span(", "))
        if index > previous + 1:
            spans.append(Span("…, "))
        spans += author_name(names[index], marked=is_marked[index])
        previous = index
    hidden = len(names) - len(shown)
    if hidden:
        spans.append(Span(_others(hidden)))
    return spans


def _others(hidden: int) -> str:
    """ " and 3 others": the authors a shortened list leaves out."""
    return " " + ngettext("and {n} other", "and {n} others", hidden)
