"""A read batch's "Suggested for you" ranked in a process of its own (issue 32).

Ranking a 2,000-paper batch for 10,000 destinations holds about 30 MB more than the service
holds at rest (bench/README.md), and CPython keeps most of what a process once held: ranked in
the service, every batch would leave it that much larger for good. So the service ranks in a
child, `python -m watcher.polling.ranking_process`, which runs the batch hook
(`watcher.polling.suggested_batch.BatchSuggester`) and exits; the service's memory stays where
it was, and the ranking's peak is the child's alone. A database only this process can see (an
in-memory SQLite) is ranked in process instead (`suggester_for`).

The pipe, one way each:
- standard input: a header line (JSON: the database URL, the mailing, the reader, how many papers
  follow, the time, how to log, what to redact), then the batch's papers, a line each, as a batch
  keeps them (`watcher.store.kept_records`); a child that gets fewer (the service stopped while
  it wrote) claims nothing;
- standard output: one JSON line, the `BatchReport`'s figures;
- standard error: the child's log, as the service logs (format, level, redaction).

A child that fails, or runs past `TIMEOUT`, is stopped and leaves its claim unfinished: the next
reader of the mailing finishes the ranking (`suggested_batch`), and `RankingProcess.after_batch`
raises `WatcherError`, which the poll logs. Cancelled (the service stops), it kills the child.
"""

from __future__ import annotations

import asyncio
import json
import logging
import sys
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import date, datetime, timedelta

from sqlalchemy import make_url

from watcher.arxiv.records import Record
from watcher.errors import WatcherError
from watcher.logs import LogFormat, setup_logging
from watcher.polling.suggested_batch import BatchReport, BatchSuggester, Suggester
from watcher.runtime.db import create_db_engine
from watcher.store.kept_records import record_json, record_of
from watcher.store.suggesting import Claim, SuggestionStore

log = logging.getLogger(__name__)

TIMEOUT = 900.0  # seconds a child may rank one batch (10,000 chats take about one minute)
_KILLED_WAIT = 10.0  # seconds to wait for a killed child to be reaped


@dataclass(frozen=True, slots=True)
class ChildLog:
    """How the child logs: as the service does."""

    level: str = "INFO"
    format: LogFormat = "text"
    secrets: tuple[str, ...] = ()


class RankingProcess:
    """`after_batch` in a child process (see the module docstring)."""

    def __init__(
        self,
        database_url: str,
        clock: Callable[[], datetime],
        *,
        child_log: ChildLog = ChildLog(),
        timeout: float = TIMEOUT,
    ) -> None:
        self.database_url = database_url
        self.clock = clock
        self.child_log = child_log
        self.timeout = timeout
        self.child: asyncio.subprocess.Process | None = None  # the one ranking now, if any

    async def after_batch(
        self, mailing: date, records: Sequence[Record], *, source: str
    ) -> BatchReport:
        if not records:
            return BatchReport(mailing)
        header = self.header(mailing, source=source, papers=len(records))
        child = self.child = await asyncio.create_subprocess_exec(
            sys.executable,
            "-m",
            __name__,
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
        )
        try:
            answer = await asyncio.wait_for(self._talk(child, header, records), self.timeout)
        except TimeoutError:
            await _kill(child)
            raise WatcherError(
                f"ranking the suggestions of the mailing of {mailing} took over "
                f"{self.timeout:g} s and was stopped; the next read of the mailing finishes it"
            ) from None
        except BaseException:  # cancelled, or the pipe broke: no child is left behind
            await _kill(child)
            raise
        finally:
            self.child = None
        if child.returncode != 0 or not answer:
            raise WatcherError(
                f"ranking the suggestions of the mailing of {mailing} failed (the ranking "
                f"process exited with {child.returncode}; its error is logged above); the next "
                "read of the mailing finishes it"
            )
        found = json.loads(answer)
        return BatchReport(
            mailing,
            claim=Claim(found["claim"]) if found["claim"] else None,
            candidates=found["candidates"],
            destinations=found["destinations"],
            queued=found["queued"],
        )

    def header(self, mailing: date, *, source: str, papers: int) -> dict[str, object]:
        """The first line the child reads: where and what to rank, and how to log."""
        password = make_url(self.database_url).password
        return {
            "database_url": self.database_url,
            "mailing": mailing.isoformat(),
            "source": source,
            "papers": papers,
            "now": self.clock().isoformat(),
            "log_level": self.child_log.level,
            "log_format": self.child_log.format,
            "secrets": [*self.child_log.secrets, *([str(password)] if password else [])],
        }

    @staticmethod
    async def _talk(
        child: asyncio.subprocess.Process, header: Mapping[str, object], records: Sequence[Record]
    ) -> bytes:
        """Write the header and the papers, then read the answer until the child exits."""
        assert child.stdin is not None and child.stdout is not None
        try:
            child.stdin.write(json.dumps(header).encode() + b"\n")
            for record in records:
                child.stdin.write(record_json(record).encode() + b"\n")
                await child.stdin.drain()
            child.stdin.close()
        except (BrokenPipeError, ConnectionResetError):
            pass  # it exited early: its exit code says why
        answer = await child.stdout.read()
        await child.wait()
        return answer.strip()


async def _kill(child: asyncio.subprocess.Process) -> None:
    if child.returncode is None:
        child.kill()
        await asyncio.wait_for(child.wait(), _KILLED_WAIT)


def suggester_for(
    database_url: str, store: SuggestionStore, clock: Callable[[], datetime], child_log: ChildLog
) -> Suggester:
    """The service's: a child process, unless the database lives in this process only."""
    url = make_url(database_url)
    if url.get_backend_name() == "sqlite" and url.database in (None, "", ":memory:"):
        return BatchSuggester(store, clock)
    return RankingProcess(database_url, clock, child_log=child_log)


def main() -> int:
    """The child: rank the batch on standard input, print the report (see the docstring)."""
    started = time.monotonic()
    header = json.loads(sys.stdin.readline())
    setup_logging(header["log_level"], secrets=header["secrets"], log_format=header["log_format"])
    now = datetime.fromisoformat(header["now"])
    records = [record_of(line) for line in sys.stdin if line.strip()]
    if len(records) != header["papers"]:  # the service stopped while it wrote: claim nothing
        log.error(
            "ranking the suggestions of the mailing of %s: %d of its %d papers came; "
            "the next read of the mailing ranks it",
            header["mailing"], len(records), header["papers"],
        )  # fmt: skip
        return 1
    try:
        engine = create_db_engine(header["database_url"])
        suggester = BatchSuggester(
            SuggestionStore(engine),
            lambda: now + timedelta(seconds=time.monotonic() - started),
            one_thread=True,
        )
        ranking = suggester.after_batch(
            date.fromisoformat(header["mailing"]), records, source=header["source"]
        )
        del records  # the hook's is the only copy: it lets the papers go once it has prepared
        report = asyncio.run(ranking)
        engine.dispose()
    except Exception:
        log.exception("ranking the suggestions of the mailing of %s failed", header["mailing"])
        return 1
    print(
        json.dumps(
            {
                "claim": report.claim.value if report.claim else None,
                "candidates": report.candidates,
                "destinations": report.destinations,
                "queued": report.queued,
            }
        )
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
