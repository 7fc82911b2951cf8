"""Logging set-up: one line per event, and no secret in any of them.

httpx logs every request URL at INFO, and a Telegram Bot API URL carries the bot token, so the
`httpx` and `httpcore` loggers are raised to WARNING and every handler gets a redacting filter
that masks the configured secrets and anything shaped like a bot token.

`LOG_FORMAT=text` (the default) writes `FORMAT`; `json` writes one JSON object a line
(python-json-logger): `time`, `level`, `logger`, `message`, a traceback as `exc_info`, and the
structured fields a line carries (`extra=`): `chat_id`, `paper`, `source`. The traceback is
redacted there too.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Iterable
from typing import Literal

# A Telegram bot token: the bot's numeric id, a colon, then 30-odd URL-safe characters.
BOT_TOKEN_PATTERN = re.compile(r"\b\d{5,}:[A-Za-z0-9_-]{20,}")
REDACTED = "[REDACTED]"
FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"
LogFormat = Literal["text", "json"]


class RedactingFilter(logging.Filter):
    """Replaces secrets in the final message (arguments and tracebacks included)."""

    def __init__(self, secrets: Iterable[str] = ()) -> None:
        super().__init__()
        self.secrets = [secret for secret in secrets if secret]

    def redact(self, text: str) -> str:
        for secret in self.secrets:
            text = text.replace(secret, REDACTED)
        return BOT_TOKEN_PATTERN.sub(REDACTED, text)

    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        if record.exc_info and not record.exc_text:
            record.exc_text = logging.Formatter().formatException(record.exc_info)
        record.msg, record.args = self.redact(message), None
        if record.exc_text:
            record.exc_text = self.redact(record.exc_text)
        return True


def setup_logging(
    level: str, *, secrets: Iterable[str] = (), log_format: LogFormat = "text"
) -> None:
    """Configure the root logger once, in the entry point."""
    redacting = RedactingFilter(secrets)
    handler = logging.StreamHandler()
    formatter = logging.Formatter(FORMAT)
    if log_format == "json":
        # Only for LOG_FORMAT=json: python-json-logger is not imported otherwise.
        from watcher.json_lines import JsonLines

        formatter = JsonLines(redacting.redact)
    handler.setFormatter(formatter)
    handler.addFilter(redacting)
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(level)
    quiet = logging.WARNING if level != "DEBUG" else logging.INFO
    for name in ("httpx", "httpcore", "apscheduler", "alembic", "telegram.ext.Updater"):
        logging.getLogger(name).setLevel(max(quiet, logging.getLevelName(level)))
