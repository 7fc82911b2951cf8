"""The fake Bot API, driven by a real python-telegram-bot `Bot`: proves PTB and the fake agree.

Every assertion goes through PTB's own request and error mapping, so a fake that answered in a
shape Telegram does not use would fail here, not in the bot's tests.
"""

from __future__ import annotations

import asyncio
import datetime as dtm
import signal
import sys
from collections.abc import AsyncIterator, Iterator

import httpx
import pytest
from telegram import (
    Bot,
    ChatMemberAdministrator,
    ChatMemberRestricted,
    InlineKeyboardButton,
    InlineKeyboardMarkup,
    LinkPreviewOptions,
    ReplyParameters,
    Update,
)
from telegram.constants import ParseMode
from telegram.error import (
    BadRequest,
    ChatMigrated,
    Conflict,
    EndPointNotFound,
    Forbidden,
    InvalidToken,
    NetworkError,
    RetryAfter,
)
from telegram.ext import ApplicationBuilder, CommandHandler, ContextTypes

from tests.fakes.telegram import FakeTelegram, Fault, RateLimits, parse_html

TOKEN = "123456:TEST-fake-token-for-tests"
ALICE = 4242
GROUP = -4001
SUPERGROUP = -1001234567890
CHANNEL = -1009876543210


@pytest.fixture
def fake() -> Iterator[FakeTelegram]:
    with FakeTelegram(TOKEN, rate_limits=RateLimits.disabled()) as fake:
        yield fake
        assert fake.internal_errors == []


@pytest.fixture
async def bot(fake: FakeTelegram) -> AsyncIterator[Bot]:
    async with Bot(TOKEN, base_url=fake.base_url) as bot:
        yield bot


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


async def test_blocked_and_kicked_chats_are_forbidden(fake: FakeTelegram, bot: Bot) -> None:
    fake.block(ALICE)
    with pytest.raises(Forbidden, match="bot was blocked by the user"):
        await bot.send_message(ALICE, "hello")
    fake.kick(SUPERGROUP)
    with pytest.raises(Forbidden, match="bot was kicked from the supergroup chat"):
        await bot.send_message(SUPERGROUP, "hello")
    fake.unblock(ALICE)
    await bot.send_message(ALICE, "welcome back")


async def test_migrated_group_raises_chat_migrated(fake: FakeTelegram, bot: Bot) -> None:
    fake.migrate(GROUP, SUPERGROUP)
    with pytest.raises(ChatMigrated) as migrated:
        await bot.send_message(GROUP, "hello")
    assert migrated.value.new_chat_id == SUPERGROUP
    message = await bot.send_message(SUPERGROUP, "hello again")
    assert message.chat.type == "supergroup"


async def test_get_updates_honours_offset_and_limit(fake: FakeTelegram, bot: Bot) -> None:
    ids = [fake.user_sends(ALICE, f"message {n}") for n in range(3)]
    assert [u.update_id for u in await bot.get_updates()] == ids
    assert [u.update_id for u in await bot.get_updates(limit=1)] == ids[:1]
    assert [u.update_id for u in await bot.get_updates(offset=ids[1])] == ids[1:]
    # The first update was confirmed by that offset: it is gone for good.
    later = await bot.get_updates()
    assert [u.update_id for u in later] == ids[1:]
    assert later[0].message is not None
    assert later[0].message.text == "message 1"
    assert await bot.get_updates(offset=ids[-1] + 1) == ()
    assert fake.pending_updates == 0


async def test_long_poll_returns_when_an_update_arrives(fake: FakeTelegram, bot: Bot) -> None:
    polling = asyncio.create_task(bot.get_updates(timeout=100))
    await fake.wait_for(lambda: fake.calls("getUpdates") == 1)
    update_id = fake.user_sends(ALICE, "/start@arxiv_watcher_bot now")
    # Far below the poll's own 100 s: only an early return can finish in time.
    updates = await asyncio.wait_for(polling, timeout=30)
    [update] = updates
    assert update.update_id == update_id
    assert update.message is not None
    [entity] = update.message.entities
    assert (entity.type, entity.offset, entity.length) == ("bot_command", 0, 24)
    assert update.message.chat.type == "private"


