"""Issue 31, item 2 and 4: each chat (and forum topic) speaks a language, chosen by its first
writer's Telegram client until /language sets it; Telegram's menus and descriptions are set per
language, only where they differ, surviving a 429. Through the fake Bot API (the real PTB
Application long-polls it; the real store holds the languages)."""

from __future__ import annotations

import re
from typing import Any

from sqlalchemy import Engine

from tests.fakes.telegram import FakeTelegram, RateLimits
from tests.fakes.telegram.faults import Fault
from tests.harness.bots import BOT, GROUP, USER, Bot, running_front_end
from watcher.store.tables import NO_THREAD

OTHER = 77
ZH = {"language_code": "zh-hans"}
_HAN = re.compile(r"[\u4e00-\u9fff]")


async def press(bot: Bot, chat_id: int, data: str, **sender: Any) -> str | None:
    """Press a button of the last message; the toast."""
    answered = len(bot.telegram.callback_answers)
    bot.telegram.press_button(chat_id, bot.last(chat_id).message_id, data, **sender)
    await bot.until(lambda: len(bot.telegram.callback_answers) > answered)
    return bot.telegram.callback_answers[-1].text


async def test_the_first_writers_client_language_is_the_chats_until_language_sets_it(
    bot: Bot,
) -> None:
    shown = await bot.ask_one(USER, "/language", **ZH)
    assert shown.startswith("🌐 我在这里使用简体中文。")
    assert bot.chats.speaking.language_of(USER, NO_THREAD) == "zh-Hans"
    # A later writer with another client does not change it; only /language does.
    assert (await bot.ask_one(USER, "/language", language_code="en")).startswith("🌐 我")
    assert await bot.ask_one(OTHER, "/language") == (
        "🌐 I speak English here. Choose another below, or send /language zh or /language en."
    )

    assert await bot.ask_one(USER, "/language en") == "✅ From now on I speak English here."

    assert bot.chats.speaking.language_of(USER, NO_THREAD) == "en"
    assert (await bot.ask_one(USER, "/subscriptions")).count("Language: English (/language).")
    assert await bot.ask_one(OTHER, "/language 中文") == "✅ 从现在起，我在这里使用简体中文。"
    assert bot.chats.speaking.language_of(USER, NO_THREAD) == "en"  # no other chat changed


async def test_clients_asking_for_simplified_chinese_and_the_rest(bot: Bot) -> None:
    for chat_id, code, expected in [
        (101, "zh", "zh-Hans"),
        (102, "zh-cn", "zh-Hans"),
        (103, "zh-sg", "zh-Hans"),
        (104, "zh-hant", "en"),
        (105, "ru", "en"),
        (106, None, "en"),
    ]:
        await bot.ask(chat_id, "/language", language_code=code)
        assert bot.chats.speaking.language_of(chat_id, NO_THREAD) == expected, code


async def test_an_unknown_language_gets_did_you_mean_and_changes_nothing(bot: Bot) -> None:
    assert await bot.ask_one(USER, "/language chinees") == (
        "I do not speak “chinees”. Did you mean /language zh-Hans? "
        "I speak: English (en), 简体中文 (zh-Hans)."
    )
    assert await bot.ask_one(USER, "/language <b>x</b>") == (
        "I do not speak “<b>x</b>”. I speak: English (en), 简体中文 (zh-Hans). "
        "For example: /language zh"
    )
    assert bot.chats.speaking.language_of(USER, NO_THREAD) == "en"


async def test_in_a_group_only_administrators_change_it_by_command_or_button(bot: Bot) -> None:
    admin, member = 9001, 9002
    bot.telegram.add_chat(GROUP, chat_type="group", title="Reading group")
    bot.telegram.set_admins(GROUP, [admin])
    refused = await bot.ask_one(GROUP, "/language zh", user_id=member, **ZH)
    assert refused.startswith("只有") or refused.startswith("Only")
    assert bot.chats.speaking.language_of(GROUP, NO_THREAD) == "zh-Hans"  # its first writer's
    await bot.ask(GROUP, "/language en", user_id=admin)
    assert bot.chats.speaking.language_of(GROUP, NO_THREAD) == "en"

    await bot.ask(GROUP, "/language", user_id=member)
    markup = bot.last(GROUP).reply_markup
    assert markup is not None
    buttons = [(b["text"], b["callback_data"]) for b in markup["inline_keyboard"][0]]
    assert buttons == [("✓ English", "lang:en"), ("简体中文", "lang:zh-Hans")]
    assert await press(bot, GROUP, "lang:zh-Hans", user_id=member) is not None
    assert bot.chats.speaking.language_of(GROUP, NO_THREAD) == "en"
    assert (
        await press(bot, GROUP, "lang:zh-Hans", user_id=admin)
        == "✅ 从现在起，我在这里使用简体中文。"
    )
    assert bot.chats.speaking.language_of(GROUP, NO_THREAD) == "zh-Hans"
    await bot.until(lambda: bot.telegram.edits)
    assert (bot.telegram.edits[-1].text or "").startswith("🌐 我在这里使用简体中文。")


