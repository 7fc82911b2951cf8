"""Pure renderers: stored `Record`s in, Telegram messages (HTML text plus buttons) out.

Nothing here does I/O or touches python-telegram-bot: a `Message` is a plain dataclass that the
sending code turns into PTB objects. Every message is first built as lines of styled spans, and
the HTML and the plain-text fallback are two views of those same lines. That keeps them in step,
and makes the visible length (what Telegram counts against its 4096 limit, in UTF-16 code units)
the length of the plain view, so the budget is exact rather than estimated.
"""

from __future__ import annotations

import html
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Literal

from bot.latex import latex_to_text
from watcher.records import Author, Record

__all__ = [
    "MAX_CALLBACK_DATA_BYTES",
    "MAX_MESSAGE_LENGTH",
    "MAX_PER_PAGE",
    "Button",
    "Message",
    "PaperKind",
    "page_from_callback",
    "render_paper",
    "render_paper_list",
    "render_paper_plain",
    "render_summary",
    "render_summary_plain",
    "visible_length",
]

MAX_MESSAGE_LENGTH = 4096  # Telegram's limit on a message's text after entity parsing
MAX_CALLBACK_DATA_BYTES = 64  # Telegram's limit on an inline button's callback_data
MAX_PER_PAGE = 20  # each list entry gets its share of one message, so twenty always fit

# Kept below MAX_MESSAGE_LENGTH so that Telegram's own counting quirks can never tip us over.
_BUDGET = 4000

