"""Running the real `arxiv-watcher` entry point as a subprocess, with a clean environment, or its
`main` in this process (`run_cli_here`: the same parser, settings and commands, without a new
interpreter's imports, which cost more than most commands); and the service's settings against
the fake arXiv and the fake Bot API."""

from __future__ import annotations

import contextlib
import io
import logging
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import IO

from tests.fakes.arxiv_api import FakeArxiv
from tests.fakes.telegram import FakeTelegram
from tests.harness.clocks import TurnedClock
from tests.harness.paths import REPO
from tests.harness.patience import PATIENCE
from watcher.settings import Settings

SETTING_NAMES = {name.upper() for name in Settings.model_fields}


def clean_env(**settings: str) -> dict[str, str]:
    """The test runner's environment without any arxiv-watcher setting, plus `settings`.

    The listings are off unless `settings` turn them on: by default they are arXiv's own, and a
    test started within hours of an announcement would read them (`EARLY_LISTINGS`). The polls
    run every POLL_INTERVAL unless `settings` say POLL_SCHEDULE=calendar: most tests add a paper
    and wait for the next poll, which on arXiv's calendar would come hours later."""
    env = {k: v for k, v in os.environ.items() if k.upper() not in SETTING_NAMES}
    env["EARLY_LISTINGS"] = "off"
    env["POLL_SCHEDULE"] = "interval"
    env.update(settings)
    return env


def run_cli(
    *args: str, cwd: Path, timeout: float = 60, **settings: str
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "watcher", *args],
        cwd=cwd,
        env=clean_env(**settings),
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )


def run_cli_here(*args: str, cwd: Path, **settings: str) -> subprocess.CompletedProcess[str]:
    """`arxiv-watcher ARGS` run by `watcher.cli.command_line.main` in this process, in `cwd`, with
    the environment `run_cli` would give the child; answered as `run_cli` answers. The environment,
    the working directory and the logging set-up the command changes are put back afterwards."""
    from watcher.cli.command_line import main  # the CLI's imports only for the tests that run it

    environ, here = dict(os.environ), Path.cwd()
    root = logging.getLogger()
    handlers, level = root.handlers[:], root.level
    levels = {name: logging.getLogger(name).level for name in logging.root.manager.loggerDict}
    out, err = io.StringIO(), io.StringIO()
    os.environ.clear()
    os.environ.update(clean_env(**settings))
    os.chdir(cwd)
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                code = main(list(args))
            except SystemExit as exit:  # argparse's usage errors, --help and --version
                code = exit.code if isinstance(exit.code, int) else 1
    finally:
        os.chdir(here)
        os.environ.clear()
        os.environ.update(environ)
        root.handlers[:] = handlers
        root.setLevel(level)
        for name, was in levels.items():
            logging.getLogger(name).setLevel(was)
    said = out.getvalue(), err.getvalue()
    return subprocess.CompletedProcess(["arxiv-watcher", *args], code, *said)


class ServiceProcess:
    """`arxiv-watcher run` as a child process whose output lines are collected as they come.

    Its DATABASE_URL is migrated here first: a start on a new database would otherwise migrate
    it in a child of its own, a third interpreter whose imports cost more than the migrations
    (that path has its own tests: tests/core/test_lean_start.py, tests/end_to_end/test_crash.py).
    With a `clock`, the service runs on that clock, which the test turns
    (`tests.harness.clocked_service`), instead of the wall clock.
    """

    def __init__(self, *, cwd: Path, clock: TurnedClock | None = None, **settings: str) -> None:
        if settings.get("DATABASE_URL"):
            from watcher.runtime.db import (
                open_database,  # Alembic, for the tests that start services
            )

            open_database(settings["DATABASE_URL"]).dispose()
        command = [sys.executable, "-m", "watcher", "run"]
        env = clean_env(**settings)
        if clock is not None:
            command = [sys.executable, "-m", "tests.harness.clocked_service", str(clock.path)]
            env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO), env.get("PYTHONPATH")]))
        self.process = subprocess.Popen(
            command,
            cwd=cwd,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        self.stdout: list[str] = []
        self.stderr: list[str] = []
        self._readers = [
            threading.Thread(target=self._collect, args=(stream, lines), daemon=True)
            for stream, lines in (
                (self.process.stdout, self.stdout),
                (self.process.stderr, self.stderr),
            )
        ]
        for reader in self._readers:
            reader.start()

    @staticmethod
    def _collect(stream: IO[str] | None, lines: list[str]) -> None:
        assert stream is not None
        for line in stream:
            lines.append(line.rstrip("\n"))

    def wait_for(self, predicate: Callable[[], bool], *, timeout: float = PATIENCE) -> None:
        deadline = time.monotonic() + timeout
        while not predicate():
            if self.process.poll() is not None:
                raise AssertionError(f"service exited ({self.process.returncode}): {self.output}")
            if time.monotonic() > deadline:
                raise AssertionError(f"timed out waiting; output so far: {self.output}")
            time.sleep(0.05)

    def stop(self, signum: int = signal.SIGTERM, *, timeout: float = PATIENCE) -> int:
        if self.process.poll() is None:
            self.process.send_signal(signum)
        try:
            code = self.process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.process.kill()
            raise
        for reader in self._readers:
            reader.join(timeout=5)
        return code

    @property
    def output(self) -> str:
        return "\n".join(self.stdout + self.stderr)


def service_on_fakes(
    arxiv: FakeArxiv,
    telegram: FakeTelegram,
    *,
    cwd: Path,
    database_url: str,
    clock: TurnedClock | None = None,
    **settings: str,
) -> ServiceProcess:
    """`arxiv-watcher run` on `database_url` against the fakes: no politeness delay between arXiv
    requests, a round a second; `settings` add to these or replace them. `clock`: the one the
    test turns (`ServiceProcess`)."""
    environment = {
        "DATABASE_URL": database_url,
        "ARXIV_API_URL": arxiv.url,
        "ARXIV_MIN_INTERVAL": "0",
        "POLL_INTERVAL": "1",
        "TELEGRAM_BOT_TOKEN": telegram.token,
        "TELEGRAM_API_URL": telegram.base_url,
    }
    return ServiceProcess(cwd=cwd, clock=clock, **{**environment, **settings})
