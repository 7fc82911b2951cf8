"""The reading list (issue 30), through the fake Bot API on the real database: 🔖 Save under an
announcement puts the paper on the chat's /saved and turns into 🗑 Unsave (the keyboard edited);
a paper saved twice is saved once, two presses at once too; /saved pages like /recent with a
🗑 N per paper; the 501st save is refused with the limit and how to make room; in a group only
administrators save and unsave, anyone reads; /saved bib sends ONE .bib file that real BibTeX
parsers read, each entry as Cite makes it; /export then /import into another chat carries the
list."""

from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import UTC, datetime
from typing import Any

import bibtexparser
import pytest
from sqlmodel import Session

from bot.handlers.permissions import only_admins
from bot.handlers.saved import EMPTY, full
from tests.fakes.corpus import make_record
from tests.fakes.telegram import SentDocument, SentMessage
from tests.harness.bibtex_reader import read_entry
from tests.harness.bots import GROUP, USER, Bot, wake_sender, with_sender
from watcher.arxiv.records import Record
from watcher.store import MatchedRecord
from watcher.store.reading_list import MAX_SAVED, ReadingLists, SavedPaper

OTHER = 43
ODD = make_record(
    arxiv_id="2611.04242",
    title=r"Braces {open and $\alpha$-stable \emph{laws}: 30% of A&B} Results\}, note = {x}",
    authors=["Dézun Dong", 'Kurt G{\\"o}del'],
    doi="10.1145/3458817.3476181",
)
# Two papers whose Cite keys are the same: same first surname, year and first title words.
TWIN_A = make_record(arxiv_id="2611.04243", title="Adaptive Routing in Dragonfly Networks")
TWIN_B = make_record(arxiv_id="2611.04244", title="Adaptive Routing in Dragonfly Networks, again")


@pytest.fixture
async def front(bot: Bot) -> AsyncIterator[Bot]:
    """The running bot, with a delivery sender on its own Bot (woken by `publish`)."""
    async with with_sender(bot):
        yield bot


def publish(bot: Bot, record: Record) -> None:
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


def buttons(markup: dict[str, Any] | None) -> list[list[tuple[str, str]]]:
    """Each row's buttons as (text, callback data, url, text copied, or "share " and query)."""
    assert markup is not None
    return [[(b["text"], _what(b)) for b in row] for row in markup["inline_keyboard"]]


def _what(button: dict[str, Any]) -> str:
    if "copy_text" in button:
        return str(button["copy_text"]["text"])
    if "switch_inline_query_chosen_chat" in button:
        return "share " + str(button["switch_inline_query_chosen_chat"]["query"])
    return str(button.get("callback_data") or button.get("url", ""))


async def press(bot: Bot, chat_id: int, message_id: int, data: str, **sender: Any) -> str | None:
    """Press a button; the answer's text (None: a silent answer)."""
    answered = len(bot.telegram.callback_answers)
    bot.telegram.press_button(chat_id, message_id, data, **sender)
    await bot.until(lambda: len(bot.telegram.callback_answers) > answered)
    await bot.settled()
    return bot.telegram.callback_answers[-1].text


def saved_ids(bot: Bot, chat_id: int) -> list[str]:
    page = ReadingLists(bot.store.engine).page(chat_id, limit=MAX_SAVED)
    return [entry.arxiv_id for entry in page.entries]


