"""The HTTP server under the operators' listener (`watcher.runtime.observability`): the standard
library's WSGI server (`wsgiref`), with its connections and threads bounded, so that nobody can
wear it down by opening connections and sending nothing.

- A new connection waits in one selector on the server's own thread until the blank line that
  ends its request's headers has arrived; only then does a worker thread take it. An idle
  connection, or one trickling its headers, holds no thread.
- At most `max_threads` workers serve requests, and at most `max_connections` connections are
  open at once. A connection over the cap closes the one that has waited longest for its
  headers: whoever connects now (a scrape, a health check) always gets in.
- Headers must be complete within `idle_seconds` (5 s), or the connection is closed; a worker's
  reads and writes time out after as long. One request a connection, as wsgiref serves them.

(`socketserver.ThreadingMixIn`, used before, started a thread for every connection, with no cap
and no timeout: 40 idle connections held 41 threads for as long as they stayed open.)
"""

from __future__ import annotations

import io
import logging
import queue
import selectors
import socket
import threading
import time
from dataclasses import dataclass, field
from typing import Any
from wsgiref.simple_server import WSGIRequestHandler, WSGIServer

log = logging.getLogger(__name__)

MAX_CONNECTIONS = 64
MAX_THREADS = 4
IDLE_SECONDS = 5.0
MAX_HEAD_BYTES = 65536  # a request's line and headers; wsgiref refuses longer lines too
_END_OF_HEAD = (b"\r\n\r\n", b"\n\n")


@dataclass(slots=True)
class _Waiting:
    """A connection whose headers have not all arrived yet."""

    address: Any
    deadline: float
    head: bytearray = field(default_factory=bytearray)


