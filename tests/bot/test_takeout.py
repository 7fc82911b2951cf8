"""/export and /import through the fake Bot API (issue 21, item 5): a chat's follows and settings
go out as a file (sendDocument) and come back in another chat (getFile, then the download from
the Bot API server's /file/bot<token>/ path), exactly; what is skipped says why; bad files are
refused in one sentence; groups need an administrator; a stale question changes nothing. The
settings travel too, the chat's and each destination's (paused, quiet hours, silent, format,
preview)."""

from __future__ import annotations

import logging
from typing import Any

import pytest

from bot.handlers.takeout import CANCELLED, NO_FILE, STALE
from tests.fakes.corpus import dezun_dong_records
from tests.fakes.telegram import SentDocument
from tests.harness.bots import GROUP, USER, Bot
from watcher.calendars.quiet_hours import QuietHours, parse_quiet
from watcher.calendars.schedule import DigestSchedule, parse_wall_time
from watcher.follows.identity import Identity
from watcher.follows.rules import PersonRule
from watcher.follows.topics import parse_topic
from watcher.kinds import MessageFormat
from watcher.store.budgets import LookupBudgets
from watcher.store.speaking import Style
from watcher.store.tables import NO_THREAD

OTHER = 43  # another person's private chat, which imports the first one's file
ADMIN = 7


def follow_some(bot: Bot, chat_id: int) -> None:
    """A chat with a follow of each kind and every setting changed from its default."""
    rules = [
        bot.store.follow_person(PersonRule(("Yemao Xu", "Y. Xu"), ("cs.DC", "cs.NI")))[0],
        bot.store.follow_identity(Identity("arxiv", "dong_d_1"), name="Dezun Dong")[0],
        bot.store.watch_topic(parse_topic('"remote direct memory access" RDMA in cs.DC'))[0],
        bot.store.watch_topic(parse_topic("in cs.DC"))[0],  # the whole category
    ]
    bot.chats.seen(chat_id, kind="private")
    for followed in rules:
        bot.chats.subscribe(chat_id, followed.id)
    bot.chats.digests.set_zone(chat_id, "Europe/Berlin")
    schedule = DigestSchedule(parse_wall_time("08:00"), frozenset({0, 3}))
    bot.chats.digests.set_schedule(chat_id, schedule, render=lambda content: [])
    bot.chats.set_notify_revisions(chat_id, True)
    bot.chats.speaking.pause(chat_id, NO_THREAD)
    bot.chats.speaking.set_quiet(chat_id, NO_THREAD, parse_quiet("22:00-07:00"))
    bot.chats.speaking.set_silent(chat_id, NO_THREAD, True)
    bot.chats.speaking.set_format(chat_id, NO_THREAD, MessageFormat.COMPACT)
    bot.chats.speaking.set_preview(chat_id, NO_THREAD, True)


async def export(bot: Bot, chat_id: int, command: str = "/export") -> SentDocument:
    before = len(bot.telegram.documents(chat_id))
    bot.telegram.user_sends(chat_id, command)
    await bot.until(lambda: len(bot.telegram.documents(chat_id)) > before)
    return bot.telegram.documents(chat_id)[-1]


async def send_file(bot: Bot, chat_id: int, data: bytes, **document: Any) -> str:
    """Send a file with /import as its caption; the bot's answer."""
    before = len(bot.telegram.sent(chat_id))
    bot.telegram.user_sends_document(chat_id, data, caption="/import", **document)
    await bot.until(lambda: len(bot.telegram.sent(chat_id)) > before)
    return bot.last(chat_id).text


async def press(bot: Bot, chat_id: int, data: str, **sender: Any) -> str | None:
    """Press a button of the last message; the toast (None: no text)."""
    answered = len(bot.telegram.callback_answers)
    bot.telegram.press_button(chat_id, bot.last(chat_id).message_id, data, **sender)
    await bot.until(lambda: len(bot.telegram.callback_answers) > answered)
    return bot.telegram.callback_answers[-1].text


def button_data(bot: Bot, chat_id: int) -> list[str]:
    markup = bot.last(chat_id).reply_markup
    assert markup is not None
    return [button["callback_data"] for button in markup["inline_keyboard"][0]]


def settings_of(bot: Bot, chat_id: int) -> tuple[object, ...]:
    """Every setting an export carries, as the chat's commands and /subscriptions read them."""
    digest = bot.chats.digests.settings(chat_id)
    assert digest.schedule is not None
    speaking = bot.chats.speaking.settings(chat_id, NO_THREAD)
    return (
        digest.zone_name,
        digest.schedule.command(),
        bot.chats.wants_revisions(chat_id),
        speaking.paused,
        speaking.quiet,
        speaking.quiet_until is not None,  # the window is placed, in the chat's zone
        speaking.silent,
        speaking.format,
        speaking.preview,
    )


