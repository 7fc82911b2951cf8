"""When a chat hears of papers: /digest (one message a day, on weekdays or a week, or one per
paper) and /timezone (the clock the digest time is read on).

Anyone may ask; in groups only administrators may change either. Turning the digest off sends
what it held at once, as one digest; a new zone moves the quiet hours with it, in the same
transaction (`watcher.core.chat_settings`).
"""

from __future__ import annotations

import html

from telegram import Update

from bot import arguments
from bot.digest import render_digest_parts
from bot.handlers.common import (
    Context,
    DeliveryEvents,
    ServiceHandlers,
    papers,
    refuse_non_admin,
    reply,
    reply_usage,
)
from watcher.calendars.schedule import local_time_text
from watcher.core import Core
from watcher.core.views import DigestSettings
from watcher.errors import UsageError

ZONE_HINT = (
    "/timezone ZONE changes it, e.g. <code>/timezone Asia/Shanghai</code>, "
    "<code>/timezone Berlin</code> or <code>/timezone +8</code>"
)


class DigestCommands(ServiceHandlers):
    """/digest and /timezone. `events.digest_changed()` after a change: the sender looks again."""

    def __init__(self, service: Core, *, events: DeliveryEvents) -> None:
        super().__init__(service)
        self.chat_settings = service.chat_settings
        self.events = events

    async def digest(self, update: Update, context: Context) -> None:
        """/digest [daily TIME | weekdays TIME | weekly DAY TIME | off]: show or change it."""
        chat = update.effective_chat
        assert chat is not None
        args = context.args or []
        if not args:
            settings = await self.chat_settings.digest(chat.id)
            await reply(update, context, describe(settings))
            return
        try:
            schedule = arguments.digest_schedule(args)
        except UsageError as error:
            await reply_usage(update, context, error)
            return
        if await refuse_non_admin(update, context, what="its digest", example="/digest"):
            return
        changed = await self.chat_settings.set_digest(chat.id, schedule, render=render_digest_parts)
        settings, flushed = changed.settings, changed.flushed
        self.events.digest_changed()
        if schedule is None:
            sent = (
                f" The {papers(flushed.papers)} waiting go out now, as one digest."
                if flushed is not None and flushed.papers
                else ""
            )
            await reply(
                update, context, f"✅ Digest off: each new paper is its own message again.{sent}"
            )
            return
        await reply(update, context, "✅ " + describe(settings))

    async def timezone(self, update: Update, context: Context) -> None:
        """/timezone [ZONE]: show or change the chat's time zone."""
        chat = update.effective_chat
        assert chat is not None
        args = context.args or []
        if not args:
            settings = await self.chat_settings.digest(chat.id)
            now = local_time_text(self.chat_settings.now(), settings.zone)
            await reply(
                update,
                context,
                f"Time zone: <b>{html.escape(settings.zone_name)}</b>; it is {now} here. "
                + ZONE_HINT
                + ".",
            )
            return
        try:
            zone = arguments.zone_name(args)
        except UsageError as error:
            await reply_usage(update, context, error)
            return
        if await refuse_non_admin(update, context, what="its time zone", example="/timezone"):
            return
        changed = await self.chat_settings.set_zone(chat.id, zone)  # quiet hours move with it
        settings = changed.settings
        self.events.digest_changed()
        self.events.speaking_changed()
        now = local_time_text(changed.now, settings.zone)
        answer = f"✅ Time zone: <b>{html.escape(zone)}</b>; it is {now} here."
        if settings.schedule is not None and settings.next_at is not None:
            answer += f" Next digest: {local_time_text(settings.next_at, settings.zone)}."
        await reply(update, context, answer)


def describe(settings: DigestSettings) -> str:
    """The answer to /digest: the setting, the next digest in local time, and the zone used."""
    zone = f"Times are in <b>{html.escape(settings.zone_name)}</b>; {ZONE_HINT}."
    if settings.schedule is None or settings.next_at is None:
        return (
            "Digest: off; each new paper is its own message. "
            "<code>/digest daily 8am</code> gathers them into one message a day, "
            "<code>/digest weekdays 8am</code> one each weekday, "
            "<code>/digest weekly mon 8am</code> one a week. " + zone
        )
    waiting = f" ({papers(settings.held)} waiting)" if settings.held else ""
    return (
        f"Digest: {settings.schedule.describe()}. "
        f"Next: {local_time_text(settings.next_at, settings.zone)}{waiting}. "
        f"<code>/digest off</code>: one message per paper. " + zone
    )
