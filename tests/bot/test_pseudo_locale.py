"""Issue 31, item 6: no sentence escapes the catalogs. A chat whose first writer's Telegram
client asks for the pseudo-locale (`tests.harness.pseudo_locale`: every translated sentence
wrapped as ⟦…⟧, its letters accented) is taken through the bot: /start, /help and /help of
every command, every example of the README's table of commands, wrong input to each kind of
command, plain text, an unknown command, buttons, the group welcome; and, with the whole front
end, an announcement, a compact line, a digest and a "While you were away" summary. Every
message, edit, toast and file caption the fake Bot API received for those chats must hold no
English word outside ⟦…⟧, once what is never translated is taken out: the papers' titles,
abstracts and names, the names and words people typed, commands, <code> examples, ids,
categories, zones and URLs.

How it fails: add a reply such as `await reply(update, context, f"Done: {n} papers.")` to any
handler, or a label such as `"Replaced by"` to a renderer, without `_()`. The tour's message
then holds "Done" and "papers" (or "Replaced") outside any ⟦…⟧, and the test lists them with
the message they are in. A sentence wrapped in `_()` but never extracted fails
`tests/bot/test_catalogs.py` instead.
"""

from __future__ import annotations

from typing import Any

import pytest

from bot.handlers.commands import COMMAND_TABLE
from tests.bot.test_told_commands import readme_rows
from tests.fakes.corpus import dezun_dong_records, make_record
from tests.harness.bots import GROUP, STILL_CHECKING, Bot
from tests.harness.pseudo_locale import english_left, install_pseudo

READER = 4711  # a private chat speaking the pseudo-locale
ADMIN = 4712
# Wrong input for each kind of argument (the refusals' sentences are the catalog's too).
WRONG = [
    "/recent abc", "/recent 9999", "/subject cs.XX", "/subject", "/subscribe in cs.DC",
    "/subscribe https://arxiv.org/a/", "/unsubscribe Nobody Here", "/watch", "/watch -rdma",
    "/watch (a OR", "/unwatch rdma", "/quiet 25:00-07:00", "/quiet 22:00", "/format huge",
    "/silent maybe", "/preview maybe", "/digest at noon", "/timezone Mars/Olympus",
    "/paper 9999.99999", "/paper", "/authors", "/search", "/search the", "/exclude",
    "/saved maybe", "/export pdf", "/import", "/language klingon", "/revisions maybe",
    "/help nothing", "/frobnicate", "hello there", "/why now", "/stats", "/suggest maybe",
    "/suggest 11", "/suggest",
]  # fmt: skip


@pytest.fixture(autouse=True)
def pseudo() -> str:
    return install_pseudo()


def _said(bot: Bot, chat_id: int) -> list[str]:
    """Everything the bot said in the chat: messages (their HTML, as last edited, so <code>
    examples show as such), their buttons, toasts, file captions."""
    telegram = bot.telegram
    texts = []
    for message in telegram.sent(chat_id):
        edits = [
            e.text
            for e in telegram.edits
            if (e.chat_id, e.message_id) == (chat_id, message.message_id) and e.text
        ]
        texts.append(edits[-1] if edits else message.html)
        rows = (message.reply_markup or {}).get("inline_keyboard", [])
        texts += [button["text"] for row in rows for button in row]
    texts += [a.text for a in telegram.callback_answers if a.chat_id == chat_id and a.text]
    texts += [d.caption for d in telegram.documents(chat_id) if d.caption]
    return texts


def _exempt(bot: Bot, typed: list[str]) -> list[str]:
    """What is never translated: every stored paper's own text, and what people typed."""
    exempt: list[str] = []
    for record in [*dezun_dong_records(), *bot.arxiv.records]:
        exempt += [record.title, record.abstract, *(a.name for a in record.authors)]
        exempt += [affiliation for a in record.authors for affiliation in a.affiliations]
        exempt += [record.comment or "", record.journal_ref or ""]
    for text in typed:
        exempt += text.split(maxsplit=1)[1:]
    return exempt


def _escaped(bot: Bot, chat_id: int, typed: list[str]) -> dict[str, list[str]]:
    exempt = _exempt(bot, typed)
    escaped = {}
    for text in _said(bot, chat_id):
        if words := english_left(text, exempt):
            escaped[text[:300]] = words
    return escaped


async def _send(bot: Bot, chat_id: int, text: str, **sender: Any) -> None:
    telegram = bot.telegram
    before = len(telegram.sent(chat_id)) + len(telegram.documents(chat_id))
    telegram.user_sends(chat_id, text, **sender)
    await bot.until(lambda: len(telegram.sent(chat_id)) + len(telegram.documents(chat_id)) > before)
    if len(telegram.sent(chat_id)) > 0:
        await bot.until(lambda: STILL_CHECKING not in bot.current_text(chat_id, -1))


async def test_every_answer_speaks_the_catalog(bot: Bot, pseudo: str) -> None:
    bot.arxiv.claim("dong_d_1", [record.arxiv_id for record in dezun_dong_records()])
    bot.arxiv.add(make_record(arxiv_id="2605.00042", authors=["Wei Wang"]))
    bot.arxiv.add(make_record(arxiv_id="2604.01234", authors=["Ann Other", "Dezun Dong"]))
    await bot.service.poller.poll()
    typed = ["/start", "/help", *(f"/help {c.name}" for c in COMMAND_TABLE)]
    # /language's own example would leave the pseudo-locale: it is tested on its own.
    typed += [e for _, e in readme_rows() if not e.startswith("/language")] + WRONG
    for text in typed:
        await _send(bot, READER, text, language_code=pseudo)
    assert bot.chats.speaking.language_of(READER, 0) == pseudo
    assert _escaped(bot, READER, typed) == {}


async def test_the_group_welcome_and_an_outsiders_refusal_speak_the_catalog(
    bot: Bot, pseudo: str
) -> None:
    bot.telegram.add_chat(GROUP, chat_type="group", title="Reading group")
    bot.telegram.set_admins(GROUP, [ADMIN])
    before = len(bot.telegram.sent(GROUP))
    bot.telegram.my_chat_member(GROUP, "member", user_id=ADMIN, language_code=pseudo)
    await bot.until(lambda: len(bot.telegram.sent(GROUP)) > before)
    typed = ["/subscribe Dezun Dong", "/language en", "/digest daily 08:00"]
    for text in typed:
        await _send(bot, GROUP, text, user_id=READER)
    assert _escaped(bot, GROUP, typed) == {}
