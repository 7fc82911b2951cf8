"""A Bot API out of reach for a few seconds is a blip, not a bug (issue 30, item 9): reading
updates logs one WARNING line per failed try, with no traceback, counts it in
`arxiv_watcher_telegram_network_errors_total`, and the bot answers again once Telegram is back.
The whole front end as `arxiv-watcher run` starts it, against the fake Bot API, whose listener
is stopped and started again on the same port."""

from __future__ import annotations

import asyncio
import logging

import pytest
from sqlalchemy import Engine

from bot.network_blips import PTB_REQUEST_LOGGER
from tests.fakes.telegram import Fault
from tests.harness.bots import USER, running_front_end
from watcher.metrics import TELEGRAM_NETWORK_ERRORS

OUTAGE = 2.0  # seconds the fake Bot API is out of reach


async def test_a_short_outage_logs_warnings_without_tracebacks(
    engine: Engine, database_url: str, caplog: pytest.LogCaptureFixture
) -> None:
    async with running_front_end(engine, database_url) as bot:
        await bot.ask_one(USER, "/help")
        before = TELEGRAM_NETWORK_ERRORS._value.get()
        caplog.clear()
        with caplog.at_level(logging.INFO):
            bot.telegram.stop()
            await asyncio.sleep(OUTAGE)  # a real outage: PTB's own retry pauses run on it
            bot.telegram.start()
            answer = await bot.ask_one(USER, "/help")

        assert answer  # reading updates resumed
        errors = [r for r in caplog.records if r.levelno >= logging.ERROR]
        assert errors == [], [f"{r.name}: {r.getMessage()}" for r in errors]
        assert not [r for r in caplog.records if r.exc_info and r.levelno >= logging.WARNING]
        blips = [r for r in caplog.records if r.name == "bot.network_blips"]
        assert blips and all(r.levelno == logging.WARNING for r in blips)
        assert all("\n" not in r.getMessage() for r in blips)
        assert not [r for r in blips if bot.telegram.token in r.getMessage()]
        assert TELEGRAM_NETWORK_ERRORS._value.get() - before == len(blips)


async def test_a_proxys_html_502_page_is_one_warning_without_a_traceback(
    engine: Engine, database_url: str, caplog: pytest.LogCaptureFixture
) -> None:
    """A proxy's "502 Bad Gateway" page where JSON was due: PTB logs it with a traceback at
    ERROR before raising the NetworkError the polling retries; here it is one WARNING line."""
    async with running_front_end(engine, database_url) as bot:
        await bot.ask_one(USER, "/help")
        caplog.clear()
        with caplog.at_level(logging.INFO):
            bot.telegram.inject(Fault.server_error(502), method="getUpdates")
            await bot.until(lambda: bot.telegram.faults_pending("getUpdates") == 0)
            answer = await bot.ask_one(USER, "/help")

        assert answer  # reading updates resumed after the page
        errors = [r for r in caplog.records if r.levelno >= logging.ERROR]
        assert errors == [], [f"{r.name}: {r.getMessage()}" for r in errors]
        assert not [r for r in caplog.records if r.exc_info and r.levelno >= logging.WARNING]
        (page,) = [r for r in caplog.records if r.name == PTB_REQUEST_LOGGER]
        assert page.levelno == logging.WARNING and "\n" not in page.getMessage()
        assert "not JSON" in page.getMessage() and "502 Bad Gateway" in page.getMessage()
