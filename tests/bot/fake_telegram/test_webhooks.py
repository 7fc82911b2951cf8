"""The fake Bot API's webhooks, through PTB's `Bot` and a bare HTTP receiver: setWebhook refuses
what Telegram refuses, getUpdates is refused while a webhook is set, queued updates are pushed
with the registered secret until the receiver answers 200, and `post` sends what the test says.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest
from telegram import Bot
from telegram.error import BadRequest, Conflict

from tests.fakes.telegram import SECRET_HEADER, FakeTelegram
from tests.harness.fake_telegram_ids import ALICE

URL = "https://bot.example.org/hook/path"
SECRET = "fake-webhook-secret_0123456789abcdefXYZ"


class Receiver(ThreadingHTTPServer):
    """Records each POST (path, secret header, update id) and answers `status`."""

    daemon_threads = True

    def __init__(self) -> None:
        super().__init__(("127.0.0.1", 0), _ReceiverHandler)
        self.received: list[tuple[str, str | None, int]] = []
        self.statuses: list[int] = []  # answers to give, in order; then 200

    @property
    def local(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}"


class _ReceiverHandler(BaseHTTPRequestHandler):
    server: Receiver

    def log_message(self, format: str, *args: Any) -> None:
        """Quiet."""

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        self.server.received.append((self.path, self.headers.get(SECRET_HEADER), body["update_id"]))
        status = self.server.statuses.pop(0) if self.server.statuses else 200
        self.send_response(status)
        self.send_header("Content-Length", "0")
        self.end_headers()


@pytest.fixture
def receiver() -> Iterator[Receiver]:
    server = Receiver()
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05})
    thread.start()
    yield server
    server.shutdown()
    server.server_close()
    thread.join()


async def test_set_webhook_refuses_what_telegram_refuses(bot: Bot) -> None:
    with pytest.raises(BadRequest, match=r"(?i)https url must be provided"):
        await bot.set_webhook("http://bot.example.org/hook")
    with pytest.raises(BadRequest, match=r"(?i)secret token contains unallowed"):
        await bot.set_webhook(URL, secret_token="not allowed!")
    assert (await bot.get_webhook_info()).url == ""


async def test_get_updates_is_refused_while_a_webhook_is_set(fake: FakeTelegram, bot: Bot) -> None:
    assert await bot.set_webhook(URL, secret_token=SECRET)
    info = await bot.get_webhook_info()
    assert info.url == URL
    with pytest.raises(Conflict, match="webhook is active"):
        await bot.get_updates()
    assert await bot.delete_webhook()
    assert (await bot.get_webhook_info()).url == ""
    assert await bot.get_updates() == ()


async def test_updates_are_pushed_with_the_secret_until_answered(
    fake: FakeTelegram, bot: Bot, receiver: Receiver
) -> None:
    receiver.statuses = [500]  # the first push fails: the update stays queued, pushed again
    first = fake.user_sends(ALICE, "/start")
    await bot.set_webhook(URL, secret_token=SECRET)
    fake.webhooks.route(receiver.local)
    second = fake.user_sends(ALICE, "/help")
    await fake.wait_for(lambda: fake.pending_updates == 0)
    assert receiver.received == [
        ("/hook/path", SECRET, first),
        ("/hook/path", SECRET, first),
        ("/hook/path", SECRET, second),
    ]
    assert [post.status for post in fake.webhooks.received()] == [500, 200, 200]
    assert (await bot.get_webhook_info()).pending_update_count == 0


async def test_post_sends_the_header_the_test_chooses(
    fake: FakeTelegram, bot: Bot, receiver: Receiver
) -> None:
    await bot.set_webhook(URL, secret_token=SECRET)
    fake.webhooks.route(receiver.local)
    receiver.statuses = [403, 403]
    assert fake.webhooks.post({"update_id": 7}, secret=None) == 403
    assert fake.webhooks.post({"update_id": 8}, secret="wrong") == 403
    assert fake.webhooks.post({"update_id": 9}, secret=SECRET) == 200
    assert receiver.received == [
        ("/hook/path", None, 7),
        ("/hook/path", "wrong", 8),
        ("/hook/path", SECRET, 9),
    ]