_MARKER = (
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
_ID_LIMIT = 40
_URL_LIMIT = 300
_LIST_TITLE_LIMIT = 120  # at most; on a crowded page a title gets what its entry has left
_LIST_AUTHOR_LIMIT = 60
_CROWDED_PAGE = 10  # more entries a page than this, and the first author is cut shorter
_CROWDED_AUTHOR_LIMIT = 30
_MIN_LIST_TITLE = 20
_LIST_HEADER_LIMIT = 200
_LIST_CATEGORY_LIMIT = 20

_TAG = re.compile(r"<[^>]*>")

# What a paper message is: news of a new paper, news of a new version, or the answer to /paper.
PaperKind = Literal["new", "revision", "lookup"]


@dataclass(frozen=True, slots=True)
class Button:
    """An inline keyboard button: opens `url`, or sends `callback_data` back to the bot."""

    text: str
    url: str | None = None
    callback_data: str | None = None

    def __post_init__(self) -> None:
        if (self.url is None) == (self.callback_data is None):
            raise ValueError("a button needs exactly one of url and callback_data")
        if self.callback_data is not None:
            size = len(self.callback_data.encode("utf-8"))
            if not 1 <= size <= MAX_CALLBACK_DATA_BYTES:
                raise ValueError(
                    f"callback_data must be 1-{MAX_CALLBACK_DATA_BYTES} bytes, got {size}"
                )


@dataclass(frozen=True, slots=True)
class Message:
    """A message in Telegram's HTML parse mode, with rows of inline buttons."""

    html: str
    buttons: tuple[tuple[Button, ...], ...] = ()


def visible_length(html_text: str) -> int:
    """The length Telegram counts for `html_text`: tags stripped, entities decoded, UTF-16 units."""
    return _units(html.unescape(_TAG.sub("", html_text)))


def render_paper(
    record: Record,
    *,
    marked: Callable[[str], bool],
    kind: PaperKind = "new",
    category_name: Callable[[str], str | None] = lambda category: None,
) -> Message:
    """One paper in full: HTML text, and buttons for its abstract page and PDF.

    `kind` picks the first line: "🆕 New paper", "🔄 Updated to vN", or for a paper looked up
    with /paper (not news) "📄 Paper". `marked(name)` says which authors to mark as followed
    (★ and bold-underlined).
    """
    lines = _paper_lines(record, marked=marked, kind=kind, category_name=category_name)
    buttons = tuple(
        Button(text, url=url)
        for text, url in (("📄 Abstract", record.abs_url), ("📥 PDF", record.pdf_url))
        if url
    )
    return Message(_to_html(lines), (buttons,) if buttons else ())


def render_paper_plain(
    record: Record,
    *,
    marked: Callable[[str], bool],
    kind: PaperKind = "new",
    category_name: Callable[[str], str | None] = lambda category: None,
) -> str:
    """`render_paper`'s text without markup, to resend when Telegram refuses the HTML.

    The buttons are the same: reuse `render_paper(...).buttons`.
    """
    lines = _paper_lines(record, marked=marked, kind=kind, category_name=category_name)
    return _to_plain(lines)


def render_paper_list(
    records: Sequence[Record],
    *,
    title: str,
    page: int,
    per_page: int,
    total: int,
    callback_prefix: str,
    note: str = "",
) -> Message:
    """One page of a compact paper list, newest first, for /recent and /subject.

    `page` counts from 0; `records` are that page's papers and `total` counts all pages' papers.
    A `note`, if any, is shown in italics under the title.
    The "◀ Newer"/"Older ▶" buttons send `f"{callback_prefix}:{page}"` (see `page_from_callback`).
    Raises ValueError for inconsistent arguments, or when the prefix makes callback_data too long.
    """
    if not 1 <= per_page <= MAX_PER_PAGE:
        raise ValueError(f"per_page must be 1-{MAX_PER_PAGE}, got {per_page}")
    if page < 0 or total < 0 or len(records) > per_page:
        raise ValueError(f"bad page {page} of {len(records)} records ({per_page} a page, {total})")
    # Checked on every call, not only when the button shows, so a bad prefix fails at once.
    _page_callback(callback_prefix, page + 1)

    first = page * per_page + 1
    heading = _clip(" ".join(title.split()), _LIST_HEADER_LIMIT)
    if records:
        count = f" ({first}–{first + len(records) - 1} of {total})"
    else:
        count = " (none yet)" if total == 0 else f" (page {page + 1}: none)"
    lines: list[_Line] = [_Line((_Span(heading, ("b",)), _Span(count)))]
    if note.strip():
        lines.append(_Line((_Span(_clip(" ".join(note.split()), _LIST_HEADER_LIMIT), ("i",)),)))
    # Every entry of a full page gets an equal share of what the heading leaves, so a page of
    # MAX_PER_PAGE fits whatever the data; a last, shorter page looks the same as the others.
    share = (_BUDGET - sum(_line_units(line) + 1 for line in lines)) // per_page
    author_limit = _CROWDED_AUTHOR_LIMIT if per_page > _CROWDED_PAGE else _LIST_AUTHOR_LIMIT
    for number, record in enumerate(records, start=first):
        lines.append(_Line(()))
        lines.extend(_list_entry(number, record, share=share, author_limit=author_limit))

    navigation: list[Button] = []
    if page > 0:
        navigation.append(
            Button("◀ Newer", callback_data=_page_callback(callback_prefix, page - 1))
        )
    if (page + 1) * per_page < total:
        navigation.append(
            Button("Older ▶", callback_data=_page_callback(callback_prefix, page + 1))
        )
    return Message(_to_html(lines), (tuple(navigation),) if navigation else ())


def render_summary(papers: Sequence[tuple[Record, PaperKind]]) -> Message:
    """One message for a chat that comes back to many waiting papers (`kind` "new" or
    "revision" each), in the order given: "While you were away: N new papers", then each
    title linked to its abstract page, cut to fit one message with "… and N more"."""
    return Message(_to_html(_summary_lines(papers)))


def render_summary_plain(papers: Sequence[tuple[Record, PaperKind]]) -> str:
    """`render_summary`'s text without markup, to resend when Telegram refuses the HTML."""
    return _to_plain(_summary_lines(papers))


def page_from_callback(data: str, *, callback_prefix: str) -> int | None:
    """The page a list button asks for, or None when `data` is not such a button's."""
    head, _, number = data.rpartition(":")
    if head != callback_prefix or not number.isascii() or not number.isdigit():
        return None
    return int(number)


# --- lines of styled spans, and their two views ---------------------------------------------


@dataclass(frozen=True, slots=True)
class _Span:
    text: str
    tags: tuple[str, ...] = ()  # outermost first
    href: str | None = None


@dataclass(frozen=True, slots=True)
class _Line:
    spans: tuple[_Span, ...]
    quoted: bool = False  # shown as an expandable block quote


def _to_html(lines: Iterable[_Line]) -> str:
    rendered = []
    for line in lines:
        text = "".join(_span_html(span) for span in line.spans)
        rendered.append(f"<blockquote expandable>{text}</blockquote>" if line.quoted else text)
    return "\n".join(rendered)


def _span_html(span: _Span) -> str:
    if not span.text:
        return ""  # an empty <b></b> is an entity of length 0, which Telegram has no use for
    text = html.escape(span.text, quote=False)
    for tag in reversed(span.tags):
        text = f"<{tag}>{text}</{tag}>"
    if span.href is not None:
        text = f'<a href="{html.escape(span.href, quote=True)}">{text}</a>'
    return text


def _to_plain(lines: Iterable[_Line]) -> str:
    return "\n".join("".join(span.text for span in line.spans) for line in lines)


def _line_units(line: _Line) -> int:
    return sum(_units(span.text) for span in line.spans)


# --- one paper ------------------------------------------------------------------------------


def _paper_lines(
    record: Record,
    *,
    marked: Callable[[str], bool],
    kind: PaperKind,
    category_name: Callable[[str], str | None],
) -> list[_Line]:
    if kind == "new":
        icon, status = "🆕 ", "New paper"
    elif kind == "revision":
        icon, status = "🔄 ", f"Updated to v{record.version}"
    elif kind == "lookup":
        icon, status = "📄 ", "Paper"
    else:
        raise ValueError(f"kind must be 'new', 'revision' or 'lookup', got {kind!r}")
    lines = [
        _Line(
            (
                _Span(icon),
                _Span(status, ("b",)),
                _Span(" · arXiv:"),
                _Span(_clip(record.versioned_id, _ID_LIMIT), ("code",)),
            )
        ),
        _Line((_Span(_clip(latex_to_text(record.title) or "(no title)", _TITLE_LIMIT), ("b",)),)),
    ]
    if any(author.name.strip() for author in record.authors):
        lines.append(_Line((_Span("👥 "), *_author_spans(record.authors, marked))))
    lines.append(
        _Line((_Span("📂 " + _clip(_categories_text(record, category_name), _CATEGORIES_LIMIT)),))
    )
    for label, value in (("MSC", record.msc_class), ("ACM", record.acm_class)):
        if value and value.strip():
            lines.append(_Line((_Span(f"🏷 {label}: " + _clip(value, _CLASS_LIMIT)),)))
    if kind == "new" or (kind == "lookup" and record.version == 1):
        dates = f"📅 Submitted {record.published:%Y-%m-%d}"
    else:
        dates = f"📅 v1 {record.published:%Y-%m-%d} · v{record.version} {record.updated:%Y-%m-%d}"
    lines.append(_Line((_Span(dates),)))
    if record.comment and record.comment.strip():
        comment = _clip(latex_to_text(record.comment), _COMMENT_LIMIT)
        lines.append(_Line((_Span("💬 "), _Span(comment, ("i",)))))

    abstract = latex_to_text(record.abstract)
    if abstract:
        used = sum(_line_units(line) for line in lines) + len(lines)  # each line and its newline
        if _units(abstract) <= _BUDGET - used:
            lines.append(_Line((_Span(abstract),), quoted=True))
        else:
            pointer = _Line(
                (_Span("✂ Abstract shortened. Full text: " + _clip(record.abs_url, _URL_LIMIT)),)
            )
            room = _BUDGET - used - _line_units(pointer) - 1
            lines.append(_Line((_Span(_clip(abstract, room)),), quoted=True))
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


def _author_spans(authors: Sequence[Author], marked: Callable[[str], bool]) -> list[_Span]:
    """The authors, the marked ones always among them, shortened to "… and N others" if long."""
    authors = [author for author in authors if author.name.strip()]
    names = [_clip(" ".join(author.name.split()), _AUTHOR_NAME_LIMIT) for author in authors]
    is_marked = [marked(author.name) for author in authors]
    if len(names) <= _ALL_AUTHORS_UP_TO:
        wanted = list(range(len(names)))
    else:
        # The marked authors come first in priority: they are why the message was sent.
        wanted = [index for index in range(len(names)) if is_marked[index]]
        wanted += [index for index in range(_LEADING_AUTHORS) if not is_marked[index]]
    # Take authors while an upper bound of the rendered length fits: a name, its marker, its
    # ", " and a possible "…, " before it, plus room for the closing " and N others".
    room = _AUTHORS_LIMIT - len(" and 99999 others")
    shown: set[int] = set()
    for index in wanted:
        cost = _units(names[index]) + len(_MARKER) + len(", ") + len("…, ")
        if cost > room:
            break
        room -= cost
        shown.add(index)

    spans: list[_Span] = []
    previous = -1
    for index in sorted(shown):
        if spans:
            spans.append(_Span(", "))
        if index > previous + 1:
            spans.append(_Span("…, "))
        if is_marked[index]:
            spans += [_Span(_MARKER), _Span(names[index], ("b", "u"))]
        else:
            spans.append(_Span(names[index]))
        previous = index
    hidden = len(names) - len(shown)
    if hidden:
        spans.append(_Span(f" and {hidden} other{'s' if hidden > 1 else ''}"))
    return spans


# --- the compact list -----------------------------------------------------------------------


def _summary_lines(papers: Sequence[tuple[Record, PaperKind]]) -> list[_Line]:
    new = sum(1 for _, kind in papers if kind != "revision")
    updated = len(papers) - new
    counts = [f"{new} new paper{'' if new == 1 else 's'}"] if new or not updated else []
    if updated:
        counts.append(f"{updated} updated")
    lines = [_Line((_Span("📬 "), _Span(f"While you were away: {' and '.join(counts)}", ("b",))))]
    used = _line_units(lines[0])
    for shown, (record, kind) in enumerate(papers):
        title = _clip(" ".join(latex_to_text(record.title).split()), _LIST_TITLE_LIMIT)
        version = f" (v{record.version})" if kind == "revision" else ""
        entry = _Line((_Span("• "), _Span(title, href=record.abs_url or None), _Span(version)))
        rest = len(papers) - shown - 1
        # Room for this entry, and for the "… and N more" line should entries follow it.
        more = _units(f"… and {rest} more") + 1 if rest else 0
        if used + 1 + _line_units(entry) + more > _BUDGET:
            lines.append(_Line((_Span(f"… and {len(papers) - shown} more"),)))
            return lines
        lines.append(entry)
        used += 1 + _line_units(entry)
    return lines


def _list_entry(number: int, record: Record, *, share: int, author_limit: int) -> list[_Line]:
    """Two lines: number and title; first author, date, category and linked id.

    The entry costs at most `share` UTF-16 units with its blank line and newlines (3 units):
    the title gets what the rest leaves, up to `_LIST_TITLE_LIMIT`.
    """
    authors = record.author_names
    if not authors:
        who = "unknown authors"
    else:
        first = _clip(" ".join(authors[0].split()), author_limit)
        who = first if len(authors) == 1 else f"{first} et al."
    details = (
        f"   {who} · {record.published:%Y-%m-%d} · "
        f"{_clip(record.primary_category, _LIST_CATEGORY_LIMIT)} · "
    )
    link = _Span(_clip(record.versioned_id, _ID_LIMIT), href=record.abs_url)
    numbered = f"{number}. "
    room = share - 3 - _units(numbered) - _units(details) - _units(link.text)
    title = _clip(latex_to_text(record.title), max(_MIN_LIST_TITLE, min(_LIST_TITLE_LIMIT, room)))
    return [
        _Line((_Span(numbered), _Span(title, ("b",)))),
        _Line((_Span(details), link)),
    ]


def _page_callback(prefix: str, page: int) -> str:
    data = f"{prefix}:{page}"
    if len(data.encode("utf-8")) > MAX_CALLBACK_DATA_BYTES:
        raise ValueError(
            f"callback prefix {prefix[:20]!r}… makes callback_data longer than "
            f"{MAX_CALLBACK_DATA_BYTES} bytes"
        )
    return data


# --- lengths and cutting --------------------------------------------------------------------


def _units(text: str) -> int:
    """Length in UTF-16 code units, as Telegram counts: astral characters (emoji) count two."""
    return len(text.encode("utf-16-le", "surrogatepass")) // 2


def _clip(text: str, limit: int) -> str:
    """`text` if it fits in `limit` UTF-16 units, else cut at a word boundary and ended with "…"."""
    if _units(text) <= limit:
        return text
    room = limit - 1  # for the ellipsis
    cut = room
    while (excess := _units(text[:cut]) - room) > 0:
        cut -= (excess + 1) // 2  # each character is one or two units
    if cut < len(text) and not text[cut].isspace():
        space = text.rfind(" ", 0, cut)
        if space > cut * 2 // 3:  # a boundary not too far back; else one giant "word" is cut
            cut = space
    return text[:cut].rstrip() + "…"
