"""A chat's settings as the front ends change them, each per destination (the chat, or one forum
topic of it: `thread_id`, `NO_THREAD` for General and a chat without topics): how it is spoken
to (pause, resume, quiet hours, sound, format, link preview), its digest, its time zone, and
whether it hears of new versions of papers (`revisions`). A change in one topic leaves the
chat's other topics as they were.

Each change is ONE call and ONE store transaction, answering a typed outcome that carries the
settings as they now are and the instant they were changed at (`now`, from the runtime's clock),
so the front end renders local times without reading a clock of its own. A zone change places
the destination's quiet window again in the same transaction
(`watcher.store.speaking.Speaking.set_zone`): it happens whole or not at all.

A setting added later (a language, say) is one more method here, beside its store
method, and one more row in `watcher.store.exported_settings.SETTINGS` for export and import.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime

from watcher.aio import in_db_thread
from watcher.calendars.quiet_hours import QuietHours
from watcher.calendars.schedule import DigestSchedule
from watcher.clock import Clock
from watcher.kinds import MessageFormat
from watcher.store.chats import Chats
from watcher.store.digests import ClaimReport, DigestRenderer, DigestSettings
from watcher.store.speaking import SpeakingSettings

# A change of one destination's speaking settings: (chat id, thread id, now) -> its settings.
_SpeakingChange = Callable[[int, int, datetime], SpeakingSettings]


@dataclass(frozen=True, slots=True)
class Speaking:
    """A destination's speaking settings, its digest settings (zone), and now."""

    speaking: SpeakingSettings
    digest: DigestSettings
    now: datetime


@dataclass(frozen=True, slots=True)
class DigestChanged:
    """The destination's digest as it now is; `flushed`: what turning it off let go, as one
    digest; `here`: the destination's speaking settings as they were then (paused or quiet,
    its digest waits for /resume or for its quiet window's end)."""

    settings: DigestSettings
    flushed: ClaimReport | None
    now: datetime
    here: SpeakingSettings


@dataclass(frozen=True, slots=True)
class ZoneChanged:
    """The destination's clock moved: its digest settings in the new zone (quiet hours moved
    too)."""

    settings: DigestSettings
    now: datetime


