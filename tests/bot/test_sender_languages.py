"""Issue 31: what the sender sends speaks each destination's language: an announcement (its
labels and buttons), a compact line, a "While you were away" summary and a digest, while the
paper's own title and abstract stay exactly as arXiv has them. One paper going to a Chinese and
an English chat is composed once per language (the render cache keys on it). And in the
pseudo-locale (`tests.harness.pseudo_locale`) nothing the sender says is left outside the
catalog. On the real outbox and the fake Bot API (`tests.harness.delivery`)."""

from __future__ import annotations

import asyncio
import re
from datetime import timedelta
from pathlib import Path

from sqlalchemy import Engine

from bot.digest import render_digest_parts
from tests.fakes.telegram import FakeTelegram
from tests.harness.clocks import TurnedClock
from tests.harness.delivery import World, eventually, make_world, sending, sent_count
from tests.harness.pseudo_locale import english_left, install_pseudo
from watcher.arxiv.records import Record
from watcher.calendars.schedule import DigestSchedule
from watcher.kinds import MessageFormat
from watcher.store.tables import NO_THREAD

CHINESE, ENGLISH = 21, 22
_HAN = re.compile(r"[\u4e00-\u9fff]")


def speaks(world: World, chat_id: int, language: str) -> None:
    """The chat's first writer's client asked for `language`; it follows the watched author."""
    world.chats.seen(chat_id, kind="private", language=language)
    world.subscribe(chat_id)


def buttons(world: World, chat_id: int) -> list[str]:
    markup = world.fake.sent(chat_id)[-1].reply_markup or {}
    return [button["text"] for row in markup.get("inline_keyboard", []) for button in row]


def own_text(record: Record) -> list[str]:
    return [
        record.title,
        record.abstract,
        *(a.name for a in record.authors),
        record.comment or "",
        record.journal_ref or "",
    ]


async def test_an_announcement_speaks_each_chats_language_and_keeps_the_papers_own_words(
    world: World,
) -> None:
    speaks(world, CHINESE, "zh-Hans")
    speaks(world, ENGLISH, "en")
    record = world.publish("2611.00001", title="RDMA at Scale", comment="12 pages")

    async with sending(world):
        await eventually(sent_count(world, 2))

    chinese, english = world.fake.sent(CHINESE)[-1], world.fake.sent(ENGLISH)[-1]
    assert record.title in chinese.text and record.title in english.text
    assert record.abstract[:200] in chinese.text.replace("\n", " ")
    assert _HAN.search(" ".join(buttons(world, CHINESE)))
    assert not _HAN.search(english.text + " ".join(buttons(world, ENGLISH)))
    assert chinese.text != english.text  # composed once per language, not cached across


async def test_a_summary_and_compact_lines_speak_the_chats_language(world: World) -> None:
    speaks(world, CHINESE, "zh-Hans")
    world.chats.speaking.pause(CHINESE, NO_THREAD)
    speaks(world, ENGLISH, "zh-Hans")  # a second Chinese chat, in compact lines
    world.chats.speaking.set_format(ENGLISH, NO_THREAD, MessageFormat.COMPACT)
    for n in range(8):
        world.publish(f"2611.{n:05d}", title=f"Paper number {n}")
    async with sending(world) as sender:
        await eventually(lambda: world.fake.sent(ENGLISH))
        world.chats.speaking.resume(CHINESE, NO_THREAD)
        sender.speaking_changed()
        await eventually(lambda: world.fake.sent(CHINESE))

    (summary,) = world.fake.sent(CHINESE)
    assert _HAN.search(summary.text.splitlines()[0]), summary.text  # "While you were away"
    assert "Paper number 0" in summary.text
    assert "While you were away" not in summary.text
    compact = world.fake.sent(ENGLISH)[0].text
    assert "Paper number 0" in compact
    assert _HAN.search(" ".join(buttons(world, ENGLISH)) + compact) or "·" in compact


async def test_a_digest_speaks_the_chats_language(
    fake: FakeTelegram, engine: Engine, database_url: str, tmp_path: Path
) -> None:
    clock = TurnedClock(tmp_path / "clock")
    async with make_world(fake, engine, database_url, clock=clock) as world:
        speaks(world, CHINESE, "zh-Hans")
        at = (clock() + timedelta(hours=3)).replace(second=0, microsecond=0)
        world.chats.digests.set_schedule(
            CHINESE, DigestSchedule(at.time()), render=render_digest_parts, now=clock()
        )
        for n in range(3):
            world.publish(f"2611.{n:05d}", title=f"Digest paper {n}")
        async with sending(world):
            await asyncio.sleep(0.5)
            clock.turn_to(at)
            await eventually(lambda: world.fake.sent(CHINESE))
    (digest,) = world.fake.sent(CHINESE)
    assert _HAN.search(digest.text.splitlines()[0]), digest.text
    assert all(digest.text.count(f"Digest paper {n}") == 1 for n in range(3))


async def test_in_the_pseudo_locale_nothing_the_sender_says_escapes_the_catalog(
    world: World,
) -> None:
    pseudo = install_pseudo()
    speaks(world, CHINESE, pseudo)
    speaks(world, ENGLISH, pseudo)
    world.chats.speaking.set_format(ENGLISH, NO_THREAD, MessageFormat.COMPACT)
    world.chats.set_notify_revisions(CHINESE, True)
    async with sending(world) as sender:
        records = [world.publish(f"2611.{n:05d}", title=f"Paper number {n}") for n in range(3)]
        sender.wake()
        await eventually(lambda: len(world.fake.sent(CHINESE)) == 3)
        world.chats.speaking.pause(CHINESE, NO_THREAD)
        sender.speaking_changed()
        records += [world.publish(f"2611.{n:05d}", title=f"Paper number {n}") for n in range(3, 10)]
        world.chats.speaking.resume(CHINESE, NO_THREAD)
        sender.speaking_changed()
        await eventually(lambda: len(world.fake.sent(CHINESE)) == 4)
        await eventually(lambda: world.outbox.stats().pending == 0)

    exempt = [text for record in records for text in own_text(record)]
    said = [m.text for chat in (CHINESE, ENGLISH) for m in world.fake.sent(chat)]
    said += [" ".join(buttons(world, chat)) for chat in (CHINESE, ENGLISH)]
    escaped = {text[:200]: english_left(text, exempt) for text in said}
    assert {text: words for text, words in escaped.items() if words} == {}
