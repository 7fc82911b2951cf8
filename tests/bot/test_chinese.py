"""Issue 31, "what must show", through the fake Bot API: a reader whose Telegram client asks for
Simplified Chinese (`language_code` zh-hans) gets Chinese from /start on; /help is Chinese and
about as long as the English; a refusal is Chinese with its example command unchanged; the
group welcome is Chinese when a Chinese reader adds the bot. (Announcements, summaries and
digests: `test_sender_languages.py`; /language, menus, export and import: `test_language.py`.)
"""

from __future__ import annotations

import re

from tests.harness.bots import GROUP, USER, Bot

CHINESE_READER = 8801
ZH = {"language_code": "zh-hans"}
_HAN = re.compile(r"[\u4e00-\u9fff]")


def han_share(text: str) -> float:
    """The share of Chinese characters among the letters of `text`."""
    letters = [c for c in text if c.isalpha()]
    return sum(1 for c in letters if _HAN.match(c)) / max(1, len(letters))


async def test_a_chinese_reader_gets_chinese_from_start_and_help_of_the_same_length(
    bot: Bot,
) -> None:
    start = await bot.ask_one(CHINESE_READER, "/start", **ZH)
    assert han_share(start) > 0.3, start
    chinese = await bot.ask_one(CHINESE_READER, "/help")
    english = await bot.ask_one(USER, "/help")
    assert han_share(chinese) > 0.3, chinese
    assert han_share(english) == 0
    # The same commands, in the same order; Chinese is denser, so shorter, but not a stub.
    assert re.findall(r"/\w+", chinese) == re.findall(r"/\w+", english)
    assert 0.3 * len(english) <= len(chinese) <= 1.2 * len(english)
    detail = await bot.ask_one(CHINESE_READER, "/help subscribe")
    assert han_share(detail) > 0.2, detail
    assert "/subscribe Dezun Dong" in detail


async def test_a_refusal_is_chinese_with_its_example_unchanged(bot: Bot) -> None:
    for wrong in ["/quiet 25:00-07:00", "/format huge", "/recent abc", "/subject cs.XX"]:
        chinese = await bot.ask_one(CHINESE_READER, wrong, **ZH)
        english = await bot.ask_one(USER, wrong)
        assert han_share(chinese.splitlines()[0]) > 0.2, chinese
        example = english.splitlines()[-1].split(": ", 1)[1]  # "For example: /quiet 22:00-07:00"
        assert chinese.splitlines()[-1].endswith(example), (chinese, example)


async def test_the_group_welcome_speaks_the_language_of_whoever_added_the_bot(bot: Bot) -> None:
    bot.telegram.add_chat(GROUP, chat_type="group", title="阅读小组")
    before = len(bot.telegram.sent(GROUP))
    bot.telegram.my_chat_member(GROUP, "member", user_id=CHINESE_READER, **ZH)
    await bot.until(lambda: len(bot.telegram.sent(GROUP)) > before)
    welcome = bot.telegram.sent(GROUP)[-1].text
    assert han_share(welcome) > 0.3, welcome
    assert "/subscribe Dezun Dong" in welcome
