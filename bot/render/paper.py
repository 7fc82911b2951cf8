"""One paper in full, as news for a chat (`render_paper`) or as the answer to /paper
(`render_paper_lookup`): heading, title, authors with the followed ones marked, categories,
classes, dates, comment, and the abstract in a block quote, cut to fit one message; with buttons
for its abstract page and PDF. The author list (`author_spans`) is shared with the digests.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from bot.render.styled import (
    BUDGET,
    Button,
    Line,
    Message,
    Span,
    clip,
    line_units,
    message_of,
    units,
)
from watcher.kinds import NewsKind
from watcher.latex import latex_to_text
from watcher.records import Author, Record

ID_LIMIT = 40  # an arXiv id with its version, as shown
MARKER = (
    "★ "  # in front of a followed author: survives the plain fallback and notification previews
)
_TITLE_LIMIT = 400
_AUTHORS_LIMIT = 700
_AUTHOR_NAME_LIMIT = 80
_ALL_AUTHORS_UP_TO = 10  # longer lists show the first few, the marked ones, and a count
_LEADING_AUTHORS = 5
_CATEGORIES_LIMIT = 300
_CLASS_LIMIT = 200  # an ACM or MSC class line
_COMMENT_LIMIT = 300
_URL_LIMIT = 300


def render_paper(
    record: Record,
    *,
    marked: Callable[[str], bool],
    kind: NewsKind = NewsKind.NEW,
    category_name: Callable[[str], str | None] = lambda category: None,
) -> Message:
    """News of one paper, in full: text (HTML, and plain) and buttons for its abstract page and
    PDF.

    `kind` picks the first line: "🆕 New paper" or "🔄 Updated to vN". `marked(name)` says which
    authors to mark as followed (★ and bold-underlined).
    """
    return _paper_message(record, kind, marked=marked, category_name=category_name)


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
) -> Message:
    lines = _paper_lines(record, marked=marked, kind=kind, category_name=category_name)
    buttons = tuple(
        Button(text, url=url)
        for text, url in (("📄 Abstract", record.abs_url), ("📥 PDF", record.pdf_url))
        if url
    )
    return message_of(lines, (buttons,) if buttons else ())


def _paper_lines(
    record: Record,
    *,
    marked: Callable[[str], bool],
    kind: NewsKind | None,
    category_name: Callable[[str], str | None],
) -> list[Line]:
    """The paper's lines; `kind` None for a paper looked up (not news)."""
    if kind is None:
        icon, status = "📄 ", "Paper"
    elif kind == NewsKind.NEW:
        icon, status = "🆕 ", "New paper"
    elif kind == NewsKind.REVISION:
        icon, status = "🔄 ", f"Updated to v{record.version}"
    else:
        raise ValueError(f"kind must be a NewsKind or None (looked up), got {kind!r}")
    lines = [
        Line(
            (
                Span(icon),
                Span(status, ("b",)),
                Span(" · arXiv:"),
                Span(clip(record.versioned_id, ID_LIMIT), ("code",)),
            )
        ),
        Line((Span(clip(latex_to_text(record.title) or "(no title)", _TITLE_LIMIT), ("b",)),)),
    ]
    if any(author.name.strip() for author in record.authors):
        lines.append(Line((Span("👥 "), *author_spans(record.authors, marked))))
    lines.append(
        Line((Span("📂 " + clip(_categories_text(record, category_name), _CATEGORIES_LIMIT)),))
    )
    for label, value in (("MSC", record.msc_class), ("ACM", record.acm_class)):
        if value and value.strip():
            lines.append(Line((Span(f"🏷 {label}: " + clip(value, _CLASS_LIMIT)),)))
    if kind == NewsKind.NEW or (kind is None and record.version == 1):
        dates = f"📅 Submitted {record.published:%Y-%m-%d}"
    else:
        dates = f"📅 v1 {record.published:%Y-%m-%d} · v{record.version} {record.updated:%Y-%m-%d}"
    lines.append(Line((Span(dates),)))
    if record.comment and record.comment.strip():
        comment = clip(latex_to_text(record.comment), _COMMENT_LIMIT)
        lines.append(Line((Span("💬 "), Span(comment, ("i",)))))

    abstract = latex_to_text(record.abstract)
    if abstract:
        used = sum(line_units(line) for line in lines) + len(lines)  # each line and its newline
        if units(abstract) <= BUDGET - used:
            lines.append(Line((Span(abstract),), quoted=True))
        else:
            pointer = Line(
                (Span("✂ Abstract shortened. Full text: " + clip(record.abs_url, _URL_LIMIT)),)
            )
            room = BUDGET - used - line_units(pointer) - 1
            lines.append(Line((Span(clip(abstract, room)),), quoted=True))
            lines.append(pointer)
    return lines


def _categories_text(record: Record, category_name: Callable[[str], str | None]) -> str:
    primary = record.primary_category
    name = category_name(primary)
    text = f"{primary} — {name}" if name else primary
    cross_lists = [category for category in record.categories if category != primary]
    if cross_lists:
        text += " · also " + ", ".join(cross_lists)
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
    room = limit - len(" and 99999 others")
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
        if is_marked[index]:
            spans += [Span(MARKER), Span(names[index], ("b", "u"))]
        else:
            spans.append(Span(names[index]))
        previous = index
    hidden = len(names) - len(shown)
    if hidden:
        spans.append(Span(f" and {hidden} other{'s' if hidden > 1 else ''}"))
    return spans
