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
    "MAX_DIGEST_MESSAGES",
    "MAX_MESSAGE_LENGTH",
    "MAX_PER_PAGE",
    "Button",
    "DigestPage",
    "Message",
    "PaperKind",
    "page_from_callback",
    "render_digest",
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
MAX_DIGEST_MESSAGES = 3  # a digest longer than this many messages ends with "… and N more"
_DIGEST_TITLE_LIMIT = 200
_DIGEST_AUTHORS_LIMIT = 250
_DIGEST_ALL_AUTHORS_UP_TO = 6
_DIGEST_LEADING_AUTHORS = 3
_DIGEST_CATEGORY_LIMIT = 80
_DIGEST_SENTENCE_LIMIT = 280
# Words that end in a full stop without ending the sentence ("et al. show", "e.g. a torus").
_NOT_SENTENCE_ENDS = frozenset({"al", "e.g", "i.e", "fig", "figs", "eq", "eqs", "vs", "cf", "etc",
                                "ref", "refs", "sec", "no", "approx", "resp"})  # fmt: skip
_SENTENCE_END = re.compile(r"[.!?](?=\s+[\"'(\[]?[A-Z0-9])")

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


@dataclass(frozen=True, slots=True)
class DigestPage:
    """One message of a digest: the message, its plain-text fallback, and the indices (into the
    papers given) of the papers it lists."""

    message: Message
    plain: str
    covers: tuple[int, ...]


def render_digest(
    papers: Sequence[tuple[Record, PaperKind]],
    *,
    since: str,
    marked: Callable[[str], bool],
    category_name: Callable[[str], str | None] = lambda category: None,
    max_messages: int = MAX_DIGEST_MESSAGES,
) -> list[DigestPage]:
    """A chat's digest: "📚 N new papers since <since>", then per paper the title linked to its
    abstract page, the authors (followed ones marked as in `render_paper`), the primary category
    and the abstract's first sentence; new versions ("revision") in a section of their own.

    Each message fits Telegram's limit; at most `max_messages` of them, the last ending with
    "… and N more: /recent 20" when papers are left out. An empty digest is no message.
    """
    new = [(index, record) for index, (record, kind) in enumerate(papers) if kind != "revision"]
    revised = [(index, record) for index, (record, kind) in enumerate(papers) if kind == "revision"]
    if not papers:
        return []
    count = f"{len(new)} new paper{'' if len(new) == 1 else 's'}"
    header = [_Line((_Span("📚 "), _Span(f"{count} since {since}", ("b",))))]
    entries: list[tuple[int, list[_Line]]] = []
    for index, record in new:
        entries.append((index, _digest_entry(record, "new", marked, category_name)))
    for position, (index, record) in enumerate(revised):
        lines = _digest_entry(record, "revision", marked, category_name)
        if position == 0:  # the section's heading goes with its first entry, never alone
            count = f"{len(revised)} paper{'' if len(revised) == 1 else 's'}"
            lines = [_Line((_Span("🔄 "), _Span(f"New versions of {count}", ("b",)))), *lines]
        entries.append((index, lines))
    pages = _pack(
        header,
        entries,
        max_pages=max_messages,
        continued=[_Line((_Span("📚 "), _Span(f"Digest since {since}, continued", ("b",))))],
        more=lambda n: f"… and {n} more: /recent 20",
        spaced=True,
    )
    return [
        DigestPage(Message(_to_html(lines)), _to_plain(lines), tuple(covers))
        for lines, covers in pages
    ]


def first_sentence(text: str) -> str:
    """The first sentence of an abstract (plain text): up to the first full stop, question or
    exclamation mark that a capital or a digit follows, skipping "et al.", "e.g." and the like."""
    text = " ".join(text.split())
    for end in _SENTENCE_END.finditer(text):
        word = text[: end.start()].rsplit(" ", 1)[-1]
        initial = len(word) == 1 and word.isupper()  # "J. Smith"
        if end.group() == "." and (word.casefold() in _NOT_SENTENCE_ENDS or initial):
            continue  # an abbreviation or an initial
        return text[: end.end()]
    return text


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


