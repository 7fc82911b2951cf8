"""Leadership: of all the services on one database, exactly one is active at a time.

Two `arxiv-watcher run` on one database (`docker compose up --scale bot=2`, a rolling deploy,
a second `make run`) would poll arXiv twice, send every announcement twice (nothing claims a
delivery before sending it), and fight over Telegram's getUpdates (409 Conflict). So the service
first takes a lock held by the database's side, with no extra server:

- PostgreSQL: a session advisory lock, on a connection of its own (never one of the pool, which
  would hand it back and forth). Its key is a hash of `current_database()` and
  `current_schema()`, so services on other schemas of one database (the tests run so) do not
  block each other. The server drops the lock when that session ends: a SIGKILLed process's
  socket closes, its backend exits, and the lock is free.
- SQLite: `fcntl.flock` on a file beside the database (`arxiv-watcher.db.lock`). The kernel drops
  it when the process dies, SIGKILL included. fcntl rather than the `filelock` library: the
  check that we still hold it needs the open descriptor (compare its inode with the path's, in
  case someone deleted the file), which filelock keeps private, and its blocking wait with a
  timeout is of no use to an asyncio loop that only ever tries without waiting. The file is
  never deleted: deleting a locked file lets a second process lock a new one.
- An in-memory SQLite database is one process's own: nothing to lock.

`Leadership` drives a lock from the event loop: `acquire` waits as a standby (one log line, a
try every `RETRY_SECONDS`), `watch` returns once the lock is lost (checked every
`CHECK_SECONDS`). The service stops polling and sending as soon as `watch` returns. A lock taken
over waits one and a half checks before it is used: a previous holder that still runs (the
server ended its session) has noticed by then, so only its sends in flight can be doubled.
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import fcntl
import hashlib
import logging
import os
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, Protocol

from sqlalchemy.engine import make_url
from sqlalchemy.exc import ArgumentError

from watcher.errors import ConfigError, first_line
from watcher.runtime.db import normalise_url, safe_url

if TYPE_CHECKING:
    import psycopg  # imported where used: a SQLite service never loads it (10 MB resident)

log = logging.getLogger(__name__)

Role = Literal["standby", "active"]

RETRY_SECONDS = 2.0  # a standby tries the lock this often: takeover within a few seconds
RETRY_MAX_SECONDS = 30.0  # between tries while the database itself fails
CHECK_SECONDS = 1.0  # the active instance checks this often that it still holds the lock
CHECK_TIMEOUT = 15.0  # a check that takes longer counts as a lost lock
# The lock connection notices a dead server or network within about this many seconds, rather
# than the kernel's default of hours: its queries must fail rather than hang.
PG_KEEPALIVE: dict[str, Any] = {
    "connect_timeout": 10,
    "keepalives": 1,
    "keepalives_idle": 5,
    "keepalives_interval": 2,
    "keepalives_count": 3,
    "tcp_user_timeout": 10_000,  # milliseconds
}

# The server's side of the same: a holder whose host died without closing its socket would
# otherwise keep the lock for the kernel's two hours. The active instance's check every few
# seconds keeps its session from ever being idle that long (idle_session_timeout: 14 and later).
PG_SESSION_SETTINGS = (
    "SET idle_session_timeout = '20s'",
    "SET tcp_keepalives_idle = 5",
    "SET tcp_keepalives_interval = 2",
    "SET tcp_keepalives_count = 3",
)


class LeaderLock(Protocol):
    """A lock at most one process holds. Its methods block: run them off the event loop."""

    @property
    def description(self) -> str:
        """What is locked, fit for a log line (no password)."""
        ...

    def try_acquire(self) -> bool:
        """Take the lock if it is free; False when another process holds it."""
        ...

    def still_held(self) -> bool:
        """False (or an exception) once the lock is no longer ours."""
        ...

    def release(self) -> None:
        """Give the lock up; safe to call when it is not held."""
        ...


class FileLeaderLock:
    """An exclusive `flock` on a file beside the SQLite database."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._fd: int | None = None

    @property
    def description(self) -> str:
        return f"lock file {self.path}"

    def try_acquire(self) -> bool:
        if self._fd is not None:
            return True
        try:
            fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
        except OSError as error:
            raise ConfigError(
                f"DATABASE_URL: the lock file {self.path} beside the database cannot be "
                f"opened: {error.strerror}"
            ) from None
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError as error:
            os.close(fd)
            if error.errno in (errno.EWOULDBLOCK, errno.EAGAIN, errno.EACCES):
                return False
            raise
        self._fd = fd
        return True

    def still_held(self) -> bool:
        if self._fd is None:
            return False
        held, on_disk = os.fstat(self._fd), os.stat(self.path)  # FileNotFoundError: deleted
        return (held.st_dev, held.st_ino) == (on_disk.st_dev, on_disk.st_ino)

    def release(self) -> None:
        fd, self._fd = self._fd, None
        if fd is not None:
            os.close(fd)  # closing the only descriptor drops the flock


