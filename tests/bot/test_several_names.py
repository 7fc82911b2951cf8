"""/subscribe and /unsubscribe as people type names (issue 19, trap 2): in quotes of any kind, and
several in one message, separated by `;` or new lines as WATCH_AUTHORS is. End to end: the real
Application long-polls the fake Bot API, on the real store and the fake arXiv."""

from __future__ import annotations

import pytest

from tests.harness.bots import USER, Bot
from watcher.settings import Settings


@pytest.mark.parametrize(
    "quoted",
    ['"Yemao Xu"', "“Yemao Xu”", "«Yemao Xu»", "'Yemao Xu'", "„Yemao Xu“", '"Yemao Xu" in cs.DC'],
)
async def test_a_quoted_name_is_followed_as_the_name(bot: Bot, quoted: str) -> None:
    answer = await bot.ask_one(USER, f"/subscribe {quoted}")

    assert answer.startswith("✅ This chat now follows Yemao Xu"), answer
    followed = bot.store.followed(bot.chats.subscribed_ids(USER))
    assert [tuple(f.names) for f in followed] == [("Yemao Xu",)]
    gone = await bot.ask_one(USER, f"/unsubscribe {quoted}")
    assert gone.startswith("✅ This chat no longer follows Yemao Xu"), gone


async def test_an_apostrophe_inside_a_name_stays(bot: Bot) -> None:
    answer = await bot.ask_one(USER, "/subscribe Dezun O'Dong")

    assert "O'Dong" in answer and "only letters" not in answer


async def test_several_names_in_one_message_get_one_line_each(bot: Bot) -> None:
    asked = len(bot.arxiv.api_requests())

    answer = await bot.ask_whole(USER, "/subscribe Dezun Dong; “Yemao Xu”\nLi\n\nNobody Atall")

    lines = answer.split("\n")
    assert len(lines) == 4, answer
    assert lines[0].startswith("✅ This chat now follows Dezun Dong:")
    assert lines[1].startswith("✅ This chat now follows Yemao Xu: arXiv lists 3 papers")
    assert lines[2].startswith("❌ Li: A name needs a given name and a family name")
    assert lines[3].startswith("arXiv lists no papers by Nobody Atall")
    # Dezun Dong was fetched already; Li was refused before asking arXiv.
    assert len(bot.arxiv.api_requests()) == asked + 2
    names = {f.label for f in bot.store.followed(bot.chats.subscribed_ids(USER))}
    assert names == {"Dezun Dong", "Yemao Xu"}

    gone = await bot.ask_one(USER, "/unsubscribe Yemao Xu\nDezun Dong")

    assert gone.split("\n") == [
        "✅ This chat no longer follows Yemao Xu.",
        "✅ This chat no longer follows Dezun Dong.",
    ]
    assert bot.chats.subscribed_ids(USER) == []


async def test_commas_between_full_names_split_them_and_else_the_answer_names_the_semicolon(
    bot: Bot,
) -> None:
    """Issue 30, item 5: "Dezun Dong, Yemao Xu" was read as one name, with no word about `;`."""
    answer = await bot.ask_whole(USER, "/subscribe Dezun Dong, Yemao Xu in cs.DC")

    lines = answer.split("\n")
    assert lines[0].startswith("✅ This chat now follows Dezun Dong:"), answer
    assert lines[1].startswith("✅ This chat now follows Yemao Xu in cs.DC"), answer
    gone = await bot.ask_one(USER, "/unsubscribe Dezun Dong, Yemao Xu in cs.DC")
    assert gone.split("\n") == [
        "✅ This chat no longer follows Dezun Dong.",
        "✅ This chat no longer follows Yemao Xu in cs.DC.",
    ]
    # "Family, Given" is one name; a comma that cannot split says what separates names.
    unsplit = await bot.ask_whole(USER, "/subscribe Xu, Yemao, Dezun Dong")
    assert unsplit == (
        "arXiv lists no papers by Xu, Yemao, Dezun Dong, so this chat does not follow that name; "
        "to follow several people, separate their names with ;.\n"
        "For example: /subscribe Dezun Dong; Yemao Xu"
    )


async def test_too_many_names_at_once_are_refused_before_asking_arxiv(bot: Bot) -> None:
    asked = len(bot.arxiv.requests)
    names = "; ".join(f"Name{chr(97 + n)} Person" for n in range(11))

    answer = await bot.ask_one(USER, f"/subscribe {names}")

    assert answer.startswith("11 names in one message; at most 10")
    assert len(bot.arxiv.requests) == asked


def test_watch_authors_splits_on_semicolons_and_new_lines_alike() -> None:
    settings = Settings(_env_file=None, watch_authors="Dezun Dong;\n“Yemao Xu”\nWei Wang in cs.DC")

    assert [str(rule) for rule in settings.followed_specs] == [
        "Dezun Dong",
        "Yemao Xu",
        "Wei Wang in cs.DC",
    ]