def _author_spans(
    authors: Sequence[Author],
    marked: Callable[[str], bool],
    *,
    limit: int = _AUTHORS_LIMIT,
    all_up_to: int = _ALL_AUTHORS_UP_TO,
    leading: int = _LEADING_AUTHORS,
) -> list[_Span]:
    """The authors, the marked ones always among them, shortened to "… and N others" if long:
    all of them up to `all_up_to`, else the marked ones and the first `leading`, in `limit`."""
    authors = [author for author in authors if author.name.strip()]
    names = [_clip(" ".join(author.name.split()), _AUTHOR_NAME_LIMIT) for author in authors]
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
    header = [_Line((_Span("📬 "), _Span(f"While you were away: {' and '.join(counts)}", ("b",))))]
    entries = [
        (index, [_title_line(record, kind, "• ")]) for index, (record, kind) in enumerate(papers)
    ]
    ((lines, _),) = _pack(header, entries, max_pages=1, more=lambda n: f"… and {n} more")
    return lines


def _title_line(record: Record, kind: PaperKind, bullet: str, *, bold: bool = False) -> _Line:
    """A title linked to its abstract page, with the version for a revision."""
    limit = _DIGEST_TITLE_LIMIT if bold else _LIST_TITLE_LIMIT
    title = _clip(" ".join(latex_to_text(record.title).split()) or "(no title)", limit)
    version = f" (v{record.version})" if kind == "revision" else ""
    tags = ("b",) if bold else ()
    return _Line((_Span(bullet), _Span(title, tags, href=record.abs_url or None), _Span(version)))


def _digest_entry(
    record: Record,
    kind: PaperKind,
    marked: Callable[[str], bool],
    category_name: Callable[[str], str | None],
) -> list[_Line]:
    """A paper in a digest: linked title; authors; primary category; first sentence."""
    lines = [_title_line(record, kind, "• ", bold=True)]
    if any(author.name.strip() for author in record.authors):
        authors = _author_spans(
            record.authors,
            marked,
            limit=_DIGEST_AUTHORS_LIMIT,
            all_up_to=_DIGEST_ALL_AUTHORS_UP_TO,
            leading=_DIGEST_LEADING_AUTHORS,
        )
        lines.append(_Line((_Span("👥 "), *authors)))
    primary = record.primary_category
    name = category_name(primary)
    category = _clip(f"{primary} — {name}" if name else primary, _DIGEST_CATEGORY_LIMIT)
    lines.append(_Line((_Span("📂 " + category),)))
    sentence = first_sentence(latex_to_text(record.abstract))
    if sentence:
        lines.append(_Line((_Span(_clip(sentence, _DIGEST_SENTENCE_LIMIT), ("i",)),)))
    return lines


def _pack(
    header: list[_Line],
    entries: Sequence[tuple[int, list[_Line]]],
    *,
    max_pages: int,
    more: Callable[[int], str],
    continued: list[_Line] | None = None,
    spaced: bool = False,
) -> list[tuple[list[_Line], list[int]]]:
    """Lay `entries` (an index and its lines each) out in at most `max_pages` messages, in
    order: the first opens with `header`, the next ones with `continued`. Entries that do not
    fit are left out, and the last message ends with `more(n)` for the n of them. `spaced`
    puts a blank line before each entry. Returns each page's lines and the indices it lists."""
    pages: list[tuple[list[_Line], list[int]]] = [(list(header), [])]
    used = sum(_line_units(line) for line in header) + len(header) - 1
    gap = 1 if spaced else 0
    for position, (index, lines) in enumerate(entries):
        lines = [_Line(()), *lines] if spaced else lines
        cost = sum(_line_units(line) + 1 for line in lines)
        rest = len(entries) - position - 1
        last_page = len(pages) == max_pages
        # On the last page, room for this entry and for the "… and N more" should others follow.
        tail = _units(more(rest)) + 1 + gap if rest and last_page else 0
        if used + cost + tail > _BUDGET:
            if last_page or not pages[-1][1]:
                pages[-1][0].extend([_Line(())] * gap + [_Line((_Span(more(rest + 1)),))])
                return pages
            opening = list(continued or header)
            pages.append((opening, []))
            used = sum(_line_units(line) for line in opening) + len(opening) - 1
            last_page = len(pages) == max_pages
            tail = _units(more(rest)) + 1 + gap if rest and last_page else 0
        pages[-1][0].extend(lines)
        pages[-1][1].append(index)
        used += cost
    return pages


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
