"""Messages that list many papers: a page of /recent or /subject (`render_paper_list`, with its
paging buttons), the summary for a chat that comes back to many waiting papers
(`render_summary`), and a chat's digest (`render_digest`, in up to a few messages). Each cuts
its entries to fit Telegram's limit and says how many it left out.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from bot.i18n import _, ngettext
from bot.render.paper import ID_LIMIT, author_name, author_spans, first_authors
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
    units,
)
from watcher.arxiv.latex import latex_to_text
from watcher.arxiv.records import Record
from watcher.kinds import NewsKind

MAX_PER_PAGE = 20  # each list entry gets its share of one message, so twenty always fit
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


def render_paper_list(
    records: Sequence[Record],
    *,
    title: str,
    page: int,
    per_page: int,
    total: int,
    callback_prefix: str,
    note: str = "",
    marked: Callable[[str], bool] = lambda name: False,
) -> Message:
    """One page of a compact paper list, newest first, for /recent and /subject.

    `page` counts from 0; `records` are that page's papers and `total` counts all pages' papers.
    The header is short: `title` (`cs.DC · your follows`), then ` · 13`, the papers in all (a
    later page says which: ` · 6–10 of 13`). A `note`, if any, is shown in italics under it.
    Each entry names its first author and every `marked` one (the followed people), ★ as in
    announcements.
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
    heading = clip(" ".join(title.split()), _LIST_HEADER_LIMIT)
    if records:
        last = first + len(records) - 1
        count = f" · {total}"
        if page:
            count = " · " + _("{first}–{last} of {total}", first=first, last=last, total=total)
    elif total == 0:
        count = " · " + _("none yet")
    else:
        count = " · " + _("page {page}: none", page=page + 1)
    lines: list[Line] = [Line((Span(heading, ("b",)), Span(count)))]
    if note.strip():
        lines.append(Line((Span(clip(" ".join(note.split()), _LIST_HEADER_LIMIT), ("i",)),)))
    # Every entry of a full page gets an equal share of what the heading leaves, so a page of
    # MAX_PER_PAGE fits whatever the data; a last, shorter page looks the same as the others.
    share = (BUDGET - sum(line_units(line) + 1 for line in lines)) // per_page
    author_limit = _CROWDED_AUTHOR_LIMIT if per_page > _CROWDED_PAGE else _LIST_AUTHOR_LIMIT
    for number, record in enumerate(records, start=first):
        lines.append(Line(()))
        lines.extend(
            _list_entry(number, record, share=share, author_limit=author_limit, marked=marked)
        )

    navigation: list[Button] = []
    if page > 0:
        navigation.append(
            Button(_("◀ Newer"), callback_data=_page_callback(callback_prefix, page - 1))
        )
    if (page + 1) * per_page < total:
        navigation.append(
            Button(_("Older ▶"), callback_data=_page_callback(callback_prefix, page + 1))
        )
    return message_of(lines, (tuple(navigation),) if navigation else ())


@dataclass(frozen=True, slots=True)
class Finder:
    """A follow of the chat that found a paper: how it is shown, and whether it is a topic
    (marked 🔎) or a person (marked ★, as `author_name` writes a followed author)."""

    label: str
    topic: bool


def render_summary(
    papers: Sequence[tuple[Record, NewsKind]],
    finders: Sequence[Sequence[Finder]] = (),
) -> Message:
    """One message for a chat that comes back to many waiting papers (news of a new paper or
    of a revision each): "While you were away: N new papers", then each title linked to its
    abstract page, cut to fit one message with "… and N more".

    `finders[i]`: the follows that found paper i, people first. Found by one follow, each line
    ends with it ("— ★ Dezun Dong", "— 🔎 RDMA in cs.DC"); by several, the papers are grouped
    under each follow's heading, in the order given within a group."""
    return message_of(_summary_lines(papers, finders))


@dataclass(frozen=True, slots=True)
class DigestPage:
    """One message of a digest (with its plain-text fallback), and the indices (into the papers
    given) of the papers it lists."""

    message: Message
    covers: tuple[int, ...]