class PostgresLeaderLock:
    """A session advisory lock keyed on the database and schema, on a dedicated connection."""

    def __init__(self, url: str) -> None:
        parsed = make_url(url)
        # The same connection arguments as the engine's (host, options=search_path, ...).
        _, self._connect_args = parsed.get_dialect()().create_connect_args(parsed)
        self._shown = safe_url(url)
        self._connection: psycopg.Connection[Any] | None = None
        self._key: int | None = None
        self._held = False

    @property
    def description(self) -> str:
        return f"advisory lock on {self._shown}"

    @staticmethod
    def key_for(database: str, schema: str) -> int:
        """A signed 64-bit advisory lock key for one schema of one database."""
        digest = hashlib.blake2b(
            f"arxiv-watcher leader\0{database}\0{schema}".encode(), digest_size=8
        ).digest()
        return int.from_bytes(digest, "big", signed=True)

    def try_acquire(self) -> bool:
        import psycopg

        if self._held:
            return True
        if self._connection is None:
            # Autocommit: a session lock needs no transaction, and an idle open one would hold
            # back vacuum for as long as the service runs. A standby keeps its connection
            # between tries rather than connecting every few seconds.
            self._connection = psycopg.connect(
                **{**self._connect_args, **PG_KEEPALIVE}, autocommit=True
            )
            for setting in PG_SESSION_SETTINGS:
                with contextlib.suppress(psycopg.Error):  # an older server lacks one: fine
                    self._connection.execute(setting)
        try:
            if self._key is None:
                row = self._connection.execute(
                    "SELECT current_database(), current_schema()"
                ).fetchone()
                assert row is not None
                self._key = self.key_for(str(row[0]), str(row[1]))
            locked = self._connection.execute(
                "SELECT pg_try_advisory_lock(%s)", (self._key,)
            ).fetchone()
        except BaseException:
            self.release()
            raise
        self._held = bool(locked and locked[0])
        return self._held

    def still_held(self) -> bool:
        if self._connection is None or not self._held:
            return False
        # pg_locks shows a bigint key split into two oids (high, low) with objsubid 1.
        row = self._connection.execute(
            """
            SELECT EXISTS (
                SELECT 1 FROM pg_locks
                WHERE locktype = 'advisory' AND pid = pg_backend_pid() AND granted
                  AND objsubid = 1
                  AND classid = ((%(key)s >> 32) & 4294967295)::oid
                  AND objid = (%(key)s & 4294967295)::oid
            )
            """,
            {"key": self._key},
        ).fetchone()
        return bool(row and row[0])

    def release(self) -> None:
        import psycopg

        connection, held = self._connection, self._held
        self._connection, self._held = None, False
        if connection is None:
            return
        with contextlib.suppress(psycopg.Error):
            if held:
                # Ending the session drops the lock too, but only once the server has seen the
                # session end: unlocking first frees it before the next instance's try.
                connection.execute("SELECT pg_advisory_unlock(%s)", (self._key,))
        with contextlib.suppress(psycopg.Error):
            connection.close()  # a dead connection has dropped the lock already


