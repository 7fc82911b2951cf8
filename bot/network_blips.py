"""What becomes of an error while reading updates (long polling): PTB's `error_callback`.

The Bot API out of reach for a moment (a connection refused or reset, a proxy's 502) is a blip,
not a bug: one WARNING line, no traceback, counted in `arxiv_watcher_telegram_network_errors_total`
(PTB retries with growing pauses, up to 30 s). Any other error is logged at ERROR with its
traceback, as PTB itself would. The text of an error never holds the token: PTB's messages name
the failure, not the URL.
"""

from __future__ import annotations

import logging

from telegram.error import NetworkError, TelegramError

from watcher.metrics import TELEGRAM_NETWORK_ERRORS

log = logging.getLogger(__name__)


def on_polling_error(error: TelegramError) -> None:
    """PTB calls this for each failed getUpdates but timeouts, 429s and a refused token."""
    if isinstance(error, NetworkError):
        TELEGRAM_NETWORK_ERRORS.inc()
        log.warning("could not reach Telegram to read updates (%s); retrying", error.message)
        return
    log.error("reading updates from Telegram failed", exc_info=error)
