"""One message to the administrators (`ADMIN_CHAT_IDS`) when a follow keeps failing on its own:
a name arXiv errors on, or an author id arXiv stopped knowing (issue 29.3).

Such a follow never makes the service unhealthy (`watcher.runtime.health`): it is one follow's
fault, not the service's, so the administrators are told of it once, with arXiv's answer, at the end
of the poll cycle that finds it so. A name shares OR-queries with others
(`watcher.polling.failing_groups`), so it is told once it is polled alone and still fails
(`NAME_NOTICE_AT` failures in a row), never while its innocent query mates fail with it; an
author id is polled alone from the start and is told from `UNHEALTHY_FAILURES` on. While no
follow polls well, arXiv is failing everyone: `health` says so, and nothing is sent here (it
is, once some follow polls well again).

Each chat (and forum topic) that follows it is told too, once, in one short message: the follow,
arXiv's answer, and what to do (`chat_notice`). At most `MAX_CHATS_TOLD` destinations a follow
are told; the rest are logged as not told. Paused, parked (no rights, closed topic) and inactive
(blocked) destinations are skipped: they see it in /subscriptions, with the cause. Every send
goes through the front end's rate limiter (the bot's); a refusal (403, 400) is logged and not
retried; a 429 is waited out once when Telegram asks for at most `MAX_RETRY_WAIT`, else logged.
What was told is kept in memory: a restart tells a follow still failing once more.
"""

from __future__ import annotations

import asyncio
import html
import logging
from collections.abc import Sequence

from telegram import Bot
from telegram.constants import ParseMode
from telegram.error import RetryAfter, TelegramError

from bot.delivery.compose import NO_PREVIEW
from bot.i18n import _, ngettext, speaking
from bot.ratelimit import retry_after_seconds
from bot.render import visible_length
from bot.render.styled import BUDGET, clip
from watcher.core import Core
from watcher.core.views import NO_THREAD
from watcher.follows.followed import Followed
from watcher.kinds import FollowKind
from watcher.polling.failing_groups import ALONE_AFTER
from watcher.polling.failures import UNHEALTHY_FAILURES
from watcher.polling.poll import PollReport

log = logging.getLogger(__name__)

NAME_NOTICE_AT = ALONE_AFTER + 1  # failures in a row of a name, polled alone since the last
MAX_CHATS_TOLD = 1000  # destinations told of one failing follow; more are logged as not told
MAX_RETRY_WAIT = 60.0  # seconds of a 429 waited out before one more try; a longer one gives up
_LABEL_SHOWN, _ERROR_SHOWN = 300, 200  # a follow's label and arXiv's answer, cut to this


def keeps_failing(followed: Followed) -> bool:
    """Whether `followed` keeps failing on its own: polled, and failed as often as said above."""
    alone = followed.kind == FollowKind.IDENTITY
    return followed.polled and followed.consecutive_failures >= (
        UNHEALTHY_FAILURES if alone else NAME_NOTICE_AT
    )


class FailingNotices:
    """The follows the administrators were told of, until they poll well again (in memory: a
    restart tells of one still failing once more)."""

    def __init__(self, *, max_chats: int = MAX_CHATS_TOLD) -> None:
        self.told: set[int] = set()
        self.max_chats = max_chats  # destinations told of one follow

    async def tell(self, bot: Bot, context: Core, report: PollReport) -> None:
        """After a poll cycle that failed somewhere: tell the administrators, and the chats that
        follow it, of each follow that now keeps failing on its own, once."""
        admins = context.settings.admin_chat_ids
        if not report.failures:
            return
        deliveries = context.delivery
        failing = await deliveries.failing_follows()
        self.told &= {followed.id for followed in failing}  # those polling well again: forgotten
        due = [f for f in failing if f.id not in self.told and keeps_failing(f)]
        if not due or not await deliveries.any_polling_well(failures_below=UNHEALTHY_FAILURES):
            return
        self.told.update(followed.id for followed in due)
        for chat_id in admins:  # none: the chats are still told
            with speaking(await context.chat_settings.language(chat_id, NO_THREAD)):
                notice = admin_notice(due)
            try:
                await bot.send_message(
                    chat_id,
                    notice,
                    parse_mode=ParseMode.HTML,
                    link_preview_options=NO_PREVIEW,
                )
            except TelegramError as error:
                log.warning("could not tell admin chat %s of a failing follow: %s", chat_id, error)
        for followed in due:
            await self.tell_followers(bot, context, followed)

    async def tell_followers(self, bot: Bot, context: Core, followed: Followed) -> None:
        """One message to each destination that follows `followed` and may be written to."""
        places, total = await context.delivery.reachable_followers(
            followed.id, limit=self.max_chats
        )
        if total > len(places):
            log.warning(
                "%s fails on its own: %d of the %d destinations following it are not told "
                "(at most %d a follow)",
                followed.label, total - len(places), total, self.max_chats,
            )  # fmt: skip
        told = 0
        for chat_id, thread_id in places:  # said in each destination's language
            with speaking(await context.chat_settings.language(chat_id, thread_id)):
                notice = chat_notice(followed)
            told += await _send(bot, chat_id, thread_id, notice)
        log.info("told %d of %d chat(s) that %s fails on its own", told, total, followed.label)


