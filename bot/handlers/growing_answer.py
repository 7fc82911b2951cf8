"""One answer made of lines decided one after another (/subscribe A; B; C), shown as it grows.

A line decided quickly waits for the next, so a fast command still gets one message. When the
next decision keeps the chat waiting longer than `SHOW_AFTER` (arXiv is being asked), the lines
decided so far are posted, or the posted answer is edited to add them, with a last line saying
how many names are still being checked; the finished answer replaces it. So the first name's
answer comes before the last name is decided, with one message and at most one edit per slow
name: well within Telegram's limits for a chat.
"""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine
from typing import Any, TypeVar

from telegram import Message as TelegramMessage
from telegram import Update
from telegram.constants import ParseMode
from telegram.error import BadRequest

from bot.handlers.common import NO_PREVIEW, Context, fit_reply, reply
from bot.i18n import ngettext

T = TypeVar("T")

SHOW_AFTER = 0.5  # seconds a decision may take before the lines decided so far are shown


class GrowingAnswer:
    """The lines of one reply, posted when a decision is slow and edited as more are decided."""

    def __init__(self, update: Update, context: Context) -> None:
        self.update = update
        self.context = context
        self.lines: list[str] = []
        self._posted: TelegramMessage | None = None
        self._shown = ""

    def add(self, line: str) -> None:
        self.lines.append(line)

    async def decide(self, decision: Coroutine[Any, Any, T], *, undecided: int) -> T:
        """Await `decision`; if it is slow and lines wait to be seen, show them meanwhile.
        `undecided`: the names not decided yet, this one included."""
        task = asyncio.ensure_future(decision)
        try:
            done, _pending = await asyncio.wait({task}, timeout=SHOW_AFTER)
            if not done and self.lines:
                checking = ngettext(
                    "⏳ Checking {n} more name with arXiv…",
                    "⏳ Checking {n} more names with arXiv…",
                    undecided,
                )
                await self._show(f"{self._text()}\n{checking}")
            return await task
        finally:
            if not task.done():
                task.cancel()

    async def finish(self) -> None:
        """The whole answer: a new reply, or the posted one edited to its final text."""
        await self._show(self._text())

    def _text(self) -> str:
        return "\n".join(self.lines)

    async def _show(self, text: str) -> None:
        if self._posted is None:
            self._posted = await reply(self.update, self.context, text)
        elif text != self._shown:
            try:
                await self._posted.edit_text(
                    fit_reply(text), parse_mode=ParseMode.HTML, link_preview_options=NO_PREVIEW
                )
            except BadRequest:  # the answer was deleted meanwhile: say it anew
                self._posted = await reply(self.update, self.context, text)
        self._shown = text
