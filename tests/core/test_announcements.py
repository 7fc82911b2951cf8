"""arXiv's announcement calendar (`watcher.calendars.announcements`): pure, no clock, no
database."""

from __future__ import annotations

from datetime import UTC, date, datetime, time

import pytest

from watcher.calendars.announcements import (
    Announcement,
    AnnouncementCalendar,
    parse_announce_time,
    parse_days,
    parse_holidays,
)
from watcher.errors import ConfigError
from watcher.settings import load_settings

ARXIV = AnnouncementCalendar()


def utc(*parts: int) -> datetime:
    return datetime(*parts, tzinfo=UTC)  # type: ignore[misc]


def next_ones(calendar: AnnouncementCalendar, after: datetime, count: int) -> list[Announcement]:
    found = []
    for announcement in calendar.following(after):
        found.append(announcement)
        if len(found) == count:
            return found
    raise AssertionError("unreachable")


def test_a_tuesday_evening_in_winter_is_one_in_the_morning_utc_and_mails_on_wednesday() -> None:
    assert ARXIV.next_after(utc(2026, 12, 1, 12)) == Announcement(
        at=utc(2026, 12, 2, 1), mailing=date(2026, 12, 2)
    )


def test_no_announcement_on_friday_or_saturday_evenings() -> None:
    # Thursday 3 December 2026, then Sunday the 6th.
    found = next_ones(ARXIV, utc(2026, 12, 3, 12), 3)
    assert [a.mailing for a in found] == [date(2026, 12, 4), date(2026, 12, 7), date(2026, 12, 8)]


def test_thanksgiving_is_skipped_and_an_operator_holiday_too() -> None:
    # Wednesday 25 November, no Thursday the 26th (built in), then Sunday the 29th.
    found = next_ones(ARXIV, utc(2026, 11, 25, 12), 2)
    assert [a.mailing for a in found] == [date(2026, 11, 26), date(2026, 11, 30)]
    closed = load_settings(arxiv_holidays="2026-11-29, 2026-11-30").announcement_calendar
    assert [a.mailing for a in next_ones(closed, utc(2026, 11, 26, 12), 1)] == [date(2026, 12, 2)]


def test_spring_forward_moves_the_utc_instant_not_the_local_one() -> None:
    # US clocks go forward on Sunday 8 March 2026: 20:00 EST is 01:00 UTC, 20:00 EDT 00:00 UTC.
    found = next_ones(ARXIV, utc(2026, 3, 5, 12), 2)
    assert found == [
        Announcement(at=utc(2026, 3, 6, 1), mailing=date(2026, 3, 6)),
        Announcement(at=utc(2026, 3, 9, 0), mailing=date(2026, 3, 9)),
    ]


def test_fall_back_moves_it_the_other_way() -> None:
    # US clocks go back on Sunday 1 November 2026.
    found = next_ones(ARXIV, utc(2026, 10, 29, 12), 2)
    assert found == [
        Announcement(at=utc(2026, 10, 30, 0), mailing=date(2026, 10, 30)),
        Announcement(at=utc(2026, 11, 2, 1), mailing=date(2026, 11, 2)),
    ]


def test_a_wall_time_the_clock_change_skips_or_doubles_comes_once() -> None:
    every_day = AnnouncementCalendar(
        wall_time=time(2, 30), days=parse_days("mon,tue,wed,thu,fri,sat,sun")
    )
    # 02:30 does not exist on 8 March: read with the offset before the change (EST).
    spring = next_ones(every_day, utc(2026, 3, 7, 12), 2)
    assert [a.at for a in spring] == [utc(2026, 3, 8, 7, 30), utc(2026, 3, 9, 6, 30)]
    # 01:30 happens twice on 1 November (clocks fall back at 02:00): the first one counts.
    doubled = AnnouncementCalendar(wall_time=time(1, 30), days=every_day.days, holidays=frozenset())
    fall = next_ones(doubled, utc(2026, 10, 31, 12), 2)
    assert [a.at for a in fall] == [utc(2026, 11, 1, 5, 30), utc(2026, 11, 2, 6, 30)]


def test_the_latest_announcement_at_or_before_an_instant() -> None:
    assert ARXIV.latest_at_or_before(utc(2026, 12, 2, 1)) == Announcement(
        at=utc(2026, 12, 2, 1), mailing=date(2026, 12, 2)
    )
    # Saturday: the last one went out on Thursday evening.
    assert ARXIV.latest_at_or_before(utc(2026, 12, 5, 12)) == Announcement(
        at=utc(2026, 12, 4, 1), mailing=date(2026, 12, 4)
    )


def test_every_day_in_utc_as_the_end_to_end_tests_set_it() -> None:
    settings = load_settings(
        arxiv_announce_time="21:07", arxiv_announce_tz="UTC", arxiv_announce_days="sat,sun"
    )
    found = next_ones(settings.announcement_calendar, utc(2026, 12, 5, 21, 7), 2)
    assert found == [
        Announcement(at=utc(2026, 12, 6, 21, 7), mailing=date(2026, 12, 7)),
        Announcement(at=utc(2026, 12, 12, 21, 7), mailing=date(2026, 12, 13)),
    ]


@pytest.mark.parametrize(
    ("setting", "value", "says"),
    [
        ("arxiv_announce_time", "8pm", "write HH:MM"),
        ("arxiv_announce_tz", "Eastern", "not a time zone"),
        ("arxiv_announce_days", "sun,funday", "fun is not a weekday"),
        ("arxiv_holidays", "2026-12-24,24/12/2026", "write YYYY-MM-DD"),
    ],
)
def test_bad_calendar_settings_are_named_with_what_would_be_right(
    setting: str, value: str, says: str
) -> None:
    with pytest.raises(ConfigError, match=setting.upper()) as refused:
        load_settings(**{setting: value})
    assert says in str(refused.value)


def test_the_parsers_take_what_operators_write() -> None:
    assert parse_announce_time(" 8:05 ") == time(8, 5)
    assert parse_announce_time("20:00:30") == time(20, 0, 30)
    for bad in ("20", "20:0", "24:00", "20:00:60", "20:00:00:00", "8pm"):
        with pytest.raises(ValueError, match="write HH:MM"):
            parse_announce_time(bad)
    assert parse_days("Sun, MON;tue") == ("sun", "mon", "tue")
    assert parse_holidays("2026-12-24 2027-01-04") == {date(2026, 12, 24), date(2027, 1, 4)}
