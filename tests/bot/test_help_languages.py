"""/help, every /help NAME and the command menu in each language (issue 31): the English the bot
sends is what the renderers build; in Simplified Chinese every line is Chinese, every <code>
example is the English one, and the overview stays short; and no help sentence escaped the
catalog (the pseudo-locale, limited to the sentences `make i18n` extracted, finds none).

The bot does not choose a chat's language here: the language is set with `speaking` around
direct calls of the renderers (`help_overview`, `command_help`, `commands_menu`).
"""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest
from babel.messages.pofile import read_po

from bot.handlers.commands import COMMAND_TABLE, command_help, commands_menu, help_overview
from bot.i18n import install, speaking
from bot.render import MAX_MESSAGE_LENGTH, visible_length
from tests.harness.bots import USER, Bot
from tests.harness.paths import REPO
from tests.harness.pseudo_locale import PSEUDO, english_left, install_pseudo, pseudo

ZH = "zh-Hans"
_CJK = re.compile(r"[\u4e00-\u9fff]")
_CODE = re.compile(r"<code>.*?</code>", re.DOTALL)


def every_help() -> Iterator[tuple[str, str]]:
    """(what was asked, the answer) for /help and each /help NAME, in the language speaking."""
    yield "/help", help_overview()
    for command in COMMAND_TABLE:
        yield f"/help {command.name}", command_help(command)


async def test_the_bot_sends_the_english_the_renderers_build(bot: Bot) -> None:
    await bot.ask_one(USER, "/help")
    with speaking("en"):
        assert bot.last(USER).html == help_overview()
    for command in COMMAND_TABLE:
        await bot.ask_one(USER, f"/help {command.name}")
        with speaking("en"):
            assert bot.last(USER).html == command_help(command)


def test_help_in_chinese_is_chinese_with_the_english_examples() -> None:
    with speaking("en"):
        english = dict(every_help())
    with speaking(ZH):
        chinese = dict(every_help())
    assert chinese.keys() == english.keys()
    for asked, text in chinese.items():
        not_chinese = [line for line in text.split("\n") if line and not _CJK.search(line)]
        assert not_chinese == [], asked
        assert _CODE.findall(text) == _CODE.findall(english[asked]), asked
        assert visible_length(text) <= MAX_MESSAGE_LENGTH, asked


@pytest.mark.parametrize("language", ["en", ZH])
def test_the_overview_is_short_in_each_language(language: str) -> None:
    with speaking(language):
        overview = help_overview()
    assert visible_length(overview) < 1300, visible_length(overview)  # 1250 until /suggest
    lines = overview.split("\n")
    assert len(lines) == 1 + 2 * 3 + len(COMMAND_TABLE) + 2  # title, 3 groups, commands, hint
    assert all(len(line) <= 60 for line in lines[:-1] if line.startswith("/")), lines


@pytest.mark.parametrize("language", ["en", ZH])
def test_the_menu_describes_every_command_within_telegrams_limits(language: str) -> None:
    with speaking(language):
        menu = commands_menu()
    assert [item.command for item in menu] == [command.name for command in COMMAND_TABLE]
    assert all(3 <= len(item.description) <= 256 for item in menu), menu
    if language == ZH:
        assert all(_CJK.search(item.description) for item in menu), menu


class MarkedOnly:
    """The pseudo-locale for the sentences `make i18n` extracted only: any other text passed to
    `_()` (a detail written without `N_`) is answered as it is, in plain English."""

    def __init__(self, marked: set[str]) -> None:
        self.marked = marked

    def gettext(self, message: str, /) -> str:
        return pseudo(message) if message in self.marked else message

    def ngettext(self, singular: str, plural: str, n: int, /) -> str:
        message = singular if n == 1 else plural
        return pseudo(message) if singular in self.marked else message


def test_under_the_pseudo_locale_no_english_is_left() -> None:
    with speaking(install_pseudo()):
        for asked, text in every_help():
            assert english_left(text) == [], f"{asked}: {english_left(text)}"


def test_no_help_sentence_escaped_the_catalog() -> None:
    """Every sentence of /help and /help NAME is one `make i18n` extracted: under the
    pseudo-locale answering only those, no English is left.

    A line added to a command's details without `N_()`, say `"Papers arrive at dawn."` in
    /watch's, is still passed to `_()` when /help watch is built, but it is in no catalog: a
    Chinese reader would get it in English. Here it stays plain English and fails as
        AssertionError: assert {'/help watch': ['Papers arrive at dawn']} == {}
    and so does a new line of the overview built without `_()`.
    """
    with (REPO / "bot" / "locales" / "messages.pot").open("rb") as pot:
        marked = {m.id if isinstance(m.id, str) else m.id[0] for m in read_po(pot) if m.id}
    install(PSEUDO, MarkedOnly(marked))
    try:
        with speaking(PSEUDO):
            left = {asked: english_left(text) for asked, text in every_help()}
    finally:
        install_pseudo()  # the whole pseudo-locale again, for the other tests
    assert {asked: words for asked, words in left.items() if words} == {}
