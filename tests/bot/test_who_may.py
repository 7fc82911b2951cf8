"""Who may press the buttons that change a chat (issue 29, item 2; README "Who may do what,
where"), through the fake Bot API as people type and press: in a private chat the person; in a
group, a forum topic and a channel only administrators. In a channel any reader can press, and
Telegram only checks who posts, so the bot asks getChatMember about the presser.

Every question that changes the chat is asked by an administrator: a paper's "Unfollow NAME" and
"Mute topic" (and their "Yes" and "Keep"), /unsubscribe's "Unfollow all" and "Keep", the import
question's "Import" and "Cancel", and the homonym question's choice. A non-administrator's press
changes nothing and is answered; then an administrator's presses work."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from bot.handlers.permissions import could_not_check, only_admins
from tests.fakes.corpus import make_record
from tests.fakes.telegram import Fault, SentMessage
from tests.harness.bots import GROUP, USER, Bot
from watcher.kinds import FollowKind
from watcher.store.tables import NO_THREAD

ADMIN, READER = 5, 7
FORUM = -1001500
CHANNEL = -1002500
PAPER = "2611.04242"  # the paper whose buttons are pressed (a press needs no stored paper)


@dataclass
class Chat:
    """One chat of a kind, where ADMIN administers; `send` posts as ADMIN (in a channel: as the
    channel, as every post there is)."""

    bot: Bot
    kind: str
    chat_id: int
    thread_id: int = NO_THREAD

    @classmethod
    def open(cls, bot: Bot, kind: str) -> Chat:
        telegram = bot.telegram
        if kind == "private":
            return cls(bot, kind, USER)
        if kind == "group":
            telegram.add_chat(GROUP, chat_type="group", title="Reading group")
            telegram.set_admins(GROUP, [ADMIN])
            return cls(bot, kind, GROUP)
        if kind == "forum":
            thread = telegram.create_topic(FORUM, "Papers")
            telegram.set_admins(FORUM, [ADMIN])
            return cls(bot, kind, FORUM, thread)
        telegram.add_channel(CHANNEL, title="Papers channel")
        telegram.set_admins(CHANNEL, [ADMIN])
        return cls(bot, kind, CHANNEL)

    @property
    def admin(self) -> int:
        return USER if self.kind == "private" else ADMIN

    async def ask(self, text: str) -> SentMessage:
        """Post `text` as the administrator; the bot's answer."""
        before = len(self.bot.telegram.sent(self.chat_id))
        thread = self.thread_id or None
        if self.kind == "channel":
            self.bot.telegram.channel_post(self.chat_id, text)
        else:
            self.bot.telegram.user_sends(self.chat_id, text, user_id=self.admin, thread_id=thread)
        await self.bot.until(lambda: len(self.bot.telegram.sent(self.chat_id)) > before)
        return self.bot.last(self.chat_id)

    async def import_file(self, data: bytes) -> SentMessage:
        before = len(self.bot.telegram.sent(self.chat_id))
        self.bot.telegram.user_sends_document(
            self.chat_id,
            data,
            caption="/import",
            user_id=self.admin,
            thread_id=self.thread_id or None,
        )
        await self.bot.until(lambda: len(self.bot.telegram.sent(self.chat_id)) > before)
        return self.bot.last(self.chat_id)

    async def press(self, message: SentMessage, data: str, user_id: int) -> str | None:
        """Press a button under `message`; the answer's text (None: answered without text)."""
        answered = len(self.bot.telegram.callback_answers)
        self.bot.telegram.press_button(self.chat_id, message.message_id, data, user_id=user_id)
        await self.bot.until(lambda: len(self.bot.telegram.callback_answers) > answered)
        return self.bot.telegram.callback_answers[-1].text

    def follows(self) -> list[str]:
        ids = self.bot.chats.subscribed_ids(self.chat_id, thread_id=self.thread_id)
        return sorted(f.label for f in self.bot.store.followed(ids))


def add_namesakes(bot: Bot) -> None:
    """ "Wei Wang" on papers in several fields: the homonym question is asked."""
    for index, category in enumerate(["cs.DC", "cs.DC", "cs.NI", "math.OC", "hep-th", "cs.DC"]):
        bot.arxiv.add(
            make_record(
                arxiv_id=f"2605.{index + 1:05d}",
                authors=["Wei Wang", "Someone Else"],
                primary_category=category,
                categories=(category,),
            )
        )


def data_of(message: SentMessage) -> list[str]:
    assert message.reply_markup is not None
    return [b["callback_data"] for row in message.reply_markup["inline_keyboard"] for b in row]


@dataclass
class Questions:
    """Every question that changes the chat, asked by its administrator, and its buttons."""

    anchor: SentMessage  # a message of the bot's, to press a paper's buttons under
    unfollow: str  # a paper's "Unfollow Dezun Dong", "Yes, unfollow", "Mute topic" and "Keep"
    confirm: str
    mute: str
    keep: str
    homonym: SentMessage
    everything: SentMessage  # /unsubscribe's "Unfollow all N" and "Keep"
    importing: SentMessage  # "Import N" and "Cancel"

    def presses(self) -> list[tuple[SentMessage, str]]:
        return [
            (self.anchor, self.unfollow),
            (self.anchor, self.confirm),
            (self.anchor, self.mute),
            (self.anchor, self.keep),
            (self.homonym, data_of(self.homonym)[0]),
            *[(self.everything, data) for data in data_of(self.everything)],
            *[(self.importing, data) for data in data_of(self.importing)],
        ]


