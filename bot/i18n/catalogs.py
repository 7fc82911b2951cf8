"""The catalogs, and the language speaking now.

A language's catalog is its `.po` file under `bot/locales/`, read with Babel and compiled in
memory the first time that language speaks (a few milliseconds; nothing compiled is committed
or built by the install, so what runs is always what the `.po` says). English is the source
text and has no catalog.

The language speaking now is a context variable. `speak(language)` sets it for the rest of the
current task (the gate, once per update: each update is handled in its own task);
`speaking(language)` sets it for a block and restores it after (the sender, per destination).
"""

from __future__ import annotations

import gettext as gettext_module
import io
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from functools import cache
from pathlib import Path
from typing import Any, Protocol

from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po

from watcher.kinds import LANGUAGES, SOURCE_LANGUAGE
from watcher.sentences import Sentence

# The languages a chat may choose (the core's list: an import checks it too); the first is the
# source of every sentence and the default.
DEFAULT_LANGUAGE = SOURCE_LANGUAGE
LOCALES = Path(__file__).resolve().parent.parent / "locales"
DOMAIN = "messages"


class Translations(Protocol):
    """What a language must answer: gettext's two lookups."""

    def gettext(self, message: str, /) -> str: ...

    def ngettext(self, singular: str, plural: str, n: int, /) -> str: ...


_speaking: ContextVar[str] = ContextVar("bot_language", default=DEFAULT_LANGUAGE)
_installed: dict[str, Translations] = {}


def babel_name(language: str) -> str:
    """The catalog's folder name (Babel's locale identifier): zh-Hans -> zh_Hans."""
    return language.replace("-", "_")


@cache
def _catalog(language: str) -> Translations:
    if language in _installed:
        return _installed[language]
    path = LOCALES / babel_name(language) / "LC_MESSAGES" / f"{DOMAIN}.po"
    if language == DEFAULT_LANGUAGE or not path.exists():
        return gettext_module.NullTranslations()
    with path.open("rb") as po:
        catalog = read_po(po, locale=babel_name(language))
    compiled = io.BytesIO()
    write_mo(compiled, catalog)  # fuzzy entries are left out, as msgfmt does
    compiled.seek(0)
    return gettext_module.GNUTranslations(compiled)


def install(language: str, translations: Translations) -> None:
    """Make `language` speakable with `translations` (the tests' pseudo-locale)."""
    _installed[language] = translations
    _catalog.cache_clear()


def uninstall(language: str) -> None:
    """Forget a language `install` added (a test's pseudo-locale, after the test)."""
    if _installed.pop(language, None) is not None:
        _catalog.cache_clear()


def known_languages() -> tuple[str, ...]:
    """`LANGUAGES` and any installed ones."""
    return LANGUAGES + tuple(name for name in _installed if name not in LANGUAGES)


def current_language() -> str:
    """The language speaking now."""
    return _speaking.get()


def _usable(language: str | None) -> str:
    return language if language in known_languages() else DEFAULT_LANGUAGE


def speak(language: str | None) -> None:
    """From now on in this task, speak `language` (unknown or None: the default)."""
    _speaking.set(_usable(language))


@contextmanager
def speaking(language: str | None) -> Iterator[str]:
    """Speak `language` (unknown or None: the default) inside the block; yields it."""
    token = _speaking.set(_usable(language))
    try:
        yield _speaking.get()
    finally:
        _speaking.reset(token)


def _(message: str, /, **values: Any) -> str:
    """`message` in the language speaking now, its `{named}` placeholders filled."""
    text = _catalog(_speaking.get()).gettext(message)
    return text.format(**values) if values else text


def ngettext(singular: str, plural: str, n: int, /, **values: Any) -> str:
    """The form for `n` in the language speaking now; `{n}` and the `values` filled."""
    return _catalog(_speaking.get()).ngettext(singular, plural, n).format(n=n, **values)


def N_(message: str, /) -> str:
    """Mark `message` for extraction; translate it where it is used, with `_(message)`."""
    return message


def say(words: Sentence | str) -> str:
    """A core `Sentence` (its values too, when they are Sentences) in the language speaking
    now; a plain string as it is (already said, or never translated)."""
    if isinstance(words, str):
        return words
    values = {name: say(v) if isinstance(v, Sentence) else v for name, v in words.values.items()}
    return _(words.template, **values)


def sayer() -> Callable[[Sentence], str]:
    """`say`, bound to the language speaking now: for the core to call in its own thread
    (where this task's language is not set), as an export's comment lines are said."""
    language = current_language()

    def say_in_language(words: Sentence) -> str:
        with speaking(language):
            return say(words)

    return say_in_language
