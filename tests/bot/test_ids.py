"""/id (issue 19, trap 10): the chat id, the user id and the forum topic id, so that a person can
tell the operator what to put in ADMIN_CHAT_IDS; and the /stats refusal says how to become an
administrator. Through the fake Bot API, in a private chat, a group and a forum topic."""

from __future__ import annotations

from tests.harness.bots import ADMIN_CHAT, GROUP, USER, Bot

FORUM = -1009876543210


async def test_id_in_a_private_chat_gives_the_chat_and_user_ids(bot: Bot) -> None:
    answer = await bot.ask_one(USER, "/id")

    assert answer.split("\n") == [
        f"Chat id: {USER}",
        f"Your user id: {USER}",
        "Topic id: none here",
        "For /stats, the service's operator adds the chat id to ADMIN_CHAT_IDS.",
    ]
    assert f"<code>{USER}</code>" in bot.last(USER).html


async def test_id_in_a_group_and_in_a_forum_topic(bot: Bot) -> None:
    in_group = await bot.ask_one(GROUP, "/id", user_id=7, chat_type="group")
    assert in_group.startswith(f"Chat id: {GROUP}\nYour user id: 7\nTopic id: none here")

    talk = bot.telegram.create_topic(FORUM, "Talk")
    in_topic = await bot.ask_one(FORUM, "/id", user_id=7, thread_id=talk)

    assert in_topic.startswith(f"Chat id: {FORUM}\nYour user id: 7\nTopic id: {talk}\n")
    assert bot.last(FORUM).message_thread_id == talk


async def test_the_stats_refusal_says_how_to_become_an_administrator(bot: Bot) -> None:
    refused = await bot.ask_one(USER, "/stats")

    assert refused == (
        f"/stats is for the service's administrators: the operator adds this chat's id ({USER}) "
        "to ADMIN_CHAT_IDS and restarts it.\nIds, to send the operator: /id"
    )
    assert (await bot.ask_one(ADMIN_CHAT, "/stats")).startswith("arxiv-watcher")
