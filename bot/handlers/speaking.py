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
    local_time,
    place_of,
    refuse_non_admin,
    reply,
    reply_usage,
)
from bot.handlers.digest import schedule_text
from bot.handlers.permissions import SPEAKING
from bot.i18n import N_, _, current_language, language_name, ngettext
from watcher.core import Core
from watcher.core.views import DigestSettings, SpeakingSettings
from watcher.errors import UsageError
from watcher.kinds import MessageFormat


class SpeakingCommands(ServiceHandlers):
    """/pause, /resume, /quiet, /silent, /format and /preview."""

    def __init__(self, service: Core, *, events: DeliveryEvents) -> None:
        super().__init__(service)
        self.chat_settings = service.chat_settings
        self.threshold = service.chat_settings.summary_threshold
        self.events = events

    async def _may_change(self, update: Update, context: Context, example: str) -> bool:
        return not await refuse_non_admin(update, context, what=SPEAKING, example=example)

    async def pause(self, update: Update, context: Context) -> None:
        """/pause: hold every message to this chat (topic) until /resume."""
        place = place_of(update)
        if not await self._may_change(update, context, "/subscriptions"):
            return
        paused = await self.chat_settings.pause(place.chat_id, place.thread_id)
        self.events.speaking_changed()
        since = local_time(paused.speaking.paused_since or paused.now, paused.digest.zone)
        await reply(
            update,
            context,
            _(
                "⏸ Paused since {since}: {here} gets no messages until /resume. "
                "Papers found meanwhile wait; none is lost.",
                since=since,
                here=place.here.lower(),
            ),
        )

    async def resume(self, update: Update, context: Context) -> None:
        """/resume: deliver what waited (one summary when many did)."""
        place = place_of(update)
        before = await self.chat_settings.speaking(place.chat_id, place.thread_id)
        if not before.speaking.paused:
            await reply(
                update,
                context,
                _("{here} is not paused; /pause holds every message.", here=place.here),
            )
            return
        if not await self._may_change(update, context, "/subscriptions"):
            return
        resumed = await self.chat_settings.resume(place.chat_id, place.thread_id)
        self.events.speaking_changed()
        released = self._released(resumed.speaking, resumed.now)
        await reply(update, context, _("▶️ Resumed. {released}", released=released))

    def _released(self, settings: SpeakingSettings, now: datetime) -> str:
        count = settings.waiting
        if not count:
            return _("Nothing waited.")
        if settings.quiet_now(now) and settings.quiet is not None:
            end = settings.quiet.describe().split("-")[1]
            return ngettext(
                "{n} paper waited; quiet hours hold it until {end}.",
                "{n} papers waited; quiet hours hold them until {end}.",
                count,
                end=end,
            )
        if count > self.threshold:
            return ngettext(
                "{n} paper waited; it comes now as one summary.",
                "{n} papers waited; they come now as one summary.",
                count,
            )
        return ngettext(
            "{n} paper waited; it comes now.", "{n} papers waited; they come now.", count
        )

    async def quiet(self, update: Update, context: Context) -> None:
        """/quiet [HH:MM-HH:MM | off]: show or change the quiet hours."""
        place = place_of(update)
        args = context.args or []
        if not args:
            shown = await self.chat_settings.speaking(place.chat_id, place.thread_id)
            text = quiet_text(shown.speaking, shown.digest, now=shown.now)
            await reply(update, context, text + " " + _(_QUIET_HINT))
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
            await reply(update, context, _("✅ Quiet hours off.") + sent)
            return
        await reply(
            update,
            context,
            "✅ "
            + quiet_text(settings, changed.digest, now=changed.now)
            + " "
            + ngettext(
                "Papers found then wait and arrive when they end, as one summary when there "
                "are more than {n}. <code>/quiet off</code> ends them.",
                "Papers found then wait and arrive when they end, as one summary when there "
                "are more than {n}. <code>/quiet off</code> ends them.",
                self.threshold,
            ),
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
            await reply(update, context, silent_text(shown.speaking) + " " + _(_SILENT_HINT))
            return
        if not await self._may_change(update, context, "/silent"):
            return
        await self.chat_settings.set_silent(place.chat_id, place.thread_id, silent)
        self.events.speaking_changed()
        await reply(
            update,
            context,
            _("🔕 Silent: announcements arrive without a sound.")
            if silent
            else _("🔔 Announcements arrive with a sound again."),
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
            await reply(update, context, preview_text(shown.speaking) + " " + _(_PREVIEW_HINT))
            return
        if not await self._may_change(update, context, "/preview"):
            return
        await self.chat_settings.set_preview(place.chat_id, place.thread_id, preview)
        self.events.speaking_changed()
        await reply(
            update,
            context,
            _(
                "🖼 Preview on: each paper in full shows its abstract page's preview, small, "
                "above it."
            )
            if preview
            else _("✅ Preview off: no link previews under papers."),
        )

    async def format(self, update: Update, context: Context) -> None:
        """/format [full|compact]: each paper in full, or one line each."""
        place = place_of(update)
        args = context.args or []
        if not args:
            shown = await self.chat_settings.speaking(place.chat_id, place.thread_id)
            hint = _(_FORMAT_HINT)
            await reply(update, context, format_text(shown.speaking.format) + " " + hint)
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


_QUIET_HINT = N_("<code>/quiet 22:00-07:00</code> sets them (in this chat's or topic's /timezone).")
_SILENT_HINT = N_("<code>/silent on</code> or <code>/silent off</code> changes that.")
_FORMAT_HINT = N_("<code>/format compact</code> or <code>/format full</code> changes it.")
_PREVIEW_HINT = N_("<code>/preview on</code> or <code>/preview off</code> changes that.")


def quiet_text(settings: SpeakingSettings, zone: DigestSettings, *, now: datetime) -> str:
    """ "Quiet hours: 22:00-07:00 (Europe/Berlin); quiet now, until 1 Dec 2026, 07:00 CET." """
    if settings.quiet is None:
        return _("Quiet hours: off.")
    hours, zone_name = settings.quiet.describe(), html.escape(zone.zone_name)
    if settings.quiet_from is None or settings.quiet_until is None:
        return _("Quiet hours: {hours} ({zone}).", hours=hours, zone=zone_name)
    if settings.quiet_now(now):
        return _(
            "Quiet hours: {hours} ({zone}); quiet now, until {until}.",
            hours=hours,
            zone=zone_name,
            until=local_time(settings.quiet_until, zone.zone),
        )
    return _(
        "Quiet hours: {hours} ({zone}); next from {start}.",
        hours=hours,
        zone=zone_name,
        start=local_time(settings.quiet_from, zone.zone),
    )


def silent_text(settings: SpeakingSettings) -> str:
    return _("Sound: off (/silent).") if settings.silent else _("Sound: on.")


def preview_text(settings: SpeakingSettings) -> str:
    if settings.preview:
        return _("Link preview: on, the abstract page above each paper (/preview).")
    return _("Link preview: off.")


def format_text(form: MessageFormat) -> str:
    if form == MessageFormat.COMPACT:
        return _(
            "Format: compact, one line per paper (title, followed authors ★, category); papers "
            "found together share one message."
        )
    return _("Format: full, each paper in its own message with its abstract.")


def _format_line(form: MessageFormat) -> str:
    """The format's line in the settings block."""
    if form == MessageFormat.COMPACT:
        return _("Format: compact (/format).")
    return _("Format: full (/format).")


def pause_text(settings: SpeakingSettings, zone: DigestSettings, *, now: datetime) -> str:
    if not settings.paused:
        return _("Paused: no.")
    since = local_time(settings.paused_since or now, zone.zone)
    if settings.waiting:
        return ngettext(
            "Paused: yes, since {since}, {n} paper waiting (/resume).",
            "Paused: yes, since {since}, {n} papers waiting (/resume).",
            settings.waiting,
            since=since,
        )
    return _("Paused: yes, since {since} (/resume).", since=since)


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
        digest_line = _("Digest: off, one message per paper (/digest).")
    else:
        digest_line = _(
            "Digest: {schedule}, next {next}.",
            schedule=schedule_text(digest.schedule),
            next=local_time(digest.next_at, digest.zone),
        )
    return [
        _("<b>Settings</b>"),
        digest_line,
        _("Time zone: {zone} (/timezone).", zone=html.escape(digest.zone_name)),
        # The answer speaks the destination's language (the gate set it).
        _("Language: {language} (/language).", language=language_name(current_language())),
        quiet_text(speaking, digest, now=now),
        pause_text(speaking, digest, now=now),
        _format_line(speaking.format),
        silent_text(speaking),
        preview_text(speaking),
        _("New versions of papers: on (/revisions off to change).")
        if revisions
        else _("New versions of papers: off (/revisions on to change)."),
    ]
