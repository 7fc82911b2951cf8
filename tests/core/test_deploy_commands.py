"""Every `arxiv-watcher` command that docker-compose.yml and the Dockerfile run exists, asked of
the real, packaged CLI.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from tests.harness.deploy_files import COMMAND, setting_names, subcommands_run
from tests.harness.paths import REPO

# -- the CLI the files call ---------------------------------------------------------------------


def test_the_files_run_the_service_the_migrations_and_the_health_check() -> None:
    assert {("run",), ("db", "upgrade"), ("health",)} <= set(subcommands_run())


def test_the_command_the_files_call_is_the_packaged_console_script() -> None:
    pyproject = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))
    assert pyproject["project"]["scripts"][COMMAND] == "watcher.cli.command_line:main"


@pytest.mark.slow
@pytest.mark.parametrize("subcommand", subcommands_run(), ids=" ".join)
def test_each_command_the_files_run_exists(subcommand: tuple[str, ...], tmp_path: Path) -> None:
    environ = {k: v for k, v in os.environ.items() if k.upper() not in setting_names()}
    result = subprocess.run(
        [sys.executable, "-m", "watcher", *subcommand, "--help"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env=environ,
        timeout=90,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    assert "usage:" in result.stdout
