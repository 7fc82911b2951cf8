"""A source that stops parsing is told to the admin chats once, and once when it reads again
(issue 28, item 4): the state machine of `watcher.polling.source_alerts` over the real store, on
both databases. Restarts are new `Store`s and `SourceAlerts` on the same database."""

from __future__ import annotations

import logging
from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest
from sqlalchemy import Engine
from sqlmodel import Session, select

from watcher.calendars.announcements import AnnouncementCalendar
from watcher.calendars.poll_calendar import PollCalendar
from watcher.errors import ArxivBadFeed, ArxivBadListing
from watcher.metrics import PARSE_FAILURES
from watcher.polling.source_alerts import Setup, SourceAlerts, safe_url, still_works
from watcher.store import Store
from watcher.store.source_health import AdminNotice

EASTERN = ZoneInfo("America/New_York")
EVENING = datetime(2026, 12, 3, 20, 1, tzinfo=EASTERN).astimezone(UTC)  # a Thursday
ADMINS = (501, -1002)
LISTING = "https://arxiv.org/list/cs/new"
OAI = "https://oaipmh.arxiv.org/oai"
FEEDS = "https://arxiv.org/a/"
CALENDAR = AnnouncementCalendar()


def setup(*, listings: bool = True, calendar: bool = True) -> Setup:
    return Setup(
        listings=listings,
        calendar=CALENDAR,
        schedule=PollCalendar(CALENDAR) if calendar else None,
        poll_interval=3600,
        oai_url=OAI,
        author_feed_url=FEEDS,
    )


class Clock:
    def __init__(self, now: datetime) -> None:
        self.now = now

    def __call__(self) -> datetime:
        return self.now


def alerts(engine: Engine, clock: Clock, *, admins: tuple[int, ...] = ADMINS) -> SourceAlerts:
    return SourceAlerts(
        Store(engine), setup=setup(), admin_chats=admins, harvesting=lambda: True, clock=clock
    )


def broken_listing() -> ArxivBadListing:
    return ArxivBadListing(
        f"the listing {LISTING} has a section headed 'New submissions (showing 24 of 24 "
        "entries)'\nand more lines",
        url=LISTING,
    )


def notices(engine: Engine) -> list[tuple[int, str]]:
    return [(n.chat_id, n.text) for n in Store(engine).pending_admin_notices(limit=100)]


def settle(engine: Engine) -> None:
    store = Store(engine)
    for notice in store.pending_admin_notices(limit=100):
        store.admin_notice_sent(notice.id, now=EVENING)


async def test_first_failure_one_notice_per_admin_then_nothing_the_same_day(
    engine: Engine,
) -> None:
    clock = Clock(EVENING)
    before = PARSE_FAILURES.labels(source="listing")._value.get()
    await alerts(engine, clock).failed("listing", broken_listing())
    queued = notices(engine)
    assert [chat for chat, _ in queued] == list(ADMINS)
    text = queued[0][1]
    assert "arXiv's listing pages stopped parsing" in text
    assert f"URL: {LISTING}" in text
    assert "has a section headed 'New submissions (showing 24 of 24 entries)'" in text
    assert "and more lines" not in text  # the first line of the problem only
    assert "papers will come from OAI-PMH at about 22:30 EST (03:30 UTC)" in text
    settle(engine)

    # The same evening, and after a restart: nothing more.
    for minutes in (1, 30, 120):
        clock.now = EVENING + timedelta(minutes=minutes)
        await alerts(engine, clock).failed("listing", broken_listing())
    assert notices(engine) == []
    assert PARSE_FAILURES.labels(source="listing")._value.get() == before + 4
    (health,) = Store(engine).source_health()
    assert (health.source, health.broken_since, health.failures) == ("listing", EVENING, 4)


async def test_still_broken_the_next_day_says_nothing_more(engine: Engine) -> None:
    clock = Clock(EVENING)
    await alerts(engine, clock).failed("listing", broken_listing())
    settle(engine)
    for days in (1, 2, 5):
        clock.now = EVENING + timedelta(days=days)
        await alerts(engine, clock).failed("listing", broken_listing())
    assert notices(engine) == []  # at most one a day: none, as it was told already


async def test_recovery_one_notice_after_a_restart_and_only_once(engine: Engine) -> None:
    clock = Clock(EVENING)
    await alerts(engine, clock).failed("listing", broken_listing())
    settle(engine)
    clock.now = EVENING + timedelta(days=1)
    restarted = alerts(engine, clock)
    await restarted.read_ok("listing")
    queued = notices(engine)
    assert [chat for chat, _ in queued] == list(ADMINS)
    assert (
        "arXiv's listing pages read again (broken since 2026-12-04 01:01 UTC, 1 failed"
        in (queued[0][1])
    )
    settle(engine)
    await alerts(engine, clock).read_ok("listing")
    await restarted.read_ok("listing")
    assert notices(engine) == []
    (health,) = Store(engine).source_health()
    assert health.broken_since is None and health.recovered_at == clock.now


