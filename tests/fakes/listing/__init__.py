"""A fake of arXiv's listing pages over real HTTP on 127.0.0.1: `/list/<archive>/new`.

`FakeListing` shows one mailing at a time, built from the same `Record`s as the fake API and
the fake OAI (`announce(mailing, new=..., crosses=..., replaced=...)`): each archive's page lists
the new papers whose primary category is in it, then the cross-lists (new papers of other
archives with a category in it, and the `crosses`, older papers newly cross-listed), then the
replacements. `flip_at` holds a prepared mailing back until a wall-clock instant: the page shows
the previous one until then, as arXiv's does until 20:00. The markup is arXiv's
(`tests/fakes/listing/markup.py`). `skip`/`show` page it (show is capped at 2000, as arXiv caps
it); each answer has an `ETag` and `Last-Modified`, and a request with a matching
`If-None-Match` (or an `If-Modified-Since` not before the mailing's flip) answers 304. `broken`
switches the markup to one the parser does not know ("markup") or drops an item per section
while keeping its count ("counts"); `serve_garbage(body, until=...)` answers every listing
request with `body` instead (a page in markup nobody knows, whatever the markup module renders)
until a wall-clock instant. Every request is logged in `requests`. `clock` is the time the fake
reads for all of this (the wall clock unless a test passes the one it turns, as the service's).
"""

from __future__ import annotations

import hashlib
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import UTC, date, datetime
from email.utils import format_datetime, parsedate_to_datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Literal, Self, cast
from urllib.parse import parse_qs, urlsplit

from tests.fakes.listing.markup import Listed, archive_of, render_new
from watcher.arxiv.records import Record

MAX_SHOW = 2000
DEFAULT_SHOW = 2000  # arXiv's /new shows everything unless asked for less


@dataclass(frozen=True)
class ListingRequest:
    """One request as the fake saw it: `time` is `time.monotonic()`, `wall` the UTC instant (on
    the fake's clock)."""

    time: float
    wall: datetime
    path: str
    params: dict[str, str]
    headers: dict[str, str]
    status: int


@dataclass
class _Mailing:
    day: date
    new: list[Record] = field(default_factory=list)
    crosses: list[Record] = field(default_factory=list)
    replaced: list[Record] = field(default_factory=list)
    flips: datetime = field(default_factory=lambda: datetime.fromtimestamp(0, UTC))