async def test_save_lists_the_paper_in_saved_and_unsave_takes_it_off(front: Bot) -> None:
    bot = front
    await bot.ask(USER, "/subscribe")
    publish(bot, ODD)
    message = await announced(bot, USER, ODD)
    save, unsave = f"a:s:{ODD.arxiv_id}", f"a:x:{ODD.arxiv_id}"
    assert message.reply_markup is not None
    unfollow = message.reply_markup["inline_keyboard"][2][0]["callback_data"]
    assert buttons(message.reply_markup) == [
        [("📄 Abstract", ODD.abs_url), ("📥 PDF", ODD.pdf_url),
         ("🌐 HTML", f"https://arxiv.org/html/{ODD.arxiv_id}")],
        [("❝ Cite", f"a:c:{ODD.arxiv_id}"), ("🔖 Save", save),
         ("↗ Share", f"share {ODD.arxiv_id}"), ("📋 Copy id", f"arXiv:{ODD.arxiv_id}")],
        [("🔕 Unfollow Dezun Dong", unfollow)],
    ]  # fmt: skip
    assert await bot.ask_one(USER, "/saved") == EMPTY

    assert await press(bot, USER, message.message_id, save) == (
        "🔖 Saved: /saved lists this chat's reading list."
    )
    edit = bot.telegram.edits[-1]
    assert (edit.method, edit.message_id) == ("editMessageReplyMarkup", message.message_id)
    rows = buttons(edit.reply_markup)
    assert rows[1][1] == ("🗑 Unsave", unsave)
    assert rows[0] == buttons(message.reply_markup)[0]  # the rest of the keyboard is kept
    assert rows[1][0] == buttons(message.reply_markup)[1][0]
    assert rows[1][2:] == buttons(message.reply_markup)[1][2:]  # Share and copy survive the edit
    assert rows[2] == buttons(message.reply_markup)[2]

    # The old Save pressed again (another device, a stale screen): saved once.
    assert await press(bot, USER, message.message_id, save) == (
        "It was saved here already: /saved lists it."
    )
    assert saved_ids(bot, USER) == [ODD.arxiv_id]

    await bot.ask(USER, "/saved")
    listing = bot.last(USER)
    assert listing.text.splitlines()[0] == "Saved · 1"
    assert "Braces" in listing.text and ODD.versioned_id in listing.text
    assert buttons(listing.reply_markup) == [[("🗑 1", f"v:x:0:{ODD.arxiv_id}")]]

    assert await press(bot, USER, message.message_id, unsave) == (
        "Taken off this chat's reading list."
    )
    assert buttons(bot.telegram.edits[-1].reply_markup)[1][1] == ("🔖 Save", save)
    assert saved_ids(bot, USER) == []
    assert await bot.ask_one(USER, "/saved") == EMPTY

    # Saved again, then taken off from /saved's own page: the page becomes the empty answer.
    await press(bot, USER, message.message_id, save)
    await bot.ask(USER, "/saved")
    listing = bot.last(USER)
    assert await press(bot, USER, listing.message_id, f"v:x:0:{ODD.arxiv_id}") == (
        f"Unsaved arXiv:{ODD.arxiv_id}."
    )
    assert bot.telegram.edits[-1].text == EMPTY
    assert saved_ids(bot, USER) == []

    # An old message's Save, for a paper no longer stored: a clear answer, nothing saved.
    assert await press(bot, USER, message.message_id, "a:s:2511.99999") == (
        "arXiv:2511.99999 is no longer stored here, so it cannot be saved; its page is "
        "https://arxiv.org/abs/2511.99999"
    )
    assert bot.telegram.callback_answers[-1].show_alert
    assert saved_ids(bot, USER) == []


async def test_help_names_saved_and_tells_it_in_full(bot: Bot) -> None:
    listed = await bot.ask_one(USER, "/help")
    assert "/saved [bib]: the papers saved here" in listed.splitlines()
    full = await bot.ask_one(USER, "/help saved")
    assert full.startswith("/saved [bib]: the papers saved here\n")
    assert f"at most {MAX_SAVED} papers" in full and "/saved bib" in full


async def test_two_presses_at_once_save_the_paper_once(front: Bot) -> None:
    bot = front
    await bot.ask(USER, "/subscribe")
    publish(bot, ODD)
    message = await announced(bot, USER, ODD)
    answered = len(bot.telegram.callback_answers)
    for _ in range(2):
        bot.telegram.press_button(USER, message.message_id, f"a:s:{ODD.arxiv_id}")
    await bot.until(lambda: len(bot.telegram.callback_answers) >= answered + 2)
    texts = sorted(a.text or "" for a in bot.telegram.callback_answers[answered:])
    assert texts == [
        "It was saved here already: /saved lists it.",
        "🔖 Saved: /saved lists this chat's reading list.",
    ]
    assert saved_ids(bot, USER) == [ODD.arxiv_id]


async def test_saved_pages_newest_saved_first(front: Bot) -> None:
    bot = front
    await bot.ask(USER, "/subscribe")
    lists = ReadingLists(bot.store.engine)
    papers = [make_record(arxiv_id=f"2611.0{n:04d}", title=f"Paper number {n}") for n in range(7)]
    bot.store.save_records(
        [MatchedRecord(p, frozenset()) for p in papers], announce_for=frozenset()
    )
    for n, paper in enumerate(papers):
        when = datetime(2026, 12, 1, 10, n, tzinfo=UTC)
        lists.save(USER, paper.arxiv_id, title=paper.title, now=when)

    await bot.ask(USER, "/saved")
    first = bot.last(USER)
    assert first.text.splitlines()[0] == "Saved · 7"
    listed = [line for line in first.text.splitlines() if line[:2] in {f"{n}." for n in range(8)}]
    assert [line.split(". ", 1)[1] for line in listed] == [
        f"Paper number {n}" for n in (6, 5, 4, 3, 2)
    ]
    rows = buttons(first.reply_markup)
    assert [text for text, _ in rows[0]] == ["🗑 1", "🗑 2", "🗑 3", "🗑 4", "🗑 5"]
    assert rows[1] == [("Older ▶", "v:1")]

    await press(bot, USER, first.message_id, "v:1")
    second = bot.telegram.edits[-1]
    assert second.text is not None and second.text.splitlines()[0] == "Saved · 6–7 of 7"
    assert "Paper number 1" in second.text and "Paper number 0" in second.text
    # 🗑 on the last page's last paper, then its other one: the page before is shown.
    second_rows = buttons(second.reply_markup)
    assert [text for text, _ in second_rows[0]] == ["🗑 6", "🗑 7"]
    await press(bot, USER, first.message_id, second_rows[0][0][1])
    await press(bot, USER, first.message_id, f"v:x:1:{papers[0].arxiv_id}")
    last = bot.telegram.edits[-1]
    assert last.text is not None and last.text.splitlines()[0] == "Saved · 5"
    assert await press(bot, USER, first.message_id, "v:zz") == (
        "This button no longer works; send /saved again."
    )