async def test_group_messages_carry_sender_and_chat(fake: FakeTelegram, bot: Bot) -> None:
    fake.add_chat(SUPERGROUP, chat_type="supergroup", title="Lab")
    fake.user_sends(SUPERGROUP, "/follow@arxiv_watcher_bot Dezun Dong", user_id=77)
    fake.user_sends(GROUP, "hello", username="carol")
    first, second = await bot.get_updates()
    assert first.message is not None
    assert second.message is not None
    assert (first.message.chat.type, first.message.chat.title) == ("supergroup", "Lab")
    assert first.message.from_user is not None
    assert first.message.from_user.id == 77
    assert first.message.parse_entities() == {
        first.message.entities[0]: "/follow@arxiv_watcher_bot"
    }
    assert second.message.chat.type == "group"
    assert second.message.from_user is not None
    assert second.message.from_user.username == "carol"


async def test_a_second_poller_terminates_the_first(fake: FakeTelegram, bot: Bot) -> None:
    # PTB gives getUpdates a single connection, so the rival is a second Bot (process).
    first = asyncio.create_task(bot.get_updates(timeout=100))
    await fake.wait_for(lambda: fake.calls("getUpdates") == 1)
    async with Bot(TOKEN, base_url=fake.base_url) as rival:
        assert await rival.get_updates(timeout=0) == ()
    with pytest.raises(Conflict, match="terminated by other getUpdates request"):
        await asyncio.wait_for(first, timeout=30)


async def test_chat_members_and_administrators(fake: FakeTelegram, bot: Bot) -> None:
    fake.set_admins(SUPERGROUP, [7], creator_id=5)
    statuses = [(await bot.get_chat_member(SUPERGROUP, uid)).status for uid in (5, 7, 9)]
    assert statuses == ["creator", "administrator", "member"]
    admins = await bot.get_chat_administrators(SUPERGROUP)
    assert [(a.user.id, a.status) for a in admins] == [(5, "creator"), (7, "administrator")]

    fake.add_channel(CHANNEL, title="Papers", username="papers_feed")
    assert (await bot.get_chat_member(CHANNEL, bot.id)).status == "administrator"
    posted = await bot.send_message("@papers_feed", "to the channel")
    assert (posted.chat.id, posted.chat.type, posted.chat.title) == (CHANNEL, "channel", "Papers")
    chat = await bot.get_chat(CHANNEL)
    assert (chat.type, chat.username) == ("channel", "papers_feed")

    fake.add_channel(CHANNEL - 1, bot_is_admin=False)
    with pytest.raises(BadRequest, match="Need administrator rights in the channel chat"):
        await bot.send_message(CHANNEL - 1, "no rights")


async def test_wrong_token_and_unknown_method(fake: FakeTelegram, bot: Bot) -> None:
    with pytest.raises(InvalidToken):
        async with Bot("123456:WRONG-token", base_url=fake.base_url):
            pass
    async with httpx.AsyncClient() as client:
        answer = await client.post(fake.base_url + "123456:WRONG-token/getMe")
    assert answer.status_code == 401
    assert answer.json() == {"ok": False, "error_code": 401, "description": "Unauthorized"}
    with pytest.raises(EndPointNotFound):
        await bot.do_api_request("sendCarrierPigeon")


async def test_commands_round_trip(fake: FakeTelegram, bot: Bot) -> None:
    await bot.set_my_commands([("follow", "Follow an author"), ("list", "Followed authors")])
    assert fake.commands == [
        {"command": "follow", "description": "Follow an author"},
        {"command": "list", "description": "Followed authors"},
    ]
    assert [c.command for c in await bot.get_my_commands()] == ["follow", "list"]
    with pytest.raises(BadRequest, match="Bot_command_invalid"):
        await bot.set_my_commands([("Follow", "capitals are refused")])
    await bot.delete_my_commands()
    assert fake.commands == []