async def test_each_forum_topic_has_its_own(bot: Bot) -> None:
    forum = -1001500
    bot.telegram.add_chat(forum, chat_type="supergroup", title="Forum")
    bot.telegram.set_admins(forum, [9001])
    topic = bot.telegram.create_topic(forum, "Papers")
    await bot.ask(forum, "/language zh", thread_id=topic, user_id=9001)
    assert bot.chats.speaking.language_of(forum, topic) == "zh-Hans"
    assert bot.chats.speaking.language_of(forum, NO_THREAD) != "zh-Hans"


async def test_menus_and_descriptions_are_set_per_language_once_and_survive_a_429(
    engine: Engine, database_url: str
) -> None:
    with FakeTelegram(rate_limits=RateLimits.disabled(), bot_username=BOT) as telegram:
        await _first_and_second_start(engine, database_url, telegram)


async def _first_and_second_start(
    engine: Engine, database_url: str, telegram: FakeTelegram
) -> None:
    async with running_front_end(engine, database_url, telegram=telegram) as bot:
        await bot.until(lambda: telegram.profile.text("short_description", "zh"))
        default, chinese = telegram.commands_for(), telegram.commands_for(language_code="zh")
        assert [c["command"] for c in default] == [c["command"] for c in chinese]
        assert "language" in [c["command"] for c in default]
        assert telegram.profile.text("description").startswith("I watch arXiv")
        assert telegram.profile.text("description", "zh").startswith("我替您关注 arXiv")
        assert len(telegram.profile.text("description", "zh")) <= 512
        assert len(telegram.profile.text("short_description", "zh")) <= 120
        sets = dict(telegram.profile.sets)
        calls = telegram.calls("setMyCommands")

        await bot.ask(USER, "/language zh")
        scope = {"type": "chat", "chat_id": USER}
        await bot.until(lambda: telegram.commands_for(scope))
        assert telegram.commands_for(scope) == chinese
    # A restart sets nothing that has not changed; a 429 on the first read is waited out.
    telegram.inject(Fault.flood(retry_after=1), method="getMyCommands")
    async with running_front_end(engine, database_url, telegram=telegram) as again:
        await again.until(lambda: telegram.faults_pending("getMyCommands") == 0)
        await again.until(lambda: telegram.calls("getMyShortDescription") >= 4)
        await again.settled()
        assert dict(telegram.profile.sets) == sets
        assert telegram.calls("setMyCommands") == calls + 1  # the chat's menu, before


async def test_an_export_from_a_chinese_chat_imports_into_an_english_one_alike(bot: Bot) -> None:
    await bot.ask(USER, "/language zh", **ZH)
    await bot.ask(USER, "/subscribe Dezun Dong")
    await bot.ask(USER, '/watch "remote direct memory access" in cs.DC')
    await bot.ask(USER, "/timezone Asia/Shanghai")
    bot.telegram.user_sends(USER, "/export")
    await bot.until(lambda: bot.telegram.documents(USER))
    exported = bot.telegram.documents(USER)[-1].data
    header = exported.decode().splitlines()[:3]
    assert all(line.startswith("# ") and _HAN.search(line) for line in header), header
    assert "# language: zh-Hans" in exported.decode().splitlines()

    await bot.ask(OTHER, "/language en")
    before = len(bot.telegram.sent(OTHER))
    bot.telegram.user_sends_document(OTHER, exported, caption="/import", file_name="f.txt")
    await bot.until(lambda: len(bot.telegram.sent(OTHER)) > before)
    go = bot.last(OTHER).reply_markup["inline_keyboard"][0][0]["callback_data"]  # type: ignore[index]
    await press(bot, OTHER, go)
    await bot.until(lambda: bot.chats.subscribed_ids(OTHER))

    assert sorted(bot.chats.subscribed_ids(OTHER)) == sorted(bot.chats.subscribed_ids(USER))
    assert bot.chats.digests.settings(OTHER).zone_name == "Asia/Shanghai"
    assert bot.chats.speaking.language_of(OTHER, NO_THREAD) == "zh-Hans"


def test_a_group_that_becomes_a_supergroup_keeps_its_languages(bot: Bot) -> None:
    """Both its first writer's (the chat's) and what /language set in a topic move with it,
    into a new supergroup and into one that spoke to the bot first."""
    for group, supergroup in [(-4001, -1001234567890), (-4002, -1001234567891)]:
        bot.chats.seen(group, kind="group", language="zh-Hans")
        bot.chats.speaking.set_language(group, 7, "en")
        if group == -4002:
            bot.chats.seen(supergroup, kind="supergroup")
        bot.chats.migrate(group, supergroup)
        assert bot.chats.speaking.language_of(supergroup, NO_THREAD) == "zh-Hans"
        assert bot.chats.speaking.language_of(supergroup, 7) == "en"