class BoundedWSGIServer(WSGIServer):
    """wsgiref's server, serving from `serve_forever` (on one thread) until `shutdown`."""

    request_queue_size = 128  # the listen backlog: a burst of connections waits to be accepted

    def __init__(
        self,
        address: tuple[str, int],
        *,
        max_connections: int = MAX_CONNECTIONS,
        max_threads: int = MAX_THREADS,
        idle_seconds: float = IDLE_SECONDS,
    ) -> None:
        self.max_connections, self.max_threads = max_connections, max_threads
        self.idle_seconds = idle_seconds
        self._waiting: dict[socket.socket, _Waiting] = {}  # the oldest first
        self._heads: dict[socket.socket, bytes] = {}  # handed to workers, read by `_Handler`
        self._busy = 0  # connections handed to the workers and not yet closed
        self._jobs: queue.SimpleQueue[tuple[socket.socket, Any] | None] = queue.SimpleQueue()
        self._lock = threading.Lock()
        self._stopping = threading.Event()
        self._stopped = threading.Event()
        self._wake_reader, self._wake_writer = socket.socketpair()
        # Binds and listens: OSError when it cannot (having called server_close).
        super().__init__(address, _Handler)

    def serve_forever(self, poll_interval: float = 0.5) -> None:
        """Accept and read headers until `shutdown`; the workers serve."""
        workers = [
            threading.Thread(target=self._work, name=f"observability-{n}", daemon=True)
            for n in range(self.max_threads)
        ]
        for worker in workers:
            worker.start()
        selector = selectors.DefaultSelector()
        self.socket.setblocking(False)
        selector.register(self.socket, selectors.EVENT_READ)
        selector.register(self._wake_reader, selectors.EVENT_READ)
        try:
            while not self._stopping.is_set():
                for key, _ in selector.select(self._next_timeout()):
                    if key.fileobj is self.socket:
                        self._accept(selector)
                    elif key.fileobj is self._wake_reader:
                        self._wake_reader.recv(64)
                    else:
                        self._read_head(selector, self._socket_of(key))
                self._expire(selector)
        finally:
            for connection in list(self._waiting):
                self._drop(selector, connection)
            selector.close()
            for _ in workers:
                self._jobs.put(None)
            self._stopped.set()

    def shutdown(self) -> None:
        """Stop `serve_forever` and wait for it (the workers end after their request)."""
        self._stopping.set()
        self._wake_writer.send(b"x")
        self._stopped.wait()

    def server_close(self) -> None:
        super().server_close()
        self._wake_reader.close()
        self._wake_writer.close()

    def open_connections(self) -> int:
        """Connections open now: waiting for their headers, and being served."""
        with self._lock:
            return len(self._waiting) + self._busy

    def take_head(self, connection: socket.socket) -> bytes:
        """What the selector read of `connection` (for `_Handler`, which reads the rest)."""
        with self._lock:
            return self._heads.pop(connection, b"")

    def handle_error(self, request: Any, client_address: Any) -> None:
        """A request that failed midway (a client gone, or too slow): one line, no traceback."""
        log.debug("metrics listener: a request from %s failed", client_address, exc_info=True)

    # -- the server's thread ---------------------------------------------------------------

    def _socket_of(self, key: selectors.SelectorKey) -> socket.socket:
        connection = key.fileobj
        assert isinstance(connection, socket.socket)
        return connection

    def _next_timeout(self) -> float | None:
        oldest = next(iter(self._waiting.values()), None)
        return None if oldest is None else max(0.0, oldest.deadline - time.monotonic())

    def _accept(self, selector: selectors.BaseSelector) -> None:
        try:
            connection, address = self.socket.accept()
        except OSError:  # gone before accepted, or out of descriptors: the next select says
            return
        if self.open_connections() >= self.max_connections:
            if not self._waiting:  # every one of them is being served: this one must wait
                connection.close()
                return
            self._drop(selector, next(iter(self._waiting)))
        connection.setblocking(False)
        self._waiting[connection] = _Waiting(address, time.monotonic() + self.idle_seconds)
        selector.register(connection, selectors.EVENT_READ)

    def _read_head(self, selector: selectors.BaseSelector, connection: socket.socket) -> None:
        waiting = self._waiting[connection]
        try:
            data = connection.recv(MAX_HEAD_BYTES)
        except BlockingIOError:
            return
        except OSError:
            data = b""
        waiting.head += data
        if not data or len(waiting.head) > MAX_HEAD_BYTES:
            self._drop(selector, connection)
        elif any(end in waiting.head for end in _END_OF_HEAD):
            selector.unregister(connection)
            del self._waiting[connection]
            connection.setblocking(True)
            connection.settimeout(self.idle_seconds)
            with self._lock:
                self._heads[connection] = bytes(waiting.head)
                self._busy += 1
            self._jobs.put((connection, waiting.address))

    def _expire(self, selector: selectors.BaseSelector) -> None:
        now = time.monotonic()
        while self._waiting:
            connection, waiting = next(iter(self._waiting.items()))
            if waiting.deadline > now:
                return
            self._drop(selector, connection)

    def _drop(self, selector: selectors.BaseSelector, connection: socket.socket) -> None:
        selector.unregister(connection)
        del self._waiting[connection]
        connection.close()

    # -- the workers -------------------------------------------------------------------------

    def _work(self) -> None:
        while (job := self._jobs.get()) is not None:
            connection, address = job
            try:
                self.finish_request(connection, address)
            except Exception:
                self.handle_error(connection, address)
            finally:
                self.shutdown_request(connection)
                with self._lock:
                    self._heads.pop(connection, None)
                    self._busy -= 1


class _Replay(io.RawIOBase):
    """A connection's bytes: first those the selector already read, then the socket's."""

    def __init__(self, head: bytes, connection: socket.socket) -> None:
        super().__init__()
        self._head, self._connection = memoryview(head), connection

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        if self._head:
            count = min(len(buffer), len(self._head))
            buffer[:count] = self._head[:count]
            self._head = self._head[count:]
            return count
        return self._connection.recv_into(buffer)


class _Handler(WSGIRequestHandler):
    """wsgiref's handler, reading the request from what the selector read before it."""

    def setup(self) -> None:
        super().setup()
        assert isinstance(self.server, BoundedWSGIServer)
        self.rfile.close()
        head = self.server.take_head(self.connection)
        self.rfile = io.BufferedReader(_Replay(head, self.connection))

    def log_message(self, format: str, *args: Any) -> None:
        """No access log: Prometheus scrapes every few seconds."""
