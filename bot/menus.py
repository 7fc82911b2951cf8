"""Telegram's own surfaces in each language: the command menu (setMyCommands), the description
shown before a person starts the bot (setMyDescription, at most 512 characters) and the short
one on its profile (setMyShortDescription, at most 120).

At start, each is set for the default (English, no `language_code`) and for every other
language under its Telegram code (`zh` for zh-Hans), and only where Telegram's current one
differs (read first with getMyCommands and the like): Telegram limits how often these may be
set. A chat whose /language changed gets its own menu (`BotCommandScopeChat`) in that language.
A 429 is waited out (at most `MAX_WAIT` seconds, twice); any other refusal is logged, and the
commands work without a menu.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Sequence
from typing import TypeVar

from telegram import Bot, BotCommand, BotCommandScopeChat
from telegram.error import RetryAfter, TelegramError

from bot.i18n import DEFAULT_LANGUAGE, LANGUAGES, N_, _, speaking
from bot.ratelimit import retry_after_seconds

log = logging.getLogger(__name__)

MAX_WAIT = 60.0  # seconds: a longer 429 leaves the menu as it was, until the next start
ATTEMPTS = 3
MAX_DESCRIPTION = 512
MAX_SHORT_DESCRIPTION = 120
# Telegram's language_code for each of our languages (ISO 639-1); the default has none.
TELEGRAM_CODES = {"zh-Hans": "zh"}

DESCRIPTION = N_(
    "I watch arXiv for new papers by the authors and topics you follow, and post each new "
    "abstract here once, within minutes of arXiv's announcement.\n\n"
    "Send /subscribe with a name (for example /subscribe Dezun Dong) or /watch with a topic; "
    "/help lists everything, /language changes my language."
)
SHORT_DESCRIPTION = N_("New arXiv papers by the authors and topics you follow, once each.")

Menu = Callable[[], Sequence[BotCommand]]
T = TypeVar("T")


class MenuPublisher:
    """Sets the menus and descriptions; `menu()` lists the commands in the language speaking."""

    def __init__(self, bot: Bot, menu: Menu) -> None:
        self.bot = bot
        self.menu = menu

    async def publish(self) -> None:
        """At start: every language's menu and descriptions, where Telegram's differ."""
        for language in LANGUAGES:
            code = "" if language == DEFAULT_LANGUAGE else TELEGRAM_CODES.get(language, language)
            with speaking(language):
                commands = list(self.menu())
                description = _(DESCRIPTION)[:MAX_DESCRIPTION]
                short = _(SHORT_DESCRIPTION)[:MAX_SHORT_DESCRIPTION]
            await self._commands(commands, code)
            await self._description(description, code)
            await self._short_description(short, code)

    async def chat_changed(self, chat_id: int, language: str) -> None:
        """/language changed a chat's language: its own menu, in that language."""
        with speaking(language):
            commands = list(self.menu())
        await _patiently(
            f"the command menu of chat {chat_id}",
            lambda: self.bot.set_my_commands(commands, scope=BotCommandScopeChat(chat_id)),
        )

    async def _commands(self, commands: list[BotCommand], code: str) -> None:
        current = await _patiently(
            "the command menu", lambda: self.bot.get_my_commands(language_code=code or None)
        )
        if current is not None and _same_commands(current, commands):
            return
        await _patiently(
            f"the command menu ({code or 'default'})",
            lambda: self.bot.set_my_commands(commands, language_code=code or None),
        )

    async def _description(self, text: str, code: str) -> None:
        current = await _patiently(
            "the description", lambda: self.bot.get_my_description(language_code=code or None)
        )
        if current is not None and current.description == text:
            return
        await _patiently(
            f"the description ({code or 'default'})",
            lambda: self.bot.set_my_description(text, language_code=code or None),
        )

    async def _short_description(self, text: str, code: str) -> None:
        current = await _patiently(
            "the short description",
            lambda: self.bot.get_my_short_description(language_code=code or None),
        )
        if current is not None and current.short_description == text:
            return
        await _patiently(
            f"the short description ({code or 'default'})",
            lambda: self.bot.set_my_short_description(text, language_code=code or None),
        )


def _same_commands(current: Sequence[BotCommand], wanted: Sequence[BotCommand]) -> bool:
    return [(c.command, c.description) for c in current] == [
        (c.command, c.description) for c in wanted
    ]


async def _patiently(what: str, call: Callable[[], Awaitable[T]]) -> T | None:
    """`call()`, a 429 waited out up to `ATTEMPTS` times; None (and a warning) when refused."""
    for attempt in range(1, ATTEMPTS + 1):
        try:
            return await call()
        except RetryAfter as error:
            wait = retry_after_seconds(error)
            if attempt == ATTEMPTS or wait > MAX_WAIT:
                log.warning("could not set %s: Telegram asks to wait %.0f s", what, wait)
                return None
            log.info("setting %s: Telegram asks to wait %.0f s", what, wait)
            await asyncio.sleep(wait)
        except TelegramError as error:  # the menu is a convenience; the commands work without
            log.warning("could not set %s: %s", what, error.message)
            return None
    return None
