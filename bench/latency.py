"""From arXiv's announcement to the chat, and the requests it costs: per mode, for 1 to 100,000
follows, on arXiv's calendar (POLL_SCHEDULE=calendar) against today's hourly polls.

Simulated days, not wall-clock ones: a fake clock drives the real poll step (`Poller.poll`) every
minute, as the service's tick does, and the listing read (`Poller.read_listing`) at each
announcement instant, against the fake arXiv (API, OAI-PMH) and the fake listing, in this
process over real HTTP, on a real SQLite store. arXiv's calendar is the default (20:00 US
Eastern, Sunday to Thursday); the week is that of Tuesday 1 December 2026. What each interface
shows lags as arXiv's does: the listing flips at 20:00, OAI-PMH shows the batch at 22:40 (after
its "typically around 10:30pm"), the API at midnight. Each evening's batch holds one paper by a
followed person ("Nobody Person1"); the follows are loaded in bulk with their histories fetched
(`bench/follows.py`'s `load`), named, without categories: the listing reads every archive.
The listing's pages are arXiv's markup as served today (arxiv-browse 26f634fb, 2026-06-29): the
fake renders it, and `tests/core/test_fake_listing_markup.py` holds its outline to pages rendered
from arXiv's own templates (`tests/data/arxiv-listing/`).

Printed per mode and size:

- **requests**: to arXiv (listing, OAI-PMH, API) from Tuesday 12:00 to Wednesday 12:00 Eastern
  (the day of an announcement), from Friday 12:00 to Saturday 12:00 (a day without), and from
  Sunday 12:00 to Monday 12:00 (a guessed holiday: Friday 4 December is given as a holiday, so
  the calendar skips the Sunday after it; arXiv keeps it, and with the listing on, the listing
  read probes it at a low rate). While that read probes, the simulated clock moves with its
  waits and the poll ticks resume after it (the service runs them side by side; the requests
  are the same);
- **delay**: from the flip (20:00) to the poll or read that stored the followed paper and queued
  its deliveries, on the simulated clock (a minute's tick), plus the politeness arXiv asks for,
  which the run itself skips (ARXIV_MIN_INTERVAL and LISTING_MIN_INTERVAL are 0 here, so a
  simulated day takes seconds): 15 s per listing request before the one that listed the paper, or
  3 s per request of the structured poll before the one that brought it. The last step, the
  sender's `sendMessage`, takes about a second after the queueing (bench/fanout.py); it is not
  simulated here.

"today" is POLL_SCHEDULE=interval with POLL_INTERVAL=3600 and EARLY_LISTINGS off, its hourly
polls starting at 11:59. API mode above `--run-api-up-to` follows (default 1,000) is not run: one
API poll costs one request per group of about 30 names (`group_queries`), so 3,334 at 100,000,
whatever the schedule; the table gives that figure times the polls the smaller run made.

    .venv/bin/python bench/latency.py [--sizes 1 1000 100000] [--run-api-up-to 1000]
        [--modes listing]
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import time as timer
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, time, timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from sqlalchemy import text  # noqa: E402

from bench.follows import load  # noqa: E402
from tests.fakes.arxiv_api import FakeArxiv  # noqa: E402
from tests.fakes.corpus import make_record  # noqa: E402
from tests.fakes.listing import FakeListing  # noqa: E402
from tests.harness.databases import empty_database  # noqa: E402
from watcher.arxiv.fetch import ArxivClient  # noqa: E402
from watcher.arxiv.queries import group_queries  # noqa: E402
from watcher.arxiv.records import Record  # noqa: E402
from watcher.calendars.announcements import DEFAULT_DAYS, Announcement, AnnouncementCalendar  # noqa: E402
from watcher.calendars.poll_calendar import PollCalendar  # noqa: E402
from watcher.polling.poll import Poller, WatchSource  # noqa: E402
from watcher.runtime.db import open_database  # noqa: E402
from watcher.store import Store  # noqa: E402

EASTERN = ZoneInfo("America/New_York")
TUESDAY, FRIDAY, SUNDAY = date(2026, 12, 1), date(2026, 12, 4), date(2026, 12, 6)
# arXiv's calendar, with Friday 4 December a holiday: Sunday the 6th is a guessed holiday.
CALENDAR = AnnouncementCalendar.of(time(20), "America/New_York", DEFAULT_DAYS, [FRIDAY])
TICK = timedelta(minutes=1)
OAI_LAG, API_LAG = timedelta(minutes=160), timedelta(hours=4)
LISTING_SPACING, ARXIV_SPACING = 15.0, 3.0  # seconds: LISTING_MIN_INTERVAL, ARXIV_MIN_INTERVAL
FOLLOWED = "Nobody Person1"


def eastern(day: date, hour: int, minute: int = 0) -> datetime:
    return datetime(day.year, day.month, day.day, hour, minute, tzinfo=EASTERN).astimezone(UTC)


@dataclass
class Mode:
    name: str
    source: WatchSource
    listing: bool
    calendar: bool


MODES = [
    Mode("today: api, hourly", "api", listing=False, calendar=False),
    Mode("today: harvest, hourly", "harvest", listing=False, calendar=False),
    Mode("calendar: api", "api", listing=False, calendar=True),
    Mode("calendar: harvest", "harvest", listing=False, calendar=True),
    Mode("calendar: api + listing", "api", listing=True, calendar=True),
    Mode("calendar: harvest + listing", "harvest", listing=True, calendar=True),
]


@dataclass
class World:
    """The simulation's clock, the fakes, and what happened when."""

    now: datetime
    arxiv: FakeArxiv
    listing: FakeListing
    pending: list[tuple[datetime, Record, date]] = field(default_factory=list)
    found_at: datetime | None = None
    politeness: float = 0.0

    def clock(self) -> datetime:
        return self.now

    async def sleep(self, seconds: float) -> None:
        """The listing's waits between probes, on the simulated clock."""
        self.now += timedelta(seconds=seconds)

    def requests(self) -> int:
        return len(self.arxiv.requests) + len(self.listing.requests)


