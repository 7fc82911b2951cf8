"""The webhook listener cannot be worn down by someone who does not hold the secret (issue 29,
item 4), through the real listener the front end starts (in this process) and the fake Bot API:
a 40 MB request without the secret is answered 403 before its body is read, and its connection
closed; with the secret but over 1 MB it is answered 413 the same way; a body sent without a
length is cut off at 1 MB; Telegram's own updates, with the secret, are still taken. An address
the listener cannot have stops the start with one line.

How much of a body the listener reads is measured from the sender's side: the body goes out in
64 KB pieces, and before each piece the sender looks for the answer. An answer that comes while
at most one piece is out was given on the headers alone, and the connection then closed means
the listener reads no more of it (PTB's own server read the whole 40 MB, up to tornado's 100 MB,
before it looked at the secret)."""

from __future__ import annotations

import asyncio
import dataclasses
import logging
import select
import socket

import pytest
from pydantic import HttpUrl, SecretStr
from sqlalchemy import Engine
from telegram.ext import ExtBot

from bot.frontend import TelegramFrontend
from bot.webhook import MAX_BODY_BYTES, SECRET_HEADER, start_webhook
from tests.harness.bots import USER, running_service
from tests.harness.patience import PATIENCE
from watcher.errors import ConfigError
from watcher.settings import Settings

SECRET = "Limits_webhook-secret-8Jd3Lq5Wm2Xc7Vn4Rb"
PUBLIC_URL = "https://bot.example.org/telegram/updates"
PATH = "/telegram/updates"
FORTY_MB = 40 * 1000 * 1000
PIECE = 64 * 1024
ANSWER_WAIT = 0.2  # seconds the sender looks for an answer before the next piece


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def send_slowly(port: int, head: bytes, body: bytes, piece: int = PIECE) -> tuple[bytes, int, bool]:
    """Send `head`, then `body` in pieces, each only after `ANSWER_WAIT` without an answer:
    (the answer, the body bytes sent before it came, whether the listener then closed the
    connection). No answer while over 1 MB is out: (b"", bytes sent, False) at once."""
    with socket.create_connection(("127.0.0.1", port), timeout=PATIENCE) as conn:
        conn.sendall(head)
        sent = 0
        while not select.select([conn], [], [], ANSWER_WAIT)[0]:
            if sent > MAX_BODY_BYTES or sent >= len(body):
                return b"", sent, False
            try:
                conn.sendall(body[sent : sent + piece])
            except OSError:  # closed by the listener: its answer may still be there to read
                break
            sent += piece
        answer = b""
        try:
            while chunk := conn.recv(65536):
                answer += chunk
        except ConnectionResetError:
            pass
        return answer, sent, True


def post_head(length: int, *, secret: str | None, path: str = PATH) -> bytes:
    lines = [f"POST {path} HTTP/1.1", "Host: bot", "Content-Type: application/json"]
    lines += [f"Content-Length: {length}"] if length >= 0 else ["Transfer-Encoding: chunked"]
    lines += [f"{SECRET_HEADER}: {secret}"] if secret is not None else []
    return ("\r\n".join(lines) + "\r\n\r\n").encode()


def chunked_body(total: int) -> bytes:
    piece = b"{" * 4096
    return b"".join(b"%x\r\n%s\r\n" % (len(piece), piece) for _ in range(total // 4096 + 1))


@pytest.mark.database
async def test_a_large_request_is_refused_on_its_headers_and_updates_still_come(
    engine: Engine, database_url: str, caplog: pytest.LogCaptureFixture
) -> None:
    port = free_port()
    async with running_service(engine, database_url) as (telegram, _, service):
        settings = service.settings.model_copy(
            update={
                "telegram_webhook_url": HttpUrl(PUBLIC_URL),
                "telegram_webhook_listen": f"127.0.0.1:{port}",
                "telegram_webhook_secret": SecretStr(SECRET),
            }
        )
        front_end = TelegramFrontend(dataclasses.replace(service, settings=settings))
        await front_end.start()
        try:
            caplog.set_level(logging.WARNING, logger="bot.webhook")
            body = b"{" * 2 * MAX_BODY_BYTES  # of the 40 MB announced: never sent past 1 MB
            for head, status in [
                (post_head(FORTY_MB, secret=None), b"403"),
                (post_head(FORTY_MB, secret="Wrong-secret-" + "x" * 30), b"403"),
                (post_head(FORTY_MB, secret=SECRET), b"413"),
                (post_head(FORTY_MB, secret=None, path="/elsewhere"), b"404"),
            ]:
                answer, sent, closed = await asyncio.to_thread(send_slowly, port, head, body)
                assert answer.startswith(b"HTTP/1.1 " + status), (answer[:200], sent)
                assert sent < MAX_BODY_BYTES and closed, (sent, closed)

            # With the secret, a body sent without a length: cut off once over 1 MB.
            head = post_head(-1, secret=SECRET)
            chunked = chunked_body(3 * MAX_BODY_BYTES)
            answer, sent, closed = await asyncio.to_thread(
                send_slowly, port, head, chunked, 4 * PIECE
            )
            assert answer.startswith(b"HTTP/1.1 400"), (answer[:200], sent)
            assert MAX_BODY_BYTES <= sent < 2 * MAX_BODY_BYTES and closed, (sent, closed)

            telegram.webhooks.route(f"http://127.0.0.1:{port}")
            telegram.user_sends(USER, "/start")
            await telegram.wait_for(lambda: telegram.sent(USER), PATIENCE)
        finally:
            await front_end.stop()

    refusals = [r.getMessage() for r in caplog.records if "refused a request" in r.getMessage()]
    assert len(refusals) == 3  # the 403s and the 413; a wrong path is not worth a line
    assert "(403): did not include the secret token" in refusals[0]
    assert "(403): had the wrong secret token" in refusals[1]
    assert f"(413): a body over {MAX_BODY_BYTES} bytes" in refusals[2]
    assert all("127.0.0.1" in line and "Wrong-secret" not in line for line in refusals)


async def test_an_address_taken_stops_the_start_with_one_line() -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        settings = Settings(
            _env_file=None,
            telegram_bot_token="123456:TEST-webhook-limits-token",
            telegram_webhook_url=PUBLIC_URL,
            telegram_webhook_listen=f"127.0.0.1:{port}",
            telegram_webhook_secret=SECRET,
        )
        bot = ExtBot("123456:TEST-webhook-limits-token", base_url="http://127.0.0.1:9/bot")
        with pytest.raises(ConfigError, match=rf"cannot listen on .*127.0.0.1:{port}: "):
            await start_webhook(bot, asyncio.Queue(), settings)
