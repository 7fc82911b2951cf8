"""When a chat (or one forum topic) hears of papers: /digest (one message a day, on weekdays or
a week, or one per paper) and /timezone (the clock the digest time and quiet hours are read on).

Both are the destination's own: sent in a forum topic, they show and change that topic's, and
the chat's other topics (General too) keep theirs. Anyone may ask; in groups only administrators
may change either. Turning the digest off lets what it held go at once, as one digest, and says
when it arrives (a paused or quiet destination gets it at /resume or when its quiet hours end);
a new zone moves the quiet hours with it, in the same transaction (`watcher.core.chat_settings`).
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
        place = place_of(update)
        args = context.args or []
        if not args:
            settings = await self.chat_settings.digest(place.chat_id, place.thread_id)
            await reply(update, context, describe(settings))
            return
        try:
            schedule = arguments.digest_schedule(args)
        except UsageError as error:
            await reply_usage(update, context, error)
            return
        if await refuse_non_admin(update, context, what="its digest", example="/digest"):
            return
        changed = await self.chat_settings.set_digest(
            place.chat_id, place.thread_id, schedule, render=render_digest_parts
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
        """/timezone [ZONE]: show or change the chat's (topic's) time zone."""
        place = place_of(update)
        args = context.args or []
        if not args:
            settings = await self.chat_settings.digest(place.chat_id, place.thread_id)
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
        # Its quiet hours move with it.
        changed = await self.chat_settings.set_zone(place.chat_id, place.thread_id, zone)
        settings = changed.settings
        self.events.digest_changed()
        self.events.speaking_changed()
        now = local_time_text(changed.now, settings.zone)
        answer = f"✅ Time zone: <b>{html.escape(zone)}</b>; it is {now} here."
        if settings.schedule is not None and settings.next_at is not None:
            answer += f" Next digest: {local_time_text(settings.next_at, settings.zone)}."
        await reply(update, context, answer)


def let_go(changed: DigestChanged, place: Place) -> str:
    """What `/digest off` did with the papers this destination held, and when they arrive:
    now, or when its quiet hours end (on its clock), or at /resume. The chat's other topics
    keep their digests and what waits for them."""
    flushed = changed.flushed
    if flushed is None or not flushed.papers:
        return ""
    here, speaking = flushed.papers, changed.here
    where = " in this topic" if place.thread_id != NO_THREAD else ""
    waiting, one = f" The {papers(here)} waiting{where}", here == 1
    come, go = ("comes", "goes") if one else ("come", "go")
    if speaking.paused:
        return f"{waiting} {come} as one digest when you /resume."
    if speaking.quiet_now(changed.now) and speaking.quiet_until is not None:
        end = local_time_text(speaking.quiet_until, changed.settings.zone)
        return f"{waiting} {come} as one digest at {end}, when the quiet hours end."
    return f"{waiting} {go} out now, as one digest."


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
