"""The rate limiter, through a real PTB bot against the fake Bot API and its flood control.

The fake answers 429 whenever a limit is crossed, so "no 429" means the limiter kept every bucket
in bounds. Spacing is checked as LOWER bounds on the times the fake recorded, never upper ones.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Iterator

import pytest
from telegram import Bot
from telegram.error import RetryAfter
from telegram.ext import ExtBot
from telegram.request import HTTPXRequest

from bot.ratelimit import TelegramRateLimiter
from tests.fakes.telegram import FakeTelegram, Fault, RateLimits

TOKEN = "123456:TEST-ratelimit-token"
# Measured times are taken after the fake handled a request; this allows for one request's
# latency on a busy machine when comparing two of them (0.1 s was missed by 2 ms under load).
# Without the limiter each burst below would take a few milliseconds, far under any bound.
LATENCY = 0.3


def make_fake(**limits: float) -> FakeTelegram:
    return FakeTelegram(TOKEN, rate_limits=RateLimits(**limits))  # type: ignore[arg-type]


@pytest.fixture
def fake() -> Iterator[FakeTelegram]:
    with make_fake(
        per_chat_per_second=4, per_chat_burst=3, global_per_second=1000, global_burst=1000
    ) as fake:
        yield fake
        assert fake.internal_errors == []


def limited_bot(fake: FakeTelegram, limiter: TelegramRateLimiter) -> ExtBot[None]:
    return ExtBot(
        TOKEN,
        base_url=fake.base_url,
        request=HTTPXRequest(connection_pool_size=64),
        rate_limiter=limiter,
    )


@pytest.fixture
async def bot(fake: FakeTelegram) -> AsyncIterator[ExtBot[None]]:
    limiter = TelegramRateLimiter(private_per_second=4, overall_per_second=1000)
    async with limited_bot(fake, limiter) as bot:
        yield bot


def send_times(fake: FakeTelegram, chat_id: int | None = None) -> list[float]:
    return sorted(
        r.time
        for r in fake.requests
        if r.method == "sendMessage" and (chat_id is None or r.params["chat_id"] == str(chat_id))
    )


async def burst(bot: Bot, chat_ids: list[int]) -> list[object]:
    return await asyncio.gather(
        *(bot.send_message(chat_id, f"message {n}") for n, chat_id in enumerate(chat_ids)),
        return_exceptions=True,
    )


async def test_a_burst_to_one_private_chat_is_paced_without_a_single_429(
    fake: FakeTelegram, bot: ExtBot[None]
) -> None:
    results = await burst(bot, [42] * 10)

    assert not [r for r in results if isinstance(r, Exception)]
    assert fake.count_429 == 0
    assert len(fake.sent(42)) == 10
    times = send_times(fake, 42)
    # Two at once (the burst), then one every 1/4 s.
    assert times[-1] - times[0] >= 8 / 4 - LATENCY
    assert times[5] - times[1] >= 4 / 4 - LATENCY


async def test_without_the_limiter_the_same_burst_is_refused(fake: FakeTelegram) -> None:
    async with Bot(
        TOKEN, base_url=fake.base_url, request=HTTPXRequest(connection_pool_size=64)
    ) as bot:
        results = await burst(bot, [42] * 10)

    assert any(isinstance(r, RetryAfter) for r in results)
    assert fake.count_429 > 0


async def test_groups_get_their_own_per_minute_limit() -> None:
    with make_fake(
        per_chat_per_second=10,
        per_chat_burst=10,
        per_group_per_minute=120,
        per_group_burst=5,
        global_per_second=1000,
        global_burst=1000,
    ) as fake:
        limiter = TelegramRateLimiter(group_per_minute=120, private_per_second=10)
        async with limited_bot(fake, limiter) as bot:
            results = await burst(bot, [-5001] * 8)

    assert not [r for r in results if isinstance(r, Exception)]
    assert fake.count_429 == 0
    times = send_times(fake, -5001)
    # Three at once, then one every half second.
    assert times[-1] - times[0] >= 5 / 2 - LATENCY


async def test_the_overall_limit_spans_all_chats() -> None:
    with make_fake(global_per_second=20, global_burst=20) as fake:
        limiter = TelegramRateLimiter(overall_per_second=20)
        async with limited_bot(fake, limiter) as bot:
            results = await burst(bot, list(range(1, 41)))

    assert not [r for r in results if isinstance(r, Exception)]
    assert fake.count_429 == 0
    assert len(fake.sent()) == 40
    times = send_times(fake)
    # A burst of two (a tenth of a second's worth), then one every 1/20 s.
    assert times[-1] - times[0] >= 38 / 20 - LATENCY


async def test_a_429_pauses_every_request_and_is_not_retried(
    fake: FakeTelegram, bot: ExtBot[None]
) -> None:
    fake.inject(Fault.flood(retry_after=1))

    with pytest.raises(RetryAfter):
        await bot.send_message(1, "refused")
    assert fake.calls("sendMessage") == 1  # the limiter itself does not retry
    await bot.send_message(2, "another chat, held by the pause")

    refused, admitted = [r for r in fake.requests if r.method == "sendMessage"]
    assert refused.status == 429
    assert admitted.status == 200
    assert admitted.time - refused.time >= 1.0


async def test_idle_chat_buckets_are_dropped(fake: FakeTelegram) -> None:
    limiter = TelegramRateLimiter(private_per_second=100, overall_per_second=1000, sweep_interval=0)
    async with limited_bot(fake, limiter) as bot:
        for chat_id in range(1, 31):
            await bot.send_message(chat_id, "hello")
        await asyncio.sleep(0.1)  # every bucket drains in 2/100 s
        await bot.send_message(99, "hello")

    assert len(fake.sent()) == 31
    assert limiter.tracked_chats <= 1  # at most chat 99's, if it had not drained yet
