"""The last mailing seen, its source and delay, and the listing's probes (issue 20, item 7):
kept in the database (a restart remembers them), shown by `authors`, `health` and /stats."""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor
from datetime import date, datetime, timedelta
from zoneinfo import ZoneInfo

from sqlalchemy import Engine, func
from sqlmodel import Session, select

from watcher.calendars.announcements import AnnouncementCalendar
from watcher.core.mailing_report import describe_delay, describe_mailing
from watcher.store import Store
from watcher.store.mailings import KEPT_DAYS
from watcher.store.tables import MailingSeen

EASTERN = ZoneInfo("America/New_York")
CALENDAR = AnnouncementCalendar()
ANNOUNCED = datetime(2026, 12, 1, 20, 0, tzinfo=EASTERN)  # the mailing of 2 December


def test_the_first_source_keeps_a_mailing_and_a_restart_remembers(engine: Engine) -> None:
    store = Store(engine)
    assert describe_mailing(store.last_mailing(), CALENDAR) is None
    store.record_listing_probes(date(2026, 12, 2), 3)
    assert store.record_mailing_seen(
        date(2026, 12, 2), source="listing", at=ANNOUNCED + timedelta(minutes=4)
    )
    # OAI-PMH shows it later: the listing stays its first source.
    assert not store.record_mailing_seen(
        date(2026, 12, 2), source="OAI", at=ANNOUNCED + timedelta(hours=2, minutes=40)
    )
    restarted = Store(engine)
    assert str(describe_mailing(restarted.last_mailing(), CALENDAR)) == (
        "last mailing 2026-12-02, first from the listing at 2026-12-02 01:04 UTC, 4 min after "
        "the announcement; 3 listing probes for the mailing of 2026-12-02 (2 beyond the first)"
    )


def test_a_late_day_that_never_flipped_shows_its_probes_and_the_oai_delay(engine: Engine) -> None:
    store = Store(engine)
    store.record_listing_probes(date(2026, 12, 3), 50)
    thursday = date(2026, 12, 3)
    store.record_mailing_seen(
        thursday, source="OAI", at=datetime(2026, 12, 3, 1, 30, tzinfo=EASTERN)
    )
    assert str(describe_mailing(store.last_mailing(), CALENDAR)) == (
        "last mailing 2026-12-03, first from OAI-PMH at 2026-12-03 06:30 UTC, 5 h 30 min after "
        "the announcement; 50 listing probes for the mailing of 2026-12-03 (49 beyond the first)"
    )
    store.record_listing_probes(date(2026, 12, 4), 40)  # probed, never seen
    assert str(describe_mailing(store.last_mailing(), CALENDAR)) == (
        "last mailing 2026-12-03, first from OAI-PMH at 2026-12-03 06:30 UTC, 5 h 30 min after "
        "the announcement; 40 listing probes for the mailing of 2026-12-04 (39 beyond the "
        "first), not seen on the listing"
    )


def test_delays_read_in_minutes_hours_and_days() -> None:
    assert str(describe_delay(timedelta(seconds=59))) == "0 min"
    assert str(describe_delay(timedelta(minutes=119))) == "119 min"
    assert str(describe_delay(timedelta(hours=2, minutes=31))) == "2 h 31 min"
    assert str(describe_delay(timedelta(days=3, hours=1))) == "3 days 1 h"


def test_a_year_of_mailings_keeps_only_the_newest_rows(engine: Engine) -> None:
    store = Store(engine)
    first = date(2026, 1, 1)
    for day in range(365):
        mailing = first + timedelta(days=day)
        store.record_mailing_seen(mailing, source="API", at=datetime(2026, 1, 1, tzinfo=EASTERN))
    with Session(engine) as session:
        kept = session.exec(select(func.count()).select_from(MailingSeen)).one()
    assert kept == KEPT_DAYS + 1
    assert store.last_mailing().mailing == first + timedelta(days=364)


def test_two_processes_recording_one_mailing_at_once_make_one_first(engine: Engine) -> None:
    """Two stores (two processes) on one database: no key collision, exactly one first."""
    stores = [Store(engine), Store(engine)]
    mailing, at = date(2026, 12, 2), ANNOUNCED + timedelta(minutes=4)
    barrier = threading.Barrier(8)

    def record(index: int) -> bool:
        barrier.wait()
        store = stores[index % 2]
        store.record_listing_probes(mailing, 1)
        return store.record_mailing_seen(mailing, source="listing", at=at)

    with ThreadPoolExecutor(8) as pool:
        firsts = list(pool.map(record, range(8)))
    assert firsts.count(True) == 1
    news = stores[0].last_mailing()
    assert (news.mailing, news.listing_probes) == (mailing, 8)


def test_the_listings_count_is_kept_with_the_mailing_for_another_process(engine: Engine) -> None:
    """/why's "N new papers": written with the mailing seen, read by any store on the database
    (a restart, another process); a later source keeps it, a listing read redone restates it."""
    store = Store(engine)
    mailing = date(2026, 12, 2)
    assert store.record_mailing_seen(
        mailing, source="listing", at=ANNOUNCED + timedelta(minutes=1), listed=1204
    )
    assert not store.record_mailing_seen(mailing, source="OAI", at=ANNOUNCED + timedelta(hours=3))
    assert Store(engine).last_mailing().listed == 1204
    assert not store.record_mailing_seen(
        mailing, source="listing", at=ANNOUNCED + timedelta(hours=4), listed=1206
    )
    news = Store(engine).last_mailing()
    assert (news.source, news.listed) == ("listing", 1206)
    assert news.seen_at == ANNOUNCED + timedelta(minutes=1)  # the first showing kept

    # The next mailing, shown by the API first: no count known for it.
    store.record_mailing_seen(date(2026, 12, 3), source="API", at=ANNOUNCED + timedelta(days=1))
    assert Store(engine).last_mailing().listed is None
