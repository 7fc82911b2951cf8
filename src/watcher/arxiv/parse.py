"""Parse step: turns the bytes of one arXiv API answer into `Record`s, or refuses them.

A page is all or nothing. arXiv's error feed raises `ArxivAPIError` with arXiv's own message;
anything that is not one complete Atom feed (HTML, a truncated body, garbage, an entry without
id or title) raises `ArxivBadFeed`. A partial page is never returned, because a page that
silently lost its last entries looks exactly like "nothing new".

arXiv lists a paper's ACM and MSC classes as extra `category` terms ("H.5.4; H.3.5",
"Primary 05C50, 15A18", or one lowercase word such as "software"). Only the terms that
`taxonomy.is_paper_category` accepts become categories; the others become the record's
`acm_class` and `msc_class`, so nothing arXiv sends is dropped or miscounted.
"""

from __future__ import annotations

import io
import re
import xml.etree.ElementTree as ElementTree
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

import feedparser

from watcher.arxiv.records import Author, Record
from watcher.arxiv.taxonomy import is_paper_category
from watcher.errors import ArxivAPIError, ArxivBadFeed

_ATOM = "{http://www.w3.org/2005/Atom}"
_ARXIV = "{http://arxiv.org/schemas/atom}"
_ERROR_ID_PREFIXES = ("https://arxiv.org/api/errors#", "http://arxiv.org/api/errors#")

# New-style ids are YYMM.NNNN(N); old-style ids are archive[.SC]/YYMMNNN ("math.GT/0309136").
# The archive is bounded so that no id can outgrow the store's column (64 characters).
_ID_PATTERN = re.compile(
    r"(?P<id>\d{2}(?:0[1-9]|1[0-2])\.\d{4,5}|[a-z][a-z-]{0,31}(?:\.[A-Z]{2})?/\d{7})"
    r"(?:v(?P<version>[1-9]\d*))?"
)
_URL_PREFIX = re.compile(r"(?i:(?:https?://)?(?:www\.|export\.)?arxiv\.org/(?P<kind>abs|pdf)/)")
_ARXIV_PREFIX = "arxiv:"
# An MSC 2020 code: "05C50", "68Mxx", "68-XX", "11-02". A class term holding one is an MSC class.
_MSC_CODE = re.compile(r"(?<![0-9A-Za-z])\d\d(?:[A-Z]\d\d|[A-Z]xx|-XX|-xx|-\d\d)(?![0-9A-Za-z])")


@dataclass(frozen=True, slots=True)
class Page:
    """One page of an arXiv API answer: its records and what OpenSearch said about the result."""

    records: list[Record]
    total_results: int | None
    start_index: int | None
    items_per_page: int | None


def split_arxiv_id(text: str) -> tuple[str, int | None]:
    """Split an arXiv id, abs/pdf URL or "arXiv:" reference into (id without version, version).

    "http://arxiv.org/abs/2202.12139v1" -> ("2202.12139", 1); "astro-ph/0601001" -> (..., None).
    Raises ValueError for anything that is not an arXiv id.
    """
    candidate = text.strip()
    url = _URL_PREFIX.match(candidate)
    if url:
        candidate = candidate[url.end() :]
        if url.group("kind").lower() == "pdf":
            candidate = candidate.removesuffix(".pdf")
    elif candidate[: len(_ARXIV_PREFIX)].lower() == _ARXIV_PREFIX:
        candidate = candidate[len(_ARXIV_PREFIX) :]
    match = _ID_PATTERN.fullmatch(candidate)
    if match is None:
        raise ValueError(
            f"not an arXiv id: {text!r} (expected e.g. 2604.01234, 2604.01234v2, "
            "astro-ph/0601001 or https://arxiv.org/abs/2604.01234)"
        )
    version = match.group("version")
    return match.group("id"), int(version) if version else None


