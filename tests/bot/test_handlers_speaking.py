"""/pause, /resume, /quiet, /silent, /format through the fake Bot API: their answers, wrong
arguments refused with what was wrong and an example, and /subscriptions showing every setting."""

from __future__ import annotations

from tests.harness.bots import GROUP, USER, Bot
from watcher.store.tables import NO_THREAD


async def test_wrong_arguments_get_what_was_wrong_and_an_example(bot: Bot) -> None:
    assert await bot.ask_one(USER, "/quiet 25:00-07:00") == (
        "'25:00' is not a time of day; use HH:MM from 00:00 to 23:59, or 8am.\n"
        "For example: /quiet 22:00-07:00"
    )
    assert await bot.ask_one(USER, "/quiet 22:00") == (
        "'22:00' is not a window; give its start and end as HH:MM-HH:MM.\n"
        "For example: /quiet 22:00-07:00"
    )
    assert await bot.ask_one(USER, "/format huge") == (
        "'huge' is not a format; use full (each paper in its own message) or compact "
        "(one line per paper).\nFor example: /format compact"
    )
    assert await bot.ask_one(USER, "/silent maybe") == (
        "'maybe' is neither on nor off.\nFor example: /silent on"
    )
    settings = bot.chats.speaking.settings(USER, NO_THREAD)
    assert (settings.quiet, settings.silent, settings.format) == (None, False, "full")


async def test_each_setting_is_answered_and_shown_by_subscriptions(bot: Bot) -> None:
    await bot.ask(USER, "/subscribe")
    assert (await bot.ask_one(USER, "/pause")).startswith("⏸ Paused since ")
    assert await bot.ask_one(USER, "/resume") == "▶️ Resumed. Nothing waited."
    assert await bot.ask_one(USER, "/resume") == (
        "This chat is not paused; /pause holds every message."
    )
    await bot.ask(USER, "/timezone Europe/Berlin")
    quiet = await bot.ask_one(USER, "/quiet 22:00-07:00")
    assert quiet.startswith("✅ Quiet hours: 22:00-07:00 (Europe/Berlin); ")
    assert quiet.endswith("as one summary when there are more than 5. /quiet off ends them.")
    assert (
        await bot.ask_one(USER, "/silent on") == "🔕 Silent: announcements arrive without a sound."
    )
    assert (await bot.ask_one(USER, "/format compact")).startswith("✅ Format: compact, one line")
    await bot.ask(USER, "/pause")

    answer = await bot.ask_one(USER, "/subscriptions")

    settings = answer.split("\nSettings\n", 1)[1].splitlines()
    assert settings[0] == "Digest: off, one message per paper (/digest)."
    assert settings[1] == "Time zone: Europe/Berlin (/timezone)."
    assert settings[2] == "Language: English (/language)."
    assert settings[3].startswith("Quiet hours: 22:00-07:00 (Europe/Berlin); ")
    assert settings[4].startswith("Paused: yes, since ") and settings[4].endswith("(/resume).")
    assert settings[5:] == [
        "Format: compact (/format).",
        "Sound: off (/silent).",
        "Link preview: off.",
        "New versions of papers: off (/revisions on to change).",
    ]
    assert await bot.ask_one(USER, "/quiet off") == "✅ Quiet hours off."
    assert await bot.ask_one(USER, "/format") == (
        "Format: compact, one line per paper (title, followed authors ★, category); papers "
        "found together share one message. /format compact or /format full changes it."
    )


async def test_in_a_group_only_administrators_change_how_it_speaks(bot: Bot) -> None:
    admin, member = 5, 7
    bot.telegram.add_chat(GROUP, chat_type="group", title="Reading group")
    bot.telegram.set_admins(GROUP, [admin])

    for command in ("/pause", "/quiet 22:00-07:00", "/silent on", "/format compact"):
        assert (await bot.ask_one(GROUP, command, user_id=member)).startswith(
            "Only this group's administrators can change how I speak here.\nAnyone can ask: "
        )
    assert (await bot.ask_one(GROUP, "/pause", user_id=admin)).startswith("⏸ Paused since ")
    settings = bot.chats.speaking.settings(GROUP, NO_THREAD)
    assert (settings.paused, settings.quiet, settings.silent, settings.format) == (
        True, None, False, "full"
    )  # fmt: skip
