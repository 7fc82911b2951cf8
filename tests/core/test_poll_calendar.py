"""The usual poll times of the structured sources (`watcher.calendars.poll_calendar`): pure, no
clock."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta
from zoneinfo import ZoneInfo

from watcher.calendars.announcements import AnnouncementCalendar
from watcher.calendars.poll_calendar import PollCalendar, next_api_poll
from watcher.settings import load_settings

EASTERN = ZoneInfo("America/New_York")
SCHEDULE = PollCalendar(AnnouncementCalendar())


def eastern(day: date, hour: int, minute: int = 0) -> datetime:
    return datetime(day.year, day.month, day.day, hour, minute, tzinfo=EASTERN).astimezone(UTC)


def test_the_harvest_checks_every_ten_minutes_from_22_30_until_the_batch_shows() -> None:
    tuesday = date(2026, 12, 1)
    assert SCHEDULE.next_harvest(eastern(tuesday, 12), seen=tuesday) == eastern(tuesday, 22, 30)
    at = eastern(tuesday, 22, 30)
    assert SCHEDULE.expected_mailing(at) == date(2026, 12, 2)
    assert SCHEDULE.next_harvest(at, seen=tuesday) == eastern(tuesday, 22, 40)
    # Seen: the next evening's usual time.
    assert SCHEDULE.next_harvest(at, seen=date(2026, 12, 2)) == eastern(date(2026, 12, 2), 22, 30)
    # Not shown within the window (LISTING_PROBE_HOURS): left to the next evening.
    late = eastern(tuesday, 22, 30) + timedelta(hours=5, minutes=55)
    assert SCHEDULE.next_harvest(late, seen=tuesday) == eastern(date(2026, 12, 2), 22, 30)
    # The distinct URL of each check: its number in the evening.
    assert SCHEDULE.harvest_check(eastern(tuesday, 22, 50)) == 2


def test_an_evening_without_an_announcement_gets_one_check() -> None:
    friday = date(2026, 12, 4)
    at = eastern(friday, 22, 30)
    assert SCHEDULE.expected_mailing(at) == date(2026, 12, 5)  # looked for, once
    assert SCHEDULE.next_harvest(at, seen=friday) == eastern(date(2026, 12, 5), 22, 30)


def test_the_api_polls_just_after_midnight_eastern_across_a_clock_change() -> None:
    # New York falls back on Sunday 1 November 2026, 02:00.
    saturday = date(2026, 10, 31)
    first = SCHEDULE.next_api(eastern(saturday, 12))
    assert first == eastern(date(2026, 11, 1), 0, 5)
    second = SCHEDULE.next_api(first)
    assert second == eastern(date(2026, 11, 2), 0, 5)
    assert second - first == timedelta(hours=25)
    # Without a calendar: POLL_INTERVAL later.
    assert next_api_poll(None, first, timedelta(hours=1)) == first + timedelta(hours=1)


def test_poll_schedule_setting() -> None:
    assert load_settings().poll_calendar is not None  # calendar by default
    assert load_settings(poll_schedule="Interval").poll_calendar is None
    schedule = load_settings(calendar_harvest_after=60, listing_probe_hours=1).poll_calendar
    assert schedule is not None and schedule.window == timedelta(hours=1)
