"""The running bot most of the Telegram-side tests talk to (see `tests.harness.bots`; none of its
answers may hold a backtick), and the
delivery sender's world: the fake Bot API (`fake`) and the sender on the real outbox (`world`,
see `tests.harness.delivery`). A test that installed the pseudo-locale
(`tests.harness.pseudo_locale`) leaves none behind: the next test in the process knows only the
bot's own languages."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator

import pytest
from sqlalchemy import Engine

from bot.i18n import uninstall
from tests.fakes.telegram import FakeTelegram
from tests.harness.bots import Bot, running_bot
from tests.harness.delivery import World, fake_telegram, make_world
from tests.harness.pseudo_locale import PSEUDO


@pytest.fixture(autouse=True)
def no_pseudo_locale_left() -> Iterator[None]:
    yield
    uninstall(PSEUDO)


@pytest.fixture
async def bot(engine: Engine, database_url: str) -> AsyncIterator[Bot]:
    """The running bot; afterwards, no answer it sent may hold a Markdown backtick: answers are
    HTML, where a backtick shows as itself (examples are <code>)."""
    async with running_bot(engine, database_url) as running:
        yield running
        shown = [m.html for m in running.telegram.sent() if "`" in m.html]
        assert shown == [], f"an answer holds a backtick: {shown[0][:300]}"


@pytest.fixture
def fake() -> Iterator[FakeTelegram]:
    with fake_telegram() as fake:
        yield fake


@pytest.fixture
async def world(fake: FakeTelegram, engine: Engine, database_url: str) -> AsyncIterator[World]:
    async with make_world(fake, engine, database_url) as world:
        yield world