class ChatSettings:
    """The settings use cases, one async call each (`watcher.aio.in_db_thread`)."""

    def __init__(self, chats: Chats, clock: Clock) -> None:
        self._chats = chats
        self._clock = clock

    @property
    def summary_threshold(self) -> int:
        """More papers waiting than this come as one summary."""
        return self._chats.summary_threshold

    async def digest(self, chat_id: int, thread_id: int) -> DigestSettings:
        return await in_db_thread(self._chats.digests.settings, chat_id, thread_id)

    async def speaking(self, chat_id: int, thread_id: int) -> Speaking:
        return await in_db_thread(self._read, chat_id, thread_id)

    def _read(self, chat_id: int, thread_id: int) -> Speaking:
        return Speaking(
            self._chats.speaking.settings(chat_id, thread_id),
            self._chats.digests.settings(chat_id, thread_id),
            self._clock(),
        )

    def now(self) -> datetime:
        """The runtime's now, for showing a setting that changed nothing."""
        return self._clock()

    async def pause(self, chat_id: int, thread_id: int) -> Speaking:
        """Hold every message to the destination until `resume` (twice keeps the first)."""
        return await in_db_thread(self._change, chat_id, self._pause, thread_id)

    def _pause(self, chat_id: int, thread_id: int, now: datetime) -> SpeakingSettings:
        return self._chats.speaking.pause(chat_id, thread_id, now=now)

    async def resume(self, chat_id: int, thread_id: int) -> Speaking:
        """Let what waited go, as one summary when more than the threshold did."""
        return await in_db_thread(self._change, chat_id, self._resume, thread_id)

    def _resume(self, chat_id: int, thread_id: int, _now: datetime) -> SpeakingSettings:
        return self._chats.speaking.resume(chat_id, thread_id)

    async def set_quiet(self, chat_id: int, thread_id: int, hours: QuietHours | None) -> Speaking:
        """Quiet hours on or moved (in the destination's zone), or off with None."""

        def change(chat: int, thread: int, now: datetime) -> SpeakingSettings:
            return self._chats.speaking.set_quiet(chat, thread, hours, now=now)

        return await in_db_thread(self._change, chat_id, change, thread_id)

    async def set_silent(self, chat_id: int, thread_id: int, silent: bool) -> Speaking:
        def change(chat: int, thread: int, _now: datetime) -> SpeakingSettings:
            return self._chats.speaking.set_silent(chat, thread, silent)

        return await in_db_thread(self._change, chat_id, change, thread_id)

    async def set_preview(self, chat_id: int, thread_id: int, preview: bool) -> Speaking:
        """The abstract page's preview above news in full (/preview on), or none (off)."""

        def change(chat: int, thread: int, _now: datetime) -> SpeakingSettings:
            return self._chats.speaking.set_preview(chat, thread, preview)

        return await in_db_thread(self._change, chat_id, change, thread_id)

    async def language(self, chat_id: int, thread_id: int) -> str | None:
        """The language the destination speaks: /language's, else its chat's first writer's;
        None when neither is known (the front end's default speaks)."""
        return await in_db_thread(self._chats.speaking.language_of, chat_id, thread_id)

    async def set_language(self, chat_id: int, thread_id: int, language: str) -> Speaking:
        """/language: the destination speaks `language` (a tag the front end knows)."""

        def change(chat: int, thread: int, _now: datetime) -> SpeakingSettings:
            return self._chats.speaking.set_language(chat, thread, language)

        return await in_db_thread(self._change, chat_id, change, thread_id)

    async def set_format(self, chat_id: int, thread_id: int, form: MessageFormat) -> Speaking:
        def change(chat: int, thread: int, _now: datetime) -> SpeakingSettings:
            return self._chats.speaking.set_format(chat, thread, form)

        return await in_db_thread(self._change, chat_id, change, thread_id)

    def _change(self, chat_id: int, change: _SpeakingChange, thread_id: int) -> Speaking:
        """Database thread: the change (its one transaction), then the zone to show it in."""
        now = self._clock()
        settings = change(chat_id, thread_id, now)
        return Speaking(settings, self._chats.digests.settings(chat_id, thread_id), now)

    async def set_digest(
        self,
        chat_id: int,
        thread_id: int,
        schedule: DigestSchedule | None,
        *,
        render: DigestRenderer,
    ) -> DigestChanged:
        """The destination's digest on (or moved), or off with None: off lets what it held go
        at once, as one digest (held still if paused or quiet); its speaking settings come back
        with the change. The chat's other topics keep theirs."""
        return await in_db_thread(self._set_digest, chat_id, schedule, render, thread_id)

    def _set_digest(
        self,
        chat_id: int,
        schedule: DigestSchedule | None,
        render: DigestRenderer,
        thread_id: int,
    ) -> DigestChanged:
        """Database thread: the change (its one transaction), then the destination's speaking
        settings, to say when what it let go arrives there."""
        now = self._clock()
        settings, flushed = self._chats.digests.set_schedule(
            chat_id, schedule, render=render, thread_id=thread_id, now=now
        )
        return DigestChanged(
            settings, flushed, now, self._chats.speaking.settings(chat_id, thread_id)
        )

    async def revisions(self, chat_id: int, thread_id: int) -> bool:
        """Whether the destination is told of new versions of papers it was sent
        (/revisions)."""
        return await in_db_thread(self._chats.wants_revisions, chat_id, thread_id=thread_id)

    async def set_revisions(self, chat_id: int, thread_id: int, enabled: bool) -> bool:
        """Tell the destination of new versions of papers, or stop; the setting as it now
        is."""
        await in_db_thread(self._chats.set_notify_revisions, chat_id, enabled, thread_id=thread_id)
        return enabled

    async def set_zone(self, chat_id: int, thread_id: int, zone_name: str) -> ZoneChanged:
        """The destination's clock moves to `zone_name` (canonical): its digest and quiet hours
        keep their local times, in one transaction."""
        now = self._clock()
        settings = await in_db_thread(
            self._chats.speaking.set_zone, chat_id, zone_name, thread_id=thread_id, now=now
        )
        return ZoneChanged(settings, now)
