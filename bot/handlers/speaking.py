"""How the bot speaks to a chat (or a forum topic): /pause and /resume, /quiet HH:MM-HH:MM|off
(in the chat's /timezone), /silent on|off, /format full|compact and /preview on|off (the abstract
page's preview above news in full); and the settings block that
/subscriptions ends with (`settings_lines`).

Anyone may ask; in groups only administrators may change them. Each change tells the sender
(`DeliveryEvents.speaking_changed`), which drops what it fetched and reads the outbox again:
held rows stay pending in the outbox (`watcher.store.speaking`), and nothing is lost.
"""

from __future__ import annotations

import html
from datetime import datetime

from telegram import Update

from bot import arguments
from bot.handlers.common import (
    Context,
    DeliveryEvents,
    ServiceHandlers,
    papers,
    place_of,
    refuse_non_admin,
    reply,
    reply_usage,
)
from bot.i18n import _, current_language, language_name
from watcher.calendars.schedule import local_time_text
from watcher.core import Core
from watcher.core.views import DigestSettings, SpeakingSettings
from watcher.errors import UsageError
from watcher.kinds import MessageFormat

_WHAT = "how I speak here"


class SpeakingCommands(ServiceHandlers):
    """/pause, /resume, /quiet, /silent, /format and /preview."""

    def __init__(self, service: Core, *, events: DeliveryEvents) -> None:
        super().__init__(service)
        self.chat_settings = service.chat_settings
        self.threshold = service.chat_settings.summary_threshold
        self.events = events

    async def _may_change(self, update: Update, context: Context, example: str) -> bool:
        return not await refuse_non_admin(update, context, what=_WHAT, example=example)

    async def pause(self, update: Update, context: Context) -> None:
        """/pause: hold every message to this chat (topic) until /resume."""
        place = place_of(update)
        if not await self._may_change(update, context, "/subscriptions"):
            return
        paused = await self.chat_settings.pause(place.chat_id, place.thread_id)
        self.events.speaking_changed()
        since = local_time_text(paused.speaking.paused_since or paused.now, paused.digest.zone)
        await reply(
            update,
            context,
            f"⏸ Paused since {since}: {place.here.lower()} gets no messages until /resume. "
            "Papers found meanwhile wait; none is lost.",
        )

    async def resume(self, update: Update, context: Context) -> None:
        """/resume: deliver what waited (one summary when many did)."""
        place = place_of(update)
        before = await self.chat_settings.speaking(place.chat_id, place.thread_id)
        if not before.speaking.paused:
            await reply(update, context, f"{place.here} is not paused; /pause holds every message.")
            return
        if not await self._may_change(update, context, "/subscriptions"):
            return
        resumed = await self.chat_settings.resume(place.chat_id, place.thread_id)
        self.events.speaking_changed()
        await reply(update, context, "▶️ Resumed. " + self._released(resumed.speaking, resumed.now))

    def _released(self, settings: SpeakingSettings, now: datetime) -> str:
        count = settings.waiting
        if not count:
            return "Nothing waited."
        how = " as one summary" if count > self.threshold else ""
        if settings.quiet_now(now) and settings.quiet is not None:
            end = settings.quiet.describe().split("-")[1]
            return f"{papers(count)} waited; quiet hours hold them until {end}."
        return f"{papers(count)} waited; they come now{how}."

    async def quiet(self, update: Update, context: Context) -> None:
        """/quiet [HH:MM-HH:MM | off]: show or change the quiet hours."""
        place = place_of(update)
        args = context.args or []
        if not args:
            shown = await self.chat_settings.speaking(place.chat_id, place.thread_id)
            text = quiet_text(shown.speaking, shown.digest, now=shown.now)
            await reply(update, context, text + " " + _QUIET_HINT)
            return
        try:
            hours = arguments.quiet(args)
        except UsageError as error:
            await reply_usage(update, context, error)
            return
        if not await self._may_change(update, context, "/quiet"):
            return
        changed = await self.chat_settings.set_quiet(place.chat_id, place.thread_id, hours)
        settings = changed.speaking
        self.events.speaking_changed()
        if hours is None:
            sent = f" {self._released(settings, changed.now)}" if settings.waiting else ""
            await reply(update, context, f"✅ Quiet hours off.{sent}")
            return
        await reply(
            update,
            context,
            f"✅ {quiet_text(settings, changed.digest, now=changed.now)} Papers found then wait "
            "and arrive when they end, "
            f"as one summary when there are more than {self.threshold}. "
            "<code>/quiet off</code> ends them.",
        )

    async def silent(self, update: Update, context: Context) -> None:
        """/silent [on|off]: announcements without a sound."""
        place = place_of(update)
        try:
            silent = arguments.on_off(context.args or [], command="silent")
        except UsageError as error:
            await reply_usage(update, context, error)
            return
        if silent is None:
            shown = await self.chat_settings.speaking(place.chat_id, place.thread_id)
            await reply(update, context, silent_text(shown.speaking) + " " + _SILENT_HINT)
            return
        if not await self._may_change(update, context, "/silent"):
            return
        await self.chat_settings.set_silent(place.chat_id, place.thread_id, silent)
        self.events.speaking_changed()
        await reply(
            update,
            context,
            "🔕 Silent: announcements arrive without a sound."
            if silent
            else "🔔 Announcements arrive with a sound again.",
        )

    async def preview(self, update: Update, context: Context) -> None:
        """/preview [on|off]: the abstract page's preview above each paper's news, or none."""
        place = place_of(update)
        try:
            preview = arguments.on_off(context.args or [], command="preview")
        except UsageError as error:
            await reply_usage(update, context, error)
            return
        if preview is None:
            shown = await self.chat_settings.speaking(place.chat_id, place.thread_id)
            await reply(update, context, preview_text(shown.speaking) + " " + _PREVIEW_HINT)
            return
        if not await self._may_change(update, context, "/preview"):
            return
        await self.chat_settings.set_preview(place.chat_id, place.thread_id, preview)
        self.events.speaking_changed()
        await reply(
            update,
            context,
            "🖼 Preview on: each paper in full shows its abstract page's preview, small, above it."
            if preview
            else "✅ Preview off: no link previews under papers.",
        )

    async def format(self, update: Update, context: Context) -> None:
        """/format [full|compact]: each paper in full, or one line each."""
        place = place_of(update)
        args = context.args or []
        if not args:
            shown = await self.chat_settings.speaking(place.chat_id, place.thread_id)
            await reply(update, context, format_text(shown.speaking.format) + " " + _FORMAT_HINT)
            return
        try:
            form = arguments.message_format(args)
        except UsageError as error:
            await reply_usage(update, context, error)
            return
        if not await self._may_change(update, context, "/format"):
            return
        await self.chat_settings.set_format(place.chat_id, place.thread_id, form)
        self.events.speaking_changed()
        await reply(update, context, "✅ " + format_text(form))


