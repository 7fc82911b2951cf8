"""A fake arXiv API over real HTTP on 127.0.0.1, for tests, benchmarks and manual demos.

`FakeArxiv` serves its `records` as Atom in the exact shape of arXiv's own answers (see the
recorded files in `tests/data/arxiv-api/`): the same namespaces, element order, links and
opensearch totals. It understands what the watcher sends: `search_query` (fields `au ti abs co jr
cat id all`, quoted phrases, `AND`/`OR`/`ANDNOT`, parentheses, `submittedDate:[A TO B]`),
`id_list`, `sortBy`, `sortOrder`, `start` and `max_results`. An `au:` term matches like arXiv's:
every word of the name in ONE author's name, in any order, case- and accent-folded. A malformed
query answers HTTP 400 with arXiv's error feed. Error messages other than arXiv's "incorrect id
format for X" are invented.

Faults queued in `faults` apply to the next API requests, one each: see `Fault`. A standing fault
(`fail_queries`) applies to every query mentioning a given text until `heal` lifts it, so one
author's query can fail while the others' succeed. Every request is logged in `requests`, and
the peak numbers of open connections and in-flight requests are kept.
`url_for(NAME)` is the endpoint under `/client-NAME/`, its requests logged as NAME's: a test
running several watcher processes against one fake tells them apart so.

Like arXiv, the fake lists a record's ACM and MSC classes as extra `<category term=...>` elements.

It also serves arXiv's OAI-PMH harvest at `/oai` (`oai_url`) from the same records, each with a
datestamp (the day of its last change; `touch` makes a metadata-only change): `ListRecords` in
format `arXiv` with `from`/`until`/`set`, pages of `oai_page_size`, resumption tokens that
`expire_tokens` invalidates (`badResumptionToken`), `noRecordsMatch`, and faults from
`oai_faults`. `hold_oai` makes it sit on a later OAI request until `release_oai`, so that a test
can kill a client mid-harvest. The layout is in `tests/fakes/oai.py`.

And arXiv's per-person author feeds at `/a/<id>.atom` (`author_feed_url` is the base, like
`https://arxiv.org/a/`): `claim(ID, arxiv_ids)` makes ID (an arXiv author id such as `dong_d_1`,
or an ORCID iD) list those papers, the whole list in one Atom feed of the API's entries, with no
OpenSearch totals and no paging, newest first. An id nobody claimed answers
`unknown_author_status` (400, as arXiv does today; older arXiv answered 404). Faults for these
requests are queued in `author_faults`.

Run it by hand for a demo (then point `ARXIV_API_URL` at the printed URL):

    python -m tests.fakes.arxiv_api --port 8099 --corpus dezun-dong
"""

from __future__ import annotations

import argparse
import base64
import contextlib
import hashlib
import re
import select
import socket
import sys
import threading
import time
import unicodedata
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field, replace
from datetime import UTC, date, datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Literal, Self, cast, get_args
from urllib.parse import parse_qs, parse_qsl, quote, unquote, urlencode, urlsplit
from xml.sax.saxutils import escape

from tests.fakes.oai import NamePartsT, OaiItem, in_set, render_error, render_page
from watcher.records import Record

FaultKind = Literal["none", "429", "503", "timeout", "html", "truncated", "empty", "reset"]
FAULT_KINDS: tuple[FaultKind, ...] = get_args(FaultKind)

MAX_RESULTS_LIMIT = 2000
CLIENT_PREFIX = "/client-"
_FEED_OPEN = (
    "<?xml version='1.0' encoding='UTF-8'?>\n"
    '<feed xmlns:opensearch="http://a9.com/-/spec/opensearch/1.1/" '
    'xmlns:arxiv="http://arxiv.org/schemas/atom" xmlns="http://www.w3.org/2005/Atom">\n'
)
_ATOM_TYPE = "application/atom+xml; charset=utf-8"
_XML_TYPE = "text/xml; charset=utf-8"
_HTML_PAGE = (
    b"<!DOCTYPE html>\n<html><head><title>arXiv is down for maintenance</title></head>\n"
    b"<body><h1>We are performing maintenance</h1><p>Please try again later.</p></body></html>\n"
)


@dataclass(frozen=True)
class Fault:
    """One misbehaviour, applied to one request.

    `429`/`503`: that status, with `Retry-After: <retry_after>` when given. `timeout`: hold the
    request (until the client hangs up, the server stops, or `hold` seconds), then drop it.
    `html`: a 200 HTML page. `truncated`: the real answer cut mid-entry. `empty`: a valid feed
    with no entries and `totalResults` 0. `reset`: close the connection without an answer.
    `none`: answer normally (queued before other faults, it lets them hit a later request).
    """

    kind: FaultKind
    retry_after: str | None = None
    hold: float = 60.0