def batch_of(announcement: Announcement) -> Record:
    return make_record(
        arxiv_id=f"2612.{announcement.mailing.day:05d}",
        title=f"Results of {announcement.mailing}",
        authors=["Ann Other", FOLLOWED],
        primary_category="cs.DC",
        published=announcement.at - timedelta(hours=8),
    )


def next_read(after: datetime, mode: Mode) -> Announcement | None:
    """The service's next listing read (guessed holidays too), else the next announcement."""
    return CALENDAR.next_listing_read(after) if mode.listing else CALENDAR.next_after(after)


async def run_until(end: datetime, world: World, poller: Poller, mode: Mode) -> None:
    announcement = next_read(world.now, mode)
    while world.now < end:
        world.now += TICK
        if announcement is not None and world.now >= announcement.at and announcement.holiday:
            world.now = max(world.now - TICK, announcement.at)
            await poller.read_listing(announcement)  # arXiv keeps the holiday: no batch
            announcement = next_read(announcement.at, mode)
        if announcement is not None and world.now >= announcement.at:
            world.now = max(world.now - TICK, announcement.at)  # the date job fires on time
            paper = batch_of(announcement)
            mailing = announcement.mailing
            if mode.listing:
                world.listing.announce(mailing, new=[paper])
                before = len(world.listing.requests)
                report = await poller.read_listing(announcement)
                if report.new and mailing == TUESDAY + timedelta(days=1):
                    # The listing requests up to the one that listed the paper (in cs).
                    asked = world.listing.requests[before:]
                    upto = next(i for i, r in enumerate(asked) if r.path == "/list/cs/new")
                    world.found_at, world.politeness = world.now, upto * LISTING_SPACING
            world.pending.append((announcement.at + OAI_LAG, paper, mailing))
            announcement = next_read(announcement.at, mode)
        for shows, paper, mailing in list(world.pending):
            lag = API_LAG if mode.source == "api" else OAI_LAG
            if world.now >= shows - OAI_LAG + lag:
                world.arxiv.add(paper, datestamp=mailing)
                world.pending.remove((shows, paper, mailing))
        before = len(world.arxiv.requests)
        report = await poller.poll()
        if report.failures:
            raise RuntimeError(f"{mode.name}: {report.failures}")
        if report.new and world.found_at is None and world.now > eastern(TUESDAY, 19):
            world.found_at = world.now
            world.politeness = max(0, len(world.arxiv.requests) - before - 1) * ARXIV_SPACING


