"""Reading and changing how a destination (chat, forum topic) is spoken to: /pause, /resume,
/quiet, /silent, /format, /preview and /language, and what the sender needs of them (`styles`,
`chat_languages`). The language a chat's first writer asked for is noted with the chat
(`watcher.store.chats.Chats.seen`); a destination's /language overrides it there. The table
and its meaning are in `watcher.store.destinations`; quiet windows in UTC in
`watcher.store.quiet`.

A new time zone (`Speaking.set_zone`) moves the destination's digest and places its quiet window
again in one transaction; the chat's other topics keep their own zones.

Pausing or entering quiet hours changes nothing in the outbox: the rows stay pending and are not
due. /resume (and /quiet off) lets them go in the same transaction that flags them for one
"While you were away" summary when more than the threshold waited.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import Engine, func
from sqlmodel import Session, col, select

from watcher.calendars.quiet_hours import QuietHours
from watcher.kinds import MessageFormat
from watcher.store.destinations import (
    DestinationSetting,
    destination,
    flag_summaries,
    language_of,
)
from watcher.store.digests import DigestSettings, move_zone, settings_in
from watcher.store.quiet import hours_of, place_window
from watcher.store.tables import NO_THREAD, Chat, Delivery, DeliveryStatus, utcnow


@dataclass(frozen=True, slots=True)
class SpeakingSettings:
    """A destination's settings as /subscriptions and the commands' answers show them."""

    paused: bool
    paused_since: datetime | None
    quiet: QuietHours | None
    quiet_from: datetime | None  # the current or next window, UTC
    quiet_until: datetime | None
    silent: bool
    format: MessageFormat
    preview: bool  # the abstract page's preview above news (/preview on)
    waiting: int  # pending deliveries owed to it
    language: str | None = None  # /language's, else the chat's first writer's; None: unknown

    def quiet_now(self, now: datetime) -> bool:
        return self.quiet_from is not None and self.quiet_from <= now


@dataclass(frozen=True, slots=True)
class Style:
    """What the sender needs to know of a destination: sound off, one line per paper, the
    abstract page's preview above news in full, and the language /language set there (None:
    the chat's, `Speaking.chat_languages`)."""

    silent: bool = False
    compact: bool = False
    preview: bool = False
    language: str | None = None


DEFAULT_STYLE = Style()


class Speaking:
    """The speaking settings of chats and their topics. Each method is one transaction."""

    def __init__(self, engine: Engine, *, summary_threshold: int) -> None:
        self.engine = engine
        self.summary_threshold = summary_threshold

    def settings(self, chat_id: int, thread_id: int) -> SpeakingSettings:
        with Session(self.engine) as session:
            return speaking_in(session, chat_id, thread_id)

    def pause(
        self, chat_id: int, thread_id: int, *, now: datetime | None = None
    ) -> SpeakingSettings:
        """Hold every message to the destination until `resume`. Pausing twice keeps the first
        `paused_since`."""
        with Session(self.engine) as session:
            setting = destination(session, chat_id, thread_id)
            if not setting.paused:
                setting.paused, setting.paused_since = True, now or utcnow()
            return _commit(session, setting)

    def resume(self, chat_id: int, thread_id: int) -> SpeakingSettings:
        """Let what waited go: as one summary when more than the threshold did. Still held by
        quiet hours, it goes when they end (flagged again then)."""
        with Session(self.engine) as session:
            setting = destination(session, chat_id, thread_id)
            if setting.paused:
                flag_summaries(
                    session, chat_id, threshold=self.summary_threshold, thread_id=thread_id
                )
            setting.paused, setting.paused_since = False, None
            return _commit(session, setting)

    def set_quiet(
        self, chat_id: int, thread_id: int, hours: QuietHours | None, *, now: datetime | None = None
    ) -> SpeakingSettings:
        """Quiet hours on (or moved) in the destination's time zone, or off with `None`. Off, or
        moved so that now is outside them, lets what waited go as `resume` does."""
        now = now or utcnow()
        with Session(self.engine) as session:
            setting = destination(session, chat_id, thread_id)
            setting.quiet_start = hours.start if hours is not None else None
            setting.quiet_end = hours.end if hours is not None else None
            self._place(session, setting, now)
            return _commit(session, setting)

    def _place(self, session: Session, setting: DestinationSetting, now: datetime) -> None:
        """Place the window afresh, in the destination's zone; one that held and no longer does
        lets what waited go."""
        was_quiet = setting.quiet_from is not None and setting.quiet_from <= now
        place_window(setting, setting.timezone, now=now)
        quiet = setting.quiet_from is not None and setting.quiet_from <= now
        if was_quiet and not quiet and not setting.paused:
            flag_summaries(
                session,
                setting.chat_id,
                threshold=self.summary_threshold,
                thread_id=setting.thread_id,
            )
        session.add(setting)

    def set_zone(
        self,
        chat_id: int,
        zone_name: str,
        *,
        thread_id: int = NO_THREAD,
        now: datetime | None = None,
    ) -> DigestSettings:
        """The destination's clock moves to `zone_name`, in ONE transaction: a digest that is on
        fires at the same local time in the new zone (`watcher.store.digests.move_zone`), and its
        quiet window is placed again in it; one that no longer holds now lets what waited go,
        as `resume` does. Any failure changes nothing, the zone included. The chat's other
        topics keep their zones."""
        now = now or utcnow()
        with Session(self.engine) as session:
            setting = move_zone(session, chat_id, thread_id, zone_name, now=now)
            if setting.quiet_start is not None:
                self._place(session, setting, now)
            session.commit()
            return settings_in(session, chat_id, thread_id)

    def set_silent(self, chat_id: int, thread_id: int, silent: bool) -> SpeakingSettings:
        with Session(self.engine) as session:
            setting = destination(session, chat_id, thread_id)
            setting.silent = silent
            return _commit(session, setting)

    def set_preview(self, chat_id: int, thread_id: int, preview: bool) -> SpeakingSettings:
        with Session(self.engine) as session:
            setting = destination(session, chat_id, thread_id)
            setting.link_preview = preview
            return _commit(session, setting)

    def set_format(self, chat_id: int, thread_id: int, form: MessageFormat) -> SpeakingSettings:
        with Session(self.engine) as session:
            setting = destination(session, chat_id, thread_id)
            setting.format = form
            return _commit(session, setting)

    def styles(self, chat_ids: Iterable[int]) -> dict[tuple[int, int], Style]:
        """The style of each destination of `chat_ids` that has one other than the default,
        by (chat id, thread id), in one query."""
        with Session(self.engine) as session:
            rows = session.exec(
                select(DestinationSetting).where(
                    col(DestinationSetting.chat_id).in_(list(set(chat_ids)))
                )
            ).all()
            return {
                (row.chat_id, row.thread_id): Style(
                    row.silent, row.format == MessageFormat.COMPACT, row.link_preview, row.language
                )
                for row in rows
            }

    def chat_languages(self, chat_ids: Iterable[int]) -> dict[int, str]:
        """The language each of `chat_ids` was first spoken to in, where one is known."""
        with Session(self.engine) as session:
            rows = session.exec(
                select(Chat.id, Chat.language).where(
                    col(Chat.id).in_(list(set(chat_ids))), col(Chat.language).is_not(None)
                )
            ).all()
            return {chat_id: language for chat_id, language in rows if language}

    def language_of(self, chat_id: int, thread_id: int) -> str | None:
        """The language the destination speaks: its /language, else its chat's first writer's."""
        with Session(self.engine) as session:
            return language_of(session, chat_id, thread_id)

    def set_language(self, chat_id: int, thread_id: int, language: str) -> SpeakingSettings:
        """/language: the destination speaks `language` from now on; other topics keep theirs."""
        with Session(self.engine) as session:
            setting = destination(session, chat_id, thread_id)
            setting.language = language
            return _commit(session, setting)


def _commit(session: Session, setting: DestinationSetting) -> SpeakingSettings:
    session.add(setting)
    session.commit()
    session.refresh(setting)
    return _settings(session, setting)


def speaking_in(
    session: Session, chat_id: int, thread_id: int, *, waiting: int | None = None
) -> SpeakingSettings:
    """`Speaking.settings` in the caller's session; `waiting`: the destination's pending
    deliveries, when the caller counted them already (`watcher.store.arrivals`)."""
    setting = session.get(DestinationSetting, (chat_id, thread_id))
    return _settings(
        session, setting or DestinationSetting(chat_id=chat_id, thread_id=thread_id), waiting
    )


def _settings(
    session: Session, setting: DestinationSetting, waiting: int | None = None
) -> SpeakingSettings:
    if waiting is None:
        waiting = session.exec(
            select(func.count()).where(
                col(Delivery.chat_id) == setting.chat_id,
                col(Delivery.thread_id) == setting.thread_id,
                col(Delivery.status) == DeliveryStatus.PENDING,
            )
        ).one()
    return SpeakingSettings(
        paused=setting.paused,
        paused_since=setting.paused_since,
        quiet=hours_of(setting),
        quiet_from=setting.quiet_from,
        quiet_until=setting.quiet_until,
        silent=setting.silent,
        format=MessageFormat(setting.format),
        preview=setting.link_preview,
        waiting=int(waiting),
        language=language_of(session, setting.chat_id, setting.thread_id),
    )
