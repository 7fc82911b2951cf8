"""/digest and /timezone typed as people type them: "8am", "weekdays", "+8", a city. The real
Application on the fake Bot API, the real store (SQLite or PostgreSQL); see `tests.harness.bots`.
"""

from __future__ import annotations

import pytest

from tests.harness.bots import USER, Bot


@pytest.mark.parametrize(
    ("typed", "said"),
    [
        ("/digest daily 8am", "Digest: daily at 08:00."),
        ("/digest daily 8:30 pm", "Digest: daily at 20:30."),
        ("/digest weekdays 08:00", "Digest: on weekdays (Monday to Friday) at 08:00."),
        ("/digest weekly fri 7am", "Digest: weekly on Friday at 07:00."),
    ],
)
async def test_digest_times_and_days_as_people_write_them(bot: Bot, typed: str, said: str) -> None:
    answer = await bot.ask_one(USER, typed)
    assert answer.startswith(f"✅ {said} Next: "), answer
    # Stored as understood: /digest alone says the same.
    assert (await bot.ask_one(USER, "/digest")).startswith(said)


async def test_a_weekdays_digest_is_not_due_at_the_weekend(bot: Bot) -> None:
    await bot.ask_one(USER, "/digest weekdays 09:00")
    settings = bot.chats.digests.settings(USER)
    assert settings.next_at is not None and settings.next_at.weekday() < 5


@pytest.mark.parametrize(
    ("typed", "zone"),
    [
        ("/timezone +8", "UTC+08:00"),
        ("/timezone UTC+8", "UTC+08:00"),
        ("/timezone Berlin", "Europe/Berlin"),
        ("/timezone new york", "America/New_York"),
        ("/timezone Beijing", "Asia/Shanghai"),
    ],
)
async def test_timezones_as_offsets_and_cities(bot: Bot, typed: str, zone: str) -> None:
    answer = await bot.ask_one(USER, typed)
    assert answer.startswith(f"✅ Time zone: {zone}; it is "), answer


async def test_what_cannot_be_read_is_refused_with_what_would_be_right(bot: Bot) -> None:
    late = await bot.ask_one(USER, "/digest daily 25:00")
    assert late.startswith("'25:00' is not a time of day; use HH:MM from 00:00 to 23:59, or 8am.")
    nowhere = await bot.ask_one(USER, "/timezone Atlantis")
    assert nowhere.startswith("'Atlantis' is not a time zone I know;")
    # Issue 30, item 5: a "did you mean" when one is near.
    assert await bot.ask_one(USER, "/timezone Asia/Beijing") == (
        "'Asia/Beijing' is not a time zone I know; did you mean Asia/Shanghai? Or use an IANA "
        "name such as Europe/Berlin, a city such as Berlin, or an offset such as +8.\n"
        "For example: /timezone Europe/Berlin"
    )
    assert "did you mean Europe/Berlin?" in await bot.ask_one(USER, "/timezone Europe/Berlni")
    assert "did you mean" not in await bot.ask_one(USER, "/timezone Mars/Olympus")
    assert "Digest: off" in await bot.ask_one(USER, "/digest")  # nothing changed
