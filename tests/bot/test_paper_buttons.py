"""The buttons under an announcement (issue 21, items 2 and 3), through the fake Bot API: the
running bot and a delivery sender, on the real database: the title links to the abstract
page; a row of Abstract / PDF / HTML, then one of Cite / Save / Share / Copy id (issue 33),
then Unfollow; Cite answers with
BibTeX with odd characters escaped; Unfollow asks, then stops that follow in this chat only; a
topic's hit says which topic and offers "Mute topic"; in a group only admins may unfollow,
anyone may cite; old presses are answered clearly; a revision says what changed."""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import replace
from typing import Any

import pytest

from bot.handlers.paper_buttons import KEPT
from bot.handlers.permissions import only_admins
from tests.fakes.corpus import make_record
from tests.fakes.telegram import SentMessage
from tests.harness.bibtex_reader import read_entry
from tests.harness.bots import GROUP, USER, Bot, wake_sender, with_sender
from watcher.arxiv.records import Record
from watcher.kinds import FollowKind
from watcher.store import MatchedRecord

OTHER = 43  # a second private chat following the same author
ODD = make_record(
    arxiv_id="2611.04242",
    title=r"Braces {open and $\alpha$-stable \emph{laws}: 30% of A&B} Results\}, note = {x}",
    authors=["Dézun Dong", 'Kurt G{\\"o}del'],
    doi="10.1145/3458817.3476181",
    journal_ref="Proc. SC '26 #3",
)


@pytest.fixture
async def front(bot: Bot) -> AsyncIterator[Bot]:
    """The running bot, with a delivery sender on its own Bot (woken by `publish`)."""
    async with with_sender(bot):
        yield bot


def publish(bot: Bot, record: Record, followed_id: int) -> None:
    """Store the record as found by the follow; the sender is told at once (as after a poll)."""
    followed = frozenset({followed_id})
    saved = bot.store.save_records([MatchedRecord(record, followed)], announce_for=followed)
    wake_sender(bot, revisions=bool(saved.revisions))


def dezun(bot: Bot) -> int:
    found = bot.store.find_followed("Dezun Dong")
    assert found is not None
    return found.id


async def announced(bot: Bot, chat_id: int, record: Record) -> SentMessage:
    def find() -> SentMessage | None:
        return next((m for m in bot.telegram.sent(chat_id) if record.arxiv_id in m.text), None)

    await bot.until(find)
    message = find()
    assert message is not None
    return message


def row(message: SentMessage) -> list[dict[str, Any]]:
    """The buttons under a message, its rows one after the other (a paper's are two: the links,
    then what talks back)."""
    assert message.reply_markup is not None
    return [button for row in message.reply_markup["inline_keyboard"] for button in row]


async def press(bot: Bot, message: SentMessage, text: str, **sender: Any) -> None:
    (data,) = [b["callback_data"] for b in row(message) if b["text"] == text]
    await press_data(bot, message, data, **sender)


async def press_data(bot: Bot, message: SentMessage, data: str, **sender: Any) -> None:
    answered = len(bot.telegram.callback_answers)
    bot.telegram.press_button(message.chat_id, message.message_id, data, **sender)
    await bot.until(lambda: len(bot.telegram.callback_answers) > answered)