class NoLeaderLock:
    """For an in-memory database: no other process can share it."""

    description = "no lock (in-memory database)"

    def try_acquire(self) -> bool:
        return True

    def still_held(self) -> bool:
        return True

    def release(self) -> None:
        return None


def leader_lock(database_url: str) -> LeaderLock:
    """The lock that makes one service active among all those on `database_url`."""
    url = normalise_url(database_url)
    try:
        parsed = make_url(url)
    except ArgumentError:
        raise ConfigError("DATABASE_URL is not a database URL") from None
    backend = parsed.get_backend_name()
    if backend == "postgresql":
        return PostgresLeaderLock(url)
    if backend == "sqlite":
        database = parsed.database or ""
        if not database or database == ":memory:":
            return NoLeaderLock()
        return FileLeaderLock(Path(database + ".lock"))
    raise ConfigError(f"DATABASE_URL names an unsupported database ({backend})")


class Leadership:
    """Waits as a standby until `lock` is ours, then watches that it stays ours.

    `on_role(role)` is called at every try and every check: the service keeps its status file
    (read by `arxiv-watcher health`) fresh with it.
    """

    def __init__(
        self,
        lock: LeaderLock,
        *,
        on_role: Callable[[Role], None] = lambda role: None,
        retry_seconds: float = RETRY_SECONDS,
        check_seconds: float = CHECK_SECONDS,
    ) -> None:
        self.lock = lock
        self.on_role = on_role
        self.retry_seconds = retry_seconds
        self.check_seconds = check_seconds

    async def acquire(self, *, until: asyncio.Event) -> bool:
        """Wait until the lock is ours (True), or until `until` is set (False).

        A lock taken over from another instance is not used at once: the previous holder may
        still run, its session ended by the server while it waits for its next check. A pause
        of one and a half checks lets it notice and stop starting sends first, so only the
        sends it had in flight can go out twice.
        """
        said_standby = False
        failures = 0
        while not until.is_set():
            pause = self.retry_seconds
            try:
                if await asyncio.to_thread(self.lock.try_acquire):
                    self.on_role("active")
                    log.info("active: this instance holds the %s", self.lock.description)
                    if said_standby or failures:
                        await _wait(until, self.check_seconds * 1.5)
                    if until.is_set():
                        await self.release()
                        return False
                    return True
                failures = 0
                if not said_standby:
                    log.info(
                        "standby: another arxiv-watcher is active (%s is taken); this one takes "
                        "over when it stops, trying every %.0f s",
                        self.lock.description,
                        self.retry_seconds,
                    )
                    said_standby = True
            except ConfigError:
                raise
            except Exception as error:
                # The database may be restarting: try again, less often while it keeps failing.
                failures += 1
                pause = min(RETRY_MAX_SECONDS, self.retry_seconds * 2.0 ** min(failures - 1, 10))
                log.warning(
                    "cannot take the %s (%s); trying again in %.0f s",
                    self.lock.description,
                    first_line(error),
                    pause,
                )
            self.on_role("standby")
            await _wait(until, pause)
        return False

    async def watch(self) -> None:
        """Return once the lock is no longer ours (a lost connection, a deleted lock file)."""
        while True:
            await asyncio.sleep(self.check_seconds)
            try:
                async with asyncio.timeout(CHECK_TIMEOUT):
                    held = await asyncio.to_thread(self.lock.still_held)
            except TimeoutError:
                log.error(
                    "lost the %s: checking it took more than %.0f s; stopping polling and sending",
                    self.lock.description,
                    CHECK_TIMEOUT,
                )
                return
            except Exception as error:
                log.error(
                    "lost the %s (%s); stopping polling and sending",
                    self.lock.description,
                    first_line(error),
                )
                return
            if not held:
                log.error("lost the %s; stopping polling and sending", self.lock.description)
                return
            self.on_role("active")

    async def release(self) -> None:
        await asyncio.to_thread(self.lock.release)


async def _wait(event: asyncio.Event, seconds: float) -> None:
    """Sleep `seconds`, or less if `event` is set meanwhile."""
    with contextlib.suppress(TimeoutError):
        async with asyncio.timeout(seconds):
            await event.wait()
