"""The webhook settings: an https URL, a HOST:PORT to listen on, and a secret that is required
with the URL, strong, in Telegram's alphabet, never quoted in an error and masked in the logs
like the token."""

from __future__ import annotations

import io
import logging
from collections.abc import Iterator

import pytest

from watcher.errors import ConfigError
from watcher.logs import setup_logging
from watcher.settings import load_settings

TOKEN = "123456789:AAwebhookSettingsTokenNotReal0123"
SECRET = "Zq8_vH2-kLw9rT4yXb7NcPm3sJd6FgQe1uAo5iE0"  # 40 characters, as token_urlsafe makes
URL = "https://bot.example.org/telegram"


def webhook(**overrides: str) -> dict[str, str]:
    given = {
        "telegram_bot_token": TOKEN,
        "telegram_webhook_url": URL,
        "telegram_webhook_secret": SECRET,
    }
    return {**given, **overrides}


def refusal(**settings: str) -> str:
    with pytest.raises(ConfigError) as refused:
        load_settings(_env_file=None, **settings)
    message = str(refused.value)
    assert "\n" not in message  # one line
    return message


def test_long_polling_is_the_default() -> None:
    settings = load_settings(_env_file=None)
    assert settings.telegram_webhook_url is None
    assert settings.telegram_webhook_secret is None
    assert settings.webhook_listen == ("0.0.0.0", 8443)


def test_a_webhook_with_its_secret_and_a_listen_address() -> None:
    settings = load_settings(
        _env_file=None, **webhook(telegram_webhook_listen="[::1]:9000", telegram_webhook_url="")
    )
    assert settings.telegram_webhook_url is None  # empty is unset
    settings = load_settings(_env_file=None, **webhook(telegram_webhook_listen="[::1]:9000"))
    assert str(settings.telegram_webhook_url) == URL
    assert settings.webhook_listen == ("::1", 9000)
    assert SECRET not in repr(settings)
    assert settings.secrets == [TOKEN, SECRET]


@pytest.mark.parametrize(
    ("overrides", "expected"),
    [
        ({"telegram_webhook_secret": ""}, "TELEGRAM_WEBHOOK_SECRET: required with"),
        ({"telegram_webhook_secret": "Short_but-valid9"}, "is 16 characters long"),
        ({"telegram_webhook_secret": "ab" * 20}, "too few characters"),
        ({"telegram_webhook_secret": SECRET + "!"}, "characters Telegram refuses"),
        ({"telegram_webhook_secret": "x" * 257}, "is 257 characters long"),
        ({"telegram_webhook_url": "http://bot.example.org/telegram"}, "only to https://"),
        ({"telegram_bot_token": ""}, "needs TELEGRAM_BOT_TOKEN too"),
        ({"telegram_webhook_listen": "8443"}, "'8443' is not HOST:PORT"),
        ({"telegram_webhook_listen": "0.0.0.0:70000"}, "is not HOST:PORT"),
    ],
)
def test_a_missing_or_weak_secret_or_a_bad_address_stops_the_start_in_one_line(
    overrides: dict[str, str], expected: str
) -> None:
    message = refusal(**webhook(**overrides))
    assert expected in message
    secret = overrides.get("telegram_webhook_secret")
    if secret:
        assert secret not in message
    if "secret" in expected or "characters" in expected:
        assert "token_urlsafe" in message  # says how to make a good one


@pytest.fixture
def log_stream() -> Iterator[io.StringIO]:
    """The root logger as `arxiv-watcher` sets it up, writing here; pytest's handlers restored."""
    root = logging.getLogger()
    handlers, level = root.handlers[:], root.level
    stream = io.StringIO()
    try:
        yield stream
    finally:
        root.handlers[:] = handlers
        root.setLevel(level)


def test_the_webhook_secret_is_masked_in_every_log_line(log_stream: io.StringIO) -> None:
    settings = load_settings(_env_file=None, **webhook())
    setup_logging("DEBUG", secrets=settings.secrets)
    logging.getLogger().handlers[0].setStream(log_stream)  # type: ignore[attr-defined]
    logging.getLogger("telegram.Bot").debug("setWebhook params %s", {"secret_token": SECRET})
    try:
        raise RuntimeError(f"refused secret {SECRET}")
    except RuntimeError:
        logging.getLogger("test").exception("failed")
    written = log_stream.getvalue()
    assert written.count("[REDACTED]") == 2  # the message and the exception line
    assert SECRET not in written
