"""Commands in groups, forum topics and upgraded groups: where the answer lands, whom it quotes,
and who may change the subscriptions. The real Application on the fake Bot API (see
`tests.harness.bots`), which refuses a reply that leaves the command's topic.
"""

from __future__ import annotations

import pytest
from sqlalchemy import Engine

from bot.handlers.common import POST_AS_YOURSELF
from bot.handlers.errors import UPGRADED
from bot.handlers.membership import GROUP_WELCOME
from tests.fakes.corpus import make_record
from tests.harness.bots import ADMIN_CHAT, USER, Bot, running_front_end
from watcher.store import MatchedRecord
from watcher.store.tables import utcnow

FORUM = -1005555555555
GROUP, SUPERGROUP = -500, -1001111111111
OWN_CHANNEL = -1002222222222
ADMIN, MEMBER = 7, 9


def dezun_id(bot: Bot) -> int:
    followed = bot.store.find_followed("Dezun Dong")
    assert followed is not None
    return followed.id


async def test_each_forum_topic_follows_its_own_authors_and_is_answered_in_place(
    bot: Bot,
) -> None:
    papers = bot.telegram.create_topic(FORUM, "Papers")
    talk = bot.telegram.create_topic(FORUM, "Talk")
    bot.telegram.set_admins(FORUM, [ADMIN])

    answer = await bot.ask_one(FORUM, "/subscribe", user_id=ADMIN, thread_id=papers)
    assert answer.startswith("✅ This topic now follows Dezun Dong")
    subscribed = bot.last(FORUM)
    assert subscribed.message_thread_id == papers
    assert subscribed.reply_to_message_id == subscribed.message_id - 1  # the command

    in_talk = await bot.ask_one(FORUM, "/subscriptions", user_id=MEMBER, thread_id=talk)
    assert in_talk.startswith("This topic follows nobody yet.")
    assert bot.last(FORUM).message_thread_id == talk
    in_general = await bot.ask_one(FORUM, "/subscriptions", user_id=MEMBER)
    assert in_general.startswith("This chat follows nobody yet.")
    assert bot.last(FORUM).message_thread_id is None
    in_papers = await bot.ask_one(FORUM, "/subscriptions", user_id=MEMBER, thread_id=papers)
    assert in_papers.startswith("This topic follows 1 author:")

    assert bot.chats.subscribed_ids(FORUM, thread_id=papers) == [dezun_id(bot)]
    assert bot.chats.subscribed_ids(FORUM, thread_id=talk) == []
    assert bot.chats.subscribed_ids(FORUM) == []


async def test_in_a_group_a_reply_quotes_its_command_and_in_private_it_does_not(
    bot: Bot,
) -> None:
    await bot.ask_one(GROUP, "/recent 1", user_id=MEMBER, chat_type="group")
    in_group = bot.last(GROUP)
    assert in_group.reply_to_message_id == in_group.message_id - 1
    await bot.ask_one(USER, "/recent 1")
    assert bot.last(USER).reply_to_message_id is None


async def test_a_reply_to_a_group_just_upgraded_moves_it_and_goes_to_the_supergroup(
    bot: Bot,
) -> None:
    bot.telegram.set_admins(GROUP, [ADMIN])
    await bot.ask_one(GROUP, "/subscribe", user_id=ADMIN, chat_type="group")
    bot.telegram.migrate(GROUP, SUPERGROUP)

    bot.telegram.user_sends(GROUP, "/subscriptions", user_id=MEMBER)
    await bot.until(lambda: bot.telegram.sent(SUPERGROUP))
    assert bot.last(SUPERGROUP).text.startswith("This chat follows 1 author:")
    assert bot.chats.get(GROUP) is None
    assert bot.chats.subscribed_ids(SUPERGROUP) == [dezun_id(bot)]

    # An admin check asks Telegram about the old group, and learns of the upgrade there.
    bot.telegram.user_sends(GROUP, "/unsubscribe", user_id=ADMIN)
    await bot.until(lambda: len(bot.telegram.sent(SUPERGROUP)) == 2)
    assert bot.last(SUPERGROUP).text == UPGRADED
    assert bot.chats.subscribed_ids(SUPERGROUP) == [dezun_id(bot)]


async def test_a_group_that_adds_the_bot_is_welcomed_once_and_a_channel_is_not(bot: Bot) -> None:
    """Adding the bot to a group used to post nothing, leaving the group to guess."""
    bot.telegram.my_chat_member(GROUP, "member", chat_type="group", user_id=ADMIN)
    await bot.until(lambda: bot.telegram.sent(GROUP))
    bot.telegram.my_chat_member(SUPERGROUP, "administrator", chat_type="supergroup")
    await bot.until(lambda: bot.telegram.sent(SUPERGROUP))
    bot.telegram.my_chat_member(GROUP, "administrator", old_status="member")  # promoted
    bot.telegram.my_chat_member(OWN_CHANNEL, "administrator", chat_type="channel")
    bot.telegram.my_chat_member(USER, "member")  # a person unblocking the bot
    await bot.settled()

    for chat_id in (GROUP, SUPERGROUP):
        (welcome,) = [m.text for m in bot.telegram.sent(chat_id)]
        assert welcome.startswith("👋 Thanks for adding me.")
        assert "/subscribe Dezun Dong" in welcome and "administrator" in welcome
    assert "<code>" in GROUP_WELCOME and len(welcome) < 300
    assert bot.telegram.sent(OWN_CHANNEL) == [] and bot.telegram.sent(USER) == []


