"""Settings from the environment and `.env`, and logs that never show the token."""

from __future__ import annotations

import io
import json
import logging
from pathlib import Path

import pytest

from watcher.errors import ConfigError
from watcher.follows.identity import Identity
from watcher.follows.rules import PersonRule
from watcher.json_lines import JsonLines
from watcher.logs import REDACTED, RedactingFilter
from watcher.settings import Settings, load_settings

TOKEN = "123456789:AAHfiqksKZ8WmR2zSjiQ7_v4TMAKdiHm9T0"


@pytest.fixture(autouse=True)
def isolated(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    for name in Settings.model_fields:
        monkeypatch.delenv(name.upper(), raising=False)
    monkeypatch.chdir(tmp_path)


def test_defaults() -> None:
    settings = load_settings()
    assert settings.watch_authors == ["Dezun Dong"]
    assert settings.database_url == "sqlite:///data/arxiv-watcher.db"
    assert str(settings.arxiv_api_url) == "https://export.arxiv.org/api/query"
    assert settings.arxiv_min_interval == 3.0
    assert settings.telegram_bot_token is None
    assert (settings.poll_window_days, settings.backfill_limit) == (14, 2000)
    assert settings.backfills_per_chat_hour == 5


def test_watch_authors_with_aliases_and_admins(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(
        "WATCH_AUTHORS", "Dezun Dong|De-Zun Dong; Daoyi Dong ; Wei Wang in cs.dc, cs.NI"
    )
    monkeypatch.setenv("ADMIN_CHAT_IDS", "42, -1001")
    settings = load_settings()
    assert settings.followed_specs == [
        PersonRule(("Dezun Dong", "De-Zun Dong")),
        PersonRule(("Daoyi Dong",)),
        PersonRule(("Wei Wang",), ("cs.DC", "cs.NI")),
    ]
    assert settings.admin_chat_ids == [42, -1001]


def test_watch_authors_takes_arxiv_author_ids_and_orcid_ids(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv(
        "WATCH_AUTHORS",
        "Dezun Dong; https://arxiv.org/a/dong_d_1.html; https://orcid.org/0000-0002-1825-0097",
    )
    assert load_settings().followed_specs == [
        PersonRule(("Dezun Dong",)),
        Identity("arxiv", "dong_d_1"),
        Identity("orcid", "0000-0002-1825-0097"),
    ]


def test_dotenv_file_is_read(tmp_path: Path) -> None:
    (tmp_path / ".env").write_text("POLL_INTERVAL=120\nLOG_LEVEL=debug\n")
    settings = load_settings()
    assert (settings.poll_interval, settings.log_level) == (120, "DEBUG")


@pytest.mark.parametrize(
    ("variable", "value"),
    [
        ("ARXIV_MIN_INTERVAL", "soon"),
        ("ARXIV_MIN_INTERVAL", "-1"),
        ("POLL_INTERVAL", "0"),
        ("ARXIV_API_URL", "not a url"),
        ("LOG_LEVEL", "LOUD"),
        ("ADMIN_CHAT_IDS", "alice"),
        ("WATCH_AUTHORS", "x" * 101),
        ("WATCH_AUTHORS", "Dezun Dong;!!!"),
        ("WATCH_AUTHORS", "Wei Wang in cs.DC,cs.NI,cs.AI,cs.LG"),
        ("WATCH_AUTHORS", "Wei Wang in cs.XYZ"),
        ("WATCH_AUTHORS", "Dezun Dong; 0000-0002-1825-0098"),  # an ORCID iD's check digit
        ("TELEGRAM_BOT_TOKEN", "not-a-token"),
        ("POLL_WINDOW_DAYS", "0"),
        ("BACKFILL_LIMIT", "30001"),  # deeper than arXiv's API can page
        ("BACKFILLS_PER_CHAT_HOUR", "0"),
    ],
)
def test_a_bad_value_names_its_variable(
    monkeypatch: pytest.MonkeyPatch, variable: str, value: str
) -> None:
    monkeypatch.setenv(variable, value)
    with pytest.raises(ConfigError, match=variable):
        load_settings()


def test_a_bad_token_is_not_repeated_in_the_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TELEGRAM_BOT_TOKEN", "12345:short secret")
    with pytest.raises(ConfigError) as error:
        load_settings()
    assert "short secret" not in str(error.value)


def test_the_token_is_secret_in_repr(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TELEGRAM_BOT_TOKEN", TOKEN)
    settings = load_settings()
    assert TOKEN not in repr(settings) and TOKEN not in str(settings)
    assert settings.telegram_bot_token is not None
    assert settings.telegram_bot_token.get_secret_value() == TOKEN


def test_logs_never_show_the_token(caplog: pytest.LogCaptureFixture) -> None:
    logger = logging.getLogger("test.redaction")
    redacting = RedactingFilter([TOKEN])
    logger.addFilter(redacting)
    try:
        with caplog.at_level(logging.INFO, logger="test.redaction"):
            logger.info("POST https://api.telegram.org/bot%s/sendMessage", TOKEN)
            logger.info("another bot 987654321:ZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZ appears")
            _log_a_failure_quoting_the_token(logger)
    finally:
        logger.removeFilter(redacting)
    text = caplog.text + "".join(r.exc_text or "" for r in caplog.records)
    assert TOKEN not in text and "ZZZZZZZZZZZZZZZZZZZZ" not in text
    assert text.count(REDACTED) >= 3


def test_json_logs_redact_the_token_in_the_message_and_the_traceback() -> None:
    """The JSON formatter formats a traceback itself, from the exception: it must redact it too."""
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    redacting = RedactingFilter([TOKEN])
    handler.setFormatter(JsonLines(redacting.redact))
    handler.addFilter(redacting)
    logger = logging.getLogger("test.json")
    logger.addHandler(handler)
    logger.propagate = False
    try:
        logger.warning("POST /bot%s/sendMessage", TOKEN, extra={"chat_id": 42})
        _log_a_failure_quoting_the_token(logger)
    finally:
        logger.removeHandler(handler)
        logger.propagate = True
    first, second = (json.loads(line) for line in stream.getvalue().splitlines())
    assert first["message"] == f"POST /bot{REDACTED}/sendMessage" and first["chat_id"] == 42
    assert first["level"] == "WARNING" and first["logger"] == "test.json" and first["time"]
    assert "RuntimeError" in second["exc_info"] and REDACTED in second["exc_info"]
    assert TOKEN not in stream.getvalue()


def test_log_format_is_text_or_json(monkeypatch: pytest.MonkeyPatch) -> None:
    assert load_settings().log_format == "text"
    monkeypatch.setenv("LOG_FORMAT", " JSON ")
    assert load_settings().log_format == "json"
    monkeypatch.setenv("LOG_FORMAT", "xml")
    with pytest.raises(ConfigError, match="LOG_FORMAT"):
        load_settings()


@pytest.mark.parametrize(
    ("value", "problem"),
    [
        ("Dezun Dong;!!!", "'!!!': an author name has only letters, spaces and . - ' , in it"),
        ("Li", "'Li': a name needs a given name and a family name, as arXiv lists the author"),
        ("Dezun Dong|D.", "'D.': a name needs a given name and a family name"),
        ("Dezun Dong; | ", "'|' has no name in it"),
        ("x" * 30 + " " + "y" * 80, "that name is too long (at most 100 characters)"),
    ],
)
def test_watch_authors_holds_only_names_that_can_be_followed(
    monkeypatch: pytest.MonkeyPatch, value: str, problem: str
) -> None:
    monkeypatch.setenv("WATCH_AUTHORS", value)
    with pytest.raises(ConfigError) as error:
        load_settings()
    message = str(error.value)
    assert message.startswith("Invalid setting WATCH_AUTHORS: ")
    assert problem in message


def _log_a_failure_quoting_the_token(logger: logging.Logger) -> None:
    """Log an exception whose message and traceback quote the token, as a library's might."""
    try:
        raise RuntimeError(f"failed at /bot{TOKEN}/getMe")
    except RuntimeError:
        logger.exception("request failed")
