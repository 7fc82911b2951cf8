"""Digest schedules as pure functions: zones typed by users, and the next digest's instant,
through daylight-saving changes (Europe/Berlin springs forward on the last Sunday of March and
falls back on the last Sunday of October)."""

from __future__ import annotations

import re
from datetime import UTC, date, datetime, time, timedelta
from itertools import pairwise

import pytest

from watcher.calendars.schedule import (
    MONDAY_TO_FRIDAY,
    BadSchedule,
    DigestSchedule,
    canonical_zone,
    local_time_text,
    next_digest_time,
    parse_wall_time,
    parse_weekday,
    parse_weekdays,
    zone_of,
)

BERLIN = zone_of("Europe/Berlin")


def occurrences(schedule: DigestSchedule, zone_name: str, start: datetime, count: int) -> list:
    """The schedule's next `count` instants after `start`, each found from the one before, as
    the service finds them (it claims a digest, then asks for the next)."""
    zone, found, moment = zone_of(zone_name), [], start
    for _ in range(count):
        moment = next_digest_time(schedule, zone, after=moment)
        found.append(moment)
    return found


def test_a_daily_digest_fires_once_each_local_day_across_the_spring_change() -> None:
    fired = occurrences(
        DigestSchedule(time(8, 0)), "Europe/Berlin", datetime(2026, 3, 27, tzinfo=UTC), 5
    )
    local = [moment.astimezone(BERLIN) for moment in fired]
    assert [moment.date() for moment in local] == [date(2026, 3, d) for d in (27, 28, 29, 30, 31)]
    assert {moment.time() for moment in local} == {time(8, 0)}
    # CET (UTC+1) before the change on Sunday 29 March at 02:00, CEST (UTC+2) from then on.
    assert [moment.hour for moment in fired] == [7, 7, 6, 6, 6]


def test_a_wall_time_skipped_by_the_spring_change_fires_once_at_the_shifted_instant() -> None:
    fired = occurrences(
        DigestSchedule(time(2, 30)), "Europe/Berlin", datetime(2026, 3, 28, tzinfo=UTC), 3
    )
    assert fired == [
        datetime(2026, 3, 28, 1, 30, tzinfo=UTC),  # 02:30 CET
        datetime(2026, 3, 29, 1, 30, tzinfo=UTC),  # 02:30 does not exist: 03:30 CEST
        datetime(2026, 3, 30, 0, 30, tzinfo=UTC),  # 02:30 CEST
    ]
    assert fired[1].astimezone(BERLIN).strftime("%H:%M %Z") == "03:30 CEST"


def test_a_wall_time_repeated_by_the_autumn_change_fires_once() -> None:
    fired = occurrences(
        DigestSchedule(time(2, 30)), "Europe/Berlin", datetime(2026, 10, 24, tzinfo=UTC), 3
    )
    assert fired == [
        datetime(2026, 10, 24, 0, 30, tzinfo=UTC),  # 02:30 CEST
        datetime(2026, 10, 25, 0, 30, tzinfo=UTC),  # the first 02:30 (CEST); not the second
        datetime(2026, 10, 26, 1, 30, tzinfo=UTC),  # 02:30 CET
    ]


def test_the_day_of_the_change_fires_once_whenever_the_service_asks() -> None:
    """Asked at any minute of the change's weekend, the next digest is the coming 08:00, and
    asking again right after it fired gives the next day's: never the same day twice."""
    schedule = DigestSchedule(time(8, 0))
    moment = datetime(2026, 3, 28, 6, 0, tzinfo=UTC)
    days = []
    while moment < datetime(2026, 3, 31, tzinfo=UTC):
        days.append(next_digest_time(schedule, BERLIN, after=moment).astimezone(BERLIN).date())
        moment += timedelta(minutes=7)
    assert sorted(set(days)) == [date(2026, 3, d) for d in (28, 29, 30, 31)]
    assert days == sorted(days)


def test_a_weekly_digest_fires_on_its_weekday_in_the_chat_zone() -> None:
    monday = DigestSchedule.weekly(time(8, 0), 0)
    fired = occurrences(monday, "Asia/Shanghai", datetime(2026, 3, 25, tzinfo=UTC), 3)
    assert [m.astimezone(zone_of("Asia/Shanghai")).strftime("%a %H:%M") for m in fired] == [
        "Mon 08:00"
    ] * 3
    assert fired[0] == datetime(2026, 3, 30, 0, 0, tzinfo=UTC)
    assert [b - a for a, b in pairwise(fired)] == [timedelta(days=7)] * 2


def test_an_instant_exactly_at_the_digest_time_is_not_its_next_one() -> None:
    at = datetime(2026, 3, 30, 8, 0, tzinfo=UTC)
    assert next_digest_time(DigestSchedule(time(8, 0)), UTC, after=at) == at + timedelta(days=1)


