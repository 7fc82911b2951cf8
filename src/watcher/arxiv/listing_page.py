"""Parse step of the listing source: one page of arXiv's `/list/<archive>/new`, as items.

The markup is arXiv's (arXiv/arxiv-browse, `browse/templates/list/new.html` and
`list_macros.html`, filled by `browse/controllers/list_page/`; read at commit 26f634fb of
2026-06-29, fixtures rendered from it in `tests/data/arxiv-listing/`): a heading "Showing new
listings for Tuesday, 1 December 2026" naming the mailing date, then one `<dl id='articles'>`
per section on the page, headed "New submissions (showing N of M entries)" (or "Cross" or
"Replacement"; "first", "continued," and "last" mark a section cut by paging), each item a
`<dt>` (the `arXiv:ID` link) and a `<dd>` (title, author links, comments, journal-ref, the
subjects with the primary in `span.primary-subject`, and the abstract, already turned from TeX
to Unicode). The page carries no version numbers and no dates but the mailing's.

Two headings are read. Since arxiv-browse 1813b455 (2024-09-12) the section headings carry no
date and the page heading alone names the mailing; before it they read "New submissions for
Thursday, 12 September 2024 (showing N of M entries )" and the page had no such heading (it
came on 2024-09-23). arXiv has changed this markup before, so either form is read; a page with
both must name one date.

arXiv shows at most the first 100 authors of a paper on the listing (the rest is on the abstract
page), so a follow of the 101st author of a long collaboration is found by the structured
sources later that night, not here.

It is parsed with lxml's HTML parser; only the heading texts are read with a pattern. Anything
that is not there as described (no heading, an item without an id, title, authors or subjects,
a section whose items are not the N its heading says) is `ArxivBadListing`: arXiv changed its
markup or the page came cut, and the day is left to the structured sources.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import date, datetime
from typing import TYPE_CHECKING, Literal

from watcher.errors import ArxivBadListing

if TYPE_CHECKING:
    import lxml.html

Section = Literal["new", "cross", "rep"]
_SECTIONS: dict[str, Section] = {"New": "new", "Cross": "cross", "Replacement": "rep"}
_MAILING = re.compile(r"Showing new listings for\s+(\w+,\s+\d{1,2}\s+\w+\s+\d{4})")
# "for <date>" only in the headings from before arxiv-browse 1813b455 (2024-09-12)
_SECTION = re.compile(
    r"^(New|Cross|Replacement) submissions\s*(?:for\s+(.+?)\s*)?\((?:continued,\s*)?showing\s+"
    r"(?:first\s+|last\s+)?(\d+)\s+of\s+(\d+)\s+entries\s*\)\s*$"
)
# arxiv-browse writes "%A, %-d %B %Y"; arXiv's older site wrote "Tue, 2 Jan 24"
_DATE_FORMATS = ("%A, %d %B %Y", "%a, %d %b %y", "%a, %d %b %Y")
_CATEGORY = re.compile(r"\(([A-Za-z-]+(?:\.[A-Za-z-]+)?)\)\s*$")
_ID = re.compile(r"arXiv:\s*(\S+)")
_TOTAL = re.compile(r"Total of (\d+) entries")
# arXiv sends the listing as UTF-8 in its Content-Type and names no charset in the page itself:
# left to guess, lxml reads it as Latin-1 and "Dézun Dong" no longer matches. (A parser per
# page: pages are parsed in worker threads, and lxml parsers are not to be shared between them.)
_ENCODING = "utf-8"


@dataclass(frozen=True, slots=True)
class ListedItem:
    """One paper as the listing shows it, in one section. No version, no dates."""

    arxiv_id: str
    section: Section
    title: str
    authors: tuple[str, ...]
    primary_category: str
    categories: tuple[str, ...]  # the primary first
    abstract: str
    comment: str | None = None
    journal_ref: str | None = None


@dataclass(frozen=True, slots=True)
class SectionCount:
    """A section's heading on one page: N of its M entries are on this page."""

    shown: int
    total: int


@dataclass(slots=True)
class ListingPage:
    """One page: the mailing date its heading names, its items, and its sections' counts."""

    mailing: date
    total: int = 0  # entries in all sections, on every page ("Total of N entries")
    items: list[ListedItem] = field(default_factory=list)
    sections: dict[Section, SectionCount] = field(default_factory=dict)


def parse_listing_page(body: bytes, *, url: str) -> ListingPage:
    """The page at `url`; `ArxivBadListing` when it is not arXiv's listing as known."""
    # Imported at the first page: lxml is about 5 MB resident, and a service with
    # EARLY_LISTINGS off, or before its first announcement, reads no listing (bench/README.md).
    import lxml.etree
    import lxml.html

    try:
        root = lxml.html.document_fromstring(body, parser=lxml.html.HTMLParser(encoding=_ENCODING))
    except (lxml.etree.ParserError, ValueError) as error:
        raise ArxivBadListing(f"the listing {url} does not parse: {error}", url=url) from None
    sections = [dl for dl in root.iter("dl") if dl.get("id") == "articles"]
    headings = [_section_heading(articles, url) for articles in sections]
    page = ListingPage(mailing=_mailing(root, headings, url), total=_total(root))
    for articles, heading in zip(sections, headings, strict=True):
        _read_section(articles, heading, page, url)
    counted = sum(count.total for count in page.sections.values())
    if page.items and counted > page.total:
        raise ArxivBadListing(
            f"the sections of the listing {url} count {counted} entries, its total {page.total}",
            url=url,
        )
    return page


