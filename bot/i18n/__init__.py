"""The bot's languages: which there are, which one is speaking now, and the words in it.

Every sentence the bot says is English source text in the code, looked up in the gettext
catalog of the language speaking now (`bot/locales/<language>/LC_MESSAGES/messages.po`, managed
with Babel: `make i18n`). What is speaking is a context variable: the gate sets it for each
update from the chat's language (`speak`), the sender and the digest renderer for each
destination (`speaking`). So renderers and handlers call `_()` and `ngettext()` without passing a
language along, the way Django's and aiogram's translations work.

- `_("Following {name}.", name=shown)`: the translation, its named placeholders filled.
  Placeholders are named, never positional, so a translation may reorder them.
- `ngettext("{n} paper", "{n} papers", n)`: the form for `n` (`{n}` is filled with it).
  Chinese has one form; English two.
- `N_("...")`: marks a constant for extraction and returns it unchanged; translate it where it
  is used, with `_(CONSTANT)`. Constants built at import time are in no language yet.

Paper titles, abstracts, author names, arXiv ids, commands and URLs are never translated.
`LANGUAGES` lists the languages a chat may choose; `language_of_user` maps a Telegram
`language_code` to one of them; `parse_language` reads what a person typed after /language.
`say(sentence)` says a core `watcher.sentences.Sentence` in the language speaking now.
`install` adds a language at run time (the tests' pseudo-locale), `uninstall` forgets it.
"""

from __future__ import annotations

from bot.i18n.catalogs import (
    DEFAULT_LANGUAGE,
    N_,
    _,
    current_language,
    install,
    known_languages,
    ngettext,
    say,
    sayer,
    speak,
    speaking,
    uninstall,
)
from bot.i18n.names import language_name, language_of_user, parse_language
from watcher.kinds import LANGUAGES

__all__ = [
    "DEFAULT_LANGUAGE",
    "LANGUAGES",
    "N_",
    "_",
    "current_language",
    "install",
    "known_languages",
    "language_name",
    "language_of_user",
    "ngettext",
    "parse_language",
    "say",
    "sayer",
    "speak",
    "speaking",
    "uninstall",
]
