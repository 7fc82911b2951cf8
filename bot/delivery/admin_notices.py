"""The admin notices: messages the core owes the admin chats (`ADMIN_CHAT_IDS`), such as "arXiv's
listing pages stopped parsing" (`watcher.polling.source_alerts`), sent here.

The core queues them as rows (`watcher.store.source_health`), in the transaction that decided
them; this loop sends each as plain text (it quotes URLs and arXiv's own words, which no HTML
should reinterpret) and marks it sent only once Telegram confirmed it. A crash between the two
re-sends that one notice after the restart; nothing is lost. Telegram's answers are read as for
any delivery (`bot.delivery.answers`): a 429 or a network fault is waited out and retried; a
chat that refuses the bot (blocked, not found, moved) is told in the log and the notice is kept
as refused, never retried in a loop. Runs only in the active instance, beside the sender.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging

from telegram import Bot
from telegram.error import TelegramError

from bot.delivery.answers import Migrate, Retry, backoff_delay, outcome_of
from bot.delivery.compose import NO_PREVIEW
from watcher.core.delivery import Deliveries
from watcher.core.views import PendingNotice

log = logging.getLogger(__name__)

IDLE_RECHECK = 10.0  # seconds: notices queued by another process (`arxiv-watcher poll`) wait this


class AdminNoticeSender:
    """Sends the pending admin notices until `stop()`; `wake()` after a poll may have queued one."""

    def __init__(self, bot: Bot, deliveries: Deliveries) -> None:
        self.bot = bot
        self.deliveries = deliveries
        self._wakeup = asyncio.Event()
        self._stopping = False
        self._failures = 0  # retries in a row, for the backoff

    def wake(self) -> None:
        self._wakeup.set()

    async def stop(self) -> None:
        self._stopping = True
        self._wakeup.set()

    async def run(self) -> None:
        while not self._stopping:
            self._wakeup.clear()
            wait = IDLE_RECHECK
            try:
                pending = await self.deliveries.pending_admin_notices()
                for notice in pending:
                    if self._stopping:
                        break
                    retry_in = await self._send(notice)
                    if retry_in is not None:
                        wait = retry_in
                        break
            except Exception:
                # The database may be restarting; the rows are still the truth later.
                log.exception("sending the admin notices failed; trying again in %.0fs", wait)
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._wakeup.wait(), timeout=wait)

    async def _send(self, notice: PendingNotice) -> float | None:
        """Send one notice; the seconds to wait before the next try when it is to be retried."""
        try:
            await self.bot.send_message(
                chat_id=notice.chat_id, text=notice.text, link_preview_options=NO_PREVIEW
            )
        except TelegramError as error:
            outcome = outcome_of(error)
            if isinstance(outcome, Retry):
                self._failures += 1
                wait = outcome.wait or backoff_delay(self._failures)
                log.warning(
                    "could not send an admin notice to chat %d (%s); retrying in %.0f s",
                    notice.chat_id, outcome.reason, wait,
                )  # fmt: skip
                return wait
            if isinstance(outcome, Migrate):
                reason = f"the group moved to chat {outcome.new_chat_id}: put it in ADMIN_CHAT_IDS"
            else:
                reason = getattr(outcome, "reason", "refused")
            log.warning(
                "the admin chat %d refused a notice (%s); it is not tried again. The notice: %s",
                notice.chat_id, reason, notice.text.splitlines()[0],
            )  # fmt: skip
            await self.deliveries.admin_notice_refused(notice.id, reason=reason)
            return None
        self._failures = 0
        await self.deliveries.admin_notice_sent(notice.id)  # at the core's clock
        log.info("told admin chat %d: %s", notice.chat_id, notice.text.splitlines()[0])
        return None
