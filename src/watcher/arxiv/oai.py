"""OAI-PMH parse step: one `ListRecords` answer of arXiv's OAI-PMH service, format `arXiv`.

arXiv's bulk-harvesting service (https://oaipmh.arxiv.org/oai) answers every request with HTTP
200 and an `OAI-PMH` document: either records and a `resumptionToken` (empty on the last page),
or an `<error code="...">`. `noRecordsMatch` is no failure: it is a window with nothing in it,
so it parses as an empty last page. Any other error code raises `ArxivOAIError(code)`, and
anything that is not one whole OAI-PMH answer (HTML, garbage, a truncated body, a record without
id or datestamp) raises `ArxivBadFeed`: a page is all or nothing, as in `watcher.arxiv.parse`.

The format `arXiv` carries structured names (`keyname`, `forenames`, `suffix`) but no version
number; the harvest asks the API for that (see `watcher.polling.sources.harvest`). Parsed with
defusedxml: the answer comes from the network, so entity tricks are refused, not expanded.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from xml.etree.ElementTree import Element, ParseError

from watcher.arxiv.parse import normalise_whitespace
from watcher.errors import ArxivBadFeed, ArxivOAIError

_OAI = "{http://www.openarchives.org/OAI/2.0/}"
_ARXIV = "{http://arxiv.org/OAI/arXiv/}"
_IDENTIFIER_PREFIX = "oai:arXiv.org:"
NO_RECORDS_MATCH = "noRecordsMatch"
BAD_RESUMPTION_TOKEN = "badResumptionToken"  # noqa: S105 - an error code, not a secret


@dataclass(frozen=True, slots=True)
class OaiRecord:
    """One record of format `arXiv`: the paper's current metadata, without its version.

    `datestamp` is the day of its last change (a new version or a metadata update); `authors`
    are display names, "forenames keyname suffix", ready for `watcher.follows.match`.
    """

    arxiv_id: str
    datestamp: date
    sets: tuple[str, ...]
    created: date | None
    updated: date | None
    authors: tuple[str, ...]
    title: str
    abstract: str
    categories: tuple[str, ...]
    comments: str | None = None
    journal_ref: str | None = None
    doi: str | None = None
    report_no: str | None = None
    acm_class: str | None = None
    msc_class: str | None = None


@dataclass(frozen=True, slots=True)
class OaiPage:
    """One `ListRecords` page: its records and the token of the next page (None: the last)."""

    records: list[OaiRecord]
    resumption_token: str | None
    deleted: int = 0  # records arXiv reports withdrawn from the service, skipped


def parse_list_records(body: bytes, *, url: str = "") -> OaiPage:
    """Parse one `ListRecords` answer; raises ArxivOAIError or ArxivBadFeed, never a part."""
    root = _root(body, url=url)
    error = root.find(f"{_OAI}error")
    if error is not None:
        code = error.get("code", "")
        if code == NO_RECORDS_MATCH:
            return OaiPage(records=[], resumption_token=None)
        message = normalise_whitespace(error.text or "") or code
        raise ArxivOAIError(code, message, url=url)
    listing = root.find(f"{_OAI}ListRecords")
    if listing is None:
        raise ArxivBadFeed("arXiv's OAI-PMH answer holds no ListRecords and no error", url=url)
    records: list[OaiRecord] = []
    deleted = 0
    for element in listing.findall(f"{_OAI}record"):
        header = element.find(f"{_OAI}header")
        if header is not None and header.get("status") == "deleted":
            deleted += 1
            continue
        records.append(_record(element, url=url))
    token = listing.find(f"{_OAI}resumptionToken")
    text = (token.text or "").strip() if token is not None else ""
    return OaiPage(records=records, resumption_token=text or None, deleted=deleted)


def _root(body: bytes, *, url: str) -> Element:
    head = body.lstrip(b"\xef\xbb\xbf \t\r\n")[:64].lower()
    if not head:
        raise ArxivBadFeed("arXiv's OAI-PMH service answered with an empty body", url=url)
    if head.startswith((b"<!doctype", b"<html")):
        raise ArxivBadFeed("arXiv's OAI-PMH service answered with an HTML page", url=url)
    # Imported at the first harvest page: a service polling by the API never needs it.
    import defusedxml.ElementTree as SafeElementTree
    from defusedxml import DefusedXmlException

    try:
        root: Element = SafeElementTree.fromstring(body)
    except ParseError as error:
        raise ArxivBadFeed(f"arXiv's OAI-PMH answer is malformed XML: {error}", url=url) from error
    except DefusedXmlException as error:
        raise ArxivBadFeed(f"arXiv's OAI-PMH answer was refused: {error!r}", url=url) from error
    if root.tag != f"{_OAI}OAI-PMH":
        raise ArxivBadFeed(f"expected an OAI-PMH answer, got a {root.tag!r} document", url=url)
    return root


def _record(element: Element, *, url: str) -> OaiRecord:
    header = element.find(f"{_OAI}header")
    identifier = _text(header, f"{_OAI}identifier") if header is not None else None
    stamp = _text(header, f"{_OAI}datestamp") if header is not None else None
    if not identifier or not stamp:
        raise ArxivBadFeed("an OAI-PMH record has no identifier or no datestamp", url=url)
    assert header is not None
    metadata = element.find(f"{_OAI}metadata/{_ARXIV}arXiv")
    if metadata is None:
        raise ArxivBadFeed(f"record {identifier} holds no metadata of format arXiv", url=url)
    arxiv_id = _text(metadata, f"{_ARXIV}id") or identifier.removeprefix(_IDENTIFIER_PREFIX)
    title = _text(metadata, f"{_ARXIV}title")
    categories = tuple((_text(metadata, f"{_ARXIV}categories") or "").split())
    if not title or not categories:
        raise ArxivBadFeed(f"record {arxiv_id} has no title or no categories", url=url)
    return OaiRecord(
        arxiv_id=arxiv_id,
        datestamp=_day(stamp, what=f"datestamp of {arxiv_id}", url=url),
        sets=tuple(s.text.strip() for s in header.findall(f"{_OAI}setSpec") if s.text),
        created=_optional_day(metadata, "created", arxiv_id=arxiv_id, url=url),
        updated=_optional_day(metadata, "updated", arxiv_id=arxiv_id, url=url),
        authors=tuple(
            name
            for author in metadata.findall(f"{_ARXIV}authors/{_ARXIV}author")
            if (name := _display_name(author))
        ),
        title=title,
        abstract=_text(metadata, f"{_ARXIV}abstract") or "",
        categories=categories,
        comments=_text(metadata, f"{_ARXIV}comments"),
        journal_ref=_text(metadata, f"{_ARXIV}journal-ref"),
        doi=_text(metadata, f"{_ARXIV}doi"),
        report_no=_text(metadata, f"{_ARXIV}report-no"),
        acm_class=_acm_class(metadata),
        msc_class=_text(metadata, f"{_ARXIV}msc-class"),
    )


def _acm_class(metadata: Element) -> str | None:
    """The ACM class, or None where arXiv's service cannot be trusted to give it: its template
    (arXiv/oaipmh 27ad99e3, `oaipmh/templates/record_formats.xml`) fills `<acm-class>` with the
    MSC class, so a paper with an ACM class shows its MSC class there, or "None" without one."""
    acm = _text(metadata, f"{_ARXIV}acm-class")
    return None if acm in ("None", _text(metadata, f"{_ARXIV}msc-class")) else acm


def _display_name(author: Element) -> str:
    """ "forenames keyname suffix": the order the API writes names in ("Waldyr A. Rodrigues Jr")."""
    parts = (_text(author, f"{_ARXIV}{part}") for part in ("forenames", "keyname", "suffix"))
    return " ".join(part for part in parts if part)


def _text(parent: Element, path: str) -> str | None:
    found = parent.find(path)
    if found is None:
        return None
    return normalise_whitespace("".join(found.itertext())) or None


def _optional_day(metadata: Element, name: str, *, arxiv_id: str, url: str) -> date | None:
    text = _text(metadata, f"{_ARXIV}{name}")
    return _day(text, what=f"{name} of {arxiv_id}", url=url) if text else None


def _day(text: str, *, what: str, url: str) -> date:
    try:
        return date.fromisoformat(text[:10])
    except ValueError as error:
        raise ArxivBadFeed(f"bad {what}: {text[:40]!r} (expected YYYY-MM-DD)", url=url) from error