@pytest.mark.parametrize(
    ("typed", "stored"),
    [
        ("Asia/Shanghai", "Asia/Shanghai"),
        ("europe/berlin", "Europe/Berlin"),
        ("UTC", "UTC"),
        ("UTC+8", "UTC+08:00"),
        ("utc-03:30", "UTC-03:30"),
        ("UTC+0530", "UTC+05:30"),
        ("UTC-12:00", "UTC-12:00"),
        ("UTC+14", "UTC+14:00"),
    ],
)
def test_zones_are_stored_in_one_spelling(typed: str, stored: str) -> None:
    assert canonical_zone(typed) == stored


def test_a_fixed_offset_is_its_own_clock() -> None:
    zone = zone_of("UTC-03:30")
    at = datetime(2026, 3, 30, 12, 0, tzinfo=UTC)
    assert local_time_text(at, zone) == "Mon 30 Mar 2026, 08:30 UTC-03:30"
    assert next_digest_time(DigestSchedule(time(8, 0)), zone, after=at) == datetime(
        2026, 3, 31, 11, 30, tzinfo=UTC
    )


@pytest.mark.parametrize(
    ("typed", "said"),
    [
        ("Mars/Olympus", "is not a time zone I know"),
        ("UTC+15", "offsets go from UTC-12:00 to UTC+14:00"),
        ("UTC-13", "offsets go from UTC-12:00 to UTC+14:00"),
        ("UTC+05:75", "offsets go from UTC-12:00 to UTC+14:00"),
        ("../../etc/passwd", "is not a time zone I know"),
        ("", "is not a time zone I know"),
    ],
)
def test_zones_that_do_not_exist_are_refused_with_what_would_be_right(
    typed: str, said: str
) -> None:
    with pytest.raises(BadSchedule, match=re.escape(said)):
        canonical_zone(typed)


def test_wall_times_and_weekdays() -> None:
    assert parse_wall_time("8:05") == time(8, 5)
    assert parse_wall_time("23:59") == time(23, 59)
    for bad in ("25:00", "24:00", "08:60", "8h", "0800", "", "8", "13pm", "0am", "8:75am"):
        with pytest.raises(BadSchedule, match="HH:MM from 00:00 to 23:59, or 8am"):
            parse_wall_time(bad)
    assert [parse_weekday(day) for day in ("mon", "Tuesday", "SUN")] == [0, 1, 6]
    with pytest.raises(BadSchedule, match="mon, tue, wed, thu, fri, sat, sun"):
        parse_weekday("funday")
    assert DigestSchedule.weekly(time(8, 0), 0).describe() == "weekly on Monday at 08:00"
    assert DigestSchedule(time(8, 0)).command() == "daily 08:00"


@pytest.mark.parametrize(
    ("typed", "read"),
    [
        ("8am", time(8, 0)),
        ("8 am", time(8, 0)),
        ("8:30pm", time(20, 30)),
        ("8:30 P.M.", time(20, 30)),
        ("12am", time(0, 0)),
        ("12pm", time(12, 0)),
        ("12:15 am", time(0, 15)),
    ],
)
def test_times_are_read_as_people_write_them(typed: str, read: time) -> None:
    assert parse_wall_time(typed) == read


def test_a_weekdays_digest_fires_monday_to_friday_only() -> None:
    weekdays = DigestSchedule(time(8, 0), MONDAY_TO_FRIDAY)
    fired = occurrences(weekdays, "Europe/Berlin", datetime(2026, 11, 27, tzinfo=UTC), 6)
    assert [moment.astimezone(BERLIN).strftime("%a %d") for moment in fired] == [
        "Fri 27", "Mon 30", "Tue 01", "Wed 02", "Thu 03", "Fri 04",
    ]  # fmt: skip
    assert weekdays.describe() == "on weekdays (Monday to Friday) at 08:00"
    assert weekdays.command() == "weekdays 08:00"
    stored = DigestSchedule.from_stored(weekdays.minute_of_day, weekdays.day_mask)
    assert stored == weekdays and weekdays.day_mask == 31
    two = DigestSchedule(time(7, 5), parse_weekdays("mon,Thursday"))
    assert two.command() == "weekly mon,thu 07:05"
    assert two.describe() == "weekly on Monday, Thursday at 07:05"


@pytest.mark.parametrize(
    ("typed", "stored"),
    [
        ("+8", "UTC+08:00"),
        ("-03:30", "UTC-03:30"),
        ("Berlin", "Europe/Berlin"),
        ("new york", "America/New_York"),
        ("New_York", "America/New_York"),
        ("Beijing", "Asia/Shanghai"),
        ("shanghai", "Asia/Shanghai"),
    ],
)
def test_offsets_and_cities_are_zones_too(typed: str, stored: str) -> None:
    assert canonical_zone(typed) == stored