async def test_in_a_group_the_export_quotes_its_command_and_in_private_it_does_not(
    bot: Bot,
) -> None:
    """Issue 30, item 10: the file answered /export in a group without quoting it."""
    bot.telegram.add_chat(GROUP, chat_type="group", title="Reading group")
    in_group = await export(bot, GROUP)
    assert in_group.reply_to_message_id == in_group.message_id - 1  # the command
    in_private = await export(bot, USER)
    assert in_private.reply_to_message_id is None


@pytest.mark.parametrize("command", ["/export", "/export opml"])
async def test_an_export_imported_in_another_chat_round_trips_exactly(
    bot: Bot, command: str
) -> None:
    follow_some(bot, USER)
    sent = await export(bot, USER, command)
    assert sent.file_name.endswith(".opml" if "opml" in command else ".txt")

    question = await send_file(bot, OTHER, sent.data, file_name=sent.file_name)

    assert question.splitlines() == [
        '📥 This chat will follow all of cs.DC, "remote direct memory access" rdma in cs.DC, '
        "arxiv:dong_d_1, Yemao Xu in cs.DC,cs.NI.",
        "It will set timezone Europe/Berlin, digest weekly mon,thu 08:00, revisions on, "
        "paused yes, quiet 22:00-07:00, silent on, format compact, preview on.",
        "⏸ The file says paused: this chat will get no messages until /resume.",
    ]
    assert settings_of(bot, USER) == (
        "Europe/Berlin", "weekly mon,thu 08:00", True,
        True, QuietHours(22 * 60, 7 * 60), True, True, MessageFormat.COMPACT, True,
    )  # fmt: skip
    assert bot.chats.subscribed_ids(OTHER) == []  # nothing before the press
    go, _ = button_data(bot, OTHER)
    assert await press(bot, OTHER, go) is None
    await bot.until(lambda: bot.telegram.edits)
    assert bot.telegram.edits[-1].text is not None
    assert bot.telegram.edits[-1].text.startswith("✅ Imported: this chat now follows")
    assert sorted(bot.chats.subscribed_ids(OTHER)) == sorted(bot.chats.subscribed_ids(USER))
    assert settings_of(bot, OTHER) == settings_of(bot, USER)
    again = await export(bot, OTHER, command)
    assert body(again) == body(sent)
    # The same question pressed again finds nothing left to import: out of date.
    assert await press(bot, OTHER, go) == STALE


def body(document: SentDocument) -> list[str]:
    """The file without its title line (which names the chat and the time)."""
    lines = document.data.decode().splitlines()
    return [
        line for line in lines if "arxiv-watcher follows:" not in line and "dateCreated" not in line
    ]


async def test_a_group_imports_by_reply_from_an_administrator_only(bot: Bot) -> None:
    bot.telegram.set_admins(GROUP, [ADMIN])
    text = (
        b"# frob: 3\n# format: huge\n# quiet: 22:00\n# paused: maybe\n"
        b"subscribe Dezun Dong\nLi\nwatch rdma in cs.XX\nsubscribe Dezun Dong\n"
    )
    file_message = bot.telegram.user_sends_document(GROUP, text, user_id=ADMIN)

    refused = await bot.ask_one(GROUP, "/import", user_id=1000)  # not a reply, not a member admin
    assert refused == f"{NO_FILE}\nMake one with: /export"

    bot.telegram.user_replies(GROUP, "/import", file_message, user_id=1000)
    await bot.until(lambda: "administrators" in bot.last(GROUP).text)
    bot.telegram.user_replies(GROUP, "/import", file_message, user_id=ADMIN)
    await bot.until(lambda: bot.last(GROUP).text.startswith("📥"))
    question = bot.last(GROUP)
    assert question.reply_to_message_id == file_message  # the press reads the file again there
    assert question.text.splitlines() == [
        "📥 This chat will follow Dezun Dong.",
        "Skipped (7):",
        "• line 6, Li: 'Li': a name needs a given name and a family name, as arXiv lists the "
        "author",
        "• line 7, watch rdma in cs.XX: 'cs.XX' is not an arXiv category; did you mean cs.SY, "
        "cs.SI, cs.SE?",
        "• line 8, Dezun Dong: twice in the file",
        "• header, frob: 3: a setting this version does not know",
        "• header, paused: maybe: paused is yes or no",
        "• header, quiet: 22:00: '22:00' is not a window; give its start and end as HH:MM-HH:MM "
        "(or off)",
        "• header, format: huge: a format is full or compact",
    ]
    go, cancel = button_data(bot, GROUP)
    toast = await press(bot, GROUP, go, user_id=1000)
    assert toast == "Only this group's administrators can change what it follows."
    assert bot.chats.subscribed_ids(GROUP) == []
    assert await press(bot, GROUP, cancel, user_id=ADMIN) is None
    await bot.until(lambda: bot.telegram.edits)
    assert bot.telegram.edits[-1].text == CANCELLED
    assert bot.chats.subscribed_ids(GROUP) == []


