"""What becomes of an error while reading updates (long polling): PTB's `error_callback`; and
of an answer from the Bot API that is not JSON (`NotJsonAnswers`).

The Bot API out of reach for a moment (a connection refused or reset, a proxy's 502) is a blip,
not a bug: one WARNING line, no traceback, counted in `arxiv_watcher_telegram_network_errors_total`
(PTB retries with growing pauses, up to 30 s). Any other error is logged at ERROR with its
traceback, as PTB itself would. The text of an error never holds the token: PTB's messages name
the failure, not the URL.

A proxy in front of the Bot API answers a moment's outage with an HTML page (a 502 "Bad
Gateway"). PTB logs each such page with `logger.exception` before raising the `NetworkError`
the caller handles (the sender retries it, the polling above counts it): a traceback at ERROR for
what is a blip. `NotJsonAnswers` makes that one record a WARNING line with the page's start and
no traceback; the error itself is untouched.
"""

from __future__ import annotations

import logging

from telegram.error import NetworkError, TelegramError

from watcher.metrics import TELEGRAM_NETWORK_ERRORS

log = logging.getLogger(__name__)

# PTB's logger of its requests (`telegram.request._baserequest`), and how its record of an answer
# that is not JSON begins (PTB 22: 'Can not load invalid JSON data: "<the answer>"').
PTB_REQUEST_LOGGER = "telegram.request.BaseRequest"
_NOT_JSON = "Can not load invalid JSON data"
_SHOWN = 120  # characters of the page shown


class NotJsonAnswers(logging.Filter):
    """Turns PTB's ERROR-with-traceback about an answer that is not JSON into one WARNING."""

    def filter(self, record: logging.LogRecord) -> bool:
        if isinstance(record.msg, str) and record.msg.startswith(_NOT_JSON):
            page = " ".join(str(arg) for arg in record.args or ()) if record.args else ""
            page = " ".join(page.split())
            record.msg = "Telegram answered with a page that is not JSON (%s); the request fails"
            record.args = (page[:_SHOWN] + ("…" if len(page) > _SHOWN else ""),)
            record.levelno, record.levelname = logging.WARNING, "WARNING"
            record.exc_info = record.exc_text = None
        return True


def quiet_not_json_answers() -> None:
    """Install `NotJsonAnswers` on PTB's request logger, once."""
    logger = logging.getLogger(PTB_REQUEST_LOGGER)
    if not any(isinstance(f, NotJsonAnswers) for f in logger.filters):
        logger.addFilter(NotJsonAnswers())


def on_polling_error(error: TelegramError) -> None:
    """PTB calls this for each failed getUpdates but timeouts, 429s and a refused token."""
    if isinstance(error, NetworkError):
        TELEGRAM_NETWORK_ERRORS.inc()
        log.warning("could not reach Telegram to read updates (%s); retrying", error.message)
        return
    log.error("reading updates from Telegram failed", exc_info=error)
