"""Webhook mode: how the active instance receives updates when TELEGRAM_WEBHOOK_URL is set.

PTB's own webhook server (tornado, the `webhooks` extra) listens on TELEGRAM_WEBHOOK_LISTEN at
the path of TELEGRAM_WEBHOOK_URL, and `setWebhook` registers that URL with
TELEGRAM_WEBHOOK_SECRET as `secret_token`. PTB answers 403 to a request whose
`X-Telegram-Bot-Api-Secret-Token` header is missing or wrong, but says so only at DEBUG, and its
DEBUG lines quote bodies and the wrong header. `RefusalLog` turns each refusal into one WARNING
line with the peer's address and the reason, no body, and keeps PTB's other DEBUG lines out.

Only the active instance gets here (`bot.frontend` runs under the leader lock), so a standby
neither listens nor registers; the instance that takes over registers itself. Stopping leaves
the webhook registered, so Telegram keeps the updates for the next active instance. Long
polling (the default) deletes the webhook first: PTB's `start_polling` calls deleteWebhook.
"""

from __future__ import annotations

import logging
from typing import Any
from urllib.parse import urlsplit

import tornado.web
from telegram.error import NetworkError, TelegramError

from watcher.errors import ConfigError
from watcher.settings import Settings

log = logging.getLogger(__name__)

# The logger of PTB's Updater, which its webhook server logs through.
PTB_UPDATER_LOGGER = "telegram.ext.Updater"
FORBIDDEN = 403
BOOTSTRAP_RETRIES = 3  # setWebhook tries after the first (1 s, then 1.5 times longer each)


class RefusalLog(logging.Filter):
    """On PTB's Updater logger: a refused webhook request becomes one WARNING line without
    its body; every other record passes only from WARNING up (and at the level the logger had
    before, if higher)."""

    def __init__(self, logger: logging.Logger) -> None:
        super().__init__()
        self.logger = logger
        # PTB's DEBUG and INFO lines of the webhook quote bodies and wrong secrets: never shown.
        self.threshold = max(logger.getEffectiveLevel(), logging.WARNING)
        self._level = logger.level

    def install(self) -> None:
        # PTB logs the refusal at DEBUG: the logger must let DEBUG reach this filter.
        self.logger.addFilter(self)
        self.logger.setLevel(logging.DEBUG)

    def remove(self) -> None:
        self.logger.removeFilter(self)
        self.logger.setLevel(self._level)

    def filter(self, record: logging.LogRecord) -> bool:
        error = record.exc_info[1] if record.exc_info else None
        if isinstance(error, tornado.web.HTTPError) and error.status_code == FORBIDDEN:
            peer = record.args[0] if isinstance(record.args, tuple) and record.args else "?"
            reason = error.reason or "not a JSON request"
            record.levelno, record.levelname = logging.WARNING, "WARNING"
            record.name = __name__
            record.msg = "webhook: refused a request from %s (403): %s; its body is not logged"
            record.args = (peer, reason.removeprefix("Request ").rstrip("."))
            record.exc_info, record.exc_text = None, None
            return True
        return record.levelno >= self.threshold


def webhook_path(settings: Settings) -> str:
    """The path the listener serves: that of TELEGRAM_WEBHOOK_URL (a proxy forwards it as is)."""
    assert settings.telegram_webhook_url is not None
    return urlsplit(str(settings.telegram_webhook_url)).path or "/"


async def start_webhook(updater: Any, settings: Settings) -> None:
    """Register the webhook with its secret, then listen. A refused registration (a URL
    Telegram will not use) or an address we cannot listen on stops the start with one line;
    a network failure is tried again a few times (PTB's bootstrap retries), then raised."""
    url, secret = settings.telegram_webhook_url, settings.telegram_webhook_secret
    assert url is not None
    assert secret is not None  # the settings require it with the URL
    host, port = settings.webhook_listen
    try:
        await updater.start_webhook(
            listen=host,
            port=port,
            url_path=webhook_path(settings),
            webhook_url=str(url),
            secret_token=secret.get_secret_value(),
            drop_pending_updates=False,
            bootstrap_retries=BOOTSTRAP_RETRIES,
        )
    except NetworkError:
        raise
    except TelegramError as error:
        raise ConfigError(f"Telegram refused TELEGRAM_WEBHOOK_URL {url}: {error.message}") from None
    except OSError as error:
        raise ConfigError(
            f"cannot listen on TELEGRAM_WEBHOOK_LISTEN {host}:{port}: {error.strerror}"
        ) from None
