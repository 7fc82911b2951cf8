"""Quiet hours: a daily window of local wall time in which a chat hears nothing. Pure functions,
no database, no clock of their own.

A window is "HH:MM-HH:MM" (`parse_quiet`), kept as minutes after local midnight; an end earlier
than the start spans midnight (22:00-07:00 ends the next morning). `quiet_window` turns it into
UTC instants in the chat's (topic's) zone: the occurrence that holds a moment, or else the next one.

Each local day yields one window, its ends read with `fold=0`, as digest times are
(`watcher.calendars.schedule`): across a daylight-saving change a window simply lasts an hour more
or less (22:00-07:00 is eight hours on the night the clocks spring forward), and a wall time the
clocks skip is read with the offset before the change.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta, tzinfo

from watcher.calendars.schedule import BadSchedule, parse_wall_time
from watcher.sentences import sentence

MINUTES_A_DAY = 24 * 60


@dataclass(frozen=True, slots=True)
class QuietHours:
    """A daily window of local wall time, `start` and `end` in minutes after midnight."""

    start: int
    end: int

    def __post_init__(self) -> None:
        if not (0 <= self.start < MINUTES_A_DAY and 0 <= self.end < MINUTES_A_DAY):
            raise ValueError("quiet hours are minutes after midnight")
        if self.start == self.end:
            raise ValueError("quiet hours start and end at different times")

    def describe(self) -> str:
        """ "22:00-07:00" """
        return f"{_clock(self.start)}-{_clock(self.end)}"


def parse_quiet(text: str) -> QuietHours:
    """ "22:00-07:00", "22:00 - 7:00", "10pm-7am" → QuietHours; anything else is refused with a
    sentence saying what was wrong."""
    parts = text.split("-")
    if len(parts) != 2 or not all(part.strip() for part in parts):
        raise BadSchedule(
            sentence(
                "{text} is not a window; give its start and end as HH:MM-HH:MM",
                text=repr(text[:30]),
            )
        )
    start, end = (parse_wall_time(part) for part in parts)
    if start == end:
        raise BadSchedule(sentence("the quiet hours must end at another time than they start"))
    return QuietHours(_minutes(start), _minutes(end))


def quiet_window(hours: QuietHours, zone: tzinfo, *, now: datetime) -> tuple[datetime, datetime]:
    """(start, end) in UTC of the window that holds `now`, or else of the next one."""
    today = now.astimezone(zone).date()
    for days in range(-1, 3):
        day = today + timedelta(days=days)
        start = _instant(day, hours.start, zone)
        end = _instant(day + timedelta(days=int(hours.end <= hours.start)), hours.end, zone)
        if end > now:
            return start, end
    raise AssertionError("a window ends within two days")  # pragma: no cover


def _instant(day: date, minutes: int, zone: tzinfo) -> datetime:
    wall = time(minutes // 60, minutes % 60)
    return datetime.combine(day, wall, tzinfo=zone).astimezone(UTC)


def _minutes(moment: time) -> int:
    return moment.hour * 60 + moment.minute


def _clock(minutes: int) -> str:
    return f"{minutes // 60:02d}:{minutes % 60:02d}"