class FakeListing:
    """`with FakeListing(date(2026, 11, 30)) as listing:`, then `listing.url` (like
    `https://arxiv.org/list/`)."""

    def __init__(
        self,
        shown: date,
        *,
        host: str = "127.0.0.1",
        port: int = 0,
        clock: Callable[[], datetime] | None = None,
    ) -> None:
        self.clock = clock or (lambda: datetime.now(UTC))
        self._mailings = [_Mailing(shown)]
        self.broken: Literal["markup", "counts"] | None = None
        self.max_show = MAX_SHOW  # a test may cap pages lower to see paging with few papers
        self._garbage: tuple[bytes, datetime | None] | None = None
        self.requests: list[ListingRequest] = []
        self._lock = threading.Lock()
        self._address = (host, port)
        self._server: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    # -- lifecycle

    def start(self) -> Self:
        server = _Server(self._address, _Handler)
        server.fake = self
        self._server = server
        self._thread = threading.Thread(target=server.serve_forever, daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(self, *exc_info: object) -> None:
        self.stop()

    @property
    def url(self) -> str:
        assert self._server is not None, "start the fake first"
        host, port = self._server.server_address[:2]
        return f"http://{host!s}:{port}/list/"

    # -- the data

    def announce(
        self,
        mailing: date,
        *,
        new: Iterable[Record] = (),
        crosses: Iterable[Record] = (),
        replaced: Iterable[Record] = (),
        flip_at: datetime | None = None,
    ) -> None:
        """Show `mailing` from `flip_at` on (now if None)."""
        with self._lock:
            self._mailings.append(
                _Mailing(
                    mailing,
                    list(new),
                    list(crosses),
                    list(replaced),
                    flip_at or self.clock(),
                )
            )

    def serve_garbage(self, body: bytes, *, until: datetime | None = None) -> None:
        """Answer every listing request with `body` (200, as HTML) until `until` (for ever if
        None): arXiv's markup changed under the parser."""
        with self._lock:
            self._garbage = (body, until)

    def listing_requests(self, archive: str | None = None) -> list[ListingRequest]:
        return [r for r in self.requests if archive is None or r.path == f"/list/{archive}/new"]

    def shown(self, now: datetime | None = None) -> _Mailing:
        """The mailing the page shows at `now`: the newest whose flip has come."""
        now = now or self.clock()
        with self._lock:
            return max((m for m in self._mailings if m.flips <= now), key=lambda m: m.flips)

    def items(self, archive: str, mailing: _Mailing) -> list[Listed]:
        def in_archive(record: Record) -> bool:
            return any(archive_of(c) == archive for c in record.categories)

        new = [Listed(r, "new") for r in mailing.new if archive_of(r.primary_category) == archive]
        cross = [
            Listed(r, "cross")
            for r in [*mailing.new, *mailing.crosses]
            if archive_of(r.primary_category) != archive and in_archive(r)
        ]
        rep = [Listed(r, "rep") for r in mailing.replaced if in_archive(r)]
        return new + cross + rep

    # -- answering

    def answer(self, path: str, params: dict[str, str], headers: dict[str, str]) -> _Answer:
        parts = path.strip("/").split("/")
        if len(parts) != 3 or parts[0] != "list" or parts[2] != "new":
            return _Answer(404, b"<html><body>Not found</body></html>")
        archive = parts[1]
        with self._lock:
            garbage = self._garbage
        if garbage is not None and (garbage[1] is None or self.clock() < garbage[1]):
            return _Answer(200, garbage[0])
        mailing = self.shown()
        skip = _number(params.get("skip"), 0)
        show = min(_number(params.get("show"), DEFAULT_SHOW), self.max_show)
        broken = self.broken
        body = render_new(
            archive, mailing.day, self.items(archive, mailing), skip=skip, show=show, broken=broken
        ).encode("utf-8")
        etag = '"' + hashlib.sha256(body).hexdigest()[:20] + '"'
        modified = mailing.flips.replace(microsecond=0)
        validators = {"ETag": etag, "Last-Modified": format_datetime(modified, usegmt=True)}
        if headers.get("If-None-Match") == etag or _not_modified_since(headers, modified):
            return _Answer(304, b"", validators)
        return _Answer(200, body, validators)


@dataclass
class _Answer:
    status: int
    body: bytes
    headers: dict[str, str] = field(default_factory=dict)


def _number(text: str | None, default: int) -> int:
    return int(text) if text and text.isdigit() else default


def _not_modified_since(headers: dict[str, str], modified: datetime) -> bool:
    since = headers.get("If-Modified-Since")
    if not since or "If-None-Match" in headers:
        return False
    try:
        return parsedate_to_datetime(since) >= modified
    except (TypeError, ValueError):
        return False


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True
    fake: FakeListing


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "FakeListing/1.0"

    def log_message(self, format: str, *args: object) -> None:
        """Quiet: tests read `requests`."""

    def do_GET(self) -> None:
        fake = cast(_Server, self.server).fake
        split = urlsplit(self.path)
        params = {k: v[-1] for k, v in parse_qs(split.query).items()}
        headers = dict(self.headers.items())
        arrived, wall = time.monotonic(), fake.clock()
        answer = fake.answer(split.path, params, headers)
        with fake._lock:
            fake.requests.append(
                ListingRequest(arrived, wall, split.path, params, headers, answer.status)
            )
        self.send_response(answer.status)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(answer.body)))
        for name, value in answer.headers.items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(answer.body)