async def measure(mode: Mode, follows: int) -> dict[str, int | float | None]:
    with (
        empty_database(None) as url,
        FakeArxiv([]) as arxiv,
        FakeListing(TUESDAY) as listing,
    ):
        engine = open_database(url)
        load(engine, follows)
        start = eastern(TUESDAY, 11, 59)
        with engine.begin() as connection:
            connection.execute(text("UPDATE poll_state SET next_poll = :t"), {"t": start})
        store = Store(engine)
        store.record_harvest_success("", through=TUESDAY, now=start, next_attempt=start)
        world = World(start, arxiv, listing)
        began = timer.perf_counter()
        async with ArxivClient(
            arxiv.url, min_interval=0, max_retries=1, listing_interval=0
        ) as client:
            poller = Poller(
                store=store, client=client, poll_interval=3600, source=mode.source,
                oai_url=arxiv.oai_url, listing_url=listing.url,
                schedule=PollCalendar(CALENDAR) if mode.calendar else None, calendar=CALENDAR,
                clock=world.clock, sleep=world.sleep,
            )  # fmt: skip
            await poller.poll()  # 11:59: the last poll before the counted day
            counted, api_counted = world.requests(), len(arxiv.api_requests())
            await run_until(eastern(TUESDAY + timedelta(days=1), 12), world, poller, mode)
            announcement_day = world.requests() - counted
            api_day = len(arxiv.api_requests()) - api_counted
            found_at, politeness = world.found_at, world.politeness
            await run_until(eastern(FRIDAY, 12), world, poller, mode)
            counted = world.requests()
            await run_until(eastern(FRIDAY + timedelta(days=1), 12), world, poller, mode)
            other_day = world.requests() - counted
            await run_until(eastern(SUNDAY, 12), world, poller, mode)
            counted = world.requests()
            await run_until(eastern(SUNDAY + timedelta(days=1), 12), world, poller, mode)
            holiday_day = world.requests() - counted
        engine.dispose()
    delay = None
    if found_at is not None:
        delay = (found_at - eastern(TUESDAY, 20)).total_seconds() + politeness
    return {
        "mode": mode.name,
        "follows": follows,
        "announcement_day": announcement_day,
        "api_day": api_day,
        "other_day": other_day,
        "holiday_day": holiday_day,
        "delay": delay,
        "seconds": timer.perf_counter() - began,
    }


def describe(seconds: float | None) -> str:
    if seconds is None:
        return "not found"
    minutes, rest = divmod(int(seconds), 60)
    hours, minutes = divmod(minutes, 60)
    return f"{hours} h {minutes:02d} min" if hours else f"{minutes} min {rest:02d} s"


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[1, 1000, 100000])
    parser.add_argument("--run-api-up-to", type=int, default=1000)
    parser.add_argument(
        "--modes", nargs="+", default=[], help="run only the modes whose name holds one of these"
    )
    args = parser.parse_args()
    print(
        "| mode | follows | requests, announcement day | requests, other day "
        "| requests, guessed holiday | delay | run s |"
    )
    print("|---|---|---|---|---|---|---|")
    for mode in MODES:
        if args.modes and not any(part in mode.name for part in args.modes):
            continue
        ran: tuple[int, dict[str, int | float | None]] | None = None
        for follows in args.sizes:
            if mode.source == "api" and follows > args.run_api_up_to:
                if ran is not None:
                    print(api_estimate(mode, follows, *ran))
                continue
            row = await measure(mode, follows)
            ran = follows, row
            print(
                f"| {mode.name} | {follows:,} | {row['announcement_day']} | {row['other_day']} "
                f"| {row['holiday_day']} | {describe(row['delay'])} | {row['seconds']:.0f} |",
                flush=True,
            )


def api_estimate(mode: Mode, follows: int, ran: int, row: dict[str, int | float | None]) -> str:
    """API mode not run at this size: the smaller run's API requests, per group of names,
    times this size's groups; the rest (listing, OAI) as in the smaller run."""
    groups = len(group_queries([[f"Nobody Person{i}"] for i in range(1, follows + 1)]))
    small = len(group_queries([[f"Nobody Person{i}"] for i in range(1, ran + 1)]))
    day, api = int(row["announcement_day"] or 0), int(row["api_day"] or 0)
    estimate = day - api + api * groups // small
    other = int(row["other_day"] or 0) * groups // small  # the holiday's probes come on top
    return (
        f"| {mode.name} | {follows:,} (not run: {groups:,} name groups) | ~{estimate:,} "
        f"| ~{other:,} "
        f"| ~{other + int(row['holiday_day'] or 0) - int(row['other_day'] or 0):,} "
        f"| as at {ran:,} | |"
    )


if __name__ == "__main__":
    asyncio.run(main())
