"""The instance status file: whether a running service is active or a standby, for `health`.

`arxiv-watcher health` is a process of its own (Docker runs it inside the container), so it
cannot ask the service. The service leaves a file in DATA_DIR instead,
`arxiv-watcher.<pid>.status`, rewritten when its role changes and every few seconds.
A file not rewritten for `STALE_AFTER` seconds belongs to a process that died or hangs: it is
ignored, and removed by the next service that starts there. One file per process, so two
services sharing DATA_DIR (two `make run` in one directory) each have their own.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import time
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from watcher.runtime.leader import Role

log = logging.getLogger(__name__)

STALE_AFTER = 30.0  # seconds without a rewrite: the process died or hangs
REWRITE_EVERY = 5.0  # seconds between rewrites of an unchanged role
PATTERN = "arxiv-watcher.*.status"


@dataclass(frozen=True, slots=True)
class InstanceState:
    role: Role
    pid: int
    since: datetime  # when it took this role


class StatusFile:
    """This process's status file. Failing to write it is logged once, never fatal."""

    def __init__(self, directory: Path, *, pid: int | None = None) -> None:
        self.pid = os.getpid() if pid is None else pid
        self.path = directory / f"arxiv-watcher.{self.pid}.status"
        self._role: Role | None = None
        self._since = datetime.now(UTC)
        self._failing = False
        self._written = 0.0  # time.monotonic() of the last write

    def write(self, role: Role) -> None:
        """Record `role`; called every second or two, it rewrites the file every few seconds."""
        if role != self._role:
            self._role, self._since = role, datetime.now(UTC)
        elif time.monotonic() - self._written < REWRITE_EVERY and not self._failing:
            return
        self._written = time.monotonic()
        state = {"role": role, "pid": self.pid, "since": self._since.isoformat()}
        temporary = self.path.with_suffix(".tmp")
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            temporary.write_text(json.dumps(state))
            os.replace(temporary, self.path)  # health never reads half a file
        except OSError as error:
            if not self._failing:
                log.warning(
                    "cannot write %s (%s): `arxiv-watcher health` cannot tell this instance's "
                    "role; retrying",
                    self.path,
                    error.strerror,
                )
            self._failing = True
            return
        if self._failing:
            log.info("status file %s written again", self.path)
        self._failing = False

    def remove(self) -> None:
        with contextlib.suppress(OSError):
            self.path.unlink(missing_ok=True)


def _files(directory: Path) -> list[tuple[Path, float]]:
    found = []
    for path in directory.glob(PATTERN):
        with contextlib.suppress(OSError):  # removed meanwhile
            found.append((path, path.stat().st_mtime))
    return found


def live_instances(directory: Path) -> list[InstanceState]:
    """The services that wrote their status into `directory` lately, active ones first."""
    now = time.time()
    states = []
    for path, modified in _files(directory):
        if now - modified > STALE_AFTER:
            continue
        try:
            data = json.loads(path.read_text())
            role = data["role"]
            if role not in ("active", "standby"):
                continue
            states.append(
                InstanceState(role, int(data["pid"]), datetime.fromisoformat(data["since"]))
            )
        except (OSError, ValueError, KeyError, TypeError):
            continue  # not ours, or being replaced
    return sorted(states, key=lambda state: (state.role != "active", state.pid))


def remove_stale(directory: Path) -> None:
    """Remove files left by services that died (SIGKILL leaves them)."""
    now = time.time()
    for path, modified in _files(directory):
        if now - modified > STALE_AFTER:
            with contextlib.suppress(OSError):
                path.unlink()