@dataclass(frozen=True)
class SeenRequest:
    """One request as the fake saw it, stamped when its headers arrived.

    `time` is `time.monotonic()` (for spacing), `wall` is `time.time()` (for HTTP dates).
    """

    time: float
    wall: float
    method: str
    path: str
    params: dict[str, str]
    headers: dict[str, str]
    fault: FaultKind | None
    client: str = ""  # who asked, when it came through `FakeArxiv.url_for(client)`


class QueryError(ValueError):
    """A query arXiv would refuse; the message goes into the error feed."""


# ---------------------------------------------------------------- query language


def fold(text: str) -> str:
    """Case- and accent-fold, as arXiv's search does ("Dézun" → "dezun")."""
    decomposed = unicodedata.normalize("NFKD", text)
    return "".join(c for c in decomposed if not unicodedata.combining(c)).casefold()


def words(text: str | None) -> list[str]:
    return re.findall(r"\w+", fold(text or ""))


def _contains_phrase(haystack: list[str], needle: list[str]) -> bool:
    if not needle:
        return False
    width = len(needle)
    return any(haystack[i : i + width] == needle for i in range(len(haystack) - width + 1))


Predicate = Callable[[Record], bool]

_TOKEN = re.compile(
    r"""\s*(?:
        (?P<open>\() | (?P<close>\)) |
        (?P<field>[A-Za-z]+):(?:"(?P<quoted>[^"]*)"|\[(?P<range>[^\]]*)\]|(?P<bare>[^\s()"\[]+)) |
        "(?P<phrase>[^"]*)" |
        (?P<word>[^\s()"]+) |
        (?P<bad>\S)
    )""",
    re.VERBOSE,
)
_OPERATORS = {"AND", "OR", "ANDNOT"}
_TEXT_FIELDS: dict[str, Callable[[Record], str]] = {
    "ti": lambda r: r.title,
    "abs": lambda r: r.abstract,
    "co": lambda r: r.comment or "",
    "jr": lambda r: r.journal_ref or "",
    "all": lambda r: " ".join(
        [r.title, r.abstract, r.comment or "", r.journal_ref or "", *r.author_names]
    ),
}


def _author_term(value: str) -> Predicate:
    # arXiv rewrites `au:Dong_D` to `au:"Dong D"`; every word must be in one author's name.
    wanted = set(words(value.replace("_", " ")))
    return lambda r: bool(wanted) and any(wanted <= set(words(n)) for n in r.author_names)


def _date_term(name: str, value: str) -> Predicate:
    match = re.fullmatch(r"\s*(\d{8,14})\s+TO\s+(\d{8,14})\s*", value)
    if not match:
        raise QueryError(f"malformed date range in {name}")
    low, high = (bound.ljust(14, "0") for bound in match.groups())

    def in_range(record: Record) -> bool:
        moment = record.published if name == "submittedDate" else record.updated
        return low <= moment.strftime("%Y%m%d%H%M%S") <= high

    return in_range


def _field_term(name: str, value: str, quoted: bool) -> Predicate:
    if name == "au":
        return _author_term(value)
    if name == "cat":
        if value.endswith("*"):
            return lambda r: any(c.startswith(value[:-1]) for c in r.categories)
        return lambda r: value in r.categories
    if name == "id":
        return lambda r: r.arxiv_id == re.sub(r"v\d+$", "", value)
    if name == "rn":
        return lambda r: False
    if name in _TEXT_FIELDS:
        text_of, needle = _TEXT_FIELDS[name], words(value)
        if quoted:
            return lambda r: _contains_phrase(words(text_of(r)), needle)
        return lambda r: bool(needle) and set(needle) <= set(words(text_of(r)))
    raise QueryError(f"unknown search field {name}")


