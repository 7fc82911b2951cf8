"""The running bot most of the Telegram-side tests talk to (see `tests.harness.bots`)."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest
from sqlalchemy import Engine

from tests.harness.bots import Bot, running_bot


@pytest.fixture
async def bot(engine: Engine, database_url: str) -> AsyncIterator[Bot]:
    async with running_bot(engine, database_url) as running:
        yield running