async def test_a_member_posting_as_a_channel_is_told_to_post_as_themself(bot: Bot) -> None:
    bot.telegram.set_admins(SUPERGROUP, [ADMIN])
    answer = await bot.ask_one(SUPERGROUP, "/subscribe", as_chat=OWN_CHANNEL)
    assert bot.last(SUPERGROUP).html == POST_AS_YOURSELF
    assert answer.startswith("You are posting as a channel, so I cannot tell")
    assert bot.telegram.calls("getChatMember") == 0
    assert bot.chats.subscribed_ids(SUPERGROUP) == []
    # An anonymous administrator speaks as the group itself, and is an administrator.
    answer = await bot.ask_one(SUPERGROUP, "/subscribe", as_chat=SUPERGROUP)
    assert answer.startswith("✅ This chat now follows Dezun Dong")
    assert bot.telegram.calls("getChatMember") == 0


async def test_stats_lists_parked_chats_with_the_reason(bot: Bot) -> None:
    bot.chats.seen(FORUM, kind="supergroup", title="Reading group")
    bot.chats.subscribe(FORUM, dezun_id(bot), thread_id=12)
    followed = frozenset({dezun_id(bot)})
    paper = make_record(arxiv_id="2606.00002", title="Waiting For The Topic")
    bot.store.save_records([MatchedRecord(paper, followed)], announce_for=followed)
    bot.chats.parking.park(FORUM, 12, reason="Topic_closed", first_retry=60, now=utcnow())

    answer = await bot.ask_one(ADMIN_CHAT, "/stats")

    assert "Deliveries: 0 pending, 1 parked, 0 held for digests, 0 sent, 0 failed" in answer
    assert "Parked chats: 1 (the bot may not post there)" in answer
    assert "• chat -1005555555555 (Reading group), topic 12: Topic_closed; since " in answer
    assert "1 paper waiting, next try " in answer


async def test_rights_restored_send_the_parked_paper_at_once(
    engine: Engine, database_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The sender looks at the outbox often, but the parked backoff (a minute by default) does not
    # come within the test's wait: only the my_chat_member update showing the right to post can.
    monkeypatch.setattr("bot.delivery.sender.IDLE_RECHECK", 0.2)
    async with running_front_end(engine, database_url) as bot:
        bot.telegram.add_channel(OWN_CHANNEL, title="Feed")
        bot.telegram.channel_post(OWN_CHANNEL, "/subscribe", title="Feed")
        await bot.until(lambda: bot.telegram.sent(OWN_CHANNEL))
        bot.telegram.my_chat_member(
            OWN_CHANNEL, "administrator", old_status="administrator", can_send=False
        )
        await bot.settled()
        paper = make_record(arxiv_id="2606.00001", title="Held While Muted")
        followed = frozenset({dezun_id(bot)})
        bot.store.save_records([MatchedRecord(paper, followed)], announce_for=followed)
        await bot.until(lambda: bot.chats.parking.parked()[0] == 1)
        assert bot.service.settings.parked_retry_first == 60

        bot.telegram.my_chat_member(OWN_CHANNEL, "administrator", old_status="administrator")
        await bot.until(
            lambda: any("Held While Muted" in m.text for m in bot.telegram.sent(OWN_CHANNEL))
        )
        await bot.until(lambda: bot.chats.parking.parked()[0] == 0)


async def test_a_reopened_topic_gets_its_parked_paper_at_once(
    engine: Engine, database_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # As above: the parked backoff (a minute) is out of reach; the "topic reopened" service
    # message Telegram posts into the topic is what sends the paper.
    monkeypatch.setattr("bot.delivery.sender.IDLE_RECHECK", 0.2)
    async with running_front_end(engine, database_url) as bot:
        papers = bot.telegram.create_topic(FORUM, "Papers")
        bot.telegram.set_admins(FORUM, [ADMIN])
        await bot.ask_one(FORUM, "/subscribe", user_id=ADMIN, thread_id=papers)
        bot.telegram.close_topic(FORUM, papers)
        await bot.settled()
        paper = make_record(arxiv_id="2606.00003", title="Held While Closed")
        followed = frozenset({dezun_id(bot)})
        bot.store.save_records([MatchedRecord(paper, followed)], announce_for=followed)
        await bot.until(lambda: bot.chats.parking.parked()[0] == 1)

        bot.telegram.reopen_topic(FORUM, papers)
        await bot.until(
            lambda: any("Held While Closed" in m.text for m in bot.telegram.sent(FORUM))
        )
        assert bot.last(FORUM).message_thread_id == papers
        await bot.until(lambda: bot.chats.parking.parked()[0] == 0)
