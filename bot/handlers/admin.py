"""/stats: the service's health at a glance, for the chats in ADMIN_CHAT_IDS only."""

from __future__ import annotations

import html

from telegram import Update

from bot.handlers.common import Context, ServiceHandlers, papers, reply, when
from watcher.aio import in_db_thread


class Admin(ServiceHandlers):
    """Commands for the service's administrators."""

    async def stats(self, update: Update, context: Context) -> None:
        """/stats: the service's health, for ADMIN_CHAT_IDS only."""
        chat = update.effective_chat
        assert chat is not None
        if chat.id not in self.settings.admin_chat_ids:
            await reply(update, context, "Sorry, /stats is not allowed here: admins only.")
            return
        await reply(update, context, await in_db_thread(self._stats))

    def _stats(self) -> str:
        """Database thread: chats, papers, deliveries, and each author's poll state."""
        chats, active, subscriptions = self.chats.counts()
        deliveries = self.service.outbox.stats()
        lines = [
            "<b>arxiv-watcher</b>",
            f"Chats: {chats} ({active} active); subscriptions: {subscriptions}",
            f"Papers stored: {self.store.count()}",
            f"Deliveries: {deliveries.pending} pending, {deliveries.parked} parked, "
            f"{deliveries.sent} sent, {deliveries.failed} failed",
            "",
            "<b>Authors</b>",
        ]
        for f in self.store.followed():
            line = (
                f"• {html.escape(f.name)}: {papers(f.record_count)}, "
                f"last success {when(f.last_success)}"
            )
            if f.consecutive_failures:
                line += (
                    f"; {f.consecutive_failures} failed in a row, last: "
                    f"{html.escape((f.last_error or '')[:120])}"
                )
            lines.append(line)
        failures = self.service.outbox.failures(limit=5)
        if failures:
            lines += ["", "<b>Latest failed deliveries</b>"]
            lines += [
                f"• chat {chat_id}, {html.escape(arxiv_id)}: {html.escape(reason[:120])}"
                for chat_id, arxiv_id, reason in failures
            ]
        return "\n".join(lines)
