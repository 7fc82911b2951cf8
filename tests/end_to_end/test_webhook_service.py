"""Webhook mode through the real service (issue 22, item 3): `arxiv-watcher run` with
TELEGRAM_WEBHOOK_URL registers the webhook with its secret, listens on TELEGRAM_WEBHOOK_LISTEN,
answers the updates the fake Bot API pushes with the secret, refuses with 403 a request without
the secret header or with a wrong one (one warning line each, no body), never polls getUpdates,
leaves the webhook registered when it stops, and never writes the secret or the token, even at
LOG_LEVEL=DEBUG, where PTB logs the parameters of every request it makes."""

from __future__ import annotations

import json
import socket
from pathlib import Path

import pytest
from sqlalchemy import Engine

from tests.fakes.arxiv_api import FakeArxiv
from tests.fakes.corpus import dezun_dong_records
from tests.fakes.telegram import FakeTelegram, RateLimits
from tests.harness.cli_helpers import service_on_fakes
from tests.harness.patience import PATIENCE

pytestmark = pytest.mark.slow

TOKEN = "123456:TEST-webhook-service-token-abcdef"
SECRET = "Service_webhook-secret-9Hs2Kd7Pq4Lx1Vb6Nz"
PUBLIC_URL = "https://bot.example.org/telegram/updates"
PERSON, STRANGER = 31, 32
BODY_MARK = "body-of-a-forged-request"


def forged(update_id: int) -> dict[str, object]:
    """An update as someone other than Telegram could send it, if they found the URL."""
    chat = {"id": STRANGER, "type": "private", "first_name": "Mallory"}
    message = {
        "message_id": 1,
        "date": 1_700_000_000,
        "chat": chat,
        "from": {"id": STRANGER, "is_bot": False, "first_name": "Mallory"},
        "text": f"/start {BODY_MARK}",
        "entities": [{"type": "bot_command", "offset": 0, "length": 6}],
    }
    return {"update_id": update_id, "message": message}


def test_webhook_updates_with_the_secret_are_answered_and_others_refused_without_a_trace(
    tmp_path: Path, engine: Engine, database_url: str
) -> None:
    """`engine`: the database migrated here, rather than by a child of the service."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    with (
        FakeArxiv(dezun_dong_records()) as arxiv,
        FakeTelegram(TOKEN, rate_limits=RateLimits.disabled()) as telegram,
    ):
        service = service_on_fakes(
            arxiv,
            telegram,
            cwd=tmp_path,
            database_url=database_url,
            LOG_LEVEL="DEBUG",
            TELEGRAM_WEBHOOK_URL=PUBLIC_URL,
            TELEGRAM_WEBHOOK_LISTEN=f"127.0.0.1:{port}",
            TELEGRAM_WEBHOOK_SECRET=SECRET,
        )
        try:
            service.wait_for(lambda: "started (webhook" in service.output)
            telegram.webhooks.route(f"http://127.0.0.1:{port}")
            telegram.user_sends(PERSON, "/start")
            telegram.wait_sync(lambda: telegram.sent(PERSON), PATIENCE)

            assert telegram.webhooks.post(forged(1), secret=None) == 403
            assert telegram.webhooks.post(forged(2), secret="Wrong-secret-" + "x" * 30) == 403
            service.wait_for(lambda: service.output.count("webhook: refused a request") == 2)
            telegram.user_sends(PERSON, "/help")  # handled after the forged ones arrived
            telegram.wait_sync(lambda: len(telegram.sent(PERSON)) == 2, PATIENCE)
            # Inline mode (issue 33): asked for by name at setWebhook, and answered.
            [registered] = [r for r in telegram.requests if r.method == "setWebhook"]
            assert "inline_query" in json.loads(registered.params["allowed_updates"])
            query_id = telegram.inline_query(PERSON, "")
            telegram.wait_sync(lambda: telegram.inline_answer(query_id), PATIENCE)
        finally:
            code = service.stop()
        assert code == 0, service.output
        assert telegram.sent(STRANGER) == []
        assert telegram.webhooks.url == PUBLIC_URL  # stopping leaves it for the next active one

    (registration,) = [r for r in telegram.requests if r.method == "setWebhook"]
    assert registration.params["url"] == PUBLIC_URL
    assert registration.params["secret_token"] == SECRET
    assert telegram.calls("getUpdates") == 0
    assert telegram.calls("deleteWebhook") == 0

    refusals = [line for line in service.stderr if "webhook: refused a request" in line]
    assert len(refusals) == 2
    assert all(" WARNING " in line and "127.0.0.1 (403)" in line for line in refusals)
    assert "did not include the secret token" in refusals[0]
    assert "had the wrong secret token" in refusals[1]
    output = service.output
    assert "Calling Bot API endpoint `setWebhook`" in output  # DEBUG, with its parameters...
    assert SECRET not in output  # ...masked
    assert TOKEN.split(":")[1] not in output
    assert BODY_MARK not in output
    assert "Wrong-secret-" not in output
