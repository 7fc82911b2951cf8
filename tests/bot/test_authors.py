"""/authors ID (issue 30): a paper's authors, each with a button that follows that person as
/subscribe NAME would, through the fake Bot API on the real database: the follow stored and
polled next, the homonym question for a name of several people, a stranger's press refused in
a group, a 484-author list paged, bad input and stale buttons answered clearly."""

from __future__ import annotations

from typing import Any

from bot.handlers import commands_menu
from bot.handlers.permissions import only_admins
from tests.fakes.corpus import make_record
from tests.fakes.telegram import SentMessage
from tests.harness.bots import GROUP, USER, Bot
from watcher.arxiv.records import Record
from watcher.follows.rules import PersonRule
from watcher.store.budgets import LookupBudgets


def buttons(markup: dict[str, Any] | None) -> list[dict[str, Any]]:
    assert markup is not None
    return [button for row in markup["inline_keyboard"] for button in row]


def data_of(markup: dict[str, Any] | None, text: str) -> str:
    (data,) = [b["callback_data"] for b in buttons(markup) if b["text"] == text]
    return str(data)


async def press(bot: Bot, message: SentMessage, data: str, **sender: Any) -> None:
    """Press a button under `message` and wait for the press to be answered."""
    answered = len(bot.telegram.callback_answers)
    bot.telegram.press_button(message.chat_id, message.message_id, data, **sender)
    await bot.until(lambda: len(bot.telegram.callback_answers) > answered)


def on_arxiv(bot: Bot, record: Record) -> Record:
    bot.arxiv.records.append(record)
    return record


def searched(bot: Bot) -> list[str]:
    """The search queries of the API requests the fake arXiv saw."""
    requests = bot.arxiv.api_requests()
    return [r.params["search_query"] for r in requests if "search_query" in r.params]


async def test_a_button_follows_that_coauthor_and_the_next_poll_asks_for_them(bot: Bot) -> None:
    dezun = bot.store.find_followed("Dezun Dong")
    assert dezun is not None
    bot.chats.seen(USER, kind="private")
    bot.chats.subscribe(USER, dezun.id)
    paper = on_arxiv(
        bot,
        make_record(
            arxiv_id="2612.00501",
            title="Collectives on Dragonfly Networks",
            authors=["Dezun Dong", "Yemao Xu", "Zhang Lu"],
        ),
    )

    answer = await bot.ask_one(USER, "/authors https://arxiv.org/abs/2612.00501v1")

    assert answer == (
        "👥 Authors of arXiv:2612.00501v1 (3 authors)\n"
        "Collectives on Dragonfly Networks\n\n"
        "1. Dezun Dong ★\n2. Yemao Xu\n3. Zhang Lu\n\n"
        "A button follows that person here, as /subscribe NAME would; ★ marks those followed "
        "here already."
    )
    assert bot.store.paper("2612.00501") == paper  # fetched by id, stored for the buttons
    listing = bot.last(USER)
    assert [b["text"] for b in buttons(listing.reply_markup)] == [
        "★ Dezun Dong", "➕ Yemao Xu", "➕ Zhang Lu",
    ]  # fmt: skip
    assert all(len(b["callback_data"].encode()) <= 64 for b in buttons(listing.reply_markup))

    before = len(bot.telegram.sent(USER))
    await press(bot, listing, data_of(listing.reply_markup, "➕ Yemao Xu"))
    await bot.until(lambda: len(bot.telegram.sent(USER)) > before)

    assert bot.last(USER).text.startswith("✅ This chat now follows Yemao Xu")
    yemao = bot.store.find_person(PersonRule(("Yemao Xu",)))
    assert yemao is not None
    assert set(bot.chats.subscribed_ids(USER)) == {dezun.id, yemao.id}
    await bot.until(lambda: bot.telegram.edits)  # the list marks the new follow
    assert bot.telegram.edits[-1].message_id == listing.message_id
    assert "2. Yemao Xu ★" in (bot.telegram.edits[-1].text or "")

    asked = len(searched(bot))
    await bot.service.poller.poll(force=True)
    assert any("Yemao" in query for query in searched(bot)[asked:])

    # Pressed again: the answer /subscribe gives for a name the chat follows.
    before = len(bot.telegram.sent(USER))
    await press(bot, listing, data_of(listing.reply_markup, "➕ Yemao Xu"))
    await bot.until(lambda: len(bot.telegram.sent(USER)) > before)
    assert "already follows" in bot.last(USER).text
    assert set(bot.chats.subscribed_ids(USER)) == {dezun.id, yemao.id}


