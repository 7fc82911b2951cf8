"""The import and export use cases of the core's face (`Core.imports`) on a real database: a
file is planned, then applied only while it still plans the same; a stale digest imports
nothing; an author id arXiv does not know is skipped, spending one of the chat's look-ups; the
export carries what was imported, stamped by the core's clock."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from datetime import UTC, datetime

import pytest
from sqlalchemy import Engine

from tests.fakes.arxiv_api import FakeArxiv
from tests.harness.core_face import core_on
from watcher.core import Core
from watcher.core.imports import Imported, ImportOutdated
from watcher.follows.follow_list import read_text
from watcher.store.budgets import LookupBudgets

CHAT, TOPIC = 42, 3
NOW = datetime(2026, 12, 3, 9, 0, tzinfo=UTC)
FILE = "# timezone: Asia/Tokyo\nsubscribe Yemao Xu\nwatch rdma in cs.DC\n"


@pytest.fixture
def fake() -> Iterator[FakeArxiv]:
    with FakeArxiv([]) as server:
        yield server


@pytest.fixture
async def core(engine: Engine, fake: FakeArxiv) -> AsyncIterator[Core]:
    async with core_on(engine, fake, lambda: NOW) as core:
        core.chats.seen(CHAT, kind="supergroup")
        yield core


async def test_a_plan_is_applied_whole_and_the_export_carries_it(core: Core) -> None:
    plan = await core.imports.plan(read_text(FILE), CHAT, TOPIC)
    assert [str(entry.rule) for entry in plan.adds] == ["Yemao Xu", "rdma in cs.DC"]
    assert dict(plan.settings) == {"timezone": "Asia/Tokyo"}
    assert core.chats.subscribed_ids(CHAT, thread_id=TOPIC) == []  # planning changes nothing
    imported = await core.imports.apply(read_text(FILE), CHAT, TOPIC, plan.digest)
    assert isinstance(imported, Imported) and imported.plan == plan
    assert len(core.chats.subscribed_ids(CHAT, thread_id=TOPIC)) == 2
    assert (await core.chat_settings.digest(CHAT, TOPIC)).zone_name == "Asia/Tokyo"
    assert (await core.chat_settings.digest(CHAT, 0)).zone_name == "UTC"  # the topic's only
    exported = await core.imports.export(CHAT, TOPIC, opml=False)
    text = exported.data.decode()
    assert "exported 2026-12-03 09:00 UTC" in text and "# timezone: Asia/Tokyo" in text
    assert "Yemao Xu" in text and "rdma" in text
    again = await core.imports.apply(read_text(FILE), CHAT, TOPIC, plan.digest)
    assert isinstance(again, ImportOutdated)  # done: the file plans nothing more here


async def test_a_digest_that_no_longer_matches_imports_nothing(core: Core) -> None:
    plan = await core.imports.plan(read_text(FILE), CHAT, TOPIC)
    changed = FILE.replace("Yemao Xu", "Ann Other")  # what the press reads is another file
    outcome = await core.imports.apply(read_text(changed), CHAT, TOPIC, plan.digest)
    assert isinstance(outcome, ImportOutdated)
    assert core.chats.subscribed_ids(CHAT, thread_id=TOPIC) == []
    assert (await core.chat_settings.digest(CHAT, TOPIC)).zone_name == "UTC"


async def test_an_author_id_arxiv_does_not_know_is_skipped_for_one_look_up(
    core: Core, fake: FakeArxiv, engine: Engine
) -> None:
    budgets = LookupBudgets(engine, per_hour=5, clock=lambda: NOW)
    before = budgets.standing(CHAT).lookups
    plan = await core.imports.plan(read_text("subscribe arxiv:nobody_x_1\n"), CHAT, TOPIC)
    assert plan.adds == ()
    assert [skipped.text for skipped in plan.skipped] == ["arxiv:nobody_x_1"]
    assert len(fake.author_requests()) == 1  # arXiv was asked, once
    assert budgets.standing(CHAT).lookups == before - 1  # on the core's clock: no refill