class _QueryParser:
    """`expr := term ((AND | OR | ANDNOT)? term)*`, left to right; a missing operator means OR."""

    def __init__(self, query: str) -> None:
        self.tokens = [m for m in _TOKEN.finditer(query) if m.group(0).strip()]
        self.position = 0

    def parse(self) -> Predicate:
        predicate = self._expression()
        if self.position != len(self.tokens):
            raise QueryError("unbalanced parentheses in search_query")
        return predicate

    def _peek(self) -> re.Match[str] | None:
        return self.tokens[self.position] if self.position < len(self.tokens) else None

    def _expression(self) -> Predicate:
        left = self._term()
        while (token := self._peek()) is not None and not token.group("close"):
            operator = "OR"
            if token.group("word") in _OPERATORS:
                operator = token.group("word")
                self.position += 1
            right = self._term()
            left = _combine(operator, left, right)
        return left

    def _term(self) -> Predicate:
        token = self._peek()
        if token is None:
            raise QueryError("search_query ends where a term was expected")
        self.position += 1
        if token.group("open"):
            inner = self._expression()
            closing = self._peek()
            if closing is None or not closing.group("close"):
                raise QueryError("unbalanced parentheses in search_query")
            self.position += 1
            return inner
        if token.group("field"):
            name = token.group("field")
            if token.group("range") is not None:
                if name not in ("submittedDate", "lastUpdatedDate"):
                    raise QueryError(f"date range on non-date field {name}")
                return _date_term(name, token.group("range"))
            quoted = token.group("quoted") is not None
            return _field_term(name, token.group("quoted" if quoted else "bare"), quoted)
        if token.group("phrase") is not None:
            return _field_term("all", token.group("phrase"), True)
        if token.group("word") and token.group("word") not in _OPERATORS:
            return _field_term("all", token.group("word"), False)
        raise QueryError(f"unexpected {token.group(0).strip()!r} in search_query")


def _combine(operator: str, left: Predicate, right: Predicate) -> Predicate:
    if operator == "AND":
        return lambda r: left(r) and right(r)
    if operator == "ANDNOT":
        return lambda r: left(r) and not right(r)
    return lambda r: left(r) or right(r)


def parse_search_query(query: str) -> Predicate:
    """Turn a `search_query` into a predicate on records; `QueryError` if arXiv would refuse it."""
    return _QueryParser(query).parse()


_ID_FORMAT = re.compile(r"(\d{4}\.\d{4,5}|[a-z-]+(\.[A-Z]{2})?/\d{7})(v\d+)?")

# ---------------------------------------------------------------- Atom rendering


def quoteattr(value: str) -> str:
    """A double-quoted attribute value, as arXiv's XML writer produces it."""
    return '"' + escape(value, {'"': "&quot;"}) + '"'


def _stamp(moment: datetime) -> str:
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def render_entry(record: Record) -> str:
    """One `<entry>`, element for element in arXiv's order."""
    lines = [
        "  <entry>",
        f"    <id>http://arxiv.org/abs/{record.versioned_id}</id>",
        f"    <title>{escape(record.title)}</title>",
        f"    <updated>{_stamp(record.updated)}</updated>",
        f'    <link href={quoteattr(record.abs_url)} rel="alternate" type="text/html"/>',
        f"    <link href={quoteattr(record.pdf_url)} "
        'rel="related" type="application/pdf" title="pdf"/>',
        f"    <summary>{escape(record.abstract)}</summary>",
    ]
    # arXiv lists the authors' ACM and MSC classes as categories too, after the real ones.
    classes = [c for c in (record.acm_class, record.msc_class) if c is not None]
    lines += [
        f'    <category term={quoteattr(c)} scheme="http://arxiv.org/schemas/atom"/>'
        for c in [*record.categories, *classes]
    ]
    lines.append(f"    <published>{_stamp(record.published)}</published>")
    if record.comment is not None:
        lines.append(f"    <arxiv:comment>{escape(record.comment)}</arxiv:comment>")
    lines.append(f"    <arxiv:primary_category term={quoteattr(record.primary_category)}/>")
    if record.journal_ref is not None:
        lines.append(f"    <arxiv:journal_ref>{escape(record.journal_ref)}</arxiv:journal_ref>")
    for author in record.authors:
        lines.append("    <author>")
        lines.append(f"      <name>{escape(author.name)}</name>")
        lines += [
            f"      <arxiv:affiliation>{escape(a)}</arxiv:affiliation>" for a in author.affiliations
        ]
        lines.append("    </author>")
    if record.doi is not None:
        lines.append(f"    <arxiv:doi>{escape(record.doi)}</arxiv:doi>")
        lines.append(
            f'    <link rel="related" href={quoteattr("https://doi.org/" + record.doi)} '
            'title="doi"/>'
        )
    lines.append("  </entry>")
    return "\n".join(lines) + "\n"


