"""Files in the fake Bot API, against PTB's own `Bot`: a document a user sends is fetched with
getFile and downloaded from the file path `bot.app.file_url` derives (PTB percent-encodes the
token in it), a wrong token or an unknown path is refused as Telegram refuses them, a file over
20 MB is refused by getFile, and sendDocument keeps what was uploaded."""

from __future__ import annotations

import httpx
import pytest
from telegram import Bot
from telegram.error import BadRequest

from bot.app import file_url
from tests.fakes.telegram import FakeTelegram
from tests.harness.fake_telegram_ids import ALICE, TOKEN


def test_the_file_address_sits_beside_the_method_address() -> None:
    assert file_url("https://api.telegram.org/bot") == "https://api.telegram.org/file/bot"
    assert file_url("http://127.0.0.1:8081/bot/") == "http://127.0.0.1:8081/file/bot"


async def test_a_users_document_downloads_through_get_file(fake: FakeTelegram) -> None:
    fake.user_sends_document(ALICE, "subscribe Dézun Dong\n".encode(), caption="/import")
    async with Bot(TOKEN, base_url=fake.base_url, base_file_url=file_url(fake.base_url)) as bot:
        (update,) = await bot.get_updates()
        message = update.message
        assert message is not None and message.document is not None
        assert message.caption == "/import"
        assert message.caption_entities[0].type == "bot_command"
        assert message.document.file_name == "follows.txt"
        file = await bot.get_file(message.document.file_id)
        assert bytes(await file.download_as_bytearray()) == "subscribe Dézun Dong\n".encode()
        assert file.file_path is not None
        relative = file.file_path.split("/file/bot", 1)[1].split("/", 1)[1]
    async with httpx.AsyncClient() as client:
        base = file_url(fake.base_url)
        wrong = await client.get(f"{base}123456:WRONG/{relative}")
        unknown = await client.get(f"{base}{TOKEN}/documents/none.txt")
    assert (wrong.status_code, unknown.status_code) == (401, 404)


async def test_get_file_refuses_a_file_over_twenty_megabytes(fake: FakeTelegram, bot: Bot) -> None:
    fake.user_sends_document(ALICE, b"x" * (20 * 1024 * 1024 + 1))
    (update,) = await bot.get_updates()
    assert update.message is not None and update.message.document is not None
    with pytest.raises(BadRequest, match="File is too big"):
        await bot.get_file(update.message.document.file_id)


async def test_send_document_keeps_the_upload(fake: FakeTelegram, bot: Bot) -> None:
    sent = await bot.send_document(ALICE, b"<opml/>", filename="mine.opml", caption="Yours")
    assert sent.document is not None and sent.document.file_name == "mine.opml"
    (document,) = fake.documents(ALICE)
    assert (document.data, document.file_name, document.caption) == (
        b"<opml/>",
        "mine.opml",
        "Yours",
    )
    assert document.message_id == sent.message_id
