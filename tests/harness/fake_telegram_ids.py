"""The bot token and the chat ids the tests of the fake Bot API (`tests/bot/fake_telegram/`) use."""

from __future__ import annotations

TOKEN = "123456:TEST-fake-token-for-tests"
ALICE = 4242
GROUP = -4001
SUPERGROUP = -1001234567890
CHANNEL = -1009876543210
