"""A chat's settings as an export's header writes them and an import sets them: `key: value`.

`SETTINGS` is the one table of the keys known: each reads its value for a chat's forum topic
(`NO_THREAD`: the chat, or General) and writes one back, in the caller's session
(`watcher.store.applied_imports`). Every one is the destination's own
(`watcher.store.destinations`): `timezone`, `digest`, `revisions`, `paused` (yes/no), `quiet`
(HH:MM-HH:MM or off, in the destination's zone), `silent` (on/off), `format` (full/compact) and
`preview` (on/off) and `language` (a tag of `watcher.kinds.LANGUAGES`: the one the destination
speaks, its /language's or else its chat's first writer's) and `suggest` ("Suggested for you":
off, or how many a batch when on),
worded as /subscriptions shows them and the commands take them. An export made in a topic
carries that topic's; an import sets them on the topic it is sent in. A setting added later is
one more row here; an export then carries it, and an import of a file that has it sets it. A key
not in the table is reported by the import, never refused: a file from a newer version still
imports.

A write only changes rows: a new zone places the destination's quiet window again, but letting
go what a pause or a quiet window held (as one summary) is the caller's, once every setting is
written (`watcher.store.destinations.held_threads` tells which destinations held before and
after).

A value that cannot be set raises `SettingRefused`, whose message says why in a few words.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import func
from sqlmodel import Session, col, select

from watcher.calendars.quiet_hours import parse_quiet
from watcher.calendars.schedule import (
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
from watcher.kinds import LANGUAGES, SOURCE_LANGUAGE, MessageFormat
from watcher.sentences import SaysSentence, Sentence, sentence
from watcher.store import profiles
from watcher.store.destinations import DestinationSetting, destination, language_of
from watcher.store.quiet import hours_of, place_window
from watcher.store.tables import Delivery, DeliveryStatus


class SettingRefused(SaysSentence, ValueError):
    """A setting's value that cannot be set; the message says why (a
    `watcher.sentences.Sentence`, `error.sentence`)."""


@dataclass(frozen=True, slots=True)
class ChatSetting:
    """One setting: `read(session, chat_id, thread_id)` gives its value as written;
    `write(session, chat_id, thread_id, value, now)` sets a value, checked (SettingRefused)."""

    key: str
    read: Callable[[Session, int, int], str]
    write: Callable[[Session, int, int, str, datetime], None]


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
        raise SettingRefused(error.sentence) from None
    raise SettingRefused(
        sentence("a digest is off, daily HH:MM, weekdays HH:MM or weekly DAY HH:MM")
    )


def _schedule(setting: DestinationSetting) -> DigestSchedule | None:
    if setting.digest_minute is None:
        return None
    return DigestSchedule.from_stored(setting.digest_minute, setting.digest_days or 0)


def _read_digest(setting: DestinationSetting) -> str:
    schedule = _schedule(setting)
    return "off" if schedule is None else schedule.command()


def _write_digest(session: Session, setting: DestinationSetting, value: str, now: datetime) -> None:
    schedule = parse_digest(value)
    if schedule is None:
        held = session.exec(
            select(func.count()).where(
                col(Delivery.chat_id) == setting.chat_id,
                col(Delivery.thread_id) == setting.thread_id,
                col(Delivery.status) == DeliveryStatus.HELD,
            )
        ).one()
        if held:
            raise SettingRefused(
                sentence("{count} papers wait for the digest; /digest off sends them", count=held)
            )
        setting.digest_minute = setting.digest_days = None
        setting.next_digest_at = setting.digest_since = None
        return
    if setting.next_digest_at is None:
        setting.digest_since = now
    setting.digest_minute, setting.digest_days = schedule.minute_of_day, schedule.day_mask
    setting.next_digest_at = next_digest_time(schedule, zone_of(setting.timezone), after=now)


def _write_zone(session: Session, setting: DestinationSetting, value: str, now: datetime) -> None:
    try:
        setting.timezone = canonical_zone(value)
    except BadSchedule as error:
        raise SettingRefused(error.sentence) from None
    schedule = _schedule(setting)
    if schedule is not None:  # the digest keeps its local time in the new zone
        setting.next_digest_at = next_digest_time(schedule, zone_of(setting.timezone), after=now)
    if setting.quiet_start is not None:  # so do the quiet hours
        place_window(setting, setting.timezone, now=now)


def _write_revisions(
    _session: Session, setting: DestinationSetting, value: str, _now: datetime
) -> None:
    if value.casefold() not in ("on", "off"):
        raise SettingRefused(sentence("revisions are on or off"))
    setting.notify_revisions = value.casefold() == "on"


def _destination(session: Session, chat_id: int, thread_id: int) -> DestinationSetting:
    """The destination's row, as stored or (not added) with the defaults."""
    found = session.get(DestinationSetting, (chat_id, thread_id))
    return found or DestinationSetting(chat_id=chat_id, thread_id=thread_id)


def _of_destination(
    read: Callable[[DestinationSetting], str],
) -> Callable[[Session, int, int], str]:
    return lambda session, chat_id, thread_id: read(_destination(session, chat_id, thread_id))