async def test_the_501st_save_is_refused_saying_the_limit_and_how_to_make_room(
    front: Bot,
) -> None:
    bot = front
    await bot.ask(USER, "/subscribe")
    with Session(bot.store.engine) as session:
        now = datetime(2026, 12, 1, tzinfo=UTC)
        for n in range(MAX_SAVED):
            session.add(SavedPaper(chat_id=USER, arxiv_id=f"2501.{n:05d}", title="", saved_at=now))
        session.commit()
    publish(bot, ODD)
    message = await announced(bot, USER, ODD)

    assert await press(bot, USER, message.message_id, f"a:s:{ODD.arxiv_id}") == full()
    assert bot.telegram.callback_answers[-1].show_alert
    assert "500" in full() and "/saved" in full()
    assert ODD.arxiv_id not in saved_ids(bot, USER)
    assert len(saved_ids(bot, USER)) == MAX_SAVED

    # Room made from /saved (a paper not stored here: listed by id, "not stored here").
    await bot.ask(USER, "/saved")
    listing = bot.last(USER)
    assert "not stored here" in listing.text
    first = buttons(listing.reply_markup)[0][0][1]
    await press(bot, USER, listing.message_id, first)
    assert await press(bot, USER, message.message_id, f"a:s:{ODD.arxiv_id}") == (
        "🔖 Saved: /saved lists this chat's reading list."
    )
    assert len(saved_ids(bot, USER)) == MAX_SAVED


async def test_in_a_group_only_admins_save_and_anyone_reads(front: Bot) -> None:
    bot = front
    admin, member = 5, 7
    bot.telegram.add_chat(GROUP, chat_type="group", title="Reading group")
    bot.telegram.set_admins(GROUP, [admin])
    await bot.ask(GROUP, "/subscribe", user_id=admin)
    publish(bot, ODD)
    message = await announced(bot, GROUP, ODD)
    save = f"a:s:{ODD.arxiv_id}"

    refused = only_admins("group", "its reading list")
    assert refused == "Only this group's administrators can change its reading list."
    assert await press(bot, GROUP, message.message_id, save, user_id=member) == refused
    assert bot.telegram.callback_answers[-1].show_alert
    assert saved_ids(bot, GROUP) == []

    await press(bot, GROUP, message.message_id, save, user_id=admin)
    assert saved_ids(bot, GROUP) == [ODD.arxiv_id]
    await bot.ask(GROUP, "/saved", user_id=member)
    listing = bot.last(GROUP)
    assert listing.text.startswith("Saved · 1")
    unsave = f"v:x:0:{ODD.arxiv_id}"
    assert await press(bot, GROUP, listing.message_id, unsave, user_id=member) == refused
    assert await press(bot, GROUP, message.message_id, f"a:x:{ODD.arxiv_id}", user_id=member) == (
        refused
    )
    assert saved_ids(bot, GROUP) == [ODD.arxiv_id]
    before = len(bot.telegram.documents(GROUP))
    bot.telegram.user_sends(GROUP, "/saved bib", user_id=member)  # reading: anyone
    await bot.until(lambda: len(bot.telegram.documents(GROUP)) > before)


async def bib(bot: Bot, chat_id: int) -> SentDocument:
    before = len(bot.telegram.documents(chat_id))
    bot.telegram.user_sends(chat_id, "/saved bib")
    await bot.until(lambda: len(bot.telegram.documents(chat_id)) > before)
    return bot.telegram.documents(chat_id)[-1]


