"""/stats: the service's health at a glance, for the chats in ADMIN_CHAT_IDS only; and /id, for
anyone: the ids of the chat, the sender and the forum topic, the first for ADMIN_CHAT_IDS.

A source of arXiv whose answers stopped parsing is listed near the top, since the service then
finds papers hours late (`watcher.polling.source_alerts`). Parked chats (the bot may not post there
for now: no rights, a closed topic) are listed with the reason Telegram gave, since an admin of that
chat has to act on it.
"""

from __future__ import annotations

import html
from collections.abc import Sequence

from telegram import Update

from bot.handlers.common import (
    Context,
    ServiceHandlers,
    capped_lines,
    papers,
    refusal,
    reply,
    topic_of,
    when,
)
from bot.handlers.permissions import STAND_INS
from bot.render import MAX_MESSAGE_LENGTH, visible_length
from watcher.calendars.announcements import AnnouncementCalendar
from watcher.core.admin import ServiceStats
from watcher.core.mailing_report import describe_mailing
from watcher.core.views import NO_THREAD, MailingNews, ParkedInfo, SourceHealth
from watcher.follows.followed import Followed

STATS_REFUSED = refusal(
    "/stats is for the service's administrators: the operator adds this chat's id "
    "({chat_id}) to ADMIN_CHAT_IDS and restarts it.",
    "/id",
    lead="Ids, to send the operator:",
)


class Admin(ServiceHandlers):
    """Commands for the service's administrators."""

    async def stats(self, update: Update, context: Context) -> None:
        """/stats: the service's health, for ADMIN_CHAT_IDS only."""
        chat = update.effective_chat
        assert chat is not None
        if chat.id not in self.settings.admin_chat_ids:
            await reply(update, context, STATS_REFUSED.format(chat_id=chat.id))
            return
        await reply(update, context, stats_text(await self.service.admin.stats()))

    async def ids(self, update: Update, context: Context) -> None:
        """/id: this chat's id, the sender's user id, and the forum topic's id."""
        chat = update.effective_chat
        assert chat is not None
        user = update.effective_user
        thread = topic_of(update.effective_message)
        lines = [f"Chat id: <code>{chat.id}</code>"]
        if user is not None and user.id not in STAND_INS:
            lines.append(f"Your user id: <code>{user.id}</code>")
        lines.append(
            f"Topic id: <code>{thread}</code>" if thread != NO_THREAD else "Topic id: none here"
        )
        lines.append("For /stats, the service's operator adds the chat id to ADMIN_CHAT_IDS.")
        await reply(update, context, "\n".join(lines))


def stats_text(stats: ServiceStats) -> str:
    """/stats' answer: chats, papers, deliveries, and each author's poll state, cut to fit."""
    deliveries = stats.deliveries
    head = [
        "<b>arxiv-watcher</b>",
        f"Chats: {stats.chats} ({stats.active_chats} active); subscriptions: {stats.subscriptions}",
        f"Papers stored: {stats.papers}",
        f"Deliveries: {deliveries.pending} pending, {deliveries.parked} parked, "
        f"{deliveries.held} held for digests, "
        f"{deliveries.sent} sent, {deliveries.failed} failed",
        *_mailing_lines(stats.mailing, stats.calendar),
        *_unparsed_lines(stats.sources),
        "",
        "<b>Authors</b>",
    ]
    tail: list[str] = []
    if stats.parked_total:
        tail += ["", f"<b>Parked chats: {stats.parked_total}</b> (the bot may not post there)"]
        tail += [_parked_line(info) for info in stats.parked]
        if stats.parked_total > len(stats.parked):
            tail.append(f"… and {stats.parked_total - len(stats.parked)} more.")
    if stats.failures:
        tail += ["", "<b>Latest failed deliveries</b>"]
        tail += [
            f"• chat {chat_id}, {html.escape(arxiv_id)}: {html.escape(reason[:120])}"
            for chat_id, arxiv_id, reason in stats.failures
        ]
    # Authors whose polls fail come first (the core sorts them): what an administrator seeks.
    room = MAX_MESSAGE_LENGTH - visible_length("\n".join([*head, *tail])) - 1
    authors = capped_lines(
        [_author_line(f) for f in stats.followed],
        room=room,
        more=lambda n: f"… and {n} more (arxiv-watcher authors lists them all).",
    )
    return "\n".join([*head, *authors, *tail])


def _mailing_lines(news: MailingNews, calendar: AnnouncementCalendar) -> list[str]:
    """ "arXiv: last mailing …, first from the listing …": none before any mailing is seen."""
    line = describe_mailing(news, calendar)
    return [] if line is None else [f"arXiv: {html.escape(line)}"]


def _unparsed_lines(states: Sequence[SourceHealth]) -> list[str]:
    """ "⚠️ Not parsing: listing since …", one line a source; none while every source parses."""
    return [
        f"⚠️ Not parsing: {s.source} since {when(s.broken_since)}, {s.failures} failed "
        f"read(s); {html.escape(s.url or '')}: {html.escape((s.problem or '')[:200])}"
        for s in states
        if s.broken_since is not None
    ]


def _author_line(followed: Followed) -> str:
    line = (
        f"• {html.escape(followed.label)}: {papers(followed.record_count)}, "
        f"last success {when(followed.last_success)}"
    )
    if not followed.polled:
        line += "; not polled (no subscribers)"
    if followed.consecutive_failures:
        line += (
            f"; {followed.consecutive_failures} failed in a row, last: "
            f"{html.escape((followed.last_error or '')[:120])}"
        )
    return line


def _parked_line(parked: ParkedInfo) -> str:
    where = f"chat {parked.chat_id}"
    if parked.chat_title:
        where += f" ({html.escape(parked.chat_title[:60])})"
    if parked.thread_id:
        where += f", topic {parked.thread_id}"
    return (
        f"• {where}: {html.escape(parked.reason[:120])}; since {when(parked.since)}, "
        f"{papers(parked.waiting)} waiting, next try {when(parked.retry_at)}"
    )
