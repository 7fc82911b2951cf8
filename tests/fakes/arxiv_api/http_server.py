"""The fake arXiv's HTTP side: a threading server on loopback whose handler logs each request
as a `SeenRequest`, applies the connection faults (`timeout`, `reset`) itself and asks the
`FakeArxiv` for everything else. `/client-NAME/...` paths are logged as NAME's requests.
"""

from __future__ import annotations

import contextlib
import select
import socket
import sys
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import TYPE_CHECKING, cast
from urllib.parse import parse_qs, urlsplit

from tests.fakes.arxiv_api.answers import SeenRequest

if TYPE_CHECKING:
    from tests.fakes.arxiv_api.fake import FakeArxiv


CLIENT_PREFIX = "/client-"


class FakeArxivServer(ThreadingHTTPServer):
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


class FakeArxivHandler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive, like arXiv
    server_version = "FakeArxiv/1.0"

    @property
    def fake(self) -> FakeArxiv:
        return cast(FakeArxivServer, self.server).fake

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
