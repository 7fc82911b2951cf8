"""HTTP/1.1 front of the fake: `/bot<token>/<method>`, form, multipart or JSON bodies.

`/client-NAME/bot<token>/<method>` is the same call, recorded as coming from client NAME: a test
running several bot processes against one fake gives each its own `base_url_for(NAME)`.

A stdlib `ThreadingHTTPServer` with keep-alive: one thread per client connection, so a
long-polling getUpdates never blocks sendMessage. Telegram's own framing is reproduced: JSON
answers whose HTTP status equals `error_code`, 401 for a wrong token, 404 for an unknown method,
and nginx's HTML page for a 502.

The request line holds the bot token, so nothing here logs it: `log_message` is silenced and
recorded requests keep only the method name and parameters.
"""

from __future__ import annotations

import contextlib
import email.parser
import email.policy
import hmac
import json
import socket
import sys
import threading
import time
import traceback
from collections.abc import Sequence
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qsl, unquote, urlsplit

from tests.fakes.telegram.bot_api import BotApi
from tests.fakes.telegram.faults import Fault, FaultKind, FaultQueue
from tests.fakes.telegram.files import Upload
from tests.fakes.telegram.request_params import Params
from tests.fakes.telegram.state import ApiError, RecordedRequest, TelegramState

CLIENT_PREFIX = "client-"
_NGINX_PAGE = (
    "<html>\r\n<head><title>{status} {phrase}</title></head>\r\n<body>\r\n<center><h1>{status} "
    "{phrase}</h1></center>\r\n<hr><center>nginx/1.18.0</center>\r\n</body>\r\n</html>\r\n"
)
_PHRASES = {
    500: "Internal Server Error",
    502: "Bad Gateway",
    503: "Service Unavailable",
    504: "Gateway Time-out",
}


def _decode_params(content_type: str, body: bytes, query: str) -> tuple[Params, list[Upload]]:
    """All parameters as strings; JSON-body values that are not strings become JSON text. The
    file parts of a multipart body are uploads, kept as bytes."""
    params: Params = dict(parse_qsl(query, keep_blank_values=True))
    uploads: list[Upload] = []
    media_type = content_type.split(";", 1)[0].strip().lower()
    if media_type == "application/x-www-form-urlencoded":
        params.update(parse_qsl(body.decode("utf-8"), keep_blank_values=True))
    elif media_type == "application/json" and body:
        decoded: dict[str, Any] = json.loads(body)
        for key, value in decoded.items():
            params[key] = value if isinstance(value, str) else json.dumps(value)
    elif media_type == "multipart/form-data":
        header = f"Content-Type: {content_type}\r\nMIME-Version: 1.0\r\n\r\n".encode()
        message = email.parser.BytesParser(policy=email.policy.HTTP).parsebytes(header + body)
        for part in message.iter_parts():
            name = part.get_param("name", header="content-disposition")
            payload = part.get_payload(decode=True)
            file_name = part.get_filename()
            if isinstance(name, str) and isinstance(payload, bytes) and file_name is not None:
                uploads.append(Upload(name, file_name, part.get_content_type(), payload))
            elif isinstance(name, str) and isinstance(payload, bytes):
                params[name] = payload.decode("utf-8", errors="replace")
    return params, uploads