_QUIET_HINT = "<code>/quiet 22:00-07:00</code> sets them (in this chat's or topic's /timezone)."
_SILENT_HINT = "<code>/silent on</code> or <code>/silent off</code> changes that."
_FORMAT_HINT = "<code>/format compact</code> or <code>/format full</code> changes it."
_PREVIEW_HINT = "<code>/preview on</code> or <code>/preview off</code> changes that."


def quiet_text(settings: SpeakingSettings, zone: DigestSettings, *, now: datetime) -> str:
    """ "Quiet hours: 22:00-07:00 (Europe/Berlin); quiet now, until Tue 01 Dec 2026, 07:00 CET." """
    if settings.quiet is None:
        return "Quiet hours: off."
    text = f"Quiet hours: {settings.quiet.describe()} ({html.escape(zone.zone_name)})"
    if settings.quiet_from is None or settings.quiet_until is None:
        return text + "."
    if settings.quiet_now(now):
        return text + f"; quiet now, until {local_time_text(settings.quiet_until, zone.zone)}."
    return text + f"; next from {local_time_text(settings.quiet_from, zone.zone)}."


def silent_text(settings: SpeakingSettings) -> str:
    return "Sound: off (/silent)." if settings.silent else "Sound: on."


def preview_text(settings: SpeakingSettings) -> str:
    if settings.preview:
        return "Link preview: on, the abstract page above each paper (/preview)."
    return "Link preview: off."


def format_text(form: MessageFormat) -> str:
    if form == MessageFormat.COMPACT:
        return (
            "Format: compact, one line per paper (title, followed authors ★, category); papers "
            "found together share one message."
        )
    return "Format: full, each paper in its own message with its abstract."


def pause_text(settings: SpeakingSettings, zone: DigestSettings, *, now: datetime) -> str:
    if not settings.paused:
        return "Paused: no."
    since = settings.paused_since or now
    waiting = f", {papers(settings.waiting)} waiting" if settings.waiting else ""
    return f"Paused: yes, since {local_time_text(since, zone.zone)}{waiting} (/resume)."


def settings_lines(
    speaking: SpeakingSettings,
    digest: DigestSettings,
    *,
    revisions: bool,
    now: datetime,
) -> list[str]:
    """Every setting of a chat (topic), one line each, for /subscriptions; `now`: the core's
    clock (`Core.clock`)."""
    if digest.schedule is None or digest.next_at is None:
        digest_line = "Digest: off, one message per paper (/digest)."
    else:
        next_at = local_time_text(digest.next_at, digest.zone)
        digest_line = f"Digest: {digest.schedule.describe()}, next {next_at}."
    return [
        "<b>Settings</b>",
        digest_line,
        f"Time zone: {html.escape(digest.zone_name)} (/timezone).",
        # The answer speaks the destination's language (the gate set it).
        _("Language: {language} (/language).", language=language_name(current_language())),
        quiet_text(speaking, digest, now=now),
        pause_text(speaking, digest, now=now),
        format_text(speaking.format).split(",")[0] + " (/format).",
        silent_text(speaking),
        preview_text(speaking),
        f"New versions of papers: {'on' if revisions else 'off'} "
        f"(/revisions {'off' if revisions else 'on'} to change).",
    ]