async def test_bad_files_get_one_clear_sentence_and_change_nothing(bot: Bot) -> None:
    bomb = (
        b'<?xml version="1.0"?><!DOCTYPE b [<!ENTITY a "aaaaaaaaaa">'
        b'<!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;">]><opml><body>&b;</body></opml>'
    )
    cases = [
        (
            b"%PDF-1.7",
            {"file_name": "paper.pdf", "mime_type": "application/pdf"},
            "application/pdf",
        ),
        (b"x", {"size": 300 * 1024}, "too large (300 KB); a follow list is at most 256 KB"),
        # Said to be small, found large once downloaded: refused all the same.
        (b"subscribe Dezun Dong\n" * 13_000, {"size": 1000}, "too large (266 KB)"),
        ("subscribe Dézun Dong".encode("latin-1"), {}, "not UTF-8 text"),
        (b"<opml><body><outline></body></opml>", {"file_name": "f.opml"}, "not well-formed XML"),
        (bomb, {"file_name": "f.opml"}, "it declares XML entities or a DTD, which I refuse"),
        (b"\x00\x01binary", {}, "That is not a text file"),
    ]
    for data, document, expected in cases:
        answer = await send_file(bot, USER, data, **document)
        assert expected in answer, answer
        assert bot.last(USER).reply_markup is None
    assert bot.chats.subscribed_ids(USER) == []
    downloads = [r for r in bot.telegram.requests if r.method == "download"]
    assert len(downloads) == len(cases) - 2  # a wrong type or a stated size is never fetched


async def test_a_foreign_opml_of_author_and_category_feeds(bot: Bot) -> None:
    # Outlines 5 and 6 hold addresses that are no URL (an IPv6 bracket never closed, a name in
    # brackets): skipped with why, where they once made the bot answer "Something went wrong".
    feeds = b"""<?xml version="1.0" encoding="UTF-8"?>
<opml version="1.0"><head><title>Feedly</title></head><body>
<outline text="arXiv" title="arXiv">
  <outline type="rss" text="Dezun Dong" xmlUrl="https://arxiv.org/a/dong_d_1.atom2"/>
  <outline type="rss" text="ORCID" xmlUrl="http://arxiv.org/a/0000-0002-1825-0097.atom"/>
  <outline type="rss" text="cs.DC updates on arXiv.org" xmlUrl="http://rss.arxiv.org/rss/cs.DC"/>
  <outline type="rss" text="Hacker News" xmlUrl="https://news.ycombinator.com/rss"/>
  <outline type="rss" text="Local" xmlUrl="http://[::1"/>
  <outline type="rss" text="Bracketed" xmlUrl="http://[arxiv.org]/"/>
</outline></body></opml>"""
    paper = dezun_dong_records()[0].arxiv_id  # arXiv knows both ids (issue 29.3)
    bot.arxiv.claim("dong_d_1", [paper])
    bot.arxiv.claim("0000-0002-1825-0097", [paper])
    question = await send_file(bot, USER, feeds, file_name="feedly.opml", mime_type=None)
    lines = question.splitlines()
    assert lines[0] == (
        "📥 This chat will follow arxiv:dong_d_1, ORCID 0000-0002-1825-0097, all of cs.DC."
    )
    assert lines[1:] == [
        "3 of them start a history, from this chat's allowance of new follows.",
        "Skipped (3):",
        "• outline 4, Hacker News: not an arXiv author or category feed",
        "• outline 5, Local: not a valid feed address",
        "• outline 6, Bracketed: not a valid feed address",
    ]
    go, _ = button_data(bot, USER)
    await press(bot, USER, go)
    followed = bot.store.followed(bot.chats.subscribed_ids(USER))
    assert sorted(f.key for f in followed) == [
        "arxiv:dong_d_1",
        "orcid:0000-0002-1825-0097",
        parse_topic("in cs.DC").rule_key,  # the whole category, as /watch in cs.DC follows it
    ]


