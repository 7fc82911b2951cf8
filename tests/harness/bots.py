"""The bot's commands on the real core: the real PTB Application long-polling the fake Bot API,
the real store (SQLite or PostgreSQL) after its first poll of the fake arXiv. `running_bot` is the
commands alone; `running_front_end` is the whole front end as `arxiv-watcher run` starts it."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager, nullcontext
from dataclasses import dataclass, field, replace
from typing import Any

from sqlalchemy import Engine

from bot.app import ALLOWED_UPDATES, BotApplication, build_application
from bot.delivery.sender import DeliverySender
from bot.frontend import TelegramFrontend
from bot.handlers import CommandBudget
from bot.ratelimit import TelegramRateLimiter
from tests.fakes.arxiv_api import FakeArxiv
from tests.fakes.corpus import dezun_dong_records, lookalike_records
from tests.fakes.listing import FakeListing
from tests.fakes.telegram import FakeTelegram, RateLimits, SentMessage
from tests.harness.patience import LOOPBACK_TIMEOUT, PATIENCE
from watcher.arxiv.fetch import ArxivClient
from watcher.clock import SYSTEM_CLOCK, Clock
from watcher.core import Core
from watcher.core.subscribing import LOOKUP_PATIENCE
from watcher.polling.poll import Poller
from watcher.settings import Settings
from watcher.store import Store
from watcher.store.chats import Chats
from watcher.store.outbox import Outbox

USER = 42
STILL_CHECKING = "⏳ Checking"  # the last line of an answer still growing
ADMIN_CHAT = 4242
GROUP = -500
BOT = "arxiv_watcher_bot"


@dataclass
class Bot:
    """The running bot and everything around it."""

    telegram: FakeTelegram
    arxiv: FakeArxiv
    service: Core
    app: BotApplication = field(repr=False)  # PTB's repr shows the bot token

    @property
    def store(self) -> Store:
        return self.service.store

    @property
    def chats(self) -> Chats:
        return self.service.chats

    async def until(self, predicate: Callable[[], object]) -> None:
        await self.telegram.wait_for(predicate, timeout=PATIENCE)

    async def ask(self, chat_id: int, text: str, *, replies: int = 1, **sender: Any) -> list[str]:
        """Send `text` into the chat and return the texts of the next `replies` messages."""
        before = len(self.telegram.sent(chat_id))
        self.telegram.user_sends(chat_id, text, **sender)
        await self.until(lambda: len(self.telegram.sent(chat_id)) >= before + replies)
        return [message.text for message in self.telegram.sent(chat_id)[before:]]

    async def ask_one(self, chat_id: int, text: str, **sender: Any) -> str:
        (answer,) = await self.ask(chat_id, text, **sender)
        return answer

    async def ask_whole(self, chat_id: int, text: str, **sender: Any) -> str:
        """`ask_one` for an answer that may grow (several names, `bot.handlers.growing_answer`):
        on a loaded machine a name can take long enough that the answer is posted before the
        last is decided and edited as they are, so this waits for the answer that checks no
        name any more and returns it, edits applied."""
        before = len(self.telegram.sent(chat_id))
        self.telegram.user_sends(chat_id, text, **sender)
        await self.until(lambda: len(self.telegram.sent(chat_id)) > before)
        await self.until(lambda: STILL_CHECKING not in self.current_text(chat_id, before))
        return self.current_text(chat_id, before)

    def current_text(self, chat_id: int, index: int) -> str:
        """The text of the chat's `index`th message as it reads now, its last edit applied."""
        message = self.telegram.sent(chat_id)[index]
        edited = [
            edit.text
            for edit in self.telegram.edits
            if (edit.chat_id, edit.message_id) == (chat_id, message.message_id)
            and edit.text is not None
        ]
        return edited[-1] if edited else message.text

    def last(self, chat_id: int) -> SentMessage:
        return self.telegram.sent(chat_id)[-1]

    async def settled(self) -> None:
        """Wait until every update sent so far has been fetched and fully handled."""
        await self.until(lambda: self.telegram.pending_updates == 0)
        await asyncio.wait_for(self.app.update_queue.join(), timeout=PATIENCE)


