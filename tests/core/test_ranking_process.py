"""The service ranks a batch's "Suggested for you" in a process of its own
(`watcher.polling.ranking_process`), so that the ranking's memory leaves with it: a real child
over real pipes, on the test database, with `test_suggested_for_you`'s real papers. It ranks as
the hook does in process; it is killed when cancelled or past its time, its claim left for the
next read; a child that fails says so in the log, with no secret in it."""

from __future__ import annotations

import asyncio
import json
import resource
import subprocess
import sys
from collections.abc import AsyncIterator, Iterator
from contextlib import contextmanager
from datetime import UTC, datetime

import pytest
from sqlalchemy import Engine, create_engine
from sqlmodel import Session

from tests.core.test_suggested_for_you import (
    DAY,
    DISTRIBUTED,
    MAILING,
    ON,
    announce_sliwko,
    record,
    suggested_to,
    turn_on,
)
from tests.fakes.arxiv_api import FakeArxiv
from tests.harness.core_face import core_on
from tests.harness.delivery import eventually
from tests.harness.frequencies import seed_sample_frequencies
from watcher.clock import SYSTEM_CLOCK
from watcher.core import Core
from watcher.errors import WatcherError
from watcher.polling.ranking_process import ChildLog, RankingProcess, suggester_for
from watcher.polling.suggested_batch import BatchReport, BatchSuggester
from watcher.store.kept_records import record_json
from watcher.store.suggesting import Claim, SuggestionStore
from watcher.store.suggestion_tables import SuggestionBatch

TOKEN = "123456:AAE-the-bot-token-never-shown"


@pytest.fixture
async def core(engine: Engine) -> AsyncIterator[Core]:
    """Leszek Sliwko followed by `ON`, suggestions on, his papers announced; the frequencies
    the sample's."""
    with FakeArxiv([]) as fake:
        async with core_on(engine, fake, SYSTEM_CLOCK) as core:
            followed, _ = core.store.follow(["Leszek Sliwko"])
            core.chats.seen(ON, kind="private")
            core.chats.subscribe(ON, followed.id)
            seed_sample_frequencies(engine)
            await turn_on(core, (ON, 0))
            announce_sliwko(core)
            yield core


def ranking(database_url: str, **given: float) -> RankingProcess:
    return RankingProcess(database_url, SYSTEM_CLOCK, child_log=ChildLog(secrets=(TOKEN,)), **given)


def children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


@contextmanager
def batch_claim_held(engine: Engine) -> Iterator[None]:
    """Another writer holds the claim of `MAILING`, uncommitted: a ranking of it waits."""
    with Session(engine) as session:
        session.add(
            SuggestionBatch(mailing=MAILING, source="OAI", read_at=datetime.now(UTC), candidates=0)
        )
        session.flush()
        yield
        session.rollback()


async def child_started(
    ranker: RankingProcess,
) -> tuple[asyncio.Task[BatchReport], asyncio.subprocess.Process]:
    """The day's batch handed to `ranker`, once its child runs."""
    task = asyncio.create_task(
        ranker.after_batch(MAILING, [record(p) for p in DAY], source="listing")
    )
    await eventually(lambda: ranker.child is not None)
    assert ranker.child is not None
    return task, ranker.child


async def test_a_child_ranks_the_batch_as_the_hook_does_in_process(
    core: Core, engine: Engine, database_url: str
) -> None:
    before = children_cpu()
    report = await ranking(database_url).after_batch(
        MAILING, [record(p) for p in DAY], source="listing"
    )
    assert children_cpu() - before > 0.1  # ranked by a child (its imports alone take more)
    assert (report.claim, report.candidates, report.destinations, report.queued) == (
        Claim.NEW,
        len(DAY),
        1,
        1,
    )
    assert set(suggested_to(engine, ON)) <= DISTRIBUTED and suggested_to(engine, ON)
    again = await ranking(database_url).after_batch(MAILING, [record(p) for p in DAY], source="OAI")
    assert (again.claim, again.queued) == (Claim.FINISHED, 0)  # the second reader does nothing


