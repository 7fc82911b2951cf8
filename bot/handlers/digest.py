"""When a chat hears of papers: /digest (one message a day, on weekdays or a week, or one per
paper) and /timezone (the clock the digest time is read on).

Anyone may ask; in groups only administrators may change either. Turning the digest off lets
what it held go at once, as one digest per destination, and says when it arrives (a paused or
quiet destination gets it at /resume or when its quiet hours end); a new zone moves the quiet
hours with it, in the same transaction (`watcher.core.chat_settings`).
"""

from __future__ import annotations

import html

from telegram import Update

from bot import arguments
from bot.digest import render_digest_parts
from bot.handlers.common import (
    Context,
    DeliveryEvents,
    Place,
    ServiceHandlers,
    papers,
    place_of,
    refuse_non_admin,
    reply,
    reply_usage,
)
from watcher.calendars.schedule import local_time_text
from watcher.core import Core
from watcher.core.chat_settings import DigestChanged
from watcher.core.views import NO_THREAD, DigestSettings
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
        place = place_of(update)
        changed = await self.chat_settings.set_digest(
            chat.id, schedule, render=render_digest_parts, thread_id=place.thread_id
        )
        self.events.digest_changed()
        if schedule is None:
            await reply(
                update,
                context,
                "✅ Digest off: each new paper is its own message again." + let_go(changed, place),
            )
            return
        await reply(update, context, "✅ " + describe(changed.settings))

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


def let_go(changed: DigestChanged, place: Place) -> str:
    """What `/digest off` did with the papers it held, and when they arrive: the asking
    destination's own count, now, or when its quiet hours end (on the chat's clock), or at
    /resume; then the papers of the chat's other topics, if any."""
    flushed = changed.flushed
    if flushed is None or not flushed.papers:
        return ""
    here, speaking = flushed.papers_in(place.thread_id), changed.here
    where = " in this topic" if place.thread_id != NO_THREAD else ""
    said = ""
    if here:
        waiting, one = f" The {papers(here)} waiting{where}", here == 1
        come, go = ("comes", "goes") if one else ("come", "go")
        if speaking.paused:
            said = f"{waiting} {come} as one digest when you /resume."
        elif speaking.quiet_now(changed.now) and speaking.quiet_until is not None:
            end = local_time_text(speaking.quiet_until, changed.settings.zone)
            said = f"{waiting} {come} as one digest at {end}, when the quiet hours end."
        else:
            said = f"{waiting} {go} out now, as one digest."
    others = flushed.papers - here
    if others:
        go = "goes" if others == 1 else "go"
        said += f" The {papers(others)} waiting for other topics {go} there, one digest each."
    return said


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
