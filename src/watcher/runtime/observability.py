"""The service's HTTP listener for its operators (METRICS_LISTEN): `/metrics`, `/healthz`,
`/readyz`.

- `/metrics`: Prometheus' text format, by prometheus-client's own WSGI app (`make_wsgi_app`,
  which also answers OpenMetrics and gzip to a scraper asking for them), over the registry of
  `watcher.metrics` with the store's gauges read at scrape time.
- `/healthz` (liveness): 200 once the service's event loop runs a callback handed to it, 503
  when it does not within `LOOP_TIMEOUT`.
- `/readyz` (readiness): the verdict of `arxiv-watcher health` (`watcher.runtime.health`) on this
  process in its current role: 200 with its "ok: ..." line, 503 with its "unhealthy: ..."
  line. A standby is ready, and says so.

The server is the standard library's WSGI server (`wsgiref`; the one prometheus-client's own
`start_http_server` runs) with its connections and threads bounded (`watcher.runtime.http_listener`:
a connection holds a worker only once its headers are in, idle ones close after 5 s), in daemon
threads of its own rather than on the event loop: no HTTP parsing is written here, no new
dependency comes in (aiohttp, tornado and uvicorn are not ours), and the database reads of a
scrape or a readiness check run on the server's threads, so they never wait behind the event
loop nor block it, even while a harvest keeps the loop and the database thread busy. `/healthz`
asks the loop itself, which is the point of it.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import logging
import os
import socket
import threading
from collections.abc import Iterable
from datetime import UTC, datetime
from typing import TYPE_CHECKING

from prometheus_client import make_wsgi_app
from sqlalchemy import Engine

from watcher.errors import ConfigError
from watcher.metrics import StoreGauges, build_registry, set_leader
from watcher.runtime.health import Verdict, verdict
from watcher.runtime.http_listener import IDLE_SECONDS, BoundedWSGIServer
from watcher.runtime.leader import Role
from watcher.runtime.status import InstanceState
from watcher.settings import Settings
from watcher.store.gauges import read_gauges

if TYPE_CHECKING:
    from _typeshed.wsgi import StartResponse, WSGIApplication, WSGIEnvironment

log = logging.getLogger(__name__)

LOOP_TIMEOUT = 1.0  # seconds the event loop has to run /healthz's callback


class _Server6(BoundedWSGIServer):
    address_family = socket.AF_INET6


class Observability:
    """The listener, serving in its own thread from `start()` until `close()`."""

    def __init__(
        self,
        settings: Settings,
        engine: Engine,
        loop: asyncio.AbstractEventLoop,
        *,
        idle_seconds: float = IDLE_SECONDS,
    ) -> None:
        address = settings.metrics_address
        if address is None:
            raise ValueError("METRICS_LISTEN is not set")
        self.settings = settings
        self.engine = engine
        self.loop = loop
        self.address = address
        self.idle_seconds = idle_seconds
        self._state: InstanceState | None = None
        registry = build_registry(StoreGauges(lambda: read_gauges(engine)))
        self._metrics: WSGIApplication = make_wsgi_app(registry)
        self._server: BoundedWSGIServer | None = None
        self._thread: threading.Thread | None = None

    @property
    def port(self) -> int:
        assert self._server is not None, "not started"
        return int(self._server.server_address[1])

    def start(self) -> None:
        """Bind and serve; an address that cannot be bound stops the service with its reason."""
        host, port = self.address
        server_class = _Server6 if ":" in host else BoundedWSGIServer
        try:
            self._server = server_class((host, port), idle_seconds=self.idle_seconds)
        except OSError as error:
            raise ConfigError(
                f"METRICS_LISTEN: cannot listen on {self.settings.metrics_listen} "
                f"({error.strerror or error})"
            ) from None
        self._server.set_app(self._app)
        self._thread = threading.Thread(
            target=self._server.serve_forever, name="observability", daemon=True
        )
        self._thread.start()
        shown = f"[{host}]" if ":" in host else host
        log.info(
            "metrics at http://%s:%d/metrics, liveness at /healthz, readiness at /readyz",
            shown,
            self.port,
        )

    def close(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None

    def set_role(self, role: Role) -> None:
        """This process's role, from `watcher.runtime.leader.Leadership`: the leader gauge and
        /readyz."""
        if self._state is None or self._state.role != role:
            self._state = InstanceState(role, os.getpid(), datetime.now(UTC))
            set_leader(role == "active")

    # -- the WSGI application (runs on the server's threads) ---------------------------------

    def _app(self, environ: WSGIEnvironment, start_response: StartResponse) -> Iterable[bytes]:
        path = environ.get("PATH_INFO", "")
        if path == "/metrics":
            return self._metrics(environ, start_response)
        if path == "/healthz":
            return _text(start_response, *self._liveness())
        if path == "/readyz":
            result = self.readiness()
            return _text(start_response, 200 if result.healthy else 503, result.line)
        return _text(start_response, 404, "not found: try /metrics, /healthz or /readyz")

    def _liveness(self) -> tuple[int, str]:
        answered: concurrent.futures.Future[None] = concurrent.futures.Future()
        try:
            self.loop.call_soon_threadsafe(answered.set_result, None)
            answered.result(timeout=LOOP_TIMEOUT)
        except RuntimeError:
            return 503, "not alive: the event loop is closed"
        except TimeoutError:
            return 503, f"not alive: the event loop did not answer within {LOOP_TIMEOUT:g} s"
        return 200, "ok: the event loop answers"

    def readiness(self) -> Verdict:
        """`arxiv-watcher health`'s verdict on this process. Blocking: it reads the database."""
        if self._state is None:
            return Verdict(False, "unhealthy: starting, not yet active nor standby")
        try:
            return verdict(self.settings, self.engine, [self._state])
        except Exception as error:
            # The health command's own failures end in one line; so does this one.
            log.warning("readiness check failed: %s", type(error).__name__)
            return Verdict(False, f"unhealthy: the check failed ({type(error).__name__})")


def _text(start_response: StartResponse, status: int, line: str) -> list[bytes]:
    reason = {200: "OK", 404: "Not Found", 503: "Service Unavailable"}[status]
    body = (line + "\n").encode()
    start_response(
        f"{status} {reason}",
        [("Content-Type", "text/plain; charset=utf-8"), ("Content-Length", str(len(body)))],
    )
    return [body]