async def test_a_name_of_several_people_gets_the_homonym_question(bot: Bot) -> None:
    for index, category in enumerate(["cs.DC", "cs.DC", "cs.NI", "math.OC", "hep-th", "cs.NI"]):
        bot.arxiv.add(
            make_record(
                arxiv_id=f"2605.{index + 1:05d}",
                authors=["Wei Wang", "Someone Else"],
                primary_category=category,
                categories=(category,),
            )
        )
    await bot.ask_one(USER, "/paper 2605.00001")  # stored by an earlier look-up: no new request
    requests = len(bot.arxiv.api_requests())
    await bot.ask_one(USER, "/authors 2605.00001")
    assert len(bot.arxiv.api_requests()) == requests
    listing = bot.last(USER)

    before = len(bot.telegram.sent(USER))
    await press(bot, listing, data_of(listing.reply_markup, "➕ Wei Wang"))
    await bot.until(lambda: len(bot.telegram.sent(USER)) > before)

    asked = bot.last(USER)
    assert asked.text.startswith("🤔 The name Wei Wang looks like several people:")
    assert bot.chats.subscribed_ids(USER) == []  # nothing until answered
    choice = data_of(asked.reply_markup, "Wei Wang in cs.DC · 2 papers")
    await press(bot, asked, choice)
    await bot.until(lambda: any("now follows" in (e.text or "") for e in bot.telegram.edits))
    (followed_id,) = bot.chats.subscribed_ids(USER)
    (followed,) = bot.store.followed([followed_id])
    assert (followed.label, followed.categories) == ("Wei Wang in cs.DC", ("cs.DC",))


async def test_in_a_group_only_admins_follow_and_anyone_may_list_and_page(bot: Bot) -> None:
    admin, member = 5, 7
    bot.telegram.add_chat(GROUP, chat_type="group", title="Reading group")
    bot.telegram.set_admins(GROUP, [admin])
    on_arxiv(bot, make_record(arxiv_id="2612.00502", authors=["Yemao Xu", "Dezun Dong"]))

    answer = await bot.ask_one(GROUP, "/authors 2612.00502", chat_type="group", user_id=member)
    assert answer.startswith("👥 Authors of arXiv:2612.00502v1 (2 authors)")
    listing = bot.last(GROUP)
    follow = data_of(listing.reply_markup, "➕ Yemao Xu")

    sent = len(bot.telegram.sent(GROUP))
    await press(bot, listing, follow, user_id=member)
    refused = bot.telegram.callback_answers[-1]
    assert (refused.text, refused.show_alert) == (only_admins("group"), True)
    await bot.settled()
    assert bot.chats.subscribed_ids(GROUP) == []
    assert len(bot.telegram.sent(GROUP)) == sent

    await press(bot, listing, follow, user_id=admin)
    await bot.until(lambda: len(bot.telegram.sent(GROUP)) > sent)
    assert bot.last(GROUP).text.startswith("✅ This chat now follows Yemao Xu")
    assert bot.last(GROUP).reply_to_message_id == listing.message_id  # which list
    yemao = bot.store.find_person(PersonRule(("Yemao Xu",)))
    assert yemao is not None
    assert bot.chats.subscribed_ids(GROUP) == [yemao.id]