def _text(element: lxml.html.HtmlElement) -> str:
    return " ".join(element.text_content().split())


def _day(text: str) -> date | None:
    text = " ".join(text.split())
    for form in _DATE_FORMATS:
        try:
            return datetime.strptime(text, form).date()
        except ValueError:
            continue
    return None


def _mailing(root: lxml.html.HtmlElement, sections: list[re.Match[str]], url: str) -> date:
    """The mailing date the page heading names, or (older markup) its section headings."""
    named: set[date | None] = set()
    for heading in root.iter("h3"):
        found = _MAILING.search(_text(heading))
        if found:
            named.add(_day(found.group(1)))
            break
    named.update(_day(found.group(2)) for found in sections if found.group(2) is not None)
    if len(named) > 1:
        raise ArxivBadListing(f"the headings of the listing {url} name different dates", url=url)
    day = next(iter(named), None)
    if day is None:
        raise ArxivBadListing(f"the listing {url} names no mailing date", url=url)
    return day


def _total(root: lxml.html.HtmlElement) -> int:
    """The listing's "Total of N entries"; arXiv leaves it out when there are none."""
    for paging in root.find_class("paging"):
        found = _TOTAL.search(_text(paging))
        if found:
            return int(found.group(1))
    return 0


def _section_heading(articles: lxml.html.HtmlElement, url: str) -> re.Match[str]:
    headings = articles.findall("h3")
    if len(headings) != 1:
        raise ArxivBadListing(f"a section of the listing {url} has no heading", url=url)
    heading = _text(headings[0])
    found = _SECTION.match(heading)
    if found is None:
        raise ArxivBadListing(f"the listing {url} has a section headed {heading[:80]!r}", url=url)
    return found


def _read_section(
    articles: lxml.html.HtmlElement, found: re.Match[str], page: ListingPage, url: str
) -> None:
    section = _SECTIONS[found.group(1)]
    shown, total = int(found.group(3)), int(found.group(4))
    terms, details = articles.findall("dt"), articles.findall("dd")
    if len(terms) != shown or len(details) != shown:
        raise ArxivBadListing(
            f"the listing {url} shows {len(terms)} {section} item(s) where its heading says "
            f"{shown} of {total}",
            url=url,
        )
    if section in page.sections:
        raise ArxivBadListing(f"the listing {url} has two {section} sections", url=url)
    page.sections[section] = SectionCount(shown, total)
    for term, detail in zip(terms, details, strict=True):
        page.items.append(_item(term, detail, section, url))


def _first(element: lxml.html.HtmlElement, css_class: str) -> lxml.html.HtmlElement | None:
    found = element.find_class(css_class)
    return found[0] if found else None


def _without_descriptor(element: lxml.html.HtmlElement | None) -> str | None:
    """The text of a `<div>` after its "Title:"-like descriptor; None if absent or empty."""
    if element is None:
        return None
    descriptor = _first(element, "descriptor")
    text = _text(element)
    if descriptor is not None:
        text = text.removeprefix(_text(descriptor)).strip()
    return text or None


def _item(
    term: lxml.html.HtmlElement, detail: lxml.html.HtmlElement, section: Section, url: str
) -> ListedItem:
    links = [a for a in term.iter("a") if a.get("title") == "Abstract"]
    found = _ID.search(_text(links[0])) if links else None
    arxiv_id = found.group(1) if found else None
    title = _without_descriptor(_first(detail, "list-title"))
    author_box = _first(detail, "list-authors")
    authors = tuple(_text(a) for a in author_box.iter("a")) if author_box is not None else ()
    subjects = _first(detail, "list-subjects")
    primary_box = _first(subjects, "primary-subject") if subjects is not None else None
    if not arxiv_id or not title or not authors or subjects is None or primary_box is None:
        missing = [
            what
            for what, value in (
                ("id", arxiv_id), ("title", title), ("authors", authors), ("subjects", primary_box)
            )
            if not value
        ]  # fmt: skip
        raise ArxivBadListing(
            f"an item of the listing {url} ({arxiv_id or 'no id'}) has no {', '.join(missing)}",
            url=url,
        )
    categories = []
    for part in (_without_descriptor(subjects) or "").split(";"):
        category = _CATEGORY.search(part.strip())
        if category is None:
            raise ArxivBadListing(f"the subjects of {arxiv_id} in {url} name no category", url=url)
        categories.append(category.group(1))
    primary = _CATEGORY.search(_text(primary_box))
    abstract_box = [p for p in detail.iter("p") if "mathjax" in (p.get("class") or "").split()]
    return ListedItem(
        arxiv_id=arxiv_id,
        section=section,
        title=title,
        authors=authors,
        primary_category=primary.group(1) if primary else categories[0],
        categories=tuple(categories),
        abstract=_abstract(abstract_box[0]) if abstract_box else "",
        comment=_without_descriptor(_first(detail, "list-comments")),
        journal_ref=_without_descriptor(_first(detail, "list-journal-ref")),
    )


def _abstract(paragraph: lxml.html.HtmlElement) -> str:
    """The abstract as listed: its text, with the listing's `<br>` as line breaks. The other
    line ends are where arXiv wrapped the stored text (at about 80 columns): spaces."""
    lines: list[list[str]] = [[]]

    def walk(element: lxml.html.HtmlElement) -> None:
        lines[-1].append(element.text or "")
        for child in element:
            if child.tag == "br":
                lines.append([])
            else:
                walk(child)
            lines[-1].append(child.tail or "")

    walk(paragraph)
    joined = (" ".join("".join(line).split()) for line in lines)
    return "\n".join(line for line in joined if line)
