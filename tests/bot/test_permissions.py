"""`AdminCache` (bot.handlers.permissions) against the fake Bot API through PTB's `Bot`: an
answer is kept for its time and no longer, the cache holds at most its size (the oldest goes
first), and a failed getChatMember is "could not say" (None) and is not kept. The presses that
use it, in every kind of chat, are in test_who_may."""

from __future__ import annotations

from telegram import Bot

from bot.handlers.permissions import CHANNEL_BOT_ID, AdminCache
from tests.fakes.telegram import FakeTelegram, Fault

CHANNEL = -1002500
ADMIN, READER, OTHER = 5, 7, 9


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


async def test_answers_are_kept_briefly_boundedly_and_failures_not_at_all(
    fake: FakeTelegram,
) -> None:
    fake.add_channel(CHANNEL)
    fake.set_admins(CHANNEL, [ADMIN])
    clock = Clock()
    cache = AdminCache(keep=60, most=2, clock=clock)

    def asked() -> int:
        return fake.calls("getChatMember")

    async with Bot(fake.token, base_url=fake.base_url) as bot:
        assert await cache.is_admin(bot, CHANNEL, ADMIN) is True
        assert await cache.is_admin(bot, CHANNEL, READER) is False
        assert asked() == 2
        fake.set_admins(CHANNEL, [ADMIN, READER])  # promoted: noticed once the answer expires
        clock.now += 59
        assert await cache.is_admin(bot, CHANNEL, READER) is False
        assert asked() == 2
        clock.now += 2
        assert await cache.is_admin(bot, CHANNEL, READER) is True
        assert await cache.is_admin(bot, CHANNEL, READER, kept=False) is True  # asks anyway
        assert asked() == 4

        # Two answers at most: OTHER's pushes out the oldest (ADMIN's, expired too by now).
        assert await cache.is_admin(bot, CHANNEL, OTHER) is False
        assert await cache.is_admin(bot, CHANNEL, READER) is True
        assert asked() == 5
        assert await cache.is_admin(bot, CHANNEL, ADMIN) is True
        assert asked() == 6

        fake.inject(Fault.server_error(502), method="getChatMember")
        assert await cache.is_admin(bot, CHANNEL, OTHER, kept=False) is None
        fake.inject(Fault.flood(3), method="getChatMember")
        assert await cache.is_admin(bot, CHANNEL, 11) is None
        assert await cache.is_admin(bot, CHANNEL, 11) is False  # the failure was not kept
        # Telegram's 400 (PARTICIPANT_ID_INVALID), here for the channel stand-in.
        assert await cache.is_admin(bot, CHANNEL, CHANNEL_BOT_ID) is None
