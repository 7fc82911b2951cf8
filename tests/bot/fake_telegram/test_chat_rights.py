"""The fake Bot API's chat rights, forum topics and posting as a chat, through PTB: a restricted
bot or a channel admin without the right to post is refused, messages land in the forum topic
they name, a closed topic refuses the bot, and a chat posting has a stand-in sender.
"""

from __future__ import annotations

import pytest
from telegram import Bot, ChatMemberAdministrator, ChatMemberRestricted, ReplyParameters
from telegram.error import BadRequest, Forbidden

from tests.fakes.telegram import FakeTelegram
from tests.harness.fake_telegram_ids import CHANNEL, GROUP, SUPERGROUP

# -- chat rights, forum topics, posting as a chat ------------------------------------------------


async def test_a_restricted_bot_is_refused_until_its_rights_come_back(
    fake: FakeTelegram, bot: Bot
) -> None:
    fake.add_chat(SUPERGROUP, title="Lab")
    fake.my_chat_member(SUPERGROUP, "restricted", old_status="member", can_send=False)
    [lost] = await bot.get_updates()
    assert lost.my_chat_member is not None
    restricted = lost.my_chat_member.new_chat_member
    assert isinstance(restricted, ChatMemberRestricted)
    assert (restricted.is_member, restricted.can_send_messages) == (True, False)
    with pytest.raises(
        BadRequest, match=r"^Not enough rights to send text messages to the chat$"
    ) as refused:
        await bot.send_message(SUPERGROUP, "hello")
    assert not isinstance(refused.value, Forbidden)
    me = await bot.get_chat_member(SUPERGROUP, bot.id)
    assert me.status == "restricted"

    fake.my_chat_member(SUPERGROUP, "member", old_status="restricted")
    [back] = await bot.get_updates(offset=lost.update_id + 1)
    assert back.my_chat_member is not None
    assert back.my_chat_member.new_chat_member.status == "member"
    await bot.send_message(SUPERGROUP, "hello again")


async def test_a_channel_admin_without_the_right_to_post_is_refused(
    fake: FakeTelegram, bot: Bot
) -> None:
    fake.add_channel(CHANNEL)
    await bot.send_message(CHANNEL, "posted")
    fake.my_chat_member(CHANNEL, "administrator", old_status="administrator", can_send=False)
    [update] = await bot.get_updates()
    assert update.my_chat_member is not None
    demoted = update.my_chat_member.new_chat_member
    assert isinstance(demoted, ChatMemberAdministrator)
    assert demoted.can_post_messages is False
    with pytest.raises(BadRequest, match=r"^Need administrator rights in the channel chat$"):
        await bot.send_message(CHANNEL, "not posted")
    fake.my_chat_member(CHANNEL, "administrator", old_status="administrator")
    await bot.send_message(CHANNEL, "posted again")


async def test_messages_land_in_the_forum_topic_they_name(fake: FakeTelegram, bot: Bot) -> None:
    papers = fake.create_topic(SUPERGROUP, "Papers")
    talk = fake.create_topic(SUPERGROUP, "Talk")
    assert papers != talk
    in_topic = await bot.send_message(SUPERGROUP, "in Papers", message_thread_id=papers)
    assert (in_topic.is_topic_message, in_topic.message_thread_id) == (True, papers)
    assert in_topic.chat.is_forum
    await bot.send_message(SUPERGROUP, "in General")
    assert [(m.text, m.message_thread_id) for m in fake.sent(SUPERGROUP)] == [
        ("in Papers", papers),
        ("in General", None),
    ]
    with pytest.raises(BadRequest, match=r"^Message thread not found$"):
        await bot.send_message(SUPERGROUP, "nowhere", message_thread_id=talk + 100)
    with pytest.raises(BadRequest, match=r"^Message thread not found$"):
        await bot.send_message(GROUP, "no topics here", message_thread_id=5)


async def test_a_closed_topic_refuses_the_bot_until_reopened(fake: FakeTelegram, bot: Bot) -> None:
    papers = fake.create_topic(SUPERGROUP, "Papers")
    talk = fake.create_topic(SUPERGROUP, "Talk")
    fake.close_topic(SUPERGROUP, papers)
    with pytest.raises(BadRequest, match=r"^Topic_closed$"):
        await bot.send_message(SUPERGROUP, "refused", message_thread_id=papers)
    await bot.send_message(SUPERGROUP, "another topic is open", message_thread_id=talk)
    fake.close_topic(SUPERGROUP, None)
    with pytest.raises(BadRequest, match=r"^Topic_closed$"):
        await bot.send_message(SUPERGROUP, "General is closed too")
    fake.set_admins(SUPERGROUP, [], bot_is_admin=True)
    await bot.send_message(SUPERGROUP, "administrators may post in closed topics")
    fake.set_admins(SUPERGROUP, [], bot_is_admin=False)

    fake.reopen_topic(SUPERGROUP, papers)
    await bot.send_message(SUPERGROUP, "reopened", message_thread_id=papers)
    updates = await bot.get_updates()
    reopened = [u.message for u in updates if u.message and u.message.forum_topic_reopened]
    assert [(m.message_thread_id, m.is_topic_message) for m in reopened] == [(papers, True)]


async def test_a_reply_to_a_topic_command_must_stay_in_its_topic(
    fake: FakeTelegram, bot: Bot
) -> None:
    papers = fake.create_topic(SUPERGROUP, "Papers")
    fake.user_sends(SUPERGROUP, "/subscribe Dezun Dong", user_id=77, thread_id=papers)
    [update] = await bot.get_updates()
    command = update.message
    assert command is not None
    assert (command.is_topic_message, command.message_thread_id) == (True, papers)
    assert command.chat.is_forum

    # PTB's reply_text names the command's topic and quotes it.
    await command.reply_text("answered", do_quote=True)
    [answer] = fake.sent(SUPERGROUP)
    assert (answer.message_thread_id, answer.reply_to_message_id) == (papers, command.message_id)
    # A reply that forgets the topic is looked for in General, and is not found there.
    with pytest.raises(BadRequest, match=r"^Message to be replied not found$"):
        await bot.send_message(
            SUPERGROUP, "lost", reply_parameters=ReplyParameters(command.message_id)
        )
    await bot.send_message(
        SUPERGROUP,
        "sent without the quote",
        reply_parameters=ReplyParameters(command.message_id, allow_sending_without_reply=True),
    )
    assert fake.sent(SUPERGROUP)[-1].reply_to_message_id is None


async def test_posting_as_a_chat_has_a_stand_in_sender(fake: FakeTelegram, bot: Bot) -> None:
    fake.user_sends(SUPERGROUP, "/subscribe", as_chat=CHANNEL)
    fake.user_sends(SUPERGROUP, "/subscribe", as_chat=SUPERGROUP)
    as_channel, anonymous = [u.message for u in await bot.get_updates()]
    assert as_channel is not None and anonymous is not None
    assert as_channel.sender_chat is not None and as_channel.sender_chat.id == CHANNEL
    assert as_channel.sender_chat.type == "channel"
    assert as_channel.from_user is not None and as_channel.from_user.id == 136817688
    assert anonymous.sender_chat is not None and anonymous.sender_chat.id == SUPERGROUP
    assert anonymous.from_user is not None and anonymous.from_user.id == 1087968824
    # A stand-in is nobody's membership: Telegram refuses to look it up.
    with pytest.raises(BadRequest, match=r"^Participant_id_invalid$"):
        await bot.get_chat_member(SUPERGROUP, 136817688)