def render_feed(
    records: Iterable[Record],
    *,
    search_query: str,
    id_list: str,
    start: int,
    max_results: int,
    total_results: int,
    now: datetime,
) -> bytes:
    """A whole results page, header as arXiv writes it."""
    title = f"search_query={search_query}&id_list={id_list}&start={start}&max_results={max_results}"
    link = (
        "https://arxiv.org/api/query?"
        f"search_query={search_query}&start={start}&max_results={max_results}&id_list={id_list}"
    )
    digest = hashlib.sha1(title.encode(), usedforsecurity=False).digest()
    feed_id = base64.b64encode(digest).decode().rstrip("=")
    head = (
        f"  <id>https://arxiv.org/api/{feed_id}</id>\n"
        f"  <title>arXiv Query: {escape(title)}</title>\n"
        f"  <updated>{_stamp(now)}</updated>\n"
        f'  <link href={quoteattr(link)} type="application/atom+xml"/>\n'
        f"  <opensearch:itemsPerPage>{max_results}</opensearch:itemsPerPage>\n"
        f"  <opensearch:totalResults>{total_results}</opensearch:totalResults>\n"
        f"  <opensearch:startIndex>{start}</opensearch:startIndex>\n"
    )
    entries = "".join(render_entry(r) for r in records)
    return (_FEED_OPEN + head + entries + "</feed>\n").encode()


def render_author_feed(author_id: str, records: Iterable[Record], *, now: datetime) -> bytes:
    """A person's author feed: the API's entries, the whole list, no OpenSearch totals."""
    head = (
        f"  <id>http://arxiv.org/a/{escape(author_id)}</id>\n"
        f"  <title>arXiv author ID {escape(author_id)}</title>\n"
        f"  <updated>{_stamp(now)}</updated>\n"
        f'  <link href={quoteattr(f"http://arxiv.org/a/{author_id}")} rel="alternate" '
        'type="text/html"/>\n'
        f'  <link href={quoteattr(f"http://arxiv.org/a/{author_id}.atom")} rel="self" '
        'type="application/atom+xml"/>\n'
    )
    entries = "".join(render_entry(r) for r in records)
    return (_FEED_OPEN + head + entries + "</feed>\n").encode()


def render_error_feed(message: str, *, now: datetime) -> bytes:
    """arXiv's HTTP 400 answer: a feed with one entry titled `Error` that says why."""
    anchor = "https://arxiv.org/api/errors#" + re.sub(r"\s+", "_", message)
    stamp = _stamp(now)
    return (
        _FEED_OPEN
        + "  <id>https://arxiv.org/</id>\n"
        + "  <title>arXiv Search Results</title>\n"
        + f"  <updated>{stamp}</updated>\n"
        + "  <opensearch:itemsPerPage>1</opensearch:itemsPerPage>\n"
        + "  <opensearch:totalResults>1</opensearch:totalResults>\n"
        + "  <opensearch:startIndex>0</opensearch:startIndex>\n"
        + "  <entry>\n"
        + f"    <id>{escape(anchor)}</id>\n"
        + "    <title>Error</title>\n"
        + f"    <updated>{stamp}</updated>\n"
        + f'    <link href={quoteattr(anchor)} rel="alternate" type="text/html"/>\n'
        + f"    <summary>{escape(message)}</summary>\n"
        + "    <author>\n      <name>arXiv api core</name>\n    </author>\n"
        + "  </entry>\n</feed>\n"
    ).encode()


def _refusal(fault: Fault) -> _Answer | None:
    """What every arXiv service answers instead of its content for a 429, a 503 (with the
    fault's Retry-After) or an HTML error page; None for the faults each answers its own way."""
    retry = {"Retry-After": fault.retry_after} if fault.retry_after else {}
    if fault.kind in ("429", "503"):
        body = b"Rate exceeded.\n" if fault.kind == "429" else b"Service Unavailable\n"
        return _Answer(int(fault.kind), body, "text/plain; charset=utf-8", retry)
    if fault.kind == "html":
        return _Answer(200, _HTML_PAGE, "text/html; charset=utf-8")
    return None


