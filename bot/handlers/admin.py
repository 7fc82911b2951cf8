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
    and_more,
    capped_lines,
    papers,
    refusal,
    reply,
    topic_of,
    when,
)
from bot.handlers.permissions import STAND_INS
from bot.i18n import _, ngettext, say
from bot.render import MAX_MESSAGE_LENGTH, visible_length
from watcher.calendars.announcements import AnnouncementCalendar
from watcher.core.admin import ServiceStats
from watcher.core.mailing_report import describe_mailing
from watcher.core.views import NO_THREAD, MailingNews, ParkedInfo, SourceHealth
from watcher.follows.followed import Followed


def stats_refused(chat_id: int) -> str:
    """The answer to /stats in a chat not in ADMIN_CHAT_IDS."""
    return refusal(
        _(
            "/stats is for the service's administrators: the operator adds this chat's id "
            "({chat_id}) to ADMIN_CHAT_IDS and restarts it.",
            chat_id=chat_id,
        ),
        "/id",
        lead=_("Ids, to send the operator:"),
    )


class Admin(ServiceHandlers):
    """Commands for the service's administrators."""

    async def stats(self, update: Update, context: Context) -> None:
        """/stats: the service's health, for ADMIN_CHAT_IDS only."""
        chat = update.effective_chat
        assert chat is not None
        if chat.id not in self.settings.admin_chat_ids:
            await reply(update, context, stats_refused(chat.id))
            return
        await reply(update, context, stats_text(await self.service.admin.stats()))

    async def ids(self, update: Update, context: Context) -> None:
        """/id: this chat's id, the sender's user id, and the forum topic's id."""
        chat = update.effective_chat
        assert chat is not None
        user = update.effective_user
        thread = topic_of(update.effective_message)
        lines = [_("Chat id: <code>{id}</code>", id=chat.id)]
        if user is not None and user.id not in STAND_INS:
            lines.append(_("Your user id: <code>{id}</code>", id=user.id))
        lines.append(
            _("Topic id: <code>{id}</code>", id=thread)
            if thread != NO_THREAD
            else _("Topic id: none here")
        )
        lines.append(_("For /stats, the service's operator adds the chat id to ADMIN_CHAT_IDS."))
        await reply(update, context, "\n".join(lines))


def stats_text(stats: ServiceStats) -> str:
    """/stats' answer: chats, papers, deliveries, and each author's poll state, cut to fit."""
    deliveries = stats.deliveries
    head = [
        "<b>arxiv-watcher</b>",
        _(
            "Chats: {chats} ({active} active); subscriptions: {subscriptions}",
            chats=stats.chats,
            active=stats.active_chats,
            subscriptions=stats.subscriptions,
        ),
        _("Papers stored: {papers}", papers=stats.papers),
        _(
            "Deliveries: {pending} pending, {parked} parked, {held} held for digests, "
            "{sent} sent, {failed} failed",
            pending=deliveries.pending,
            parked=deliveries.parked,
            held=deliveries.held,
            sent=deliveries.sent,
            failed=deliveries.failed,
        ),
        *_mailing_lines(stats.mailing, stats.calendar),
        *_unparsed_lines(stats.sources),
        "",
        _("<b>Authors</b>"),
    ]
    tail: list[str] = []
    if stats.parked_total:
        tail += [
            "",
            _(
                "<b>Parked chats: {count}</b> (the bot may not post there)",
                count=stats.parked_total,
            ),
        ]
        tail += [_parked_line(info) for info in stats.parked]
        if stats.parked_total > len(stats.parked):
            tail.append(and_more(stats.parked_total - len(stats.parked)))
    if stats.failures:
        tail += ["", _("<b>Latest failed deliveries</b>")]
        tail += [
            _(
                "• chat {chat_id}, {arxiv_id}: {reason}",
                chat_id=chat_id,
                arxiv_id=html.escape(arxiv_id),
                reason=html.escape(reason[:120]),
            )
            for chat_id, arxiv_id, reason in stats.failures
        ]
    # Authors whose polls fail come first (the core sorts them): what an administrator seeks.
    room = MAX_MESSAGE_LENGTH - visible_length("\n".join([*head, *tail])) - 1
    authors = capped_lines(
        [_author_line(f) for f in stats.followed],
        room=room,
        more=lambda n: ngettext(
            "… and {n} more (arxiv-watcher authors lists them all).",
            "… and {n} more (arxiv-watcher authors lists them all).",
            n,
        ),
    )
    return "\n".join([*head, *authors, *tail])


def _mailing_lines(news: MailingNews, calendar: AnnouncementCalendar) -> list[str]:
    """ "arXiv: last mailing …, first from the listing …": none before any mailing is seen."""
    line = describe_mailing(news, calendar)
    return [] if line is None else [_("arXiv: {mailing}", mailing=html.escape(say(line)))]


def _unparsed_lines(states: Sequence[SourceHealth]) -> list[str]:
    """ "⚠️ Not parsing: listing since …", one line a source; none while every source parses."""
    return [
        ngettext(
            "⚠️ Not parsing: {source} since {since}, {n} failed read; {url}: {problem}",
            "⚠️ Not parsing: {source} since {since}, {n} failed reads; {url}: {problem}",
            s.failures,
            source=s.source,
            since=when(s.broken_since),
            url=html.escape(s.url or ""),
            problem=html.escape((s.problem or "")[:200]),
        )
        for s in states
        if s.broken_since is not None
    ]


def _author_line(followed: Followed) -> str:
    line = _(
        "• {name}: {papers}, last success {when}",
        name=html.escape(followed.label),
        papers=papers(followed.record_count),
        when=when(followed.last_success),
    )
    if not followed.polled:
        line += _("; not polled (no subscribers)")
    if followed.consecutive_failures:
        line += ngettext(
            "; {n} failed in a row, last: {error}",
            "; {n} failed in a row, last: {error}",
            followed.consecutive_failures,
            error=html.escape((followed.last_error or "")[:120]),
        )
    return line


def _parked_line(parked: ParkedInfo) -> str:
    where = _("chat {id}", id=parked.chat_id)
    if parked.chat_title:
        where += f" ({html.escape(parked.chat_title[:60])})"
    if parked.thread_id:
        where += _(", topic {id}", id=parked.thread_id)
    return ngettext(
        "• {where}: {reason}; since {since}, {n} paper waiting, next try {retry}",
        "• {where}: {reason}; since {since}, {n} papers waiting, next try {retry}",
        parked.waiting,
        where=where,
        reason=html.escape(parked.reason[:120]),
        since=when(parked.since),
        retry=when(parked.retry_at),
    )