class ApiServer(ThreadingHTTPServer):
    """Owns the listening socket and every open client connection (to cut them on stop)."""

    daemon_threads = True
    request_queue_size = 1024  # PTB opens up to 256 pooled connections at once

    def __init__(
        self,
        *,
        token: str,
        state: TelegramState,
        api: BotApi,
        faults: FaultQueue,
        port: int = 0,
    ) -> None:
        super().__init__(("127.0.0.1", port), _Handler)
        self.token = token
        self.state = state
        self.api = api
        self.faults = faults
        self.internal_errors: list[str] = []
        self._connections: set[socket.socket] = set()
        self._connections_lock = threading.Lock()

    def process_request(self, request: Any, client_address: Any) -> None:
        with self._connections_lock:
            self._connections.add(request)
        super().process_request(request, client_address)

    def shutdown_request(self, request: Any) -> None:
        with self._connections_lock:
            self._connections.discard(request)
        super().shutdown_request(request)

    def cut_connections(self) -> None:
        with self._connections_lock:
            connections = list(self._connections)
        for connection in connections:
            with contextlib.suppress(OSError):  # already closed by the client
                connection.shutdown(socket.SHUT_RDWR)

    def handle_error(self, request: Any, client_address: Any) -> None:
        # A client killed mid-request (the crash test SIGKILLs the bot) is normal here.
        if isinstance(sys.exc_info()[1], (ConnectionError, TimeoutError)):
            return
        super().handle_error(request, client_address)


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True  # small JSON answers must not wait for delayed ACKs
    server: ApiServer

    def log_message(self, format: str, *args: Any) -> None:
        """Silenced: the default access log prints the request path, which holds the token."""

    def do_POST(self) -> None:
        self._handle()

    def do_GET(self) -> None:
        self._handle()

    def _handle(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length) if length else b""
        url = urlsplit(self.path)
        parts = url.path.split("/")
        client = ""
        if len(parts) == 4 and parts[1].startswith(CLIENT_PREFIX):
            # /client-NAME/bot<token>/method: a test tells its processes apart.
            client, parts = parts[1].removeprefix(CLIENT_PREFIX), ["", *parts[2:]]
        if len(parts) >= 4 and parts[1] == "file" and parts[2].startswith("bot"):
            # Clients percent-encode the path (PTB does, the token's ":" included).
            self._download(unquote(parts[2][3:]), unquote("/".join(parts[3:])))
            return
        if len(parts) != 3 or not parts[1].startswith("bot"):
            self._answer_json(404, ApiError(404, "Not Found").to_json())
            return
        if not hmac.compare_digest(parts[1][3:].encode(), self.server.token.encode()):
            self._answer_json(401, ApiError(401, "Unauthorized").to_json())
            return
        method = self.server.api.canonical_name(parts[2])
        if method is None:
            self._answer_json(404, ApiError(404, "Not Found").to_json())
            return
        try:
            params, uploads = _decode_params(self.headers.get("Content-Type", ""), body, url.query)
        except (ValueError, UnicodeDecodeError):
            self._answer_json(400, ApiError(400, "Bad Request: invalid request body").to_json())
            return
        self._dispatch(method, params, client, uploads)

    def _download(self, token: str, path: str) -> None:
        """`/file/bot<token>/<file_path>`: the file's bytes, as Telegram serves them."""
        state = self.server.state
        with state.lock:
            stored = self.server.api.files.by_path.get(path)
            state.requests.append(RecordedRequest("download", {"file_path": path}, time.time()))
        if not hmac.compare_digest(token.encode(), self.server.token.encode()):
            self._answer_json(401, ApiError(401, "Unauthorized").to_json())
        elif stored is None:
            self._answer_json(404, ApiError(404, "Not Found").to_json())
        else:
            self._write(200, stored.data, "application/octet-stream")

    def _dispatch(
        self, method: str, params: Params, client: str, uploads: Sequence[Upload] = ()
    ) -> None:
        state = self.server.state
        counted = method != "getUpdates"  # long polls would swamp the concurrency figure
        with state.lock:
            state.method_counts[method] += 1
            if counted:
                state.in_flight += 1
                state.max_concurrent = max(state.max_concurrent, state.in_flight)
        status = 0
        try:
            status = self._execute(method, params, self.server.faults.pop(method), uploads)
        except OSError:
            # The client is gone (killed mid-request, or it gave up on a slow answer).
            self.close_connection = True
        finally:
            # Recorded in the same step as it stops being in flight: `FakeTelegram.requests`
            # waits for nothing in flight, so a client that has its answer finds it recorded.
            with state.lock:
                if counted:
                    state.in_flight -= 1
                state.requests.append(RecordedRequest(method, params, time.time(), status, client))
                if status == 429:
                    state.count_429 += 1
                state.touch()

    def _execute(
        self, method: str, params: Params, fault: Fault | None, uploads: Sequence[Upload] = ()
    ) -> int:
        """Run the method (unless a fault pre-empts it) and answer; return the HTTP status."""
        if fault is not None and fault.kind is FaultKind.SERVER_ERROR:
            return self._answer_server_error(fault.status)
        if fault is not None and fault.kind is FaultKind.FLOOD:
            error = ApiError(
                429,
                f"Too Many Requests: retry after {fault.retry_after}",
                {"retry_after": fault.retry_after},
            )
            return self._answer_json(429, error.to_json())
        if fault is not None and fault.kind is FaultKind.DISCONNECT and not fault.delivered:
            return self._drop_connection()
        try:
            answer = {"ok": True, "result": self.server.api.call(method, params, uploads)}
            status = 200
        except ApiError as error:
            answer, status = error.to_json(), error.status
        except Exception:
            self.server.internal_errors.append(traceback.format_exc())
            return self._answer_server_error(500)
        if fault is not None and fault.kind is FaultKind.DISCONNECT:
            return self._drop_connection()
        if fault is not None and fault.kind is FaultKind.SLOW:
            time.sleep(fault.delay)
        return self._answer_json(status, answer)

    def _drop_connection(self) -> int:
        self.close_connection = True
        with contextlib.suppress(OSError):
            self.connection.shutdown(socket.SHUT_RDWR)
        return 0

    def _answer_server_error(self, status: int) -> int:
        phrase = _PHRASES.get(status, "Server Error")
        if status == 500:
            return self._answer_json(500, ApiError(500, phrase).to_json())
        page = _NGINX_PAGE.format(status=status, phrase=phrase).encode()
        return self._write(status, page, "text/html")

    def _answer_json(self, status: int, answer: dict[str, Any]) -> int:
        return self._write(status, json.dumps(answer).encode(), "application/json")

    def _write(self, status: int, payload: bytes, content_type: str) -> int:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)
        return status