async def test_saved_bib_is_one_file_that_bibtex_parsers_read_as_cite_writes_it(
    front: Bot,
) -> None:
    bot = front
    await bot.ask(USER, "/subscribe")
    lists = ReadingLists(bot.store.engine)
    for paper in (ODD, TWIN_A, TWIN_B):
        publish(bot, paper)
        message = await announced(bot, USER, paper)
        await press(bot, USER, message.message_id, f"a:s:{paper.arxiv_id}")
    # A paper saved elsewhere and imported, which this service never stored.
    lists.save(USER, "2511.99999", title="Gone Paper", now=datetime(2020, 1, 1, tzinfo=UTC))
    assert saved_ids(bot, USER) == [TWIN_B.arxiv_id, TWIN_A.arxiv_id, ODD.arxiv_id, "2511.99999"]

    document = await bib(bot, USER)
    assert document.file_name == "arxiv-watcher-saved.bib"
    assert document.caption == (
        "3 saved papers as BibTeX; 1 not stored here are named at the top, not cited."
    )
    text = document.data.decode("utf-8")

    library = bibtexparser.parse_string(text)
    assert library.failed_blocks == []
    keys = [entry.key for entry in library.entries]
    assert keys == [
        "dong2026adaptiveroutingdragonflynetworks",
        "dong2026adaptiveroutingdragonflynetworksb",
        "dong2026bracesopenstablelaws",
    ]
    assert [entry["eprint"] for entry in library.entries] == [
        TWIN_B.arxiv_id, TWIN_A.arxiv_id, ODD.arxiv_id,
    ]  # fmt: skip
    assert library.entries[0]["title"] == "Adaptive Routing in Dragonfly Networks, again"

    # Each entry is what Cite answers for that paper (read by pybtex, which counts braces as
    # BibTeX does); only a key met twice gets a letter.
    blocks = [block for block in text.split("\n\n") if block.startswith("@")]
    before = len(bot.telegram.sent(USER))
    message = await announced(bot, USER, ODD)
    await press(bot, USER, message.message_id, f"a:c:{ODD.arxiv_id}")
    await bot.until(lambda: len(bot.telegram.sent(USER)) > before)
    cited = bot.last(USER).text + "\n"
    assert blocks[2] == cited
    assert read_entry(blocks[2]) == read_entry(cited)
    assert read_entry(blocks[1])[0] == "dong2026adaptiveroutingdragonflynetworksb"

    # The paper not stored is named in the header (a comment to BibTeX), not cited.
    assert text.splitlines()[1] == "% Saved but not stored here, so not cited: arXiv:2511.99999"
    await bot.ask(USER, "/saved")
    assert "Gone Paper" in bot.last(USER).text


@pytest.mark.parametrize("command", ["/export", "/export opml"])
async def test_an_export_imported_in_another_chat_carries_the_saved_list(
    front: Bot, command: str
) -> None:
    bot = front
    await bot.ask(USER, "/subscribe")
    for paper in (TWIN_A, ODD):
        publish(bot, paper)
        message = await announced(bot, USER, paper)
        await press(bot, USER, message.message_id, f"a:s:{paper.arxiv_id}")

    before = len(bot.telegram.documents(USER))
    bot.telegram.user_sends(USER, command)
    await bot.until(lambda: len(bot.telegram.documents(USER)) > before)
    exported = bot.telegram.documents(USER)[-1]
    if command == "/export":
        lines = exported.data.decode().splitlines()
        assert [line for line in lines if line.startswith("save ")] == [
            f"save {ODD.arxiv_id}  # {' '.join(ODD.title.split())}",
            f"save {TWIN_A.arxiv_id}  # {TWIN_A.title}",
        ]
    else:
        assert f'<saved id="{TWIN_A.arxiv_id}" title="{TWIN_A.title}" />' in exported.data.decode()

    sent = len(bot.telegram.sent(OTHER))
    bot.telegram.user_sends_document(
        OTHER, exported.data, caption="/import", file_name=exported.file_name
    )
    await bot.until(lambda: len(bot.telegram.sent(OTHER)) > sent)
    question = bot.last(OTHER)
    assert "🔖 It will save 2 papers to this chat's /saved." in question.text
    assert saved_ids(bot, OTHER) == []  # nothing before the press
    go = buttons(question.reply_markup)[0][0][1]
    await press(bot, OTHER, question.message_id, go)
    assert saved_ids(bot, OTHER) == [ODD.arxiv_id, TWIN_A.arxiv_id]  # the same order
    assert bot.telegram.edits[-1].text is not None
    assert "saved 2 papers" in bot.telegram.edits[-1].text

    # Imported again: nothing new to save, and it says so.
    sent = len(bot.telegram.sent(OTHER))
    bot.telegram.user_sends_document(
        OTHER, exported.data, caption="/import", file_name=exported.file_name
    )
    await bot.until(lambda: len(bot.telegram.sent(OTHER)) > sent)
    assert "2 papers of the file are saved here already." in bot.last(OTHER).text
