"""`FakeArxiv`, the test-side handle on the fake arXiv: its records, the faults queued for each
service, the requests it saw, and how it answers the API (`/api/query`), the OAI-PMH harvest
(`/oai`) and the author feeds (`/a/<id>.atom`). See the package docstring for what each serves.
"""

from __future__ import annotations

import contextlib
import socket
import threading
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from dataclasses import replace
from datetime import UTC, date, datetime
from typing import Self
from urllib.parse import parse_qsl, quote, unquote, urlencode

from tests.fakes.arxiv_api.answers import (
    HTML_TYPE,
    XML_TYPE,
    Answer,
    Fault,
    FaultKind,
    SeenRequest,
    refusal,
    truncate,
    unknown_author_page,
)
from tests.fakes.arxiv_api.atom import render_author_feed, render_error_feed, render_feed
from tests.fakes.arxiv_api.http_server import CLIENT_PREFIX, FakeArxivHandler, FakeArxivServer
from tests.fakes.arxiv_api.query import (
    ID_FORMAT,
    MAX_RESULTS_LIMIT,
    QueryError,
    integer,
    parse_search_query,
)
from tests.fakes.oai import NamePartsT, OaiItem, in_set, render_error, render_page
from watcher.arxiv.records import Record


class FakeArxiv:
    """The fake API: `with FakeArxiv(records) as fake:` (or `start()`/`stop()`), then `fake.url`."""

    def __init__(
        self, records: Iterable[Record] = (), *, host: str = "127.0.0.1", port: int = 0
    ) -> None:
        self.records: list[Record] = list(records)
        self.history: list[Record] = []  # earlier versions, reachable by a versioned `id_list`
        # Ids that look well formed to us but that arXiv refuses in `id_list`: answered as arXiv
        # answers an id it cannot read (HTTP 400, one error entry; tests/data/arxiv-api/
        # error_idlist_abc_http-400.xml), where arXiv's own id rules are stricter than ours.
        self.malformed_ids: set[str] = set()
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
        self.query_held = threading.Event()  # set while `hold_queries` sits on a request
        self._query_release = threading.Event()
        self._query_hold: str | None = None
        self._token_generation = 0
        self.author_path = "/a/"
        self.author_claims: dict[str, list[str]] = {}  # author id -> arXiv ids claimed
        self.author_names: dict[str, str] = {}  # author id -> the name its feed is titled with
        self.unknown_author_status = 400
        self.author_faults: deque[Fault | FaultKind] = deque()
        self._address = (host, port)
        self._lock = threading.Lock()
        self._open_connections: set[socket.socket] = set()
        self._requests_in_flight = 0
        self._stopping = threading.Event()
        self._server: FakeArxivServer | None = None
        self._thread: threading.Thread | None = None

    # -- lifecycle

    def start(self) -> Self:
        self._stopping.clear()
        self._server = FakeArxivServer(self._address, FakeArxivHandler, self)
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

    def hold_queries(self, mentioning: str) -> None:
        """Sit on every API query whose `search_query` contains `mentioning` (a slow arXiv for
        that one name) until `release_queries`."""
        with self._lock:
            self._query_release.clear()
            self.query_held.clear()
            self._query_hold = mentioning

    def release_queries(self) -> None:
        with self._lock:
            self._query_hold = None
        self._query_release.set()

    def _maybe_hold_query(self, search_query: str) -> None:
        with self._lock:
            held = self._query_hold is not None and self._query_hold in search_query
        if not held:
            return
        self.query_held.set()
        while not self._query_release.wait(0.05) and not self._stopping.is_set():
            pass

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
        start = integer(params, "start", 0)
        max_results = integer(params, "max_results", 10)
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
            if not ID_FORMAT.fullmatch(requested) or requested in self.malformed_ids:
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

    def _answer_request(self, path: str, params: dict[str, str], fault: Fault | None) -> Answer:
        if path == "/old" + self.api_path:
            location = f"{self.api_path}?{urlencode(params)}"
            return Answer(301, b"", "text/plain", {"Location": location})
        if path == self.oai_path:
            return self._answer_oai(params, fault)
        if path.startswith(self.author_path):
            return self._answer_author(path.removeprefix(self.author_path), fault)
        if path != self.api_path:
            return Answer(404, b"not found\n", "text/plain; charset=utf-8")
        self._maybe_hold_query(params.get("search_query", ""))
        if fault is None or fault.kind == "none":
            status, body = self.answer(params)
            return Answer(status, body)
        if (refused := refusal(fault)) is not None:
            return refused
        now = datetime.now(UTC)
        try:
            feed = self._results_page(params, now, empty=fault.kind == "empty")
        except QueryError as exc:
            return Answer(400, render_error_feed(str(exc), now=now))
        return Answer(200, truncate(feed) if fault.kind == "truncated" else feed)

    def _answer_author(self, name: str, fault: Fault | None) -> Answer:
        if fault is not None and (refused := refusal(fault)) is not None:
            return refused
        author_id = name.removesuffix(".atom")
        with self._lock:
            claimed = self.author_claims.get(author_id) if name.endswith(".atom") else None
            records = [r for r in self.records if claimed is not None and r.arxiv_id in claimed]
        if claimed is None:
            status = self.unknown_author_status
            return Answer(status, unknown_author_page(author_id, status), HTML_TYPE)
        # arxiv-browse lists a person's papers newest document first (`Document.dated`).
        records.sort(key=lambda r: r.published, reverse=True)
        feed = render_author_feed(
            author_id, records, now=datetime.now(UTC), display_name=self.author_names.get(author_id)
        )
        if fault is not None and fault.kind == "truncated":
            feed = truncate(feed)
        return Answer(200, feed)

    def _answer_oai(self, params: dict[str, str], fault: Fault | None) -> Answer:
        if fault is not None and (refused := refusal(fault)) is not None:
            return refused
        if fault is not None and fault.kind == "empty":
            return Answer(200, b"", XML_TYPE)
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

    def _oai_body(self, params: dict[str, str]) -> Answer:
        base = "https://oaipmh.arxiv.org/oai"

        def error(code: str, reason: str | None = None, *, keep: bool = False) -> Answer:
            # The reasons are arXiv's (arXiv/oaipmh `oaipmh/requests/data_queries.py`,
            # `oaipmh/processors/resume.py`).
            kept = params if keep else None
            return Answer(200, render_error(code, base=base, reason=reason, params=kept), XML_TYPE)

        if params.get("verb") != "ListRecords":
            return error("badVerb", "Invalid verb provided")
        token = params.get("resumptionToken")
        if token is not None:
            if set(params) != {"verb", "resumptionToken"}:
                return error("badArgument", "No other paramters allowed with resumptionToken")
            query = dict(parse_qsl(unquote(token)))
            with self._lock:
                generation = str(self._token_generation)
            if query.pop("gen", None) != generation or not query.get("skip", "").isdigit():
                return error("badResumptionToken", "Token decoding failed or format is invalid.")
            skip = int(query.pop("skip"))
        else:
            query = {k: v for k, v in params.items() if k != "verb"}
            if not query.get("metadataPrefix"):
                return error("badArgument", "metadataPrefix required.")
            skip = 0
        if query.get("metadataPrefix") != "arXiv":
            return error("cannotDisseminateFormat", "Did not recognize requested format", keep=True)
        try:
            low = date.fromisoformat(query["from"]) if "from" in query else date.min
            high = date.fromisoformat(query["until"]) if "until" in query else date.max
        except ValueError:
            return error("badArgument", "from date format must be YYYY-MM-DD")
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
            return error("noRecordsMatch", keep=True)
        end = skip + self.oai_page_size
        next_token = None
        if end < len(items):
            next_token = quote(urlencode({**query, "skip": str(end), "gen": generation}), safe="")
        body = render_page(
            items[skip:end],
            names=names,
            params=params,
            base=base,
            token=next_token,
            continued=skip > 0,
        )
        return Answer(200, body, XML_TYPE)

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