def admin_notice(due: Sequence[Followed]) -> str:
    """The administrators' message (HTML): each follow failing on its own, arXiv's answer; as
    many as fit one message, then how many more (/stats lists them all)."""
    lines = [_("⚠️ <b>Failing on its own</b> (the service is healthy; /stats lists it):")]
    for position, f in enumerate(due):
        line = "• " + ngettext(
            "{label}: {failures} failed in a row, last: {error}; followed by {n} chat",
            "{label}: {failures} failed in a row, last: {error}; followed by {n} chats",
            f.subscribers,
            label=html.escape(clip(f.label, _LABEL_SHOWN)),
            failures=f.consecutive_failures,
            error=html.escape((f.last_error or "")[:_ERROR_SHOWN]),
        )
        more = ngettext(
            "… and {n} more: /stats lists them",
            "… and {n} more: /stats lists them",
            len(due) - position,
        )
        if visible_length("\n".join([*lines, line, more])) > BUDGET:
            lines.append(more)
            break
        lines.append(line)
    return "\n".join(lines)


def chat_notice(followed: Followed) -> str:
    """The one message a following chat gets (plain text): the follow, arXiv's answer (as the
    core stored it), what to do."""
    answer = (followed.last_error or _("no answer"))[:_ERROR_SHOWN].rstrip(".")
    label, failures = followed.label, followed.consecutive_failures
    if followed.identity is not None:
        return "⚠️ " + _(
            "{label} is failing: {answer}.\nNo papers come from this author id. Send "
            "/unsubscribe {identity} to stop it, or follow them by name.",
            label=label,
            answer=answer,
            identity=followed.identity,
        )
    if followed.kind == FollowKind.TOPIC:
        return "⚠️ " + ngettext(
            "{label} is failing: arXiv's answer to {n} poll in a row was: {answer}.\nThe bot "
            "keeps retrying; send /unwatch {label} to stop it (/subscriptions shows its state).",
            "{label} is failing: arXiv's answer to {n} polls in a row was: {answer}.\nThe bot "
            "keeps retrying; send /unwatch {label} to stop it (/subscriptions shows its state).",
            failures,
            label=label,
            answer=answer,
        )
    return "⚠️ " + ngettext(
        "{label} is failing: arXiv's answer to {n} poll in a row was: {answer}.\nThe bot keeps "
        "retrying; send /unsubscribe {label} to stop it (/subscriptions shows its state).",
        "{label} is failing: arXiv's answer to {n} polls in a row was: {answer}.\nThe bot keeps "
        "retrying; send /unsubscribe {label} to stop it (/subscriptions shows its state).",
        failures,
        label=label,
        answer=answer,
    )


async def _send(bot: Bot, chat_id: int, thread_id: int, text: str) -> int:
    """Send `text` to one destination through the bot (and its rate limiter): 1 if sent."""
    topic = thread_id if thread_id != NO_THREAD else None
    for attempt in range(2):
        try:
            await bot.send_message(
                chat_id, text, message_thread_id=topic, link_preview_options=NO_PREVIEW
            )
            return 1
        except RetryAfter as error:
            wait = retry_after_seconds(error)
            if attempt or wait > MAX_RETRY_WAIT:
                log.warning("chat %s not told of a failing follow: 429 for %.0f s", chat_id, wait)
                return 0
            await asyncio.sleep(wait)
        except TelegramError as error:  # 403, 400, a network fault: logged, not retried
            log.warning("chat %s not told of a failing follow: %s", chat_id, error.message)
            return 0
    return 0