async def test_a_spent_budget_of_new_follows_holds_for_the_buttons_too(bot: Bot) -> None:
    on_arxiv(bot, make_record(arxiv_id="2612.00506", authors=["Yemao Xu", "Dezun Dong"]))
    await bot.ask_one(USER, "/authors 2612.00506")
    listing = bot.last(USER)
    budgets = LookupBudgets(bot.chats.engine, per_hour=bot.service.settings.backfills_per_chat_hour)
    while budgets.take(USER, lookup=False) is None:
        pass

    sent = len(bot.telegram.sent(USER))
    await press(bot, listing, data_of(listing.reply_markup, "➕ Yemao Xu"))
    await bot.until(lambda: len(bot.telegram.sent(USER)) > sent)

    assert bot.last(USER).text.startswith(
        "This chat has asked for enough new names and topics for now; try again in"
    )
    assert bot.chats.subscribed_ids(USER) == []


async def test_in_a_forum_the_button_follows_in_the_lists_topic(bot: Bot) -> None:
    forum, admin = -1005555555555, 5
    papers = bot.telegram.create_topic(forum, "Papers")
    bot.telegram.set_admins(forum, [admin])
    on_arxiv(bot, make_record(arxiv_id="2612.00505", authors=["Yemao Xu", "Dezun Dong"]))
    await bot.ask_one(forum, "/authors 2612.00505", user_id=admin, thread_id=papers)
    listing = bot.last(forum)
    assert listing.message_thread_id == papers

    sent = len(bot.telegram.sent(forum))
    await press(bot, listing, data_of(listing.reply_markup, "➕ Yemao Xu"), user_id=admin)
    await bot.until(lambda: len(bot.telegram.sent(forum)) > sent)

    assert bot.last(forum).text.startswith("✅ This topic now follows Yemao Xu")
    assert bot.last(forum).message_thread_id == papers
    yemao = bot.store.find_person(PersonRule(("Yemao Xu",)))
    assert yemao is not None
    assert bot.chats.subscribed_ids(forum, thread_id=papers) == [yemao.id]
    assert bot.chats.subscribed_ids(forum) == []


def collaboration() -> list[str]:
    """484 distinct names, as a large collaboration lists them."""
    given = ["Ada", "Ben", "Cleo", "Dan", "Eva", "Finn", "Gia", "Hugo", "Ida", "Jon", "Kai"]
    family = [
        "Abel", "Baker", "Cole", "Dunn", "Engel", "Frost", "Gray", "Hale", "Iver", "Jung",
        "Klein", "Lund", "Moss", "Nagy", "Ortiz", "Park", "Quinn", "Ross", "Stone", "Todd",
        "Ueda", "Voss", "Wolfe", "Young", "Zhou", "Amato", "Berg", "Costa", "Dahl", "Ekman",
        "Falk", "Gross", "Holm", "Ito", "Jansen", "Kato", "Lange", "Marsh", "Nolan", "Olsen",
        "Petit", "Reyes", "Sato", "Tanaka",
    ]  # fmt: skip
    names = [f"{g} {f}" for f in family for g in given]
    assert len(set(names)) == 484
    return names