async def ask_everything(bot: Bot, chat: Chat) -> Questions:
    anchor = await chat.ask("/subscribe")
    assert anchor.text.startswith(("✅ This chat now follows", "✅ This topic now follows"))
    await chat.ask("/watch rdma in cs.DC")
    dezun = bot.store.find_followed("Dezun Dong")
    (topic,) = [f for f in bot.store.followed() if f.kind == FollowKind.TOPIC]
    assert dezun is not None
    add_namesakes(bot)
    homonym = await chat.ask("/subscribe Wei Wang")
    assert homonym.text.startswith("🤔 The name Wei Wang looks like several people")
    importing = await chat.import_file(b"subscribe Yemao Xu\n")
    assert importing.text.startswith("📥 ")
    everything = await chat.ask("/unsubscribe")
    assert everything.text.startswith("Stop this ")
    return Questions(
        anchor=anchor,
        unfollow=f"a:u:{dezun.id}:{PAPER}",
        confirm=f"a:y:{dezun.id}:{PAPER}",
        mute=f"a:y:{topic.id}:{PAPER}",
        keep="a:k",
        homonym=homonym,
        everything=everything,
        importing=importing,
    )


KINDS = ["private", "group", "forum", "channel"]


@pytest.mark.parametrize("kind", KINDS)
async def test_only_who_may_act_for_the_chat_changes_it_by_a_button(bot: Bot, kind: str) -> None:
    chat = Chat.open(bot, kind)
    questions = await ask_everything(bot, chat)
    followed = ["Dezun Dong", "rdma in cs.DC"]
    assert chat.follows() == followed

    if kind != "private":  # in a private chat only the person sees the buttons
        edits, sent = len(bot.telegram.edits), len(bot.telegram.sent(chat.chat_id))
        answers = [await chat.press(m, data, READER) for m, data in questions.presses()]
        await bot.settled()
        assert answers == [only_admins(kind)] * len(questions.presses())
        assert chat.follows() == followed
        assert (len(bot.telegram.edits), len(bot.telegram.sent(chat.chat_id))) == (edits, sent)

    # The administrator's presses work, each as it does in a private chat.
    sent = len(bot.telegram.sent(chat.chat_id))
    assert await chat.press(questions.anchor, questions.unfollow, chat.admin) is None
    await bot.until(lambda: len(bot.telegram.sent(chat.chat_id)) > sent)
    assert bot.last(chat.chat_id).text.startswith("Stop following Dezun Dong in this")
    assert await chat.press(questions.anchor, questions.keep, chat.admin) is None
    await bot.until(lambda: bot.telegram.edits)
    assert bot.telegram.edits[-1].text == "Kept: nothing was changed."

    import_go, _ = data_of(questions.importing)
    assert await chat.press(questions.importing, import_go, chat.admin) is None
    await bot.until(lambda: "Yemao Xu" in chat.follows())
    assert await chat.press(questions.homonym, data_of(questions.homonym)[0], chat.admin) is None
    await bot.until(lambda: "Wei Wang in cs.DC" in chat.follows())
    assert await chat.press(questions.anchor, questions.mute, chat.admin) is None
    assert await chat.press(questions.anchor, questions.confirm, chat.admin) is None
    await bot.until(lambda: chat.follows() == ["Wei Wang in cs.DC", "Yemao Xu"])

    everything = await chat.ask("/unsubscribe")
    unfollow_all, _ = data_of(everything)
    assert await chat.press(everything, unfollow_all, chat.admin) is None
    assert chat.follows() == []


async def test_a_channel_press_that_cannot_be_checked_changes_nothing(bot: Bot) -> None:
    """getChatMember failing (Telegram's 500 here; a 400 or 403 alike) means "not allowed",
    answered so; the failure is not remembered, so the next press is checked again."""
    chat = Chat.open(bot, "channel")
    everything = await chat.ask("/subscribe") and await chat.ask("/unsubscribe")
    unfollow_all, _ = data_of(everything)
    bot.telegram.inject(Fault.server_error(500), method="getChatMember")

    answer = await chat.press(everything, unfollow_all, ADMIN)

    assert answer == could_not_check("channel")
    assert answer == (
        "I could not check that you administer this channel, so nothing was changed. "
        "Try again in a minute."
    )
    assert chat.follows() == ["Dezun Dong"]
    assert await chat.press(everything, unfollow_all, ADMIN) is None
    assert chat.follows() == []


async def test_a_readers_verdict_is_kept_briefly(bot: Bot) -> None:
    """A reader pressing again and again costs one getChatMember, not one a press."""
    chat = Chat.open(bot, "channel")
    everything = await chat.ask("/subscribe") and await chat.ask("/unsubscribe")
    asked = bot.telegram.calls("getChatMember")

    for _ in range(3):
        assert await chat.press(everything, data_of(everything)[0], READER) == only_admins(
            "channel"
        )

    assert bot.telegram.calls("getChatMember") == asked + 1
    assert chat.follows() == ["Dezun Dong"]