async def test_a_cancelled_ranking_kills_its_child_and_the_next_read_ranks_the_batch(
    core: Core, engine: Engine, database_url: str
) -> None:
    ranker = ranking(database_url)
    with batch_claim_held(engine):
        task, child = await child_started(ranker)
        await asyncio.sleep(0.5)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        assert child.returncode is not None  # killed, not left behind
        assert ranker.child is None
    report = await ranking(database_url).after_batch(
        MAILING, [record(p) for p in DAY], source="OAI"
    )
    assert (report.claim, report.queued) == (Claim.NEW, 1)  # nothing was lost


async def test_a_child_past_its_time_is_killed_and_said_so(
    core: Core, engine: Engine, database_url: str
) -> None:
    ranker = ranking(database_url, timeout=1.0)
    with batch_claim_held(engine):
        task, child = await child_started(ranker)
        with pytest.raises(WatcherError, match="took over 1 s and was stopped"):
            await task
        assert child.returncode is not None


async def test_a_child_that_fails_says_so_in_the_log_without_a_secret(
    capfd: pytest.CaptureFixture[str],
) -> None:
    """No server listens on port 1: the child cannot connect. It logs as the service was told
    to (here LOG_FORMAT=json: one object a line), with the secrets masked."""
    password = "the-database-password"
    url = f"postgresql+psycopg://postgres:{password}@127.0.0.1:1/test"
    ranker = RankingProcess(
        url,
        SYSTEM_CLOCK,
        child_log=ChildLog(format="json", secrets=(TOKEN,)),
    )
    with pytest.raises(WatcherError, match="exited with 1; its error is logged above") as raised:
        await ranker.after_batch(MAILING, [record(DAY[0])], source="listing")
    logged = capfd.readouterr().err
    lines = [json.loads(line) for line in logged.splitlines() if line.strip()]
    failed = [line for line in lines if line["level"] == "ERROR"]
    assert [line["message"] for line in failed] == [
        f"ranking the suggestions of the mailing of {MAILING} failed"
    ]
    assert "Connection refused" in logged  # the cause, in the traceback
    for secret in (password, TOKEN):
        assert secret not in logged and secret not in str(raised.value)


async def test_a_batch_cut_short_on_its_way_to_the_child_is_not_claimed(
    core: Core, engine: Engine, database_url: str
) -> None:
    """The service stopped while it wrote the papers: the child claims nothing, so the next read
    of the mailing ranks the whole batch."""
    header = ranking(database_url).header(MAILING, source="listing", papers=len(DAY))
    child = await asyncio.to_thread(
        subprocess.run,
        [sys.executable, "-m", "watcher.polling.ranking_process"],
        input=f"{json.dumps(header)}\n{record_json(record(DAY[0]))}\n",
        capture_output=True,
        text=True,
        check=False,
    )
    assert (child.returncode, child.stdout) == (1, "")
    assert f"1 of its {len(DAY)} papers came" in child.stderr
    with Session(engine) as session:
        assert session.get(SuggestionBatch, MAILING) is None


async def test_an_empty_batch_starts_no_child(database_url: str) -> None:
    before = children_cpu()
    report = await ranking(database_url).after_batch(MAILING, [], source="listing")
    assert report.claim is None and children_cpu() == before


@pytest.mark.parametrize(
    ("url", "in_process"),
    [("sqlite://", True), ("sqlite:///:memory:", True), ("sqlite:////data/w.db", False)],
)
def test_the_service_ranks_in_a_child_unless_the_database_lives_in_its_memory(
    url: str, in_process: bool
) -> None:
    store = SuggestionStore(create_engine("sqlite://"))
    chosen = suggester_for(url, store, SYSTEM_CLOCK, ChildLog())
    assert isinstance(chosen, BatchSuggester if in_process else RankingProcess)
