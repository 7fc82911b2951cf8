"""`arxiv-watcher run` on a clock the test turns: `python -m tests.harness.clocked_service PATH`.

The same settings, logging and service as the real command (`watcher.cli.command_line`), with one
difference: `run_service` is given a `tests.harness.clocks.TurnedClock` on the offset file
PATH instead of the wall clock. `ServiceProcess(clock=...)` starts it.
"""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

from tests.harness.clocks import TurnedClock
from watcher.logs import setup_logging
from watcher.runtime.service import run_service
from watcher.settings import load_settings


def main(offset_file: str) -> int:
    settings = load_settings()
    setup_logging(settings.log_level, secrets=settings.secrets, log_format=settings.log_format)
    asyncio.run(run_service(settings, clock=TurnedClock(Path(offset_file))))
    return 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:]))
