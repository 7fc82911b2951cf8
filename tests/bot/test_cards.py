"""Tidier cards (issue 33, item 3), through the fake Bot API: the running bot and a delivery
sender on the real database. A long abstract is in an expandable block quote and a short one
in a plain one; every announcement is sent with `link_preview_options` (off), and `/preview on`
puts the abstract page's preview, small and above the card, in that chat only; in a group only
administrators change it, anyone may ask."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from tests.fakes.corpus import make_record
from tests.fakes.telegram import SentMessage
from tests.harness.bots import GROUP, USER, Bot, wake_sender, with_sender
from watcher.arxiv.records import Record
from watcher.store import MatchedRecord
from watcher.store.tables import NO_THREAD

OTHER = 43  # a second private chat following the same author
SHORT = "We route packets adaptively and measure what it costs."  # well under 600
LONG = " ".join(["Dragonfly networks route packets adaptively under adversarial load."] * 12)
OFF = {"is_disabled": True}


@pytest.fixture
async def front(bot: Bot) -> AsyncIterator[Bot]:
    """The running bot, with a delivery sender on its own Bot (woken by `publish`)."""
    async with with_sender(bot):
        yield bot


def publish(bot: Bot, record: Record) -> None:
    """Store the record as found by Dezun Dong's follow; the sender is told at once."""
    found = bot.store.find_followed("Dezun Dong")
    assert found is not None
    followed = frozenset({found.id})
    bot.store.save_records([MatchedRecord(record, followed)], announce_for=followed)
    wake_sender(bot)


async def announced(bot: Bot, chat_id: int, record: Record) -> SentMessage:
    def find() -> SentMessage | None:
        return next((m for m in bot.telegram.sent(chat_id) if record.arxiv_id in m.text), None)

    await bot.until(find)
    message = find()
    assert message is not None
    return message


def quote_types(message: SentMessage) -> list[str]:
    return [e["type"] for e in message.entities if "blockquote" in e["type"]]


async def test_a_long_abstract_is_expandable_and_a_short_one_is_not(front: Bot) -> None:
    bot = front
    await bot.ask(USER, "/subscribe Dezun Dong")
    short = make_record(arxiv_id="2612.00001", abstract=SHORT)
    long = make_record(arxiv_id="2612.00002", abstract=LONG)
    assert len(SHORT) < 600 < len(LONG) < 3000
    publish(bot, short)
    publish(bot, long)

    first, second = await announced(bot, USER, short), await announced(bot, USER, long)
    assert quote_types(first) == ["blockquote"]
    assert f"<blockquote>{SHORT}</blockquote>" in first.html
    assert quote_types(second) == ["expandable_blockquote"]
    assert f"<blockquote expandable>{LONG}</blockquote>" in second.html


async def test_preview_on_shows_the_abstract_page_above_the_card_in_that_chat_only(
    front: Bot,
) -> None:
    bot = front
    for chat_id in (USER, OTHER):
        await bot.ask(chat_id, "/subscribe Dezun Dong")
    first = make_record(arxiv_id="2612.00011")
    publish(bot, first)
    for chat_id in (USER, OTHER):
        assert (await announced(bot, chat_id, first)).link_preview_options == OFF

    assert await bot.ask_one(USER, "/preview") == (
        "Link preview: off. /preview on or /preview off changes that."
    )
    assert (await bot.ask_one(USER, "/preview on")).startswith("🖼 Preview on: ")
    assert "Link preview: on, the abstract page above each paper (/preview)." in (
        await bot.ask_one(USER, "/subscriptions")
    )
    second = make_record(arxiv_id="2612.00012")
    publish(bot, second)

    assert (await announced(bot, USER, second)).link_preview_options == {
        "url": second.abs_url,
        "prefer_small_media": True,
        "show_above_text": True,
    }
    assert (await announced(bot, OTHER, second)).link_preview_options == OFF

    assert (await bot.ask_one(USER, "/preview off")).startswith("✅ Preview off")
    third = make_record(arxiv_id="2612.00013")
    publish(bot, third)
    assert (await announced(bot, USER, third)).link_preview_options == OFF


async def test_in_a_group_only_administrators_turn_previews_on(bot: Bot) -> None:
    admin, member = 5, 7
    bot.telegram.add_chat(GROUP, chat_type="group", title="Reading group")
    bot.telegram.set_admins(GROUP, [admin])

    assert (await bot.ask_one(GROUP, "/preview on", user_id=member)).startswith(
        "Only this group's administrators can change how I speak here.\nAnyone can ask: "
    )
    assert not bot.chats.speaking.settings(GROUP, NO_THREAD).preview
    assert (await bot.ask_one(GROUP, "/preview", user_id=member)).startswith("Link preview: off.")
    assert (await bot.ask_one(GROUP, "/preview maybe", user_id=admin)).startswith(
        "'maybe' is neither on nor off."
    )
    assert (await bot.ask_one(GROUP, "/preview on", user_id=admin)).startswith("🖼 Preview on")
    assert bot.chats.speaking.settings(GROUP, NO_THREAD).preview
    assert "/preview on|off" in await bot.ask_one(GROUP, "/help preview", user_id=member)