async def test_an_import_keeps_to_the_limit_and_the_allowance_of_new_follows(bot: Bot) -> None:
    bot.chats.seen(USER, kind="private")
    for number in range(44):  # watched follows: free to join
        name = f"Kept Person{chr(97 + number // 26)}{chr(97 + number % 26)}"
        followed, _ = bot.store.follow_person(PersonRule((name,)))
        bot.chats.subscribe(USER, followed.id)
    new_names = [f"Newname Person{chr(97 + n)}" for n in range(12)]
    data = "\n".join(new_names).encode()

    question = await send_file(bot, USER, data)

    # 6 fit under the limit of 50; all 6 are new to everyone, within the first allowance of 10.
    assert question.startswith("📥 This chat will follow " + ", ".join(new_names[:6]) + ".")
    assert "6 of them start a history" in question
    assert question.count("over the limit: a chat follows at most 50") == 6
    go, _ = button_data(bot, USER)
    await press(bot, USER, go)
    assert len(bot.chats.subscribed_ids(USER)) == 50
    # The allowance is spent in the import's transaction: 10 at first, 6 started.
    budgets = LookupBudgets(bot.chats.engine, per_hour=bot.service.settings.backfills_per_chat_hour)
    assert 3.9 < budgets.standing(USER).follows < 4.1


async def test_a_failed_download_is_answered_and_logged_without_the_token(
    bot: Bot, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="bot")
    answer = await send_file(bot, USER, b"subscribe Dezun Dong\n", downloadable=False)
    assert answer == "I could not download that file from Telegram; send /import again."
    logged = [r.getMessage() for r in caplog.records if r.name.startswith("bot")]
    assert "could not download a file to import: InvalidToken" in logged
    assert all(bot.telegram.token not in line and "/file/bot" not in line for line in logged)


async def test_each_forum_topic_exports_and_imports_its_own_follows(bot: Bot) -> None:
    forum = -1001234
    papers, news = (bot.telegram.create_topic(forum, name) for name in ("Papers", "News"))
    bot.telegram.set_admins(forum, [ADMIN])
    bot.chats.seen(forum, kind="supergroup")
    followed, _ = bot.store.follow_person(PersonRule(("Yemao Xu",)))
    bot.chats.subscribe(forum, followed.id, thread_id=papers)
    bot.chats.speaking.set_silent(forum, papers, True)  # the topic's own settings
    bot.chats.speaking.set_format(forum, papers, MessageFormat.COMPACT)

    bot.telegram.user_sends(forum, "/export", user_id=ADMIN, thread_id=papers)
    await bot.until(lambda: bot.telegram.documents(forum))
    (sent,) = bot.telegram.documents(forum)
    assert sent.message_thread_id == papers
    assert "subscribe Yemao Xu\n" in sent.data.decode()
    assert "# paused: no\n# quiet: off\n# silent: on\n# format: compact\n" in sent.data.decode()

    bot.telegram.user_sends_document(
        forum, sent.data, caption="/import", user_id=ADMIN, thread_id=news
    )
    await bot.until(lambda: bot.telegram.sent(forum))
    assert bot.last(forum).text.splitlines() == [
        "📥 This topic will follow Yemao Xu.",
        "It will set silent on, format compact.",  # the chat's own settings are unchanged
    ]
    assert bot.last(forum).message_thread_id == news
    go, _ = button_data(bot, forum)
    await press(bot, forum, go, user_id=ADMIN)
    assert bot.chats.subscribed_ids(forum, thread_id=news) == [followed.id]
    assert bot.chats.subscribed_ids(forum) == []  # General follows nothing
    styles = bot.chats.speaking.styles([forum])
    assert styles[(forum, news)] == styles[(forum, papers)] == Style(silent=True, compact=True)
    assert (forum, NO_THREAD) not in styles  # General speaks as it did


async def test_a_file_made_before_preview_imports_and_leaves_the_chats_preview(bot: Bot) -> None:
    """Issue 33: `# preview: on|off` travels; a file without it (every file made before) still
    imports and changes no preview; a wrong value is reported, not refused."""
    bot.chats.seen(USER, kind="private")
    bot.chats.speaking.set_preview(USER, NO_THREAD, True)
    old = b"# silent: on\n# format: compact\nsubscribe Dezun Dong\n"
    question = await send_file(bot, USER, old, file_name="follows.txt")
    assert question.splitlines()[:2] == [
        "📥 This chat will follow Dezun Dong.",
        "It will set silent on, format compact.",
    ]
    go, _ = button_data(bot, USER)
    await press(bot, USER, go)
    await bot.until(lambda: bot.chats.subscribed_ids(USER))
    speaking = bot.chats.speaking.settings(USER, NO_THREAD)
    assert (speaking.silent, speaking.preview) == (True, True)

    wrong = await send_file(bot, OTHER, b"# preview: maybe\nsubscribe Dezun Dong\n")
    assert "• header, preview: maybe: preview is on or off" in wrong.splitlines()