async def test_an_announcement_links_its_title_and_cites_itself(front: Bot) -> None:
    bot = front
    await bot.ask(USER, "/subscribe")
    publish(bot, ODD, dezun(bot))
    message = await announced(bot, USER, ODD)

    assert f'<a href="{ODD.abs_url}"><b>' in message.html
    assert message.reply_markup is not None
    assert [[b["text"] for b in r] for r in message.reply_markup["inline_keyboard"]] == [
        ["📄 Abstract", "📥 PDF", "🌐 HTML"], ["❝ Cite", "🔖 Save", "↗ Share", "📋 Copy id"],
        ["🔕 Unfollow Dezun Dong"],
    ]  # fmt: skip
    # Share and copy (issue 33), exactly as Telegram receives them.
    assert message.reply_markup["inline_keyboard"][1][2:] == [
        {
            "text": "↗ Share",
            "switch_inline_query_chosen_chat": {
                "query": "2611.04242",
                "allow_user_chats": True,
                "allow_group_chats": True,
                "allow_channel_chats": True,
            },
        },
        {"text": "📋 Copy id", "copy_text": {"text": "arXiv:2611.04242"}},
    ]
    assert row(message)[2]["url"] == "https://arxiv.org/html/2611.04242"
    assert all(len(b.get("callback_data", "").encode()) <= 64 for b in row(message))

    before = len(bot.telegram.sent(USER))
    await press(bot, message, "❝ Cite")
    await bot.until(lambda: len(bot.telegram.sent(USER)) > before)
    cite = bot.last(USER)
    # Read back by a real BibTeX parser: the crafted title writes no field of its own.
    assert read_entry(cite.text + "\n") == (
        "dong2026bracesopenstablelaws",
        {
            "title": r"Braces {open and $\alpha$-stable \emph{laws}: 30\% of A\&B} Results"
            r"\textbraceright{}, note = {x}",
            "author": 'Dézun Dong and Kurt G{\\"o}del',
            "year": str(ODD.updated.year),
            "eprint": "2611.04242",
            "archivePrefix": "arXiv",
            "primaryClass": "cs.DC",
            "doi": "10.1145/3458817.3476181",
            "note": r"Proc. SC '26 \#3",
            "url": "https://arxiv.org/abs/2611.04242",
        },
    )
    assert [e["type"] for e in cite.entities] == ["pre"]
    assert cite.entities[0].get("language") == "bibtex"

    # An old message's Cite, for a paper no longer stored: a clear answer, nothing sent.
    sent = len(bot.telegram.sent(USER))
    await press_data(bot, message, "a:c:2511.99999")
    answer = bot.telegram.callback_answers[-1]
    assert answer.show_alert
    assert answer.text == (
        "arXiv:2511.99999 is no longer stored here; its page is https://arxiv.org/abs/2511.99999"
    )
    await bot.settled()
    assert len(bot.telegram.sent(USER)) == sent


async def test_unfollow_asks_then_stops_that_follow_in_this_chat_only(front: Bot) -> None:
    bot = front
    await bot.ask(USER, "/subscribe")
    await bot.ask(OTHER, "/subscribe")
    publish(bot, ODD, dezun(bot))
    message = await announced(bot, USER, ODD)
    await announced(bot, OTHER, ODD)

    before = len(bot.telegram.sent(USER))
    await press(bot, message, "🔕 Unfollow Dezun Dong")
    await bot.until(lambda: len(bot.telegram.sent(USER)) > before)
    question = bot.last(USER)
    assert question.text == (
        "Stop following Dezun Dong in this chat? Nothing else it follows changes."
    )
    assert bot.chats.subscribed_ids(USER) == [dezun(bot)]  # asking changes nothing
    assert [b["text"] for b in row(question)] == ["Yes, unfollow", "Keep"]

    await press(bot, question, "Yes, unfollow")
    await bot.until(lambda: bot.telegram.edits)
    assert bot.telegram.edits[-1].text == "✅ This chat no longer follows Dezun Dong."
    assert bot.chats.subscribed_ids(USER) == []
    assert bot.chats.subscribed_ids(OTHER) == [dezun(bot)]

    # Old presses: the announcement's button and the question's, once the follow is gone.
    await press(bot, message, "🔕 Unfollow Dezun Dong")
    gone = "This chat no longer has that follow: nothing to stop."
    assert bot.telegram.callback_answers[-1].text == gone
    await press(bot, question, "Yes, unfollow")
    assert bot.telegram.callback_answers[-1].text == gone
    await press_data(bot, question, "a:y:notanumber:2611.04242")
    assert bot.telegram.callback_answers[-1].text == (
        "This button no longer works; the message is too old."
    )
    assert bot.chats.subscribed_ids(OTHER) == [dezun(bot)]


