"""One message to the administrators (`ADMIN_CHAT_IDS`) when a follow keeps failing on its own:
a name arXiv errors on, or an author id arXiv stopped knowing (issue 29.3).

Such a follow never makes the service unhealthy (`watcher.health`): it is one follow's fault,
not the service's, so the administrators are told of it once, with arXiv's answer, at the end
of the poll cycle that finds it so. A name shares OR-queries with others
(`watcher.failing_groups`), so it is told once it is polled alone and still fails
(`NAME_NOTICE_AT` failures in a row), never while its innocent query mates fail with it; an
author id is polled alone from the start and is told from `UNHEALTHY_FAILURES` on. While no
follow polls well, arXiv is failing everyone: `health` says so, and nothing is sent here (it
is, once some follow polls well again). The chats that follow it see it in /subscriptions,
with the cause.
"""

from __future__ import annotations

import html
import logging

from telegram import Bot
from telegram.constants import ParseMode
from telegram.error import TelegramError

from watcher.aio import in_db_thread
from watcher.failing_groups import ALONE_AFTER
from watcher.followed import Followed
from watcher.health import UNHEALTHY_FAILURES
from watcher.kinds import FollowKind
from watcher.poll import PollReport
from watcher.service import ServiceContext

log = logging.getLogger(__name__)

NAME_NOTICE_AT = ALONE_AFTER + 1  # failures in a row of a name, polled alone since the last


def keeps_failing(followed: Followed) -> bool:
    """Whether `followed` keeps failing on its own: polled, and failed as often as said above."""
    alone = followed.kind == FollowKind.IDENTITY
    return followed.polled and followed.consecutive_failures >= (
        UNHEALTHY_FAILURES if alone else NAME_NOTICE_AT
    )


class FailingNotices:
    """The follows the administrators were told of, until they poll well again (in memory: a
    restart tells of one still failing once more)."""

    def __init__(self) -> None:
        self.told: set[int] = set()

    async def tell(self, bot: Bot, context: ServiceContext, report: PollReport) -> None:
        """After a poll cycle that failed somewhere: tell the administrators of each follow
        that now keeps failing on its own, once."""
        admins = context.settings.admin_chat_ids
        if not report.failures or not admins:
            return
        store = context.store
        _, failing = await in_db_thread(store.poll_health)
        self.told &= {followed.id for followed in failing}  # those polling well again: forgotten
        due = [f for f in failing if f.id not in self.told and keeps_failing(f)]
        if not due or not await in_db_thread(
            store.any_polling_well, failures_below=UNHEALTHY_FAILURES
        ):
            return
        self.told.update(followed.id for followed in due)
        lines = ["⚠️ <b>Failing on its own</b> (the service is healthy; /stats lists it):"]
        lines += [
            f"• {html.escape(f.label)}: {f.consecutive_failures} failed in a row, last: "
            f"{html.escape((f.last_error or '')[:200])}; followed by {f.subscribers} chat(s)"
            for f in due
        ]
        for chat_id in admins:
            try:
                await bot.send_message(chat_id, "\n".join(lines), parse_mode=ParseMode.HTML)
            except TelegramError as error:
                log.warning("could not tell admin chat %s of a failing follow: %s", chat_id, error)
