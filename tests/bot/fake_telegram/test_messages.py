"""The fake Bot API's sendMessage, through PTB: HTML is stored as plain text with entities counted
in UTF-16, bad HTML and empty or too long text are refused like Telegram does, message ids
increase per chat, and flood control answers with RetryAfter per chat, per group and globally.
"""

from __future__ import annotations

import datetime as dtm

import pytest
from telegram import (
    Bot,
    CopyTextButton,
    InlineKeyboardButton,
    InlineKeyboardMarkup,
    LinkPreviewOptions,
    SwitchInlineQueryChosenChat,
)
from telegram.constants import ParseMode
from telegram.error import BadRequest, RetryAfter

from tests.fakes.telegram import FakeTelegram, RateLimits, parse_html
from tests.harness.fake_telegram_ids import ALICE, GROUP, TOKEN


async def test_get_me_returns_the_bot_user(bot: Bot) -> None:
    me = await bot.get_me()
    assert (me.id, me.is_bot, me.username) == (123456, True, "arxiv_watcher_bot")


async def test_html_message_is_stored_as_plain_text_with_entities(
    fake: FakeTelegram, bot: Bot
) -> None:
    html = '<b>New</b> paper: latency &lt; 200 µs &amp; A&#38;B <a href="https://arxiv.org/abs/1">abs</a>'
    markup = InlineKeyboardMarkup([[InlineKeyboardButton("Mute", callback_data="mute:1")]])
    message = await bot.send_message(
        ALICE,
        html,
        parse_mode=ParseMode.HTML,
        reply_markup=markup,
        link_preview_options=LinkPreviewOptions(is_disabled=True),
    )
    assert message.text == "New paper: latency < 200 µs & A&B abs"
    assert [(e.type, e.offset, e.length) for e in message.entities] == [
        ("bold", 0, 3),
        ("text_link", 34, 3),
    ]
    assert message.entities[1].url == "https://arxiv.org/abs/1"
    assert message.reply_markup == markup
    assert message.from_user is not None
    assert message.from_user.id == 123456

    [sent] = fake.sent(ALICE)
    assert (sent.message_id, sent.html, sent.parse_mode) == (message.message_id, html, "HTML")
    assert sent.link_preview_options == {"is_disabled": True}
    assert sent.reply_markup == {"inline_keyboard": [[{"text": "Mute", "callback_data": "mute:1"}]]}


async def test_message_ids_increase_per_chat(bot: Bot) -> None:
    first = await bot.send_message(ALICE, "one")
    second = await bot.send_message(ALICE, "two")
    elsewhere = await bot.send_message(ALICE + 1, "one")
    assert (first.message_id, second.message_id, elsewhere.message_id) == (1, 2, 1)
    assert first.chat.type == "private"


@pytest.mark.parametrize(
    ("html", "reason"),
    [
        ("latency < 200 µs", 'Unsupported start tag "" at byte offset 8'),
        ("<b>bold", "Can't find end tag corresponding to start tag b"),
        ("<foo>x</foo>", 'Unsupported start tag "foo" at byte offset 0'),
        ("<b>x</i>", 'Unmatched end tag at byte offset 4, expected "</b>", found "</i>"'),
        ("x</b>", "Unexpected end tag at byte offset 1"),
        ("µ<br/>", 'Unsupported start tag "br/" at byte offset 2'),
        ("<span>x</span>", 'Tag "span" must have class "tg-spoiler" at byte offset 0'),
        ("A & B", 'Character "&" must be escaped as "&amp;" at byte offset 2'),
        ("a<b", "Unclosed start tag at byte offset 1"),
    ],
)
async def test_bad_html_is_refused_like_telegram(
    fake: FakeTelegram, bot: Bot, html: str, reason: str
) -> None:
    with pytest.raises(BadRequest) as refused:
        await bot.send_message(ALICE, html, parse_mode=ParseMode.HTML)
    # PTB strips "Bad Request: " and capitalizes what is left (lower-casing the rest).
    assert refused.value.message == f"Can't parse entities: {reason}".capitalize()
    assert fake.sent() == []


async def test_allowed_tags_and_nesting_pass(bot: Bot) -> None:
    html = (
        "<b>b <i>bi <u>biu</u></i></b> <s>s</s> <tg-spoiler>x</tg-spoiler> "
        '<span class="tg-spoiler">y</span> <code>c</code> '
        '<pre><code class="language-python">p = 1</code></pre> '
        "<blockquote expandable>q</blockquote> &quot;&#x41;&#66;&gt;"
    )
    message = await bot.send_message(ALICE, html, parse_mode=ParseMode.HTML)
    assert message.text == 'b bi biu s x y c p = 1 q "AB>'
    pre = next(e for e in message.entities if e.type == "pre")
    assert pre.language == "python"
    assert {e.type for e in message.entities} >= {
        "bold",
        "italic",
        "underline",
        "strikethrough",
        "spoiler",
        "code",
        "expandable_blockquote",
    }


