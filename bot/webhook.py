"""Webhook mode: how the active instance receives updates when TELEGRAM_WEBHOOK_URL is set.

`start_webhook` listens on TELEGRAM_WEBHOOK_LISTEN at the path of TELEGRAM_WEBHOOK_URL, then
registers that URL with `setWebhook` and TELEGRAM_WEBHOOK_SECRET as `secret_token`. Each update
received goes on the Application's update queue, as PTB's own webhook server would put it.

The listener is ours (tornado, which PTB's `webhooks` extra brings) rather than PTB's, because
PTB builds its server without a body limit and reads a whole request, up to tornado's default
100 MB, before it looks at the secret. Ours decides on the headers alone, before any of the body
is read (`stream_request_body`):
- a path other than the URL's: 404;
- no `X-Telegram-Bot-Api-Secret-Token`, or a wrong one: 403;
- not `application/json`: 403;
- a `Content-Length` over `MAX_BODY_BYTES` (1 MB; Telegram's updates are a few KB): 413.
A refused request is answered at once and its connection closed after the answer, so the body is
never read; a body sent without a length (chunked) is cut off at `MAX_BODY_BYTES` by the server.
A 403 or 413 is one WARNING line with the peer's address and the reason, never the body or the
header's value. Idle connections close after `IDLE_SECONDS`, and a body must arrive within
`BODY_SECONDS`.

Only the active instance gets here (`bot.frontend` runs under the leader lock), so a standby
neither listens nor registers; the instance that takes over registers itself. Stopping leaves
the webhook registered, so Telegram keeps the updates for the next active instance. Long
polling (the default) deletes the webhook first: PTB's `start_polling` calls deleteWebhook.
"""

from __future__ import annotations

import asyncio
import hmac
import json
import logging
from http import HTTPStatus
from types import TracebackType
from typing import Any
from urllib.parse import urlsplit

import tornado.web
from telegram import Update
from telegram.error import NetworkError, RetryAfter, TelegramError
from telegram.ext import ExtBot
from tornado.httpserver import HTTPServer

from bot.app import ALLOWED_UPDATES
from bot.ratelimit import retry_after_seconds
from watcher.errors import ConfigError
from watcher.settings import Settings

log = logging.getLogger(__name__)

SECRET_HEADER = "X-Telegram-Bot-Api-Secret-Token"  # noqa: S105 (a header's name)
MAX_BODY_BYTES = 1_000_000  # the same 1 MB as the README's Caddy `request_body { max_size 1MB }`
IDLE_SECONDS = 60.0  # a kept-alive connection with no request
BODY_SECONDS = 10.0  # to send a body of at most MAX_BODY_BYTES
BOOTSTRAP_RETRIES = 3  # setWebhook tries after the first (1 s, then 1.5 times longer each)
FIRST_RETRY_PAUSE = 1.0


class WebhookListener:
    """The HTTP server that takes Telegram's updates for `path`, with the limits above."""

    def __init__(
        self, *, path: str, secret: str, bot: ExtBot[Any], updates: asyncio.Queue[object]
    ) -> None:
        self.path, self.secret = path.rstrip("/") or "/", secret
        self.bot, self.updates = bot, updates
        application = tornado.web.Application(
            [(r".*", _UpdateHandler, {"listener": self})],
            log_function=lambda handler: None,  # tornado's access log: nothing worth a line
        )
        self._server = HTTPServer(
            application,
            max_body_size=MAX_BODY_BYTES,
            max_buffer_size=MAX_BODY_BYTES,
            idle_connection_timeout=IDLE_SECONDS,
            body_timeout=BODY_SECONDS,
        )

    def listen(self, host: str, port: int) -> None:
        """Start listening; OSError when the address cannot be had."""
        self._server.listen(port, address=host)

    async def stop(self) -> None:
        """Stop listening and close every connection."""
        self._server.stop()
        await self._server.close_all_connections()

    def refusal(self, request: tornado.httputil.HTTPServerRequest) -> tuple[int, str] | None:
        """Why a request is refused (status, reason), from its headers alone; None: taken."""
        if (request.path.rstrip("/") or "/") != self.path:
            return HTTPStatus.NOT_FOUND, "not the webhook's path"
        token = request.headers.get(SECRET_HEADER)
        if not token:
            return HTTPStatus.FORBIDDEN, "did not include the secret token"
        if not hmac.compare_digest(token.encode(), self.secret.encode()):
            return HTTPStatus.FORBIDDEN, "had the wrong secret token"
        if request.headers.get("Content-Type") != "application/json":
            return HTTPStatus.FORBIDDEN, "not a JSON request"
        length = request.headers.get("Content-Length", "0")
        if not length.isdigit() or int(length) > MAX_BODY_BYTES:
            return HTTPStatus.REQUEST_ENTITY_TOO_LARGE, f"a body over {MAX_BODY_BYTES} bytes"
        return None


