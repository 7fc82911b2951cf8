"""The delivery sender's world: the real outbox and store on the real database, one followed
author, chats subscribed through `Chats`, and a running `DeliverySender` on a real PTB bot whose
requests go to the fake Bot API through the rate limiter. The core runs on the wall clock, or on
the `clock` given (`tests.harness.clocks.TurnedClock`)."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Callable, Iterator
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Engine
from sqlmodel import Session, col, select
from telegram.ext import ExtBot
from telegram.request import HTTPXRequest

from bot.delivery.confirmations import CONFIRM_LINGER
from bot.delivery.sender import DeliverySender
from bot.ratelimit import TelegramRateLimiter
from tests.fakes.corpus import make_record
from tests.fakes.telegram import FakeTelegram
from tests.harness.patience import PATIENCE
from watcher.aio import in_db_thread
from watcher.arxiv.fetch import ArxivClient
from watcher.arxiv.records import Record
from watcher.clock import SYSTEM_CLOCK, Clock
from watcher.core import Core
from watcher.polling.poll import Poller
from watcher.settings import Settings
from watcher.store import MatchedRecord, Store
from watcher.store.chats import Chats
from watcher.store.outbox import Outbox
from watcher.store.tables import Delivery

TOKEN = "123456:TEST-sender-token"
FAST_RETRY = 0.3  # seconds before a retry after a network fault, instead of 5 s and up
GROUP, SUPERGROUP = -4001, -1001234567890


@dataclass
class World:
    fake: FakeTelegram
    context: Core
    engine: Engine
    followed_id: int

    @property
    def outbox(self) -> Outbox:
        return self.context.outbox

    @property
    def chats(self) -> Chats:
        return self.context.chats

    def subscribe(self, *chat_ids: int) -> None:
        for chat_id in chat_ids:
            kind = "private" if chat_id > 0 else "group"
            self.chats.seen(chat_id, kind=kind)
            self.chats.subscribe(chat_id, self.followed_id)

    def publish(self, arxiv_id: str = "2611.00001", **fields: object) -> Record:
        """A new paper by the followed author: the store queues one delivery per subscriber."""
        record = make_record(arxiv_id=arxiv_id, authors=["Ann Other", "Dezun Dong"], **fields)
        followed = frozenset({self.followed_id})
        saved = self.context.store.save_records(
            [MatchedRecord(record, followed)], announce_for=followed
        )
        assert saved.new == [record]
        return record

    def deliveries(self) -> list[Delivery]:
        with Session(self.engine) as session:
            return list(session.exec(select(Delivery).order_by(col(Delivery.id))))

    def requests_to(self, chat_id: int) -> list[int]:
        """HTTP statuses of every sendMessage to `chat_id`, in order (0: connection dropped)."""
        return [
            r.status
            for r in self.fake.requests
            if r.method == "sendMessage" and r.params.get("chat_id") == str(chat_id)
        ]


@contextlib.asynccontextmanager
async def make_world(
    fake: FakeTelegram,
    engine: Engine,
    database_url: str,
    *,
    clock: Clock = SYSTEM_CLOCK,
    **overrides: Any,
) -> AsyncIterator[World]:
    settings = Settings(
        _env_file=None,
        database_url=database_url,
        telegram_bot_token=TOKEN,
        telegram_api_url=fake.base_url,
        **overrides,
    )
    store = Store(engine)
    followed, _ = store.follow(["Dezun Dong"])
    async with ArxivClient("http://127.0.0.1:9/unused", min_interval=0) as client:
        poller = Poller(store=store, client=client, poll_interval=3600, clock=clock)
        context = Core(settings, store, Chats(engine), Outbox(engine), poller, clock=clock)
        yield World(fake, context, engine, followed.id)


@contextlib.asynccontextmanager
async def sending(
    world: World,
    *,
    concurrency: int = 4,
    limiter: TelegramRateLimiter | None = None,
    retry_delay: Callable[[int], float] = lambda attempts: FAST_RETRY,
    confirm_linger: float = CONFIRM_LINGER,
) -> AsyncIterator[DeliverySender]:
    """A running sender on a bot whose every request goes through the rate limiter."""
    limiter = limiter or TelegramRateLimiter(overall_per_second=200)
    bot = ExtBot(
        TOKEN,
        base_url=world.fake.base_url,
        request=HTTPXRequest(connection_pool_size=32),
        rate_limiter=limiter,
    )
    async with bot:
        sender = DeliverySender(
            bot,
            world.context,
            concurrency=concurrency,
            retry_delay=retry_delay,
            confirm_linger=confirm_linger,
        )
        task = asyncio.create_task(sender.run())
        try:
            yield sender
        finally:
            await sender.stop()
            await task


async def eventually(check: Callable[[], bool], within: float = PATIENCE) -> None:
    """Wait until `check()` (run on the database thread) holds."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + within
    while not await in_db_thread(check):
        if loop.time() > deadline:
            raise TimeoutError("condition not met")
        await asyncio.sleep(0.02)


def sent_count(world: World, expected: int) -> Callable[[], bool]:
    return lambda: world.outbox.stats().sent == expected


@contextlib.contextmanager
def fake_telegram(**options: object) -> Iterator[FakeTelegram]:
    """The fake Bot API for the sender's token, checked for internal errors when it stops."""
    with FakeTelegram(TOKEN, **options) as fake:  # type: ignore[arg-type]
        yield fake
        assert fake.internal_errors == []