async def test_length_is_counted_after_entity_parsing_in_utf16(bot: Bot) -> None:
    await bot.send_message(ALICE, "<b>" + "a" * 4096 + "</b>", parse_mode=ParseMode.HTML)
    await bot.send_message(ALICE, "&amp;" * 4096, parse_mode=ParseMode.HTML)
    await bot.send_message(ALICE, "😀" * 2048)  # 4096 UTF-16 units
    for too_long in ("a" * 4097, "😀" * 2048 + "a"):
        with pytest.raises(BadRequest, match="Message is too long"):
            await bot.send_message(ALICE, too_long)


@pytest.mark.parametrize("text", ["   ", "<b></b>", "<i> </i>"])
async def test_empty_text_is_refused(bot: Bot, text: str) -> None:
    with pytest.raises(BadRequest, match="Message text is empty"):
        await bot.send_message(ALICE, text, parse_mode=ParseMode.HTML)


async def test_per_chat_flood_control_raises_retry_after() -> None:
    limits = RateLimits(per_chat_per_second=0.01, per_chat_burst=2)
    with FakeTelegram(TOKEN, rate_limits=limits) as fake:
        async with Bot(TOKEN, base_url=fake.base_url) as bot:
            await bot.send_message(ALICE, "1")
            await bot.send_message(ALICE, "2")
            with pytest.raises(RetryAfter) as flood:
                await bot.send_message(ALICE, "3")
            await bot.send_message(ALICE + 1, "another chat is not limited")
        assert isinstance(flood.value.retry_after, dtm.timedelta)
        assert flood.value.retry_after >= dtm.timedelta(seconds=1)
        assert fake.count_429 == 1
        assert [m.text for m in fake.sent(ALICE)] == ["1", "2"]


async def test_group_and_global_limits() -> None:
    limits = RateLimits(per_group_per_minute=0.5, per_group_burst=2, global_per_second=0.01)
    with FakeTelegram(TOKEN, rate_limits=limits) as fake:
        async with Bot(TOKEN, base_url=fake.base_url) as bot:
            for text in ("1", "2", "3"):  # a private chat may burst three
                await bot.send_message(ALICE, text)
            await bot.send_message(GROUP, "1")
            await bot.send_message(GROUP, "2")
            with pytest.raises(RetryAfter):  # within the per-chat burst, over the group's
                await bot.send_message(GROUP, "3")
            await bot.send_message(GROUP - 1, "another group has its own budget")
        assert fake.count_429 == 1

    limits = RateLimits(global_per_second=0.01, global_burst=3)
    with FakeTelegram(TOKEN, rate_limits=limits) as fake:
        async with Bot(TOKEN, base_url=fake.base_url) as bot:
            for chat_id in (1, 2, 3):
                await bot.send_message(chat_id, "ok")
            with pytest.raises(RetryAfter):
                await bot.send_message(4, "over the global limit")


def test_parse_html_counts_entity_offsets_in_utf16() -> None:
    parsed = parse_html("😀 <b>x</b>")
    assert parsed.text == "😀 x"
    assert parsed.entities == [{"offset": 3, "length": 1, "type": "bold"}]
    assert parse_html("A & B", strict_ampersand=False).text == "A & B"


# --- share and copy buttons (Bot API 6.7 `switch_inline_query_chosen_chat`, 7.11 `copy_text`) --


SHARE = InlineKeyboardButton(
    "Share",
    switch_inline_query_chosen_chat=SwitchInlineQueryChosenChat(
        "2412.01234", allow_user_chats=True, allow_group_chats=True, allow_channel_chats=True
    ),
)
COPY = InlineKeyboardButton("Copy", copy_text=CopyTextButton("arXiv:2412.01234"))


async def test_share_and_copy_buttons_are_kept_and_read_back(fake: FakeTelegram, bot: Bot) -> None:
    markup = InlineKeyboardMarkup([[SHARE, COPY]])
    message = await bot.send_message(ALICE, "paper", reply_markup=markup)
    assert message.reply_markup == markup
    [sent] = fake.sent(ALICE)
    assert sent.reply_markup == {
        "inline_keyboard": [
            [
                {
                    "text": "Share",
                    "switch_inline_query_chosen_chat": {
                        "query": "2412.01234",
                        "allow_user_chats": True,
                        "allow_group_chats": True,
                        "allow_channel_chats": True,
                    },
                },
                {"text": "Copy", "copy_text": {"text": "arXiv:2412.01234"}},
            ]
        ]
    }


@pytest.mark.parametrize(
    ("button", "reason"),
    [
        (InlineKeyboardButton("Copy", copy_text=CopyTextButton("")), "(?i)copy_text_invalid"),
        (
            InlineKeyboardButton("Copy", copy_text=CopyTextButton("x" * 257)),
            "(?i)copy_text_invalid",
        ),
        (
            InlineKeyboardButton(
                "Share", switch_inline_query_chosen_chat=SwitchInlineQueryChosenChat("1")
            ),
            "(?i)button_type_invalid",
        ),
        (
            InlineKeyboardButton("Both", url="https://arxiv.org", copy_text=CopyTextButton("x")),
            "one button type expected",
        ),
    ],
)
async def test_a_bad_share_or_copy_button_is_refused(
    bot: Bot, button: InlineKeyboardButton, reason: str
) -> None:
    with pytest.raises(BadRequest, match=reason):
        await bot.send_message(ALICE, "paper", reply_markup=InlineKeyboardMarkup([[button]]))
