"""Starting the real service against a Telegram that refuses the token, or cannot be reached."""

from __future__ import annotations

import socket
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.fakes.arxiv_api import FakeArxiv
from tests.fakes.corpus import dezun_dong_records
from tests.fakes.telegram import FakeTelegram
from tests.harness.cli_helpers import ServiceProcess, run_cli

TOKEN = "123456:TEST-the-token-telegram-knows"
WRONG_TOKEN = "654321:TEST-a-token-telegram-refuses"


@pytest.fixture
def arxiv() -> Iterator[FakeArxiv]:
    with FakeArxiv(dezun_dong_records()) as server:
        yield server


def test_a_refused_token_stops_the_service_naming_the_setting_not_the_token(
    tmp_path: Path, database_url: str, arxiv: FakeArxiv
) -> None:
    with FakeTelegram(TOKEN) as telegram:
        result = run_cli(
            "run", cwd=tmp_path, timeout=60, DATABASE_URL=database_url, ARXIV_API_URL=arxiv.url,
            ARXIV_MIN_INTERVAL="0", TELEGRAM_BOT_TOKEN=WRONG_TOKEN,
            TELEGRAM_API_URL=telegram.base_url,
        )  # fmt: skip
    assert result.returncode == 2
    assert "TELEGRAM_BOT_TOKEN was refused by Telegram" in result.stderr
    assert WRONG_TOKEN not in result.stdout + result.stderr
    assert "Traceback" not in result.stderr


def test_an_unreachable_bot_api_is_waited_for_while_polling_goes_on(
    tmp_path: Path, database_url: str, arxiv: FakeArxiv
) -> None:
    with socket.socket() as closed:
        closed.bind(("127.0.0.1", 0))
        port = closed.getsockname()[1]
    service = ServiceProcess(
        cwd=tmp_path, DATABASE_URL=database_url, ARXIV_API_URL=arxiv.url, ARXIV_MIN_INTERVAL="0",
        TELEGRAM_BOT_TOKEN=TOKEN, TELEGRAM_API_URL=f"http://127.0.0.1:{port}/bot",
    )  # fmt: skip
    try:
        service.wait_for(lambda: "cannot reach the Telegram Bot API" in service.output)
        service.wait_for(lambda: "stored silently" in service.output)
    finally:
        code = service.stop()
    assert code == 0
    assert TOKEN not in service.output and "Traceback" not in service.output