async def test_in_a_group_anyone_may_cite_and_only_admins_unfollow(front: Bot) -> None:
    bot = front
    admin, member = 5, 7
    bot.telegram.add_chat(GROUP, chat_type="group", title="Reading group")
    bot.telegram.set_admins(GROUP, [admin])
    await bot.ask(GROUP, "/subscribe", user_id=admin)
    publish(bot, ODD, dezun(bot))
    message = await announced(bot, GROUP, ODD)

    await press(bot, message, "🔕 Unfollow Dezun Dong", user_id=member)
    assert bot.telegram.callback_answers[-1].text == only_admins("group")
    assert bot.chats.subscribed_ids(GROUP) == [dezun(bot)]

    before = len(bot.telegram.sent(GROUP))
    await press(bot, message, "❝ Cite", user_id=member)
    await bot.until(lambda: len(bot.telegram.sent(GROUP)) > before)
    assert bot.last(GROUP).text.startswith("@misc{dong2026")
    assert bot.last(GROUP).reply_to_message_id == message.message_id  # issue 30: which paper

    before = len(bot.telegram.sent(GROUP))
    await press(bot, message, "🔕 Unfollow Dezun Dong", user_id=admin)
    await bot.until(lambda: len(bot.telegram.sent(GROUP)) > before)
    question = bot.last(GROUP)
    await press(bot, question, "Keep", user_id=member)
    assert bot.telegram.callback_answers[-1].text == only_admins("group")
    await press(bot, question, "Keep", user_id=admin)
    await bot.until(lambda: bot.telegram.edits)
    assert bot.telegram.edits[-1].text == KEPT
    assert bot.chats.subscribed_ids(GROUP) == [dezun(bot)]


async def test_a_topic_hit_names_its_topic_and_mute_topic_stops_it(front: Bot) -> None:
    bot = front
    await bot.ask(USER, '/watch "remote direct memory access" RDMA in cs.DC')
    (topic,) = [f for f in bot.store.followed() if f.kind == FollowKind.TOPIC]
    paper = make_record(
        arxiv_id="2611.50002",
        title="RDMA Transports, Faster",
        abstract="Remote direct memory access, faster.",
        authors=["Ada Topicwriter"],
    )
    publish(bot, paper, topic.id)
    message = await announced(bot, USER, paper)

    assert message.text.splitlines()[1] == '🔎 "remote direct memory access" rdma in cs.DC'
    assert [b["text"] for b in row(message)][-1] == "🔕 Mute topic"

    before = len(bot.telegram.sent(USER))
    await press(bot, message, "🔕 Mute topic")
    await bot.until(lambda: len(bot.telegram.sent(USER)) > before)
    question = bot.last(USER)
    assert question.text.startswith("Stop watching the topic")
    await press(bot, question, "Yes, mute it")
    await bot.until(lambda: bot.telegram.edits)
    assert bot.telegram.edits[-1].text == (
        '✅ This chat no longer watches "remote direct memory access" rdma in cs.DC.'
    )
    assert bot.chats.subscribed_ids(USER) == []


async def test_a_revision_says_what_changed(front: Bot) -> None:
    bot = front
    await bot.ask(USER, "/subscribe")
    await bot.ask(USER, "/revisions on")
    publish(bot, ODD, dezun(bot))
    await announced(bot, USER, ODD)

    revised = replace(ODD, version=2, title="A Better Title", comment="12 pages")
    publish(bot, revised, dezun(bot))
    await bot.until(lambda: "Updated to v2" in bot.last(USER).text)

    lines = bot.last(USER).text.splitlines()
    assert lines[1] == "A Better Title"
    assert "✏️ Changed: title, comments" in lines
    assert lines[-1] == "📝 Abstract unchanged: on the abstract page."
    assert ODD.abstract not in bot.last(USER).text
