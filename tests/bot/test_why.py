"""/why answers "why did I get nothing today?" for the chat (issue 33, item 4): on a day arXiv
does not announce it says so and names the next announcement in the chat's time zone; after an
announcement read with nothing followed in it, how many new papers were read and that none
matched; what came by follow; and a pause or a digest holding papers, with when they come.
The whole front end on the fake Bot API, the real store, and a clock the test turns where the
day matters (`tests.harness.clocks`); the batch is read by the service's own listing read from
the fake listing pages (`tests.fakes.listing`) at the announcement, and its count is the
store's: a restart says it too. The same answers in Simplified Chinese (issue 31) are
rendered from the core's answer with the language set around `why_text`, and under the
pseudo-locale no English is left in them but the followed names. Its reads are one
transaction, counted on the real engine."""

from __future__ import annotations

import asyncio
import re
from collections.abc import AsyncIterator
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest
from sqlalchemy import Connection, Engine, event

from bot.handlers.why import why_text
from bot.i18n import speaking
from tests.fakes.corpus import make_record
from tests.fakes.listing import FakeListing
from tests.fakes.telegram import FakeTelegram, RateLimits
from tests.harness.bots import BOT, USER, Bot, running_front_end, running_service
from tests.harness.clocks import TurnedClock
from tests.harness.patience import PATIENCE
from tests.harness.pseudo_locale import english_left, install_pseudo
from watcher.arxiv.records import Record
from watcher.calendars.announcements import Announcement, AnnouncementCalendar
from watcher.core.face import Core
from watcher.store import MatchedRecord

ARXIV = ZoneInfo("America/New_York")
SATURDAY = 5  # `date.weekday()`
UNFOLLOWED = 1204  # a batch's new papers: a usual day has 1,000 to 1,500 (field notes)
_CJK = re.compile(r"[\u4e00-\u9fff]")


@pytest.fixture
async def turned(
    engine: Engine, database_url: str, tmp_path: Path
) -> AsyncIterator[tuple[Bot, TurnedClock]]:
    clock = TurnedClock(tmp_path / "clock")
    async with running_front_end(engine, database_url, clock=clock) as bot:
        yield bot, clock


@pytest.fixture
async def listed(
    engine: Engine, database_url: str, tmp_path: Path
) -> AsyncIterator[tuple[Bot, TurnedClock, FakeListing]]:
    """The front end on a turned clock, its poller reading the fake listing (on that clock)."""
    clock = TurnedClock(tmp_path / "clock")
    with FakeListing(shown_now(clock), clock=clock) as listing:
        async with running_front_end(engine, database_url, clock=clock, listing=listing) as bot:
            yield bot, clock, listing


def shown_now(clock: TurnedClock) -> date:
    """The mailing arXiv's listing shows now: the last announced (by arXiv's calendar)."""
    last = AnnouncementCalendar().latest_at_or_before(clock())
    assert last is not None
    return last.mailing


def unfollowed(mailing: date, n: int = UNFOLLOWED) -> list[Record]:
    """A batch of `n` new papers in cs, by no one followed."""
    return [
        make_record(
            arxiv_id=f"{mailing:%y%m}.{90000 + i:05d}",
            title=f"Unfollowed Paper {i}",
            authors=[f"Ada Listed{i}"],
            primary_category="cs.NI",
        )
        for i in range(n)
    ]


async def read_the_next_batch(bot: Bot, clock: TurnedClock, listing: FakeListing) -> Announcement:
    """The next announcement's batch (UNFOLLOWED papers) on the listing from its instant, read
    by the service's listing read (`Poller.read_listing`, as the runtime starts it): started
    before the instant, it waits on the clock, which is then turned a minute past it."""
    coming = calendar(bot).next_after(clock())
    assert coming is not None
    listing.announce(coming.mailing, new=unfollowed(coming.mailing), flip_at=coming.at)
    reading = asyncio.create_task(bot.service.poller.read_listing(coming))
    await asyncio.sleep(0.2)
    assert not reading.done() and listing.listing_requests() == []  # waiting for the instant
    clock.turn_to(coming.at + timedelta(minutes=1))
    report = await asyncio.wait_for(reading, timeout=PATIENCE)
    assert report.new == [] and report.failures == {}
    return coming