def render_digest(
    papers: Sequence[tuple[Record, NewsKind]],
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
    new = [(i, record) for i, (record, kind) in enumerate(papers) if kind != NewsKind.REVISION]
    revised = [(i, record) for i, (record, kind) in enumerate(papers) if kind == NewsKind.REVISION]
    if not papers:
        return []
    count = ngettext(
        "{n} new paper since {since}", "{n} new papers since {since}", len(new), since=since
    )
    header = [Line((Span("📚 "), Span(count, ("b",))))]
    entries: list[tuple[int, list[Line]]] = []
    for index, record in new:
        entries.append((index, _digest_entry(record, NewsKind.NEW, marked, category_name)))
    for position, (index, record) in enumerate(revised):
        lines = _digest_entry(record, NewsKind.REVISION, marked, category_name)
        if position == 0:  # the section's heading goes with its first entry, never alone
            heading = ngettext(
                "New versions of {n} paper", "New versions of {n} papers", len(revised)
            )
            lines = [Line((Span("🔄 "), Span(heading, ("b",)))), *lines]
        entries.append((index, lines))
    pages = _pack(
        header,
        entries,
        max_pages=max_messages,
        continued=[
            Line((Span("📚 "), Span(_("Digest since {since}, continued", since=since), ("b",))))
        ],
        more=lambda n: ngettext("… and {n} more: /recent 20", "… and {n} more: /recent 20", n),
        spaced=True,
    )
    return [DigestPage(message_of(lines), tuple(covers)) for lines, covers in pages]


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
    head, __, number = data.rpartition(":")
    if head != callback_prefix or not number.isascii() or not number.isdigit():
        return None
    return int(number)


# --- building blocks --------------------------------------------------------------------------


def _summary_lines(
    papers: Sequence[tuple[Record, NewsKind]], finders: Sequence[Sequence[Finder]]
) -> list[Line]:
    header = [Line((Span("📬 "), Span(_away(papers), ("b",))))]
    found = [tuple(finders[i]) if i < len(finders) else () for i in range(len(papers))]
    groups: dict[Finder | None, list[int]] = {}
    for index in range(len(papers)):
        groups.setdefault(found[index][0] if found[index] else None, []).append(index)
    grouped = len(groups) > 1
    entries: list[tuple[int, list[Line]]] = []
    for finder, indices in groups.items():
        for position, index in enumerate(indices):
            record, kind = papers[index]
            line = _title_line(record, kind, "• ")
            # Grouped, the heading says why; a paper other follows found too names them.
            others = found[index][1:] if grouped else found[index]
            if others:
                marks = [span for other in others for span in (Span(", "), *_finder_spans(other))]
                line = Line((*line.spans, Span(" — "), *marks[1:]))
            lines = [line]
            if grouped and position == 0:  # a heading goes with its first paper, never alone
                heading = _finder_spans(finder) if finder else [Span(_("Other papers"))]
                lines = [Line(tuple(heading)), *lines]
            entries.append((index, lines))
    ((lines, __),) = _pack(header, entries, max_pages=1, more=_and_more)
    return lines


def _and_more(n: int) -> str:
    """ "… and 3 more": the papers a summary leaves out."""
    return ngettext("… and {n} more", "… and {n} more", n)


def _away(papers: Sequence[tuple[Record, NewsKind]]) -> str:
    """ "While you were away: 3 new papers and 2 updated", the summary's heading."""
    new = sum(1 for __, kind in papers if kind != NewsKind.REVISION)
    updated = len(papers) - new
    new_papers = ngettext("{n} new paper", "{n} new papers", new)
    updates = ngettext("{n} updated", "{n} updated", updated)
    if new and updated:
        return _("While you were away: {new} and {updated}", new=new_papers, updated=updates)
    return _("While you were away: {counts}", counts=updates if updated else new_papers)


def _finder_spans(finder: Finder) -> list[Span]:
    """A follow as a summary names it: ★ and the person, as messages mark a followed author;
    🔎 and the topic, as an announcement shows the topics that found a paper."""
    label = clip(finder.label, _LIST_TITLE_LIMIT)
    if finder.topic:
        return [Span("🔎 "), Span(label, ("i",))]
    return author_name(label, marked=True)


def _title_line(record: Record, kind: NewsKind, bullet: str, *, bold: bool = False) -> Line:
    """A title linked to its abstract page, with the version for a revision."""
    limit = _DIGEST_TITLE_LIMIT if bold else _LIST_TITLE_LIMIT
    title = clip(" ".join(latex_to_text(record.title).split()) or _("(no title)"), limit)
    version = f" (v{record.version})" if kind == NewsKind.REVISION else ""
    tags = ("b",) if bold else ()
    return Line((Span(bullet), Span(title, tags, href=record.abs_url or None), Span(version)))


def _digest_entry(
    record: Record,
    kind: NewsKind,
    marked: Callable[[str], bool],
    category_name: Callable[[str], str | None],
) -> list[Line]:
    """A paper in a digest: linked title; authors; primary category; first sentence."""
    lines = [_title_line(record, kind, "• ", bold=True)]
    if any(author.name.strip() for author in record.authors):
        authors = author_spans(
            record.authors,
            marked,
            limit=_DIGEST_AUTHORS_LIMIT,
            all_up_to=_DIGEST_ALL_AUTHORS_UP_TO,
            leading=_DIGEST_LEADING_AUTHORS,
        )
        lines.append(Line((Span("👥 "), *authors)))
    primary = record.primary_category
    name = category_name(primary)
    category = clip(f"{primary} — {name}" if name else primary, _DIGEST_CATEGORY_LIMIT)
    lines.append(Line((Span("📂 " + category),)))
    sentence = first_sentence(latex_to_text(record.abstract))
    if sentence:
        lines.append(Line((Span(clip(sentence, _DIGEST_SENTENCE_LIMIT), ("i",)),)))
    return lines


def _pack(
    header: list[Line],
    entries: Sequence[tuple[int, list[Line]]],
    *,
    max_pages: int,
    more: Callable[[int], str],
    continued: list[Line] | None = None,
    spaced: bool = False,
) -> list[tuple[list[Line], list[int]]]:
    """Lay `entries` (an index and its lines each) out in at most `max_pages` messages, in
    order: the first opens with `header`, the next ones with `continued`. Entries that do not
    fit are left out, and the last message ends with `more(n)` for the n of them. `spaced`
    puts a blank line before each entry. Returns each page's lines and the indices it lists."""
    pages: list[tuple[list[Line], list[int]]] = [(list(header), [])]
    used = sum(line_units(line) for line in header) + len(header) - 1
    gap = 1 if spaced else 0
    for position, (index, lines) in enumerate(entries):
        lines = [Line(()), *lines] if spaced else lines
        cost = sum(line_units(line) + 1 for line in lines)
        rest = len(entries) - position - 1
        last_page = len(pages) == max_pages
        # On the last page, room for this entry and for the "… and N more" should others follow.
        tail = units(more(rest)) + 1 + gap if rest and last_page else 0
        if used + cost + tail > BUDGET:
            if last_page or not pages[-1][1]:
                pages[-1][0].extend([Line(())] * gap + [Line((Span(more(rest + 1)),))])
                return pages
            opening = list(continued or header)
            pages.append((opening, []))
            used = sum(line_units(line) for line in opening) + len(opening) - 1
            last_page = len(pages) == max_pages
            tail = units(more(rest)) + 1 + gap if rest and last_page else 0
        pages[-1][0].extend(lines)
        pages[-1][1].append(index)
        used += cost
    return pages


def _list_entry(
    number: int, record: Record, *, share: int, author_limit: int, marked: Callable[[str], bool]
) -> list[Line]:
    """Two lines: number and title; the first and the marked authors, date, category and id.

    The entry costs at most `share` UTF-16 units with its blank line and newlines (3 units):
    the title gets what the rest leaves, up to `_LIST_TITLE_LIMIT`.
    """
    who = first_authors(record.author_names, marked, limit=author_limit)
    details = (
        f" · {record.published:%Y-%m-%d} · {clip(record.primary_category, _LIST_CATEGORY_LIMIT)} · "
    )
    link = Span(clip(record.versioned_id, ID_LIMIT), href=record.abs_url)
    numbered = f"{number}. "
    used = units(numbered) + 3 + sum(units(span.text) for span in who)
    room = share - 3 - used - units(details) - units(link.text)
    title = clip(latex_to_text(record.title), max(_MIN_LIST_TITLE, min(_LIST_TITLE_LIMIT, room)))
    return [
        Line((Span(numbered), Span(title, ("b",)))),
        Line((Span("   "), *who, Span(details), link)),
    ]


def _page_callback(prefix: str, page: int) -> str:
    data = f"{prefix}:{page}"
    if len(data.encode("utf-8")) > MAX_CALLBACK_DATA_BYTES:
        raise ValueError(
            f"callback prefix {prefix[:20]!r}… makes callback_data longer than "
            f"{MAX_CALLBACK_DATA_BYTES} bytes"
        )
    return data