def parse_feed(body: bytes, *, url: str = "") -> Page:
    """Parse one arXiv API answer. Raises ArxivAPIError or ArxivBadFeed, never returns a part."""
    if not body.strip():
        raise ArxivBadFeed("arXiv answered with an empty body", url=url)
    parsed = feedparser.parse(io.BytesIO(body))
    if parsed.get("bozo"):
        reason = parsed.get("bozo_exception")
        raise ArxivBadFeed(f"arXiv answered with a malformed feed: {reason}", url=url)
    affiliations = _affiliations_by_entry(body, url=url)
    if parsed.get("version") != "atom10":
        raise ArxivBadFeed("arXiv answered with something that is not an Atom feed", url=url)

    entries: list[Mapping[str, Any]] = parsed.entries
    _raise_for_error_entry(entries, url=url)
    if len(entries) != len(affiliations):
        raise ArxivBadFeed("feed entries and XML entries disagree", url=url)

    records = [
        _record_from_entry(entry, entry_affiliations, url=url)
        for entry, entry_affiliations in zip(entries, affiliations, strict=True)
    ]
    feed = parsed.feed
    return Page(
        records=records,
        total_results=_int_or_none(feed.get("opensearch_totalresults")),
        start_index=_int_or_none(feed.get("opensearch_startindex")),
        items_per_page=_int_or_none(feed.get("opensearch_itemsperpage")),
    )


def normalise_whitespace(text: str) -> str:
    """Collapse line breaks and runs of spaces into one space, and strip the ends."""
    return " ".join(text.split())


def _affiliations_by_entry(body: bytes, *, url: str) -> list[list[tuple[str, ...]]]:
    """Every author's affiliations, per entry in document order.

    feedparser keeps only the last `arxiv:affiliation` of an entry (it flattens the element into
    one entry key), so a second, stdlib pass over the same bytes recovers them all. That pass also
    confirms that the root element is an Atom `feed`. It adds no new attack surface: feedparser
    already ran expat on these bytes, expat >= 2.4 refuses entity-expansion bombs, and
    ElementTree never fetches external entities.
    """
    try:
        root = ElementTree.fromstring(body)  # noqa: S314 - see the docstring
    except ElementTree.ParseError as error:
        raise ArxivBadFeed(f"arXiv answered with malformed XML: {error}", url=url) from error
    if root.tag != f"{_ATOM}feed":
        raise ArxivBadFeed(f"arXiv answered with {root.tag!r}, not an Atom feed", url=url)
    return [
        [
            tuple(
                normalise_whitespace(affiliation.text or "")
                for affiliation in author.findall(f"{_ARXIV}affiliation")
            )
            for author in entry.findall(f"{_ATOM}author")
        ]
        for entry in root.findall(f"{_ATOM}entry")
    ]


def _raise_for_error_entry(entries: list[Mapping[str, Any]], *, url: str) -> None:
    for entry in entries:
        entry_id = str(entry.get("id", ""))
        if entry_id.startswith(_ERROR_ID_PREFIXES):
            message = normalise_whitespace(str(entry.get("summary", "")))
            if not message:
                message = entry_id.partition("#")[2].replace("_", " ")
            raise ArxivAPIError(message, url=url)


def _record_from_entry(
    entry: Mapping[str, Any], affiliations: list[tuple[str, ...]], *, url: str
) -> Record:
    entry_id = str(entry.get("id", "")).strip()
    title = normalise_whitespace(str(entry.get("title", "")))
    if not entry_id or not title:
        raise ArxivBadFeed(f"an entry has no id or no title (id={entry_id!r})", url=url)
    try:
        arxiv_id, version = split_arxiv_id(entry_id)
    except ValueError as error:
        raise ArxivBadFeed(f"entry id {entry_id!r} is not an arXiv id", url=url) from error
    if version is None:
        raise ArxivBadFeed(f"entry id {entry_id!r} carries no version", url=url)
    versioned_id = f"{arxiv_id}v{version}"

    terms = _category_terms(entry)
    given_primary = _primary_category(entry)
    if given_primary and given_primary not in terms:
        terms.insert(0, given_primary)
    categories = [term for term in terms if is_paper_category(term)]
    primary = given_primary if is_paper_category(given_primary) else ""
    primary = primary or (categories[0] if categories else "")
    if not primary:
        raise ArxivBadFeed(f"entry {versioned_id} has no arXiv category", url=url)
    categories.remove(primary)
    categories.insert(0, primary)
    acm_class, msc_class = _classes([term for term in terms if not is_paper_category(term)])

    return Record(
        arxiv_id=arxiv_id,
        version=version,
        title=title,
        abstract=normalise_whitespace(str(entry.get("summary", ""))),
        authors=_authors(entry, affiliations, entry_id=versioned_id, url=url),
        primary_category=primary,
        categories=tuple(categories),
        published=_utc_datetime(entry, "published", entry_id=versioned_id, url=url),
        updated=_utc_datetime(entry, "updated", entry_id=versioned_id, url=url),
        abs_url=_link(entry, rel="alternate") or f"https://arxiv.org/abs/{versioned_id}",
        pdf_url=_link(entry, title="pdf") or f"https://arxiv.org/pdf/{versioned_id}",
        comment=_optional_text(entry, "arxiv_comment"),
        journal_ref=_optional_text(entry, "arxiv_journal_ref"),
        doi=_optional_text(entry, "arxiv_doi"),
        acm_class=acm_class,
        msc_class=msc_class,
    )