async def test_buttons_callbacks_and_edits(fake: FakeTelegram, bot: Bot) -> None:
    keyboard = InlineKeyboardMarkup([[InlineKeyboardButton("More", callback_data="more:2401")]])
    message = await bot.send_message(
        ALICE, "<b>Title</b>", parse_mode="HTML", reply_markup=keyboard
    )
    fake.press_button(ALICE, message.message_id, "more:2401")
    [update] = await bot.get_updates()
    query = update.callback_query
    assert query is not None
    assert query.data == "more:2401"
    assert query.message is not None
    assert query.message.message_id == message.message_id
    assert await bot.answer_callback_query(query.id, text="Expanded")
    with pytest.raises(BadRequest, match="Query is too old"):
        await bot.answer_callback_query(query.id)
    [answer] = fake.callback_answers
    assert (answer.data, answer.text) == ("more:2401", "Expanded")

    edited = await bot.edit_message_text(
        "<b>Title</b> and abstract", ALICE, message.message_id, parse_mode="HTML"
    )
    assert isinstance(edited, type(message))
    assert edited.text == "Title and abstract"
    with pytest.raises(BadRequest, match="Message is not modified"):
        await bot.edit_message_text(
            "<b>Title</b> and abstract", ALICE, message.message_id, parse_mode="HTML"
        )
    # Like Telegram, an edit without reply_markup removed the keyboard: put one back.
    assert edited.reply_markup is None
    await bot.edit_message_reply_markup(ALICE, message.message_id, reply_markup=keyboard)
    assert [(e.method, e.text) for e in fake.edits] == [
        ("editMessageText", "Title and abstract"),
        ("editMessageReplyMarkup", None),
    ]
    too_long = InlineKeyboardMarkup([[InlineKeyboardButton("x", callback_data="x" * 65)]])
    with pytest.raises(BadRequest, match="Button_data_invalid"):
        await bot.send_message(ALICE, "x", reply_markup=too_long)


async def test_my_chat_member_update_blocks_the_chat(fake: FakeTelegram, bot: Bot) -> None:
    fake.my_chat_member(ALICE, "kicked")
    [update] = await bot.get_updates()
    assert update.my_chat_member is not None
    assert update.my_chat_member.new_chat_member.status == "kicked"
    with pytest.raises(Forbidden):
        await bot.send_message(ALICE, "still there?")


async def test_channel_post_has_sender_chat_and_no_sender(fake: FakeTelegram, bot: Bot) -> None:
    fake.channel_post(CHANNEL, "/follow Dezun Dong", username="papers_feed")
    [update] = await bot.get_updates()
    post = update.channel_post
    assert post is not None
    assert post.from_user is None
    assert post.parse_entities() == {post.entities[0]: "/follow"}
    assert post.sender_chat is not None
    assert post.sender_chat.id == CHANNEL


async def test_injected_faults_hit_the_next_sends_in_order(fake: FakeTelegram, bot: Bot) -> None:
    fake.inject(
        Fault.server_error(500),
        Fault.server_error(502),
        Fault.disconnect(),
        Fault.disconnect(delivered=True),
        Fault.flood(retry_after=7),
        Fault.slow(0.2),
    )
    for _ in range(4):
        with pytest.raises(NetworkError):
            await bot.send_message(ALICE, "attempt")
    with pytest.raises(RetryAfter) as flood:
        await bot.send_message(ALICE, "attempt")
    assert flood.value.retry_after == dtm.timedelta(seconds=7)
    await bot.send_message(ALICE, "slow but fine")
    await bot.send_message(ALICE, "normal again")
    # Only the disconnect after delivery and the two successes reached the chat.
    assert [m.text for m in fake.sent(ALICE)] == ["attempt", "slow but fine", "normal again"]
    assert fake.count_429 == 1
    assert fake.calls("sendMessage") == 7


