"""Quiet hours as pure functions (`watcher.calendars.quiet_hours`): reading "HH:MM-HH:MM", and the
window's UTC instants in a chat's zone, across midnight and across both daylight-saving changes."""

from __future__ import annotations

from datetime import UTC, datetime
from zoneinfo import ZoneInfo

import pytest

from watcher.calendars.quiet_hours import QuietHours, parse_quiet, quiet_window
from watcher.calendars.schedule import BadSchedule, zone_of

BERLIN = ZoneInfo("Europe/Berlin")


def utc(*parts: int) -> datetime:
    return datetime(*parts, tzinfo=UTC)  # type: ignore[misc]


@pytest.mark.parametrize(
    ("text", "start", "end"),
    [
        ("22:00-07:00", 22 * 60, 7 * 60),
        ("22:00 - 7:30", 22 * 60, 7 * 60 + 30),
        ("1am-5am", 60, 300),
    ],
)
def test_a_window_is_read_from_its_two_ends(text: str, start: int, end: int) -> None:
    assert parse_quiet(text) == QuietHours(start, end)


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("25:00-07:00", "'25:00' is not a time of day"),
        ("22:00", "is not a window"),
        ("22:00-07:00-08:00", "is not a window"),
        ("07:00-07:00", "must end at another time"),
        ("-07:00", "is not a window"),
    ],
)
def test_a_bad_window_is_refused_saying_what_is_wrong(text: str, says: str) -> None:
    with pytest.raises(BadSchedule, match=says):
        parse_quiet(text)


def test_a_window_across_midnight_ends_the_next_morning() -> None:
    hours = parse_quiet("22:00-07:00")
    # 23:30 in Berlin (winter, UTC+1): inside the window that began at 22:00.
    assert quiet_window(hours, BERLIN, now=utc(2026, 12, 1, 22, 30)) == (
        utc(2026, 12, 1, 21, 0),
        utc(2026, 12, 2, 6, 0),
    )
    # 06:59 the next morning: still in it; 07:00: the next one, that evening.
    assert quiet_window(hours, BERLIN, now=utc(2026, 12, 2, 5, 59))[1] == utc(2026, 12, 2, 6, 0)
    assert quiet_window(hours, BERLIN, now=utc(2026, 12, 2, 6, 0)) == (
        utc(2026, 12, 2, 21, 0),
        utc(2026, 12, 3, 6, 0),
    )


def test_a_night_the_clocks_spring_forward_is_an_hour_shorter() -> None:
    # Berlin, 28 March 2027: 02:00 CET becomes 03:00 CEST.
    start, end = quiet_window(parse_quiet("22:00-07:00"), BERLIN, now=utc(2027, 3, 28, 0, 0))
    assert (start, end) == (utc(2027, 3, 27, 21, 0), utc(2027, 3, 28, 5, 0))
    assert end - start == (utc(1, 1, 1, 8) - utc(1, 1, 1, 0))


def test_a_night_the_clocks_fall_back_is_an_hour_longer() -> None:
    # Berlin, 31 October 2027: 03:00 CEST becomes 02:00 CET.
    start, end = quiet_window(parse_quiet("22:00-07:00"), BERLIN, now=utc(2027, 10, 30, 23, 0))
    assert (start, end) == (utc(2027, 10, 30, 20, 0), utc(2027, 10, 31, 6, 0))


def test_a_window_in_the_skipped_hour_still_happens_once() -> None:
    # 02:30-03:30 on the spring night: 02:30 does not exist; read with the offset before.
    start, end = quiet_window(parse_quiet("02:30-03:30"), BERLIN, now=utc(2027, 3, 27, 23, 0))
    assert start == utc(2027, 3, 28, 1, 30)
    assert end == utc(2027, 3, 28, 1, 30)  # 03:30 CEST: the window is empty that night
    after = quiet_window(parse_quiet("02:30-03:30"), BERLIN, now=utc(2027, 3, 28, 1, 30))
    assert after == (utc(2027, 3, 29, 0, 30), utc(2027, 3, 29, 1, 30))


def test_a_fixed_offset_zone_has_the_same_window_every_day() -> None:
    zone = zone_of("UTC+08:00")
    assert quiet_window(parse_quiet("23:00-06:00"), zone, now=utc(2027, 3, 28, 12, 0)) == (
        utc(2027, 3, 28, 15, 0),
        utc(2027, 3, 28, 22, 0),
    )
