"""arXiv's holiday list in the calendar (`watcher.calendars.announcements`): pure, no clock, no
database.

The dates below are arXiv's own, typed from its newest sources, not read from our data file:
arXiv/arxiv-docs `source/help/availability.md` ("2026 Holidays", commit 8332d7e6, 2026-07-24)
and arXiv/arxiv-base `arxiv/db/arxiv_holidays_seed.sql` (commit 0f94fa03, 2026-06-29), which
agree on 2026. Neither publishes 2027 at those commits: the 2027 test says what the calendar
does meanwhile (every Sunday to Thursday is expected), and is the place to add 2027's dates.
"""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest

from watcher.calendars.announcements import AnnouncementCalendar
from watcher.settings import load_settings

ARXIV = AnnouncementCalendar()
EASTERN = ZoneInfo("America/New_York")
FRIDAY, SUNDAY = 4, 6

ARXIV_2026 = [
    date(2026, 1, 1),  # Thursday
    date(2026, 1, 19),  # Monday
    date(2026, 6, 19),  # Friday
    date(2026, 7, 3),  # Friday
    date(2026, 9, 7),  # Monday
    date(2026, 11, 26),  # Thursday
    date(2026, 12, 25),  # Friday
    date(2026, 12, 29),  # Tuesday
    date(2026, 12, 31),  # Thursday
]
ARXIV_2027: list[date] = []  # not published by arXiv at the commits above


def noon(day: date) -> datetime:
    return datetime(day.year, day.month, day.day, 12, tzinfo=EASTERN).astimezone(UTC)


def evening(day: date) -> datetime:
    return datetime(day.year, day.month, day.day, 20, tzinfo=EASTERN).astimezone(UTC)


def test_the_built_in_2026_list_is_arxivs() -> None:
    assert sorted(d for d in ARXIV.holidays if d.year == 2026) == ARXIV_2026


@pytest.mark.parametrize("holiday", ARXIV_2026, ids=str)
def test_each_2026_date_and_the_sunday_after_a_friday(holiday: date) -> None:
    if holiday.weekday() == FRIDAY:
        # A Friday evening never announces; its skipped deadline takes the Sunday's batch.
        sunday = holiday + timedelta(days=2)
        assert not ARXIV.announces_on(holiday) and not ARXIV.guessed_holiday(holiday)
        assert not ARXIV.announces_on(sunday) and ARXIV.guessed_holiday(sunday)
        skipped = sunday
    else:
        assert not ARXIV.announces_on(holiday) and ARXIV.guessed_holiday(holiday)
        skipped = holiday
    # The calendar expects the next batch on the next evening it does not skip...
    expected = ARXIV.next_after(noon(skipped))
    assert expected is not None and expected.at > evening(skipped)
    assert not expected.holiday
    # ...but the listing is still probed at the skipped evening's usual instant.
    probed = ARXIV.next_listing_read(noon(skipped))
    assert probed is not None
    assert probed.holiday
    assert probed.at == evening(skipped)
    assert probed.mailing == skipped + timedelta(days=1)
    # After it, the next read is the expected announcement, no longer a holiday.
    assert ARXIV.next_listing_read(probed.at) == expected


def test_the_2025_list_names_the_sunday_itself_and_its_friday() -> None:
    # The 2025 help page named "Sunday 6 July"; arxiv-base holds Friday 4 July beside it.
    assert ARXIV.guessed_holiday(date(2025, 7, 6))
    assert not ARXIV.announces_on(date(2025, 7, 6))
    assert ARXIV.announces_on(date(2025, 7, 7))


def test_2027_every_sunday_to_thursday_is_expected_until_arxiv_publishes_its_list() -> None:
    assert sorted(d for d in ARXIV.holidays if d.year == 2027) == ARXIV_2027
    day = date(2027, 1, 1)
    while day.year == 2027:
        usual = day.weekday() not in (FRIDAY, FRIDAY + 1)
        assert ARXIV.announces_on(day) == usual, day
        assert not ARXIV.guessed_holiday(day), day
        day += timedelta(days=1)


def test_an_operator_friday_skips_the_sunday_after_as_arxivs_do() -> None:
    # ARXIV_HOLIDAYS takes dates as arXiv lists them: Friday 8 January 2027 → no Sunday 10th.
    calendar = load_settings(arxiv_holidays="2027-01-08").announcement_calendar
    assert calendar.guessed_holiday(date(2027, 1, 10))
    assert calendar.announces_on(date(2027, 1, 11))
    probed = calendar.next_listing_read(noon(date(2027, 1, 8)))
    assert probed is not None and probed.holiday and probed.at == evening(date(2027, 1, 10))


def test_an_ordinary_week_has_no_guessed_holiday() -> None:
    # The week of Tuesday 1 December 2026: Sunday to Thursday announce, nothing is guessed.
    after = noon(date(2026, 11, 28))
    reads = ARXIV.listing_reads(after)
    week = [next(reads) for _ in range(5)]
    assert [r.mailing for r in week] == [date(2026, 11, 30) + timedelta(days=i) for i in range(5)]
    assert not any(r.holiday for r in week)
    assert week[0] == ARXIV.next_after(after)