async def test_application_built_with_base_url_answers_a_command(fake: FakeTelegram) -> None:
    async def start(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        """Greets whoever sends /start."""
        assert update.effective_chat is not None
        await context.bot.send_message(update.effective_chat.id, "Hello!")

    app = ApplicationBuilder().token(TOKEN).base_url(fake.base_url).build()
    app.add_handler(CommandHandler("start", start))
    async with app:
        await app.start()
        assert app.updater is not None
        await app.updater.start_polling(poll_interval=0, timeout=1)
        fake.user_sends(ALICE, "/start")
        await fake.wait_for(lambda: fake.sent(ALICE), timeout=10)
        await app.updater.stop()
        await app.stop()
    assert [m.text for m in fake.sent(ALICE)] == ["Hello!"]


async def test_token_is_never_recorded(fake: FakeTelegram, bot: Bot) -> None:
    await bot.send_message(ALICE, "hi")
    assert fake.requests
    assert TOKEN not in repr(fake.requests) + repr(fake) + repr(fake.sent())
    assert TOKEN.split(":")[1] not in repr(fake.requests)


def test_wait_sync_times_out_and_succeeds(fake: FakeTelegram) -> None:
    with pytest.raises(TimeoutError):
        fake.wait_sync(lambda: fake.sent(), timeout=0.1)
    fake.user_sends(ALICE, "hi")
    fake.wait_sync(lambda: fake.pending_updates == 1, timeout=1)


def test_parse_html_counts_entity_offsets_in_utf16() -> None:
    parsed = parse_html("😀 <b>x</b>")
    assert parsed.text == "😀 x"
    assert parsed.entities == [{"offset": 3, "length": 1, "type": "bold"}]
    assert parse_html("A & B", strict_ampersand=False).text == "A & B"


_DOOMED_CLIENT = """
import http.client, sys, threading, urllib.parse
url = urllib.parse.urlsplit(sys.argv[1])
def call(method, **params):
    connection = http.client.HTTPConnection(url.hostname, url.port)
    connection.request("POST", url.path + method, urllib.parse.urlencode(params),
                       {"Content-Type": "application/x-www-form-urlencoded"})
    connection.getresponse().read()
threading.Thread(target=call, args=("sendMessage",), kwargs={"chat_id": 7, "text": "x"}).start()
call("getUpdates", timeout=60)
"""


@pytest.mark.slow
async def test_a_client_killed_mid_request_leaves_the_fake_serving(
    fake: FakeTelegram, bot: Bot, capfd: pytest.CaptureFixture[str]
) -> None:
    fake.inject(Fault.slow(1.0))  # delivered at once, answered after the client is dead
    update_id = fake.user_sends(ALICE, "/start")
    doomed = await asyncio.create_subprocess_exec(
        sys.executable, "-c", _DOOMED_CLIENT, fake.base_url + TOKEN + "/"
    )
    try:
        await fake.wait_for(lambda: fake.calls("getUpdates") == 1 and fake.sent(7), timeout=30)
    finally:
        doomed.send_signal(signal.SIGKILL)
        await doomed.wait()
    # The restarted bot gets the unconfirmed update again, and sending still works.
    assert [u.update_id for u in await bot.get_updates(timeout=5)] == [update_id]
    await bot.send_message(ALICE, "back")

    # Requests are recorded once handled: wait for the dead client's two to be written off.
    def handled(method: str) -> int:
        return sum(1 for request in fake.requests if request.method == method)

    await fake.wait_for(lambda: handled("getUpdates") == 2 and handled("sendMessage") == 2)
    assert "Traceback" not in capfd.readouterr().err


async def test_requests_through_a_named_base_url_are_recorded_as_that_clients(
    fake: FakeTelegram, bot: Bot
) -> None:
    async with Bot(TOKEN, base_url=fake.base_url_for("b")) as named:
        await named.send_message(ALICE, "from b")
    await bot.send_message(ALICE, "from nobody in particular")
    assert [m.text for m in fake.sent(ALICE)] == ["from b", "from nobody in particular"]
    assert [r.method for r in fake.requests_from("b")] == ["getMe", "sendMessage"]
    assert len(fake.requests_from("b", "sendMessage")) == 1
    assert fake.requests_from("a") == []


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
