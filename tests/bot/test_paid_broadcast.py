"""Paid broadcasts (issue 33, item 5), through the fake Bot API: with TELEGRAM_PAID_BROADCAST=on
every delivery goes out with `allow_paid_broadcast`, which the fake lets through at the paid
1,000 a second while unpaid messages meet the free 30; off (the default) nothing is paid. A rate
above the free one without paying for it stops the service at start, saying what to set."""

from __future__ import annotations

import pytest
from sqlalchemy import Engine

from bot.delivery.sender import CONCURRENCY, concurrency_for
from bot.ratelimit import TelegramRateLimiter
from tests.fakes.telegram import RateLimits
from tests.fakes.telegram.flood_control import FloodControl
from tests.harness.delivery import eventually, fake_telegram, make_world, sending, sent_count
from watcher.errors import ConfigError
from watcher.settings import Settings, load_settings

CHATS = list(range(101, 161))  # 60 private chats: more than the free rate's burst of 30


@pytest.mark.parametrize("paid", [True, False])
async def test_deliveries_are_paid_broadcasts_exactly_when_the_operator_says(
    engine: Engine, database_url: str, paid: bool
) -> None:
    limits = RateLimits(global_per_second=30, global_burst=30)  # Telegram's free overall limit
    with fake_telegram(rate_limits=limits) as fake:
        rate = 200 if paid else 30
        async with make_world(
            fake, engine, database_url, telegram_paid_broadcast=paid, telegram_rate_overall=rate
        ) as world:
            world.subscribe(*CHATS)
            world.publish(title="Paid Broadcasts on Interconnection Networks")
            limiter = TelegramRateLimiter(overall_per_second=rate)
            async with sending(world, concurrency=concurrency_for(rate), limiter=limiter):
                await eventually(sent_count(world, len(CHATS)))
    sent = fake.sent()
    assert sorted(m.chat_id for m in sent) == CHATS  # once each
    assert {m.paid_broadcast for m in sent} == {paid}
    # Paid, the limiter's 200 a second pass the fake's free 30 without a 429, as only paid
    # broadcasts may; unpaid, the limiter keeps to the free rate.
    assert fake.count_429 == 0


def test_the_fake_holds_unpaid_messages_to_the_free_rate_and_paid_ones_to_1000() -> None:
    """The claim the test above rests on: in one instant, the 31st unpaid message is refused
    (the 429's retry_after), and paid ones pass until the 1,000th."""
    flood = FloodControl(RateLimits(per_chat_burst=10_000, per_group_burst=10_000))
    chats = iter(range(1, 10_000))
    assert [flood.admit(next(chats), now=0.0) for _ in range(31)][-2:] == [None, 1]
    paid = [flood.admit(next(chats), now=0.0, paid=True) for _ in range(1001)]
    assert paid[:1000] == [None] * 1000 and paid[1000] == 1


def test_a_rate_above_the_free_one_needs_paid_broadcasts(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TELEGRAM_RATE_OVERALL", "100")
    with pytest.raises(ConfigError) as refused:
        load_settings(_env_file=None)
    said = str(refused.value)
    assert said.startswith("Invalid setting TELEGRAM_PAID_BROADCAST: off, while ")
    assert "TELEGRAM_RATE_OVERALL=100 is above the 30" in said and "=on to pay" in said
    paid = Settings(_env_file=None, telegram_rate_overall=1000, telegram_paid_broadcast=True)
    assert paid.telegram_rate_overall == 1000
    with pytest.raises(ValueError, match="less than or equal to 1000"):
        Settings(_env_file=None, telegram_rate_overall=1001, telegram_paid_broadcast=True)
    monkeypatch.delenv("TELEGRAM_RATE_OVERALL")
    assert not Settings(_env_file=None).telegram_paid_broadcast
    assert concurrency_for(30) == CONCURRENCY and concurrency_for(1000) == 260