def _authors(
    entry: Mapping[str, Any], affiliations: list[tuple[str, ...]], *, entry_id: str, url: str
) -> tuple[Author, ...]:
    names = [
        normalise_whitespace(str(author.get("name", ""))) for author in entry.get("authors", [])
    ]
    # Both lists come from the same bytes in document order; a length mismatch means one parser
    # saw something the other did not, and pairing them up would give authors the wrong places.
    if len(names) != len(affiliations):
        raise ArxivBadFeed(f"entry {entry_id}: author lists disagree", url=url)
    return tuple(
        Author(name=name, affiliations=tuple(a for a in author_affiliations if a))
        for name, author_affiliations in zip(names, affiliations, strict=True)
        if name
    )


def _category_terms(entry: Mapping[str, Any]) -> list[str]:
    """Every `category term=` of the entry, in order, once each, whitespace normalised."""
    terms: list[str] = []
    for tag in entry.get("tags", []):
        term = normalise_whitespace(str(tag.get("term") or ""))
        if term and term not in terms:
            terms.append(term)
    return terms


def _classes(terms: list[str]) -> tuple[str | None, str | None]:
    """(ACM class, MSC class) from the category terms that are not arXiv categories.

    arXiv lists the authors' `acm-class` and `msc-class` fields as one term each. A term with
    an MSC code in it is the MSC class; any other free text is the ACM class (its codes,
    "H.5.4", or the words of the 2012 ACM classification).
    """
    acm = [term for term in terms if not _MSC_CODE.search(term)]
    msc = [term for term in terms if _MSC_CODE.search(term)]
    return "; ".join(acm) or None, "; ".join(msc) or None


def _primary_category(entry: Mapping[str, Any]) -> str:
    primary = entry.get("arxiv_primary_category")
    if isinstance(primary, Mapping):
        return normalise_whitespace(str(primary.get("term") or ""))
    return ""


def _utc_datetime(entry: Mapping[str, Any], key: str, *, entry_id: str, url: str) -> datetime:
    text = str(entry.get(key, "")).strip()
    try:
        moment = datetime.fromisoformat(text)
    except ValueError as error:
        raise ArxivBadFeed(f"entry {entry_id}: bad or missing {key} {text!r}", url=url) from error
    if moment.tzinfo is None:
        raise ArxivBadFeed(f"entry {entry_id}: {key} {text!r} has no time zone", url=url)
    return moment.astimezone(UTC)


def _link(entry: Mapping[str, Any], *, rel: str | None = None, title: str | None = None) -> str:
    for link in entry.get("links", []):
        if rel is not None and link.get("rel") != rel:
            continue
        if title is not None and link.get("title") != title:
            continue
        href = str(link.get("href") or "").strip()
        if href:
            return href
    return ""


def _optional_text(entry: Mapping[str, Any], key: str) -> str | None:
    text = normalise_whitespace(str(entry.get(key) or ""))
    return text or None


def _int_or_none(value: object) -> int | None:
    try:
        return int(str(value).strip())
    except ValueError:
        return None