@tornado.web.stream_request_body
class _UpdateHandler(tornado.web.RequestHandler):
    """One request to the listener: refused on its headers, or read and queued."""

    SUPPORTED_METHODS = ("POST",)

    def initialize(self, listener: WebhookListener) -> None:
        self.listener = listener
        self.body = bytearray()

    def prepare(self) -> None:
        refusal = self.listener.refusal(self.request)
        if refusal is None:
            return
        status, reason = refusal
        if status != HTTPStatus.NOT_FOUND:
            log.warning(
                "webhook: refused a request from %s (%d): %s; its body is not logged",
                self.request.remote_ip, status, reason,
            )  # fmt: skip
        # Answered before the body is read: tornado closes the connection once the answer is
        # out, since the request was never read to its end.
        self.set_status(status)
        self.set_header("Connection", "close")
        self.finish()

    def log_exception(
        self,
        typ: type[BaseException] | None,
        value: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        """tornado's own refusals (a method other than POST: 405) are not worth a line; anything
        else is an error of ours, logged without the request."""
        if not isinstance(value, tornado.web.HTTPError):
            log.error("webhook: handling a request failed", exc_info=value)

    def data_received(self, chunk: bytes) -> None:
        self.body += chunk  # at most MAX_BODY_BYTES in all: the server cuts off the rest

    async def post(self) -> None:
        try:
            update = Update.de_json(json.loads(self.body), self.listener.bot)
        except (ValueError, TypeError, KeyError, AttributeError) as error:
            kind = type(error).__name__
            log.warning("webhook: a request with the secret held no update (%s)", kind)
            self.set_status(HTTPStatus.BAD_REQUEST)
            return
        self.listener.bot.insert_callback_data(update)
        await self.listener.updates.put(update)


def webhook_path(settings: Settings) -> str:
    """The path the listener serves: that of TELEGRAM_WEBHOOK_URL (a proxy forwards it as is)."""
    assert settings.telegram_webhook_url is not None
    return urlsplit(str(settings.telegram_webhook_url)).path or "/"


async def start_webhook(
    bot: ExtBot[Any], updates: asyncio.Queue[object], settings: Settings
) -> WebhookListener:
    """Listen, then register the webhook with its secret; the listener, to stop. An address we
    cannot listen on, or a refused registration (a URL Telegram will not use), stops the start
    with one line; a network failure is tried again a few times, then raised."""
    url, secret = settings.telegram_webhook_url, settings.telegram_webhook_secret
    assert url is not None
    assert secret is not None  # the settings require it with the URL
    host, port = settings.webhook_listen
    listener = WebhookListener(
        path=webhook_path(settings), secret=secret.get_secret_value(), bot=bot, updates=updates
    )
    try:
        listener.listen(host, port)
    except OSError as error:
        raise ConfigError(
            f"cannot listen on TELEGRAM_WEBHOOK_LISTEN {host}:{port}: {error.strerror}"
        ) from None
    try:
        await _register(bot, str(url), secret.get_secret_value())
    except BaseException:
        await listener.stop()
        raise
    return listener


async def _register(bot: ExtBot[Any], url: str, secret: str) -> None:
    """setWebhook, tried again on a network failure or a flood wait (BOOTSTRAP_RETRIES)."""
    pause = FIRST_RETRY_PAUSE
    for attempt in range(BOOTSTRAP_RETRIES + 1):
        try:
            await bot.set_webhook(
                url,
                secret_token=secret,
                drop_pending_updates=False,
                allowed_updates=ALLOWED_UPDATES,
            )
            return
        except RetryAfter as error:
            if attempt == BOOTSTRAP_RETRIES:
                raise
            await asyncio.sleep(retry_after_seconds(error))
        except NetworkError:
            if attempt == BOOTSTRAP_RETRIES:
                raise
            log.warning("setWebhook could not reach Telegram; trying again in %.1f s", pause)
            await asyncio.sleep(pause)
            pause *= 1.5
        except TelegramError as error:
            message = f"Telegram refused TELEGRAM_WEBHOOK_URL {url}: {error.message}"
            raise ConfigError(message) from None