async def test_a_484_author_list_is_paged_with_previous_and_next(bot: Bot) -> None:
    names = collaboration()
    on_arxiv(bot, make_record(arxiv_id="2612.00503", title="A Large Collaboration", authors=names))

    first = await bot.ask_one(USER, "/authors 2612.00503")

    assert first.startswith("👥 Authors of arXiv:2612.00503v1 (484 authors, page 1 of 25)\n")
    assert f"\n1. {names[0]}\n" in first and f"\n20. {names[19]}\n" in first
    assert f"21. {names[20]}" not in first
    listing = bot.last(USER)
    shown = buttons(listing.reply_markup)
    assert len(shown) == 21  # 20 authors and Next
    assert shown[-1]["text"] == "Next ▶"
    assert len(bot.last(USER).html) <= 4096

    await press(bot, listing, shown[-1]["callback_data"])
    await bot.until(lambda: bot.telegram.edits)
    second = bot.telegram.edits[-1]
    assert second.message_id == listing.message_id
    assert second.text is not None
    assert "(484 authors, page 2 of 25)" in second.text
    assert f"\n21. {names[20]}\n" in second.text and f"\n40. {names[39]}\n" in second.text
    turns = [b["text"] for b in buttons(second.reply_markup)][-2:]
    assert turns == ["◀ Previous", "Next ▶"]

    # A button on page 2 follows the author it names.
    sent = len(bot.telegram.sent(USER))
    await press(bot, listing, data_of(second.reply_markup, f"➕ {names[25]}"))
    await bot.until(lambda: len(bot.telegram.sent(USER)) > sent)
    assert bot.last(USER).text.startswith(f"✅ This chat now follows {names[25]}")
    await bot.until(lambda: f"26. {names[25]} ★" in (bot.telegram.edits[-1].text or ""))

    edits = len(bot.telegram.edits)
    await press(bot, listing, "w:p:24:2612.00503")
    await bot.until(lambda: len(bot.telegram.edits) > edits)
    last = bot.telegram.edits[-1]
    assert last.text is not None and "(484 authors, page 25 of 25)" in last.text
    assert f"\n484. {names[483]}\n" in last.text
    assert [b["text"] for b in buttons(last.reply_markup)][-1] == "◀ Previous"
    assert len(buttons(last.reply_markup)) == 5  # 4 authors and Previous


async def test_bad_input_and_stale_buttons_are_answered_with_what_to_do(bot: Bot) -> None:
    assert await bot.ask_one(USER, "/authors") == (
        "No paper given.\nFor example: /authors 2604.01234"
    )
    assert await bot.ask_one(USER, "/authors hello") == (
        "'hello' is not an arXiv id.\nFor example: /authors 2604.01234"
    )
    assert await bot.ask_one(USER, "/authors 2609.99999") == (
        "arXiv has no paper arXiv:2609.99999, so no authors to list; check its digits.\n"
        "For example: /authors 2604.01234"
    )
    assert await bot.ask_one(USER, "/authors 2604.01234") == (  # the example's own id, unknown
        "arXiv has no paper arXiv:2604.01234, so no authors to list; check its digits.\n"
        "Take an id from the papers I have stored: /recent"
    )

    on_arxiv(bot, make_record(arxiv_id="2612.00504", authors=["Yemao Xu", "Dezun Dong", "Plato"]))
    await bot.ask_one(USER, "/authors 2612.00504")
    listing = bot.last(USER)
    follow = data_of(listing.reply_markup, "➕ Yemao Xu")
    moved = follow.replace(":0:", ":1:")  # the other author's place, this author's mark
    await press(bot, listing, moved)
    assert bot.telegram.callback_answers[-1].text == (
        "The authors of arXiv:2612.00504 changed since this list; send /authors 2612.00504 again."
    )
    await press(bot, listing, data_of(listing.reply_markup, "➕ Plato"))
    assert bot.telegram.callback_answers[-1].text == (
        "Plato cannot be followed by name (a name needs a given name and a family name, as "
        "arXiv lists the author); /subscribe with their arXiv author id can."
    )
    await press(bot, listing, "w:f:0:abcdef:2511.99999")
    assert bot.telegram.callback_answers[-1].text == (
        "arXiv:2511.99999 is no longer stored here; send /authors 2511.99999 again."
    )
    await press(bot, listing, "w:f:x")
    assert bot.telegram.callback_answers[-1].text == (
        "This button no longer works; send /authors with the paper's id again."
    )
    await bot.settled()
    assert bot.chats.subscribed_ids(USER) == []


async def test_help_tells_authors(bot: Bot) -> None:
    assert (await bot.ask_one(USER, "/help authors")).startswith(
        "/authors ID: follow a paper's authors\nA paper's authors, each with a button "
        "that follows that person here as /subscribe NAME would"
    )
    assert "\n/authors ID: follow a paper's authors\n" in await bot.ask_one(USER, "/help")
    assert "authors" in [command.command for command in commands_menu()]  # the menu