def batch_line(bot: Bot, read: Announcement) -> str:
    """/why's first line once the listing read `read`, at the time the store keeps."""
    seen = bot.store.last_mailing().seen_at
    assert seen is not None and read.at <= seen
    wall = read.at.astimezone(ARXIV)
    return (
        f"arXiv last announced {wall:%a} {wall.day} {wall:%b %H:%M} ET: the listing read it at "
        f"{seen.astimezone(ARXIV):%H:%M} ET, 1,204 new papers."
    )


def publish(bot: Bot | Core, *arxiv_ids: str) -> None:
    """New papers by Dezun Dong, whom every running bot watches: queued for his followers."""
    followed = bot.store.find_followed("Dezun Dong")
    assert followed is not None
    ids = frozenset({followed.id})
    records = [
        make_record(arxiv_id=arxiv_id, title=f"Paper {arxiv_id}", authors=["Dezun Dong"])
        for arxiv_id in arxiv_ids
    ]
    saved = bot.store.save_records([MatchedRecord(r, ids) for r in records], announce_for=ids)
    assert saved.new == records


def next_saturday_noon(now: datetime) -> datetime:
    day = now.astimezone(ARXIV).date() + timedelta(days=1)
    while day.weekday() != SATURDAY:
        day += timedelta(days=1)
    return datetime(day.year, day.month, day.day, 12, tzinfo=ARXIV)


def calendar(bot: Bot) -> AnnouncementCalendar:
    return bot.service.settings.announcement_calendar


async def test_why_on_a_day_without_an_announcement_names_the_next_one(
    turned: tuple[Bot, TurnedClock],
) -> None:
    bot, clock = turned
    await bot.ask(USER, "/timezone Europe/Berlin")
    saturday = next_saturday_noon(clock())
    clock.turn_to(saturday)
    coming = calendar(bot).next_after(saturday)
    assert coming is not None
    berlin = coming.at.astimezone(ZoneInfo("Europe/Berlin"))
    wall = coming.at.astimezone(ARXIV)

    answer = await bot.ask_one(USER, "/why")

    assert "No announcement tonight: arXiv does not announce on Saturdays." in answer
    assert (
        f"Next announcement: {berlin:%a} {berlin.day} {berlin:%b %H:%M} (Europe/Berlin), "
        f"{wall:%a} {wall.day} {wall:%b %H:%M} ET."
    ) in answer
    assert len(answer) <= 600


async def test_why_after_a_batch_with_nothing_followed_says_how_many_were_read(
    listed: tuple[Bot, TurnedClock, FakeListing],
) -> None:
    bot, clock, listing = listed
    await bot.ask(USER, "/subscribe Dezun Dong")
    read = await read_the_next_batch(bot, clock, listing)

    answer = await bot.ask_one(USER, "/why")

    assert answer.startswith(batch_line(bot, read))
    assert "Nothing by the one person or topic followed here, out of 1,204 new papers read." in (
        answer
    )
    assert len(answer) <= 600


async def test_why_says_how_many_were_read_after_a_restart(
    engine: Engine, database_url: str, tmp_path: Path
) -> None:
    """The count is the store's: a service started again on the database (a fresh poller,
    which read nothing) says it as the one that read the batch did."""
    clock = TurnedClock(tmp_path / "clock")
    with (
        FakeTelegram(rate_limits=RateLimits.disabled(), bot_username=BOT) as telegram,
        FakeListing(shown_now(clock), clock=clock) as listing,
    ):
        async with running_front_end(
            engine, database_url, clock=clock, telegram=telegram, listing=listing
        ) as bot:
            await bot.ask(USER, "/subscribe Dezun Dong")
            read = await read_the_next_batch(bot, clock, listing)
            before = await bot.ask_one(USER, "/why")
        async with running_front_end(engine, database_url, clock=clock, telegram=telegram) as again:
            assert again.service.poller.listing.last is None  # this one read no listing
            answer = await again.ask_one(USER, "/why")

    assert answer == before
    assert answer.startswith(batch_line(again, read))
    assert "out of 1,204 new papers read." in answer


