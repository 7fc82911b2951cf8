"""Running the real `arxiv-watcher` entry point as a subprocess, with a clean environment."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from watcher.settings import Settings

SETTING_NAMES = {name.upper() for name in Settings.model_fields}


def clean_env(**settings: str) -> dict[str, str]:
    """The test runner's environment without any arxiv-watcher setting, plus `settings`."""
    env = {k: v for k, v in os.environ.items() if k.upper() not in SETTING_NAMES}
    env.update(settings)
    return env


def run_cli(*args: str, cwd: Path, timeout: float = 60, **settings: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "watcher", *args],
        cwd=cwd,
        env=clean_env(**settings),
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )
