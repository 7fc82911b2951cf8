"""A chat's settings as an export's header writes them and an import sets them: `key: value`.

`SETTINGS` is the one table of the keys known: each reads its value for a chat's forum topic
(`NO_THREAD`: the chat) and writes one back, in the caller's session (`watcher.store.imports`).
The three here are the chat's own (its row); a setting added later, of the chat or of each
topic (pause, quiet hours, silent, format, …), is one more row here; an export then carries
it, and an import of a file that has it sets it. A key not in the table is reported by the
import, never refused: a file from a newer version still imports.

A value that cannot be set raises `SettingRefused`, whose message says why in a few words.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import func
from sqlmodel import Session, col, select

from watcher.schedule import (
    EVERY_DAY,
    MONDAY_TO_FRIDAY,
    BadSchedule,
    DigestSchedule,
    canonical_zone,
    next_digest_time,
    parse_wall_time,
    parse_weekdays,
    zone_of,
)
from watcher.store.tables import Chat, Delivery, DeliveryStatus


class SettingRefused(ValueError):
    """A setting's value that cannot be set; the message says why."""


@dataclass(frozen=True, slots=True)
class ChatSetting:
    """One setting: `read(session, chat_id, thread_id)` gives its value as written;
    `write(session, chat_id, thread_id, value, now)` sets a value, checked (SettingRefused)."""

    key: str
    read: Callable[[Session, int, int], str]
    write: Callable[[Session, int, int, str, datetime], None]


def chat_row(session: Session, chat_id: int) -> Chat:
    """The chat's row; a chat never seen gets one with the defaults, stored only if the caller
    commits (an import's chat was seen: it sent the file)."""
    chat = session.get(Chat, chat_id)
    if chat is None:
        chat = Chat(id=chat_id)
        session.add(chat)
    return chat


def _of_chat(read: Callable[[Chat], str]) -> Callable[[Session, int, int], str]:
    return lambda session, chat_id, _thread_id: read(chat_row(session, chat_id))


def _to_chat(
    write: Callable[[Session, Chat, str, datetime], None],
) -> Callable[[Session, int, int, str, datetime], None]:
    return lambda session, chat_id, _thread, value, now: write(
        session, chat_row(session, chat_id), value, now
    )


def parse_digest(value: str) -> DigestSchedule | None:
    """`off`, `daily 08:00`, `weekdays 08:00` or `weekly mon,thu 08:00`, as
    `DigestSchedule.command` writes them."""
    words = value.casefold().split()
    try:
        if words == ["off"]:
            return None
        if len(words) == 2 and words[0] in ("daily", "weekdays"):
            days = EVERY_DAY if words[0] == "daily" else MONDAY_TO_FRIDAY
            return DigestSchedule(parse_wall_time(words[1]), days)
        if len(words) == 3 and words[0] == "weekly":
            return DigestSchedule(parse_wall_time(words[2]), parse_weekdays(words[1]))
    except BadSchedule as error:
        raise SettingRefused(str(error)) from None
    raise SettingRefused("a digest is off, daily HH:MM, weekdays HH:MM or weekly DAY HH:MM")


def _read_digest(chat: Chat) -> str:
    if chat.digest_minute is None:
        return "off"
    return DigestSchedule.from_stored(chat.digest_minute, chat.digest_days or 0).command()


def _write_digest(session: Session, chat: Chat, value: str, now: datetime) -> None:
    schedule = parse_digest(value)
    if schedule is None:
        held = session.exec(
            select(func.count()).where(
                col(Delivery.chat_id) == chat.id, col(Delivery.status) == DeliveryStatus.HELD
            )
        ).one()
        if held:
            raise SettingRefused(f"{held} papers wait for the digest; /digest off sends them")
        chat.digest_minute = chat.digest_days = None
        chat.next_digest_at = chat.digest_since = None
        return
    if chat.next_digest_at is None:
        chat.digest_since = now
    chat.digest_minute, chat.digest_days = schedule.minute_of_day, schedule.day_mask
    chat.next_digest_at = next_digest_time(schedule, zone_of(chat.timezone), after=now)


def _write_zone(session: Session, chat: Chat, value: str, now: datetime) -> None:
    try:
        chat.timezone = canonical_zone(value)
    except BadSchedule as error:
        raise SettingRefused(str(error)) from None
    if chat.digest_minute is not None:  # the digest keeps its local time in the new zone
        schedule = DigestSchedule.from_stored(chat.digest_minute, chat.digest_days or 0)
        chat.next_digest_at = next_digest_time(schedule, zone_of(chat.timezone), after=now)


def _write_revisions(session: Session, chat: Chat, value: str, now: datetime) -> None:
    if value.casefold() not in ("on", "off"):
        raise SettingRefused("revisions are on or off")
    chat.notify_revisions = value.casefold() == "on"


# In the order they are written and set: the zone before the digest read in it.
SETTINGS: dict[str, ChatSetting] = {
    setting.key: setting
    for setting in (
        ChatSetting("timezone", _of_chat(lambda chat: chat.timezone), _to_chat(_write_zone)),
        ChatSetting("digest", _of_chat(_read_digest), _to_chat(_write_digest)),
        ChatSetting(
            "revisions",
            _of_chat(lambda chat: "on" if chat.notify_revisions else "off"),
            _to_chat(_write_revisions),
        ),
    )
}