def _to_destination(
    write: Callable[[Session, DestinationSetting, str, datetime], None],
) -> Callable[[Session, int, int, str, datetime], None]:
    """A write of the destination's row (and of its chat's, a chat never seen)."""

    def written(session: Session, chat_id: int, thread_id: int, value: str, now: datetime) -> None:
        setting = destination(session, chat_id, thread_id)
        write(session, setting, value.strip(), now)
        session.add(setting)

    return written


def _choice(value: str, words: dict[str, bool], refusal: Sentence) -> bool:
    try:
        return words[value.casefold()]
    except KeyError:
        raise SettingRefused(refusal) from None


def _write_paused(
    _session: Session, setting: DestinationSetting, value: str, now: datetime
) -> None:
    paused = _choice(value, {"yes": True, "no": False}, sentence("paused is yes or no"))
    if paused != setting.paused:
        setting.paused, setting.paused_since = paused, now if paused else None


def _read_quiet(setting: DestinationSetting) -> str:
    hours = hours_of(setting)
    return "off" if hours is None else hours.describe()


def _write_quiet(_session: Session, setting: DestinationSetting, value: str, now: datetime) -> None:
    if value.casefold() == "off":
        start = end = None
    else:
        try:
            hours = parse_quiet(value)
        except BadSchedule as error:
            raise SettingRefused(sentence("{problem} (or off)", problem=error.sentence)) from None
        start, end = hours.start, hours.end
    if (start, end) != (setting.quiet_start, setting.quiet_end):
        setting.quiet_start, setting.quiet_end = start, end
        place_window(setting, setting.timezone, now=now)


def _write_silent(
    _session: Session, setting: DestinationSetting, value: str, _now: datetime
) -> None:
    setting.silent = _choice(value, {"on": True, "off": False}, sentence("silent is on or off"))


def _write_preview(
    _session: Session, setting: DestinationSetting, value: str, _now: datetime
) -> None:
    setting.link_preview = _choice(
        value, {"on": True, "off": False}, sentence("preview is on or off")
    )


def _read_suggest(setting: DestinationSetting) -> str:
    return str(setting.suggest_count) if setting.suggest else "off"


def _write_suggest(
    session: Session, setting: DestinationSetting, value: str, now: datetime
) -> None:
    """off, on, or how many a batch (1..10, on)."""
    wanted = value.strip().casefold()
    if wanted in ("off", "on"):
        setting.suggest = wanted == "on"
    elif wanted.isdigit() and 1 <= int(wanted) <= 10:
        setting.suggest, setting.suggest_count = True, int(wanted)
    else:
        raise SettingRefused(sentence("suggest is off, on, or a number from 1 to 10"))
    if setting.suggest:
        session.add(setting)
        session.flush()
        profiles.ensure(session, setting.chat_id, now=now)


def _read_language(session: Session, chat_id: int, thread_id: int) -> str:
    return language_of(session, chat_id, thread_id) or SOURCE_LANGUAGE


def _write_language(
    _session: Session, setting: DestinationSetting, value: str, _now: datetime
) -> None:
    known = {language.casefold(): language for language in LANGUAGES} | {"zh": "zh-Hans"}
    try:
        setting.language = known[value.strip().casefold()]
    except KeyError:
        raise SettingRefused(
            sentence("language is one of {languages}", languages=", ".join(LANGUAGES))
        ) from None


def _write_format(
    _session: Session, setting: DestinationSetting, value: str, _now: datetime
) -> None:
    try:
        setting.format = MessageFormat(value.casefold()).value
    except ValueError:
        raise SettingRefused(sentence("a format is full or compact")) from None


# In the order they are written and set: the zone before the digest and the quiet hours read
# in it.
SETTINGS: dict[str, ChatSetting] = {
    setting.key: setting
    for setting in (
        ChatSetting(
            "timezone",
            _of_destination(lambda setting: setting.timezone),
            _to_destination(_write_zone),
        ),
        ChatSetting("digest", _of_destination(_read_digest), _to_destination(_write_digest)),
        ChatSetting(
            "revisions",
            _of_destination(lambda setting: "on" if setting.notify_revisions else "off"),
            _to_destination(_write_revisions),
        ),
        ChatSetting(
            "paused",
            _of_destination(lambda setting: "yes" if setting.paused else "no"),
            _to_destination(_write_paused),
        ),
        ChatSetting("quiet", _of_destination(_read_quiet), _to_destination(_write_quiet)),
        ChatSetting(
            "silent",
            _of_destination(lambda setting: "on" if setting.silent else "off"),
            _to_destination(_write_silent),
        ),
        ChatSetting(
            "format",
            _of_destination(lambda setting: str(setting.format)),
            _to_destination(_write_format),
        ),
        ChatSetting(
            "preview",
            _of_destination(lambda setting: "on" if setting.link_preview else "off"),
            _to_destination(_write_preview),
        ),
        ChatSetting("language", _read_language, _to_destination(_write_language)),
        ChatSetting("suggest", _of_destination(_read_suggest), _to_destination(_write_suggest)),
    )
}