async def test_why_before_the_batch_is_read_says_what_is_waited_for(bot_now: Bot) -> None:
    bot = bot_now
    await bot.ask(USER, "/subscribe Dezun Dong")

    answer = await bot.ask_one(USER, "/why")

    assert (
        "that batch is not read yet: the listing is probed from 20:00 ET, OAI-PMH looks from "
        "22:30 ET, the API from 00:05 ET."
    ) in answer
    assert "Nothing by" not in answer  # not read: not "none matched"


async def test_why_names_what_came_by_follow_and_a_pause_holding_it(bot_now: Bot) -> None:
    bot = bot_now
    await bot.ask(USER, "/subscribe Dezun Dong")
    await bot.ask(USER, "/pause")
    publish(bot, "2612.00031", "2612.00032")

    answer = await bot.ask_one(USER, "/why")

    assert "Here since then: Dezun Dong 2." in answer
    assert "This chat is paused: 2 papers wait for /resume." in answer


async def test_why_says_when_the_digest_brings_the_papers_it_holds(bot_now: Bot) -> None:
    bot = bot_now
    await bot.ask(USER, "/subscribe Dezun Dong")
    await bot.ask(USER, "/digest daily 08:00")
    publish(bot, "2612.00041", "2612.00042", "2612.00043")
    next_at = bot.chats.digests.settings(USER, 0).next_at
    assert next_at is not None
    at = next_at.astimezone(UTC)

    answer = await bot.ask_one(USER, "/why")

    assert f"3 papers held for the digest of {at:%a} {at.day} {at:%b} 08:00." in answer


async def test_why_in_chinese_on_a_day_without_an_announcement(
    turned: tuple[Bot, TurnedClock],
) -> None:
    bot, clock = turned
    await bot.ask(USER, "/timezone Asia/Shanghai")
    clock.turn_to(next_saturday_noon(clock()))
    answer = await bot.service.why.why(USER, 0)

    with speaking("zh-Hans"):
        chinese = why_text(answer)
    with speaking(install_pseudo()):
        pseudo = why_text(answer)

    assert "今晚没有发布：arXiv 周六不发布新论文。" in chinese
    assert "下一次发布：" in chinese and "（Asia/Shanghai）" in chinese
    assert [line for line in chinese.split("\n") if not _CJK.search(line)] == []
    assert english_left(pseudo) == []


async def test_why_in_chinese_names_what_came_and_the_pause(bot_now: Bot) -> None:
    bot = bot_now
    await bot.ask(USER, "/subscribe Dezun Dong")
    await bot.ask(USER, "/pause")
    publish(bot, "2612.00051", "2612.00052")
    answer = await bot.service.why.why(USER, 0)

    with speaking("zh-Hans"):
        chinese = why_text(answer)
    with speaking(install_pseudo()):
        pseudo = why_text(answer)

    assert "此后这里收到：Dezun Dong 2。" in chinese
    assert "本聊天已暂停：2 篇论文在等待 /resume。" in chinese
    assert [line for line in chinese.split("\n") if not _CJK.search(line)] == []
    assert english_left(pseudo, exempt=["Dezun Dong"]) == []


async def test_why_reads_the_store_in_one_transaction(engine: Engine, database_url: str) -> None:
    """Every transaction the engine begins while /why is answered, counted by SQLAlchemy's
    `begin` event on the service's own engine: the core alone (no front end, so nothing else
    reads meanwhile), with a follow and papers that came by it, so that every read is made."""
    async with running_service(engine, database_url) as (_telegram, _arxiv, service):
        followed = service.store.find_followed("Dezun Dong")
        assert followed is not None
        service.chats.seen(USER, kind="private")
        service.chats.subscribe(USER, followed.id)
        publish(service, "2612.00061")
        begun: list[Connection] = []

        def began(connection: Connection) -> None:
            begun.append(connection)

        event.listen(engine, "begin", began)
        try:
            answer = await service.why.why(USER, 0)
        finally:
            event.remove(engine, "begin", began)

    assert [(f.name, n) for f, n in answer.got] == [("Dezun Dong", 1)]
    assert len(begun) == 1


@pytest.fixture
async def bot_now(engine: Engine, database_url: str) -> AsyncIterator[Bot]:
    """The front end on the wall clock: deliveries are stamped with it."""
    async with running_front_end(engine, database_url) as bot:
        yield bot