@asynccontextmanager
async def running_service(
    engine: Engine,
    database_url: str,
    *,
    arxiv_timeout: float = LOOPBACK_TIMEOUT,
    arxiv_min_interval: float = 0,
    telegram: FakeTelegram | None = None,
    clock: Clock = SYSTEM_CLOCK,
    listing: FakeListing | None = None,
    overrides: dict[str, Any] | None = None,
) -> AsyncIterator[tuple[FakeTelegram, FakeArxiv, Core]]:
    """The fakes, and the core on the real database after its first poll, as at a start.
    `telegram`: the fake Bot API of an earlier run, to restart against (its chats and messages
    kept, as Telegram keeps them); by default a new one. `clock`: the core's and its poller's,
    as `run_service` hands it down (a test may turn one, `tests.harness.clocks.TurnedClock`).
    `listing`: arXiv's listing pages, read by `service.poller.read_listing` (probed every
    second, no spacing between requests); by default arXiv's address, never read.
    `overrides`: settings other than the defaults (`{"early_listings": False, "watch_source":
    "api"}`: API-only mode)."""
    with (
        nullcontext(telegram)
        if telegram is not None
        else FakeTelegram(rate_limits=RateLimits.disabled(), bot_username=BOT) as telegram,
        FakeArxiv([*dezun_dong_records(), *lookalike_records()]) as arxiv,
    ):
        settings = Settings(
            _env_file=None,
            database_url=database_url,
            arxiv_api_url=arxiv.url,
            arxiv_min_interval=0,
            watch_authors=["Dezun Dong"],
            telegram_bot_token=telegram.token,
            telegram_api_url=telegram.base_url,
            admin_chat_ids=[ADMIN_CHAT],
            **({"arxiv_listing_url": listing.url} if listing is not None else {}),
            **(overrides or {}),
        )
        async with ArxivClient(
            arxiv.url,
            min_interval=arxiv_min_interval,
            timeout=arxiv_timeout,
            max_retries=1,
            backoff_base=0.01,
            backoff_max=0.02,
            listing_interval=0,
        ) as client:
            store = Store(engine)
            for rule in settings.followed_specs:
                store.follow_watched(rule)
            poller = Poller(
                store=store,
                client=client,
                poll_interval=3600,
                author_feed_url=arxiv.author_feed_url,
                listing_url=str(settings.arxiv_listing_url),
                listing_probe_interval=1,
                clock=clock,
                sleep=clock.sleep,
            )
            service = Core(settings, store, Chats(engine), Outbox(engine), poller, clock=clock)
            await poller.poll()  # the watched author's history, as the service does at start
            yield telegram, arxiv, service
        assert telegram.internal_errors == []


@asynccontextmanager
async def running_bot(
    engine: Engine,
    database_url: str,
    *,
    budget: CommandBudget | None = None,
    arxiv_timeout: float = LOOPBACK_TIMEOUT,
    arxiv_min_interval: float = 0,
    rate_limiter: TelegramRateLimiter | None = None,
    lookup_patience: float = LOOKUP_PATIENCE,
    telegram: FakeTelegram | None = None,
    settings: dict[str, Any] | None = None,
) -> AsyncIterator[Bot]:
    """The commands alone: the Application long-polling the fake, no delivery sender.
    `telegram`: an earlier run's fake Bot API, for a restart; `settings`: other than the
    defaults (see `running_service`)."""
    async with running_service(
        engine,
        database_url,
        arxiv_timeout=arxiv_timeout,
        arxiv_min_interval=arxiv_min_interval,
        telegram=telegram,
        overrides=settings,
    ) as (
        telegram,
        arxiv,
        service,
    ):
        service = replace(service, lookup_patience=lookup_patience)
        app = build_application(
            service,
            command_budget=budget or CommandBudget(burst=10_000, refill_per_second=1),
            rate_limiter=rate_limiter,
        )
        await app.initialize()
        await app.start()
        assert app.updater is not None
        await app.updater.start_polling(poll_interval=0, timeout=1, allowed_updates=ALLOWED_UPDATES)
        try:
            yield Bot(telegram, arxiv, service, app)
        finally:
            await app.updater.stop()
            await app.stop()
            await app.shutdown()


@asynccontextmanager
async def running_front_end(
    engine: Engine,
    database_url: str,
    *,
    clock: Clock = SYSTEM_CLOCK,
    telegram: FakeTelegram | None = None,
    listing: FakeListing | None = None,
) -> AsyncIterator[Bot]:
    """The whole Telegram front end as `arxiv-watcher run` starts it: commands and delivery,
    on the core's `clock`; `telegram`: an earlier run's fake Bot API, to restart against;
    `listing`: arXiv's listing pages (see `running_service`)."""
    async with running_service(
        engine, database_url, clock=clock, telegram=telegram, listing=listing
    ) as (
        telegram,
        arxiv,
        service,
    ):
        front_end = TelegramFrontend(service)
        await front_end.start()
        try:
            assert front_end.application is not None
            yield Bot(telegram, arxiv, service, front_end.application)
        finally:
            await front_end.stop()


def dezun_count(bot: Bot) -> int:
    """How many papers the store holds for the author every running bot starts out following."""
    followed = bot.store.find_followed("Dezun Dong")
    assert followed is not None
    return followed.record_count


_SENDER = "test sender"


@asynccontextmanager
async def with_sender(bot: Bot) -> AsyncIterator[Bot]:
    """The running bot with a delivery sender on its own Bot, running until the block ends;
    `wake_sender` tells it a paper was queued."""
    sender = DeliverySender(bot.app.bot, bot.service)
    task = asyncio.create_task(sender.run())
    bot.app.bot_data[_SENDER] = sender
    try:
        yield bot
    finally:
        await sender.stop()
        await task


def wake_sender(bot: Bot, *, revisions: bool = False) -> None:
    """Tell `with_sender`'s sender that deliveries were queued (with `revisions`, that what it
    holds may have changed: it reads its queue again)."""
    sender: DeliverySender = bot.app.bot_data[_SENDER]
    if revisions:
        sender.refresh()
    else:
        sender.wake()
