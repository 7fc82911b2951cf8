"""Webhooks on the fake Bot API: setWebhook, deleteWebhook and getWebhookInfo, and the pushing
of queued updates to the registered URL, as Telegram does while a webhook is set.

Telegram reaches a bot at its public HTTPS URL. In a test nothing serves that URL, so
`Webhooks.route(local)` plays the reverse proxy in front of the bot: requests for the registered
URL go to `local` (the service's TELEGRAM_WEBHOOK_LISTEN on loopback, plain HTTP) with the URL's
path. Each push carries the registered secret in `X-Telegram-Bot-Api-Secret-Token`; an update
leaves the queue only when the bot answers 200, and is pushed again after a pause otherwise.
`post` sends one update with whatever header the test chooses (none, a wrong one), as anyone
who found the URL could, and returns the HTTP status.

While a webhook is set, getUpdates answers 409, as Telegram does.
"""

from __future__ import annotations

import http.client
import json
import re
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from urllib.parse import urlsplit

from tests.fakes.telegram.request_params import Params, bool_param, json_param
from tests.fakes.telegram.state import ApiError, JsonDict, TelegramState, bad_request

SECRET_HEADER = "X-Telegram-Bot-Api-Secret-Token"
GET_UPDATES_CONFLICT = (
    "Conflict: can't use getUpdates method while webhook is active; use deleteWebhook to "
    "delete the webhook first"
)
_SECRET = re.compile(r"[A-Za-z0-9_-]{1,256}")
RETRY_PAUSE = 0.2  # seconds before a refused or failed push is tried again
POST_TIMEOUT = 10.0


@dataclass(frozen=True, slots=True)
class WebhookPost:
    """One request the fake made to the bot's webhook; `status` 0: no HTTP answer."""

    update_id: int | None
    status: int
    with_secret: bool
    time: float


class Webhooks:
    """The webhook registration and its pusher thread (started by the first `route`, ended by
    `FakeTelegram.stop`)."""

    def __init__(self, state: TelegramState, deliverable: Callable[[], list[JsonDict]]) -> None:
        """`deliverable`: the pending updates of the kinds the bot asked for (caller locks)."""
        self.state = state
        self._deliverable = deliverable
        self.url = ""  # these four under state.lock
        self.secret: str | None = None
        self.posts: list[WebhookPost] = []
        self._local: str | None = None
        self._paused_until = 0.0
        self._thread: threading.Thread | None = None

    # -- the Bot API methods -----------------------------------------------------------------
    def set_webhook(self, params: Params) -> bool:
        url = params.get("url", "")
        if not url:
            return self.delete_webhook(params)  # Telegram: an empty url removes the webhook
        if urlsplit(url).scheme != "https":
            raise bad_request("bad webhook: An HTTPS URL must be provided for webhook")
        secret = params.get("secret_token") or None
        if secret is not None and not _SECRET.fullmatch(secret):
            raise bad_request("secret token contains unallowed characters")
        allowed = json_param(params, "allowed_updates", "allowed updates")
        with self.state.lock:
            self.url, self.secret = url, secret
            if allowed is not None:
                self.state.allowed_updates = list(allowed)
            if bool_param(params, "drop_pending_updates"):
                self.state.updates.clear()
            self.state.touch()
        return True

    def delete_webhook(self, params: Params) -> bool:
        with self.state.lock:
            self.url, self.secret = "", None
            if bool_param(params, "drop_pending_updates"):
                self.state.updates.clear()
            self.state.touch()
        return True

    def get_webhook_info(self, _params: Params) -> JsonDict:
        with self.state.lock:
            info: JsonDict = {
                "url": self.url,
                "has_custom_certificate": False,
                "pending_update_count": len(self.state.updates),
            }
            if self.url:
                info["max_connections"] = 40
            return info

    def refuse_get_updates(self) -> None:
        """Caller holds the lock: getUpdates is refused while a webhook is set."""
        if self.url:
            raise ApiError(409, GET_UPDATES_CONFLICT)

    # -- the test's side ---------------------------------------------------------------------
    def route(self, local: str) -> None:
        """Push to `local` (e.g. http://127.0.0.1:8443) what is meant for the registered URL."""
        with self.state.lock:
            self._local = local.rstrip("/")
            self.state.touch()
            if self._thread is None:
                self._thread = threading.Thread(
                    target=self._push_forever, name="fake-telegram-webhook", daemon=True
                )
                self._thread.start()

    def post(self, update: JsonDict, *, secret: str | None) -> int:
        """POST one update to the routed webhook with `secret` in the header (None: no header);
        the HTTP status (0 if nothing answered). Not queued, not retried."""
        with self.state.lock:
            target = self._target()
        assert target is not None, "no webhook is set and routed"
        return self._post(target, update, secret)

    def received(self) -> list[WebhookPost]:
        """Every request made to the webhook so far (pushes and `post`s), oldest first."""
        with self.state.lock:
            return list(self.posts)

    # -- pushing -----------------------------------------------------------------------------
    def _target(self) -> str | None:
        """Caller holds the lock."""
        if not self.url or self._local is None:
            return None
        url = urlsplit(self.url)
        return f"{self._local}{url.path or '/'}" + (f"?{url.query}" if url.query else "")

    def _push_forever(self) -> None:
        state = self.state
        while True:
            with state.changed:
                while True:
                    if state.closing:  # FakeTelegram.stop
                        return
                    target = self._target()
                    waiting = self._paused_until - time.monotonic()
                    pending = self._deliverable() if target is not None and waiting <= 0 else []
                    if pending:
                        break
                    state.changed.wait(max(min(waiting, 0.05), 0.01))
                update, secret = pending[0], self.secret
            assert target is not None
            status = self._post(target, update, secret)
            with state.lock:
                if status == 200:
                    state.updates[:] = [
                        u for u in state.updates if u["update_id"] != update["update_id"]
                    ]
                else:
                    self._paused_until = time.monotonic() + RETRY_PAUSE
                state.touch()

    def _post(self, target: str, update: JsonDict, secret: str | None) -> int:
        url = urlsplit(target)
        headers = {"Content-Type": "application/json"}
        if secret is not None:
            headers[SECRET_HEADER] = secret
        status = 0
        connection = http.client.HTTPConnection(url.hostname or "", url.port, timeout=POST_TIMEOUT)
        try:
            path = url.path + (f"?{url.query}" if url.query else "")
            connection.request("POST", path, json.dumps(update).encode(), headers)
            response = connection.getresponse()
            response.read()
            status = response.status
        except OSError:
            status = 0
        finally:
            connection.close()
            with self.state.lock:
                post = WebhookPost(update.get("update_id"), status, secret is not None, time.time())
                self.posts.append(post)
                self.state.touch()
        return status