def _truncate(feed: bytes) -> bytes:
    """Cut a feed mid-entry (or mid-header when it has no entries)."""
    entry = feed.find(b"<entry>")
    if entry < 0:
        return feed[: len(feed) // 2]
    summary = feed.find(b"<summary>", entry)
    return feed[: summary + len(b"<summary>") + 20]


# ---------------------------------------------------------------- the server


@dataclass
class _Answer:
    status: int
    body: bytes
    content_type: str = _ATOM_TYPE
    headers: dict[str, str] = field(default_factory=dict)


class FakeArxiv:
    """The fake API: `with FakeArxiv(records) as fake:` (or `start()`/`stop()`), then `fake.url`."""

    def __init__(
        self, records: Iterable[Record] = (), *, host: str = "127.0.0.1", port: int = 0
    ) -> None:
        self.records: list[Record] = list(records)
        self.history: list[Record] = []  # earlier versions, reachable by a versioned `id_list`
        self.faults: deque[Fault | FaultKind] = deque()
        self.standing_faults: dict[str, Fault] = {}  # by the text a failing query mentions
        self.requests: list[SeenRequest] = []
        self.max_concurrent_connections = 0
        self.max_concurrent_requests = 0
        self.api_path = "/api/query"
        self.oai_path = "/oai"
        self.oai_page_size = 2500
        self.datestamps: dict[str, date] = {}  # by arXiv id; default: the `updated` day
        self.oai_names: dict[str, NamePartsT] = {}  # display name -> keyname, forenames, suffix
        self.oai_faults: deque[Fault | FaultKind] = deque()
        self.oai_held = threading.Event()  # set while `hold_oai` sits on a request
        self._oai_release = threading.Event()
        self._oai_hold_countdown: int | None = None
        self._token_generation = 0
        self.author_path = "/a/"
        self.author_claims: dict[str, list[str]] = {}  # author id -> arXiv ids claimed
        self.unknown_author_status = 400
        self.author_faults: deque[Fault | FaultKind] = deque()
        self._address = (host, port)
        self._lock = threading.Lock()
        self._open_connections: set[socket.socket] = set()
        self._requests_in_flight = 0
        self._stopping = threading.Event()
        self._server: _Server | None = None
        self._thread: threading.Thread | None = None

    # -- lifecycle

    def start(self) -> Self:
        self._stopping.clear()
        self._server = _Server(self._address, _Handler, self)
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        if self._server is None:
            return
        self._stopping.set()
        self._server.shutdown()
        with self._lock:
            for connection in list(self._open_connections):
                with contextlib.suppress(OSError):
                    connection.shutdown(socket.SHUT_RDWR)
        self._server.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)
        self._server = None

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(self, *exc_info: object) -> None:
        self.stop()

    @property
    def base(self) -> str:
        if self._server is None:
            raise RuntimeError("FakeArxiv is not running")
        host, port = self._server.server_address[:2]
        return f"http://{host!s}:{port}"

    @property
    def url(self) -> str:
        """The API endpoint, e.g. `http://127.0.0.1:41234/api/query`."""
        return self.base + self.api_path

    def url_for(self, client: str) -> str:
        """The API endpoint, its requests recorded as `client`'s (`SeenRequest.client`)."""
        return f"{self.base}{CLIENT_PREFIX}{client}{self.api_path}"

    @property
    def oai_url(self) -> str:
        """The OAI-PMH endpoint, e.g. `http://127.0.0.1:41234/oai`."""
        return self.base + self.oai_path

    @property
    def author_feed_url(self) -> str:
        """The base of the author feeds, e.g. `http://127.0.0.1:41234/a/` (feed: base + id.atom)."""
        return self.base + self.author_path

    @property
    def redirecting_url(self) -> str:
        """An old address that answers 301 to `url`, as arXiv redirects http to https."""
        return self.base + "/old" + self.api_path

    # -- the data

    def add(self, record: Record, *, datestamp: date | None = None) -> None:
        with self._lock:
            self.records.append(record)
            if datestamp is not None:
                self.datestamps[record.arxiv_id] = datestamp

    def touch(self, arxiv_id: str, datestamp: date, **changes: object) -> Record:
        """A metadata-only update (a DOI, a journal reference): same version, new datestamp."""
        with self._lock:
            for index, old in enumerate(self.records):
                if old.arxiv_id == arxiv_id:
                    self.records[index] = replace(old, **changes)  # type: ignore[arg-type]
                    self.datestamps[arxiv_id] = datestamp
                    return self.records[index]
        raise KeyError(arxiv_id)

    def claim(self, author_id: str, arxiv_ids: Iterable[str]) -> None:
        """Author `author_id` claims these papers: its feed lists them (and papers added later
        that are claimed by another `claim`)."""
        with self._lock:
            claimed = self.author_claims.setdefault(author_id, [])
            claimed.extend(i for i in arxiv_ids if i not in claimed)

    def author_requests(self) -> list[SeenRequest]:
        return [r for r in self.requests if r.path.startswith(self.author_path)]

    def expire_tokens(self) -> None:
        """Every resumption token handed out so far answers `badResumptionToken` from now on."""
        with self._lock:
            self._token_generation += 1

    def hold_oai(self, *, after: int = 0) -> None:
        """Answer `after` more OAI requests, then sit on the next one until `release_oai`."""
        with self._lock:
            self._oai_release.clear()
            self.oai_held.clear()
            self._oai_hold_countdown = after

    def release_oai(self) -> None:
        self._oai_release.set()

    def oai_requests(self) -> list[SeenRequest]:
        return [r for r in self.requests if r.path == self.oai_path]

    def replace(self, record: Record) -> None:
        """Swap in a new version of a paper already served; the old one goes to `history`."""
        with self._lock:
            for index, old in enumerate(self.records):
                if old.arxiv_id == record.arxiv_id:
                    self.history.append(old)
                    self.records[index] = record
                    return
        raise KeyError(record.arxiv_id)

    def inject(self, kind: FaultKind, *, times: int = 1, retry_after: str | None = None) -> None:
        """Queue the same fault for the next `times` requests."""
        self.faults.extend(Fault(kind, retry_after=retry_after) for _ in range(times))

    def fail_queries(self, mentioning: str, kind: FaultKind = "503") -> None:
        """Answer every query whose `search_query` contains `mentioning` with `kind`, until
        `heal(mentioning)`; queued `faults` still come first."""
        with self._lock:
            self.standing_faults[mentioning] = Fault(kind)

    def heal(self, mentioning: str) -> None:
        with self._lock:
            self.standing_faults.pop(mentioning, None)

    def failed_requests(self, mentioning: str) -> int:
        """How many API requests mentioning `mentioning` were answered with a fault."""
        return sum(
            1
            for r in self.api_requests()
            if r.fault not in (None, "none") and mentioning in r.params.get("search_query", "")
        )

    def api_requests(self, client: str | None = None) -> list[SeenRequest]:
        """API requests, or only those that came through `url_for(client)`."""
        return [
            r
            for r in self.requests
            if r.path == self.api_path and (client is None or r.client == client)
        ]

    # -- answering

    def answer(self, params: dict[str, str]) -> tuple[int, bytes]:
        """The status and body arXiv would send for these query parameters."""
        now = datetime.now(UTC)
        try:
            return 200, self._results_page(params, now)
        except QueryError as exc:
            return 400, render_error_feed(str(exc), now=now)

    def _results_page(self, params: dict[str, str], now: datetime, *, empty: bool = False) -> bytes:
        search_query = params.get("search_query", "")
        id_list = params.get("id_list", "")
        start = _integer(params, "start", 0)
        max_results = _integer(params, "max_results", 10)
        if max_results > MAX_RESULTS_LIMIT:
            raise QueryError(f"max_results must be at most {MAX_RESULTS_LIMIT}")
        matches = [] if empty else self._matches(search_query, id_list)
        matches = self._sorted(matches, params)
        return render_feed(
            matches[start : start + max_results],
            search_query=search_query,
            id_list=id_list,
            start=start,
            max_results=max_results,
            total_results=len(matches),
            now=now,
        )

    def _matches(self, search_query: str, id_list: str) -> list[Record]:
        with self._lock:
            current, history = list(self.records), list(self.history)
        wanted = parse_search_query(search_query) if search_query.strip() else None
        if not id_list:
            return [r for r in current if wanted(r)] if wanted else []
        found = []
        for requested in (part.strip() for part in id_list.split(",")):
            if not _ID_FORMAT.fullmatch(requested):
                raise QueryError(f"incorrect id format for {requested}")
            for record in current + history:
                if requested in (record.arxiv_id, record.versioned_id):
                    if not wanted or wanted(record):
                        found.append(record)
                    break
        return found

    @staticmethod
    def _sorted(matches: list[Record], params: dict[str, str]) -> list[Record]:
        sort_by = params.get("sortBy", "relevance")
        order = params.get("sortOrder", "descending")
        if sort_by not in ("relevance", "submittedDate", "lastUpdatedDate"):
            raise QueryError(f"unknown sortBy value {sort_by}")
        if order not in ("ascending", "descending"):
            raise QueryError(f"unknown sortOrder value {order}")
        if sort_by == "relevance":
            # The fake's notion of relevance is the order it holds the records in.
            return matches
        key: Callable[[Record], datetime] = (
            (lambda r: r.published) if sort_by == "submittedDate" else (lambda r: r.updated)
        )
        return sorted(matches, key=key, reverse=order == "descending")

    def _answer_request(self, path: str, params: dict[str, str], fault: Fault | None) -> _Answer:
        if path == "/old" + self.api_path:
            location = f"{self.api_path}?{urlencode(params)}"
            return _Answer(301, b"", "text/plain", {"Location": location})
        if path == self.oai_path:
            return self._answer_oai(params, fault)
        if path.startswith(self.author_path):
            return self._answer_author(path.removeprefix(self.author_path), fault)
        if path != self.api_path:
            return _Answer(404, b"not found\n", "text/plain; charset=utf-8")
        if fault is None or fault.kind == "none":
            status, body = self.answer(params)
            return _Answer(status, body)
        if (refused := _refusal(fault)) is not None:
            return refused
        now = datetime.now(UTC)
        try:
            feed = self._results_page(params, now, empty=fault.kind == "empty")
        except QueryError as exc:
            return _Answer(400, render_error_feed(str(exc), now=now))
        return _Answer(200, _truncate(feed) if fault.kind == "truncated" else feed)

    def _answer_author(self, name: str, fault: Fault | None) -> _Answer:
        if fault is not None and (refused := _refusal(fault)) is not None:
            return refused
        author_id = name.removesuffix(".atom")
        with self._lock:
            claimed = self.author_claims.get(author_id) if name.endswith(".atom") else None
            records = [r for r in self.records if claimed is not None and r.arxiv_id in claimed]
        if claimed is None:
            status = self.unknown_author_status
            return _Answer(status, b"Invalid author id\n" if status == 400 else b"Not Found\n",
                           "text/plain; charset=utf-8")  # fmt: skip
        records.sort(key=lambda r: r.updated, reverse=True)
        feed = render_author_feed(author_id, records, now=datetime.now(UTC))
        if fault is not None and fault.kind == "truncated":
            feed = _truncate(feed)
        return _Answer(200, feed)

    def _answer_oai(self, params: dict[str, str], fault: Fault | None) -> _Answer:
        if fault is not None and (refused := _refusal(fault)) is not None:
            return refused
        if fault is not None and fault.kind == "empty":
            return _Answer(200, b"", _XML_TYPE)
        self._maybe_hold()
        answer = self._oai_body(params)
        if fault is not None and fault.kind == "truncated":
            answer.body = answer.body[: len(answer.body) * 2 // 3]
        return answer

    def _maybe_hold(self) -> None:
        with self._lock:
            countdown = self._oai_hold_countdown
            if countdown is None:
                return
            self._oai_hold_countdown = None if countdown == 0 else countdown - 1
            if countdown:
                return
        self.oai_held.set()
        while not self._oai_release.wait(0.05) and not self._stopping.is_set():
            pass

    def _oai_body(self, params: dict[str, str]) -> _Answer:
        base = "https://oaipmh.arxiv.org/oai"

        def error(code: str, message: str | None = None) -> _Answer:
            return _Answer(200, render_error(code, base=base, message=message), _XML_TYPE)

        if params.get("verb") != "ListRecords":
            return error("badVerb")
        token = params.get("resumptionToken")
        if token is not None:
            if set(params) != {"verb", "resumptionToken"}:
                return error("badArgument", "resumptionToken is an exclusive argument")
            query = dict(parse_qsl(unquote(token)))
            with self._lock:
                generation = str(self._token_generation)
            if query.pop("gen", None) != generation or not query.get("skip", "").isdigit():
                return error("badResumptionToken")
            skip = int(query.pop("skip"))
        else:
            query = {k: v for k, v in params.items() if k != "verb"}
            if not query.get("metadataPrefix"):
                return error("badArgument", "metadataPrefix is required")
            skip = 0
        if query.get("metadataPrefix") != "arXiv":
            return error("cannotDisseminateFormat")
        try:
            low = date.fromisoformat(query["from"]) if "from" in query else date.min
            high = date.fromisoformat(query["until"]) if "until" in query else date.max
        except ValueError:
            return error("badArgument", "from and until must be dates, YYYY-MM-DD")
        with self._lock:
            items = [
                OaiItem(r, self.datestamps.get(r.arxiv_id, r.updated.date())) for r in self.records
            ]
            generation = str(self._token_generation)
            names = dict(self.oai_names)
        wanted = query.get("set")
        items = sorted(
            (i for i in items if low <= i.datestamp <= high and (not wanted or in_set(i, wanted))),
            key=lambda i: (i.datestamp, i.record.arxiv_id),
        )
        if not items:
            return error("noRecordsMatch")
        end = skip + self.oai_page_size
        next_token = None
        if end < len(items):
            next_token = quote(urlencode({**query, "skip": str(end), "gen": generation}), safe="")
        body = render_page(items[skip:end], names=names, params=params, base=base, token=next_token)
        return _Answer(200, body, _XML_TYPE)

    def _next_fault(self, path: str, search_query: str) -> Fault | None:
        if path == self.oai_path or path.startswith(self.author_path):
            queue = self.oai_faults if path == self.oai_path else self.author_faults
            with self._lock:
                fault = queue.popleft() if queue else None
            return fault if fault is None or isinstance(fault, Fault) else Fault(fault)
        if path != self.api_path:
            return None
        with self._lock:
            if not self.faults:
                standing = (f for text, f in self.standing_faults.items() if text in search_query)
                return next(standing, None)
            fault = self.faults.popleft()
        return fault if isinstance(fault, Fault) else Fault(fault)

    # -- bookkeeping, called from the handler threads

    def _connection_opened(self, connection: socket.socket) -> None:
        with self._lock:
            self._open_connections.add(connection)
            count = len(self._open_connections)
            self.max_concurrent_connections = max(self.max_concurrent_connections, count)

    def _connection_closed(self, connection: socket.socket) -> None:
        with self._lock:
            self._open_connections.discard(connection)

    @contextlib.contextmanager
    def _in_flight(self, seen: SeenRequest) -> Iterator[None]:
        with self._lock:
            self.requests.append(seen)
            self._requests_in_flight += 1
            self.max_concurrent_requests = max(
                self.max_concurrent_requests, self._requests_in_flight
            )
        try:
            yield
        finally:
            with self._lock:
                self._requests_in_flight -= 1


def _integer(params: dict[str, str], name: str, default: int) -> int:
    text = params.get(name, "").strip()
    if not text:
        return default
    if not text.isdigit():
        raise QueryError(f"{name} must be a non-negative integer")
    return int(text)


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True

    def __init__(
        self, address: tuple[str, int], handler: type[BaseHTTPRequestHandler], fake: FakeArxiv
    ) -> None:
        self.fake = fake
        super().__init__(address, handler)

    def handle_error(self, request: object, client_address: object) -> None:
        """A client that hung up (a killed service) is no error of the fake's."""
        if not isinstance(sys.exc_info()[1], ConnectionError):
            super().handle_error(request, client_address)  # type: ignore[arg-type]


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive, like arXiv
    server_version = "FakeArxiv/1.0"

    @property
    def fake(self) -> FakeArxiv:
        return cast(_Server, self.server).fake

    def setup(self) -> None:
        super().setup()
        self.fake._connection_opened(self.connection)

    def finish(self) -> None:
        self.fake._connection_closed(self.connection)
        with contextlib.suppress(OSError):
            super().finish()

    def log_message(self, format: str, *args: object) -> None:
        """Quiet: tests read `fake.requests` instead."""

    def do_GET(self) -> None:
        self._handle(urlsplit(self.path).query)

    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        self._handle(self.rfile.read(length).decode("utf-8", "replace"))

    def _handle(self, query: str) -> None:
        arrived, arrived_wall = time.monotonic(), time.time()
        path, client = urlsplit(self.path).path, ""
        if path.startswith(CLIENT_PREFIX):
            # /client-NAME/api/query: a test tells its processes apart.
            client, _, rest = path.removeprefix(CLIENT_PREFIX).partition("/")
            path = "/" + rest
        params = {k: v[-1] for k, v in parse_qs(query, keep_blank_values=True).items()}
        fault = self.fake._next_fault(path, params.get("search_query", ""))
        seen = SeenRequest(
            arrived,
            arrived_wall,
            self.command,
            path,
            params,
            dict(self.headers.items()),
            fault.kind if fault else None,
            client,
        )
        with self.fake._in_flight(seen):
            if fault is not None and fault.kind in ("timeout", "reset"):
                if fault.kind == "timeout":
                    self._hold(fault.hold)
                self.close_connection = True
                return
            answer = self.fake._answer_request(path, params, fault)
            self.send_response(answer.status)
            self.send_header("Content-Type", answer.content_type)
            self.send_header("Content-Length", str(len(answer.body)))
            for name, value in answer.headers.items():
                self.send_header(name, value)
            self.end_headers()
            self.wfile.write(answer.body)
            self.wfile.flush()

    def _hold(self, seconds: float) -> None:
        """Sit on the request until the client gives up, the fake stops, or `seconds` pass."""
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline and not self.fake._stopping.is_set():
            readable, _, _ = select.select([self.connection], [], [], 0.05)
            if readable:
                try:
                    if not self.connection.recv(1, socket.MSG_PEEK):
                        return  # the client hung up
                except OSError:
                    return
                time.sleep(0.05)


# ---------------------------------------------------------------- standalone demo


def _corpus(name: str) -> list[Record]:
    from tests.fakes.corpus import dezun_dong_records, lookalike_records

    if name == "dezun-dong":
        return dezun_dong_records()
    if name == "dezun-dong+lookalikes":
        return dezun_dong_records() + lookalike_records()
    return []


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description="Serve a fake arXiv API on 127.0.0.1.")
    parser.add_argument("--port", type=int, default=8099)
    parser.add_argument(
        "--corpus", choices=["dezun-dong", "dezun-dong+lookalikes", "empty"], default="dezun-dong"
    )
    args = parser.parse_args(argv)
    with FakeArxiv(_corpus(args.corpus), port=args.port) as fake:
        print(f"Fake arXiv API serving {len(fake.records)} records at {fake.url}", flush=True)
        print(f"  ARXIV_API_URL={fake.url}", flush=True)
        with contextlib.suppress(KeyboardInterrupt):
            threading.Event().wait()


if __name__ == "__main__":
    main()
