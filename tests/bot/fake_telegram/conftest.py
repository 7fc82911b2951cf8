"""The fake Bot API and a real python-telegram-bot `Bot` talking to it, for the tests that prove
PTB and the fake agree. (`bot` here is PTB's `Bot`, not the running arxiv-watcher bot of
`tests/bot/conftest.py`, which is why these tests have a folder of their own.)
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator

import pytest
from telegram import Bot

from tests.fakes.telegram import FakeTelegram, RateLimits
from tests.harness.fake_telegram_ids import TOKEN


@pytest.fixture
def fake() -> Iterator[FakeTelegram]:
    with FakeTelegram(TOKEN, rate_limits=RateLimits.disabled()) as fake:
        yield fake
        assert fake.internal_errors == []


@pytest.fixture
async def bot(fake: FakeTelegram) -> AsyncIterator[Bot]:
    async with Bot(TOKEN, base_url=fake.base_url) as bot:
        yield bot
