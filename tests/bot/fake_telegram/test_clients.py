"""The fake Bot API and its clients: a PTB Application built on its base URL answers a command,
the token is never recorded, `wait_sync` waits, a client killed mid-request leaves the fake
serving, and requests through a named base URL are recorded as that client's.
"""

from __future__ import annotations

import asyncio
import signal
import sys

import pytest
from telegram import Bot, Update
from telegram.ext import ApplicationBuilder, CommandHandler, ContextTypes

from tests.fakes.telegram import FakeTelegram, Fault
from tests.harness.fake_telegram_ids import ALICE, TOKEN


async def test_application_built_with_base_url_answers_a_command(fake: FakeTelegram) -> None:
    async def start(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        """Greets whoever sends /start."""
        assert update.effective_chat is not None
        await context.bot.send_message(update.effective_chat.id, "Hello!")

    app = ApplicationBuilder().token(TOKEN).base_url(fake.base_url).build()
    app.add_handler(CommandHandler("start", start))
    async with app:
        await app.start()
        assert app.updater is not None
        await app.updater.start_polling(poll_interval=0, timeout=1)
        fake.user_sends(ALICE, "/start")
        await fake.wait_for(lambda: fake.sent(ALICE), timeout=10)
        await app.updater.stop()
        await app.stop()
    assert [m.text for m in fake.sent(ALICE)] == ["Hello!"]


async def test_token_is_never_recorded(fake: FakeTelegram, bot: Bot) -> None:
    await bot.send_message(ALICE, "hi")
    assert fake.requests
    assert TOKEN not in repr(fake.requests) + repr(fake) + repr(fake.sent())
    assert TOKEN.split(":")[1] not in repr(fake.requests)


def test_wait_sync_times_out_and_succeeds(fake: FakeTelegram) -> None:
    with pytest.raises(TimeoutError):
        fake.wait_sync(lambda: fake.sent(), timeout=0.1)
    fake.user_sends(ALICE, "hi")
    fake.wait_sync(lambda: fake.pending_updates == 1, timeout=1)


_DOOMED_CLIENT = """
import http.client, sys, threading, urllib.parse
url = urllib.parse.urlsplit(sys.argv[1])
def call(method, **params):
    connection = http.client.HTTPConnection(url.hostname, url.port)
    connection.request("POST", url.path + method, urllib.parse.urlencode(params),
                       {"Content-Type": "application/x-www-form-urlencoded"})
    connection.getresponse().read()
threading.Thread(target=call, args=("sendMessage",), kwargs={"chat_id": 7, "text": "x"}).start()
call("getUpdates", timeout=60)
"""


@pytest.mark.slow
async def test_a_client_killed_mid_request_leaves_the_fake_serving(
    fake: FakeTelegram, bot: Bot, capfd: pytest.CaptureFixture[str]
) -> None:
    fake.inject(Fault.slow(1.0))  # delivered at once, answered after the client is dead
    update_id = fake.user_sends(ALICE, "/start")
    doomed = await asyncio.create_subprocess_exec(
        sys.executable, "-c", _DOOMED_CLIENT, fake.base_url + TOKEN + "/"
    )
    try:
        await fake.wait_for(lambda: fake.calls("getUpdates") == 1 and fake.sent(7), timeout=30)
    finally:
        doomed.send_signal(signal.SIGKILL)
        await doomed.wait()
    # The restarted bot gets the unconfirmed update again, and sending still works.
    assert [u.update_id for u in await bot.get_updates(timeout=5)] == [update_id]
    await bot.send_message(ALICE, "back")

    # Requests are recorded once handled: wait for the dead client's two to be written off.
    def handled(method: str) -> int:
        return sum(1 for request in fake.requests if request.method == method)

    await fake.wait_for(lambda: handled("getUpdates") == 2 and handled("sendMessage") == 2)
    assert "Traceback" not in capfd.readouterr().err


async def test_requests_through_a_named_base_url_are_recorded_as_that_clients(
    fake: FakeTelegram, bot: Bot
) -> None:
    async with Bot(TOKEN, base_url=fake.base_url_for("b")) as named:
        await named.send_message(ALICE, "from b")
    await bot.send_message(ALICE, "from nobody in particular")
    assert [m.text for m in fake.sent(ALICE)] == ["from b", "from nobody in particular"]
    assert [r.method for r in fake.requests_from("b")] == ["getMe", "sendMessage"]
    assert len(fake.requests_from("b", "sendMessage")) == 1
    assert fake.requests_from("a") == []
