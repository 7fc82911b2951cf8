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
    local_time,
    place_of,
    refuse_non_admin,
    reply,
    reply_usage,
)
from bot.handlers.permissions import DIGEST, TIME_ZONE
from bot.i18n import N_, _, ngettext
from watcher.calendars.schedule import EVERY_DAY, MONDAY_TO_FRIDAY, DigestSchedule
from watcher.core import Core
from watcher.core.chat_settings import DigestChanged
from watcher.core.views import NO_THREAD, DigestSettings
from watcher.errors import UsageError

ZONE_HINT = N_(
    "/timezone ZONE changes it, e.g. <code>/timezone Asia/Shanghai</code>, "
    "<code>/timezone Berlin</code> or <code>/timezone +8</code>."
)
# The days of the week, Monday first (as `DigestSchedule.days` numbers them).
WEEKDAY_NAMES = (
    N_("Monday"),
    N_("Tuesday"),
    N_("Wednesday"),
    N_("Thursday"),
    N_("Friday"),
    N_("Saturday"),
    N_("Sunday"),
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
        if await refuse_non_admin(update, context, what=DIGEST, example="/digest"):
            return
        changed = await self.chat_settings.set_digest(
            place.chat_id, place.thread_id, schedule, render=render_digest_parts
        )
        self.events.digest_changed()
        if schedule is None:
            await reply(
                update,
                context,
                _("✅ Digest off: each new paper is its own message again.")
                + let_go(changed, place),
            )
            return
        await reply(update, context, "✅ " + describe(changed.settings))

    async def timezone(self, update: Update, context: Context) -> None:
        """/timezone [ZONE]: show or change the chat's (topic's) time zone."""
        place = place_of(update)
        args = context.args or []
        if not args:
            settings = await self.chat_settings.digest(place.chat_id, place.thread_id)
            now = local_time(self.chat_settings.now(), settings.zone)
            await reply(
                update,
                context,
                _(
                    "Time zone: <b>{zone}</b>; it is {now} here.",
                    zone=html.escape(settings.zone_name),
                    now=now,
                )
                + " "
                + _(ZONE_HINT),
            )
            return
        try:
            zone = arguments.zone_name(args)
        except UsageError as error:
            await reply_usage(update, context, error)
            return
        if await refuse_non_admin(update, context, what=TIME_ZONE, example="/timezone"):
            return
        # Its quiet hours move with it.
        changed = await self.chat_settings.set_zone(place.chat_id, place.thread_id, zone)
        settings = changed.settings
        self.events.digest_changed()
        self.events.speaking_changed()
        now = local_time(changed.now, settings.zone)
        answer = _(
            "✅ Time zone: <b>{zone}</b>; it is {now} here.", zone=html.escape(zone), now=now
        )
        if settings.schedule is not None and settings.next_at is not None:
            next_at = local_time(settings.next_at, settings.zone)
            answer += " " + _("Next digest: {next}.", next=next_at)
        await reply(update, context, answer)


def let_go(changed: DigestChanged, place: Place) -> str:
    """What `/digest off` did with the papers this destination held, and when they arrive:
    now, or when its quiet hours end (on its clock), or at /resume. The chat's other topics
    keep their digests and what waits for them."""
    flushed = changed.flushed
    if flushed is None or not flushed.papers:
        return ""
    here, speaking = flushed.papers, changed.here
    topic = place.thread_id != NO_THREAD
    if speaking.paused:
        if topic:
            said = ngettext(
                "The {n} paper waiting in this topic comes as one digest when you /resume.",
                "The {n} papers waiting in this topic come as one digest when you /resume.",
                here,
            )
        else:
            said = ngettext(
                "The {n} paper waiting comes as one digest when you /resume.",
                "The {n} papers waiting come as one digest when you /resume.",
                here,
            )
    elif speaking.quiet_now(changed.now) and speaking.quiet_until is not None:
        end = local_time(speaking.quiet_until, changed.settings.zone)
        if topic:
            said = ngettext(
                "The {n} paper waiting in this topic comes as one digest at {end}, when the "
                "quiet hours end.",
                "The {n} papers waiting in this topic come as one digest at {end}, when the "
                "quiet hours end.",
                here,
                end=end,
            )
        else:
            said = ngettext(
                "The {n} paper waiting comes as one digest at {end}, when the quiet hours end.",
                "The {n} papers waiting come as one digest at {end}, when the quiet hours end.",
                here,
                end=end,
            )
    elif topic:
        said = ngettext(
            "The {n} paper waiting in this topic goes out now, as one digest.",
            "The {n} papers waiting in this topic go out now, as one digest.",
            here,
        )
    else:
        said = ngettext(
            "The {n} paper waiting goes out now, as one digest.",
            "The {n} papers waiting go out now, as one digest.",
            here,
        )
    return " " + said


def describe(settings: DigestSettings) -> str:
    """The answer to /digest: the setting, the next digest in local time, and the zone used."""
    zone = (
        _("Times are in <b>{zone}</b>.", zone=html.escape(settings.zone_name)) + " " + _(ZONE_HINT)
    )
    if settings.schedule is None or settings.next_at is None:
        return (
            _(
                "Digest: off; each new paper is its own message. "
                "<code>/digest daily 8am</code> gathers them into one message a day, "
                "<code>/digest weekdays 8am</code> one each weekday, "
                "<code>/digest weekly mon 8am</code> one a week."
            )
            + " "
            + zone
        )
    next_at = local_time(settings.next_at, settings.zone)
    if settings.held:
        next_line = ngettext(
            "Next: {next} ({n} paper waiting).",
            "Next: {next} ({n} papers waiting).",
            settings.held,
            next=next_at,
        )
    else:
        next_line = _("Next: {next}.", next=next_at)
    return " ".join(
        [
            _("Digest: {schedule}.", schedule=schedule_text(settings.schedule)),
            next_line,
            _("<code>/digest off</code>: one message per paper."),
            zone,
        ]
    )


def schedule_text(schedule: DigestSchedule) -> str:
    """ "daily at 08:00", "on weekdays (Monday to Friday) at 08:00", "weekly on Monday at
    08:00", in the language speaking now."""
    at = f"{schedule.at:%H:%M}"
    if schedule.days == EVERY_DAY:
        return _("daily at {time}", time=at)
    if schedule.days == MONDAY_TO_FRIDAY:
        return _("on weekdays (Monday to Friday) at {time}", time=at)
    days = ", ".join(_(WEEKDAY_NAMES[day]) for day in sorted(schedule.days))
    return _("weekly on {days} at {time}", days=days, time=at)