async def test_a_source_that_flaps_is_told_at_most_once_a_day(engine: Engine) -> None:
    clock = Clock(EVENING)
    source = alerts(engine, clock)
    await source.failed("listing", broken_listing())
    clock.now += timedelta(hours=1)
    await source.read_ok("listing")
    assert len(notices(engine)) == 2 * len(ADMINS)  # broken, then reads again
    settle(engine)
    clock.now += timedelta(hours=1)
    await source.failed("listing", broken_listing())  # again within the day: not told
    clock.now += timedelta(hours=1)
    await source.read_ok("listing")  # a spell never told is not told closed
    clock.now += timedelta(hours=1)
    await source.failed("listing", broken_listing())
    assert notices(engine) == []
    clock.now = EVENING + timedelta(days=1, minutes=1)  # a day after the notice, still broken
    await source.failed("listing", broken_listing())
    assert len(notices(engine)) == len(ADMINS)


async def test_sources_are_apart_and_told_by_url(engine: Engine) -> None:
    clock = Clock(EVENING)
    source = alerts(engine, clock)
    await source.observe(
        "harvest",
        errors=[
            ArxivBadFeed("arXiv's OAI-PMH answer is malformed XML", url=OAI),
            ArxivBadFeed("arXiv answered with a malformed feed", url="https://export.arxiv.org/a"),
        ],
        read=False,
    )
    texts = [text for _, text in notices(engine)]
    assert sum("OAI-PMH feed stopped parsing" in t for t in texts) == len(ADMINS)
    assert sum("API (its Atom answers) stopped parsing" in t for t in texts) == len(ADMINS)
    settle(engine)
    # The harvest reading again is OAI-PMH's recovery, not the API's.
    await source.observe("harvest", errors=[], read=True)
    texts = [text for _, text in notices(engine)]
    assert len(texts) == len(ADMINS) and all("OAI-PMH feed read again" in t for t in texts)
    assert {h.source for h in Store(engine).source_health() if h.broken_since} == {"api"}


async def test_without_admin_chats_the_log_says_none_is_set(
    engine: Engine, caplog: pytest.LogCaptureFixture
) -> None:
    clock = Clock(EVENING)
    with caplog.at_level(logging.INFO, logger="watcher.polling.source_alerts"):
        await alerts(engine, clock, admins=()).failed("listing", broken_listing())
        clock.now += timedelta(hours=1)
        await alerts(engine, clock, admins=()).read_ok("listing")
    assert notices(engine) == []
    lines = [r.getMessage() for r in caplog.records]
    assert any(
        "arXiv's listing pages stopped parsing" in line
        and "no admin chat is set (ADMIN_CHAT_IDS)" in line
        for line in lines
    ), lines
    assert any("read again" in line and "no admin chat is set" in line for line in lines)


def test_what_still_works_follows_the_configuration() -> None:
    now = EVENING
    assert still_works("listing", setup=setup(), harvesting=False, now=now) == (
        "papers will come from the API at about 00:05 EST (05:05 UTC), once each; nothing is lost."
    )
    interval = still_works("listing", setup=setup(calendar=False), harvesting=True, now=now)
    assert interval.startswith("papers will come from OAI-PMH at its next poll (every 3600 s)")
    oai = still_works("oai", setup=setup(), harvesting=True, now=now)
    # 20:01 ET on a Thursday: the next announcement is Sunday's.
    assert "the listing pages still bring new papers and cross-lists at about 20:00 EST" in oai
    alone = still_works("api", setup=setup(listings=False), harvesting=False, now=now)
    assert alone.startswith("nothing else finds those papers")
    assert "follows by author id" in still_works(
        "author_feed", setup=setup(), harvesting=False, now=now
    )


def test_a_url_is_told_without_credentials() -> None:
    assert safe_url("https://user:secret@proxy.example:8443/list/cs/new?skip=0") == (
        "https://proxy.example:8443/list/cs/new?skip=0"
    )


async def test_settled_notices_are_forgotten_after_90_days(engine: Engine) -> None:
    clock = Clock(EVENING)
    source = alerts(engine, clock)
    await source.failed("listing", broken_listing())
    settle(engine)
    clock.now += timedelta(days=1)
    await source.read_ok("listing")  # queued, not sent yet: never forgotten while owed
    clock.now += timedelta(days=100)
    await source.failed("listing", broken_listing())
    with Session(engine) as session:
        kept = session.exec(select(AdminNotice.created, AdminNotice.sent_at)).all()
    assert (
        sorted(created for created, _ in kept)
        == [EVENING + timedelta(days=1)] * 2 + [clock.now] * 2
    )
