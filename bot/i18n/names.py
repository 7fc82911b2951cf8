"""Which language a person means: from Telegram's `language_code` of the first person who wrote
in a chat (`language_of_user`), and from what they typed after /language (`parse_language`).
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass

from bot.i18n.catalogs import DEFAULT_LANGUAGE, known_languages

# Telegram's language_code is an IETF tag chosen by the person's client ("en", "zh-hans",
# "zh-cn"); it is optional. These mean Simplified Chinese; every other one gets English.
_SIMPLIFIED_CHINESE = frozenset({"zh", "zh-hans", "zh-cn", "zh-sg", "zh-hans-cn", "zh-hans-sg"})
# What people type after /language, by language.
_ALIASES: dict[str, tuple[str, ...]] = {
    "en": ("en", "eng", "english", "en-us", "en-gb", "英文", "英语", "英語"),
    "zh-Hans": (
        "zh", "zh-hans", "zh-cn", "zh-sg", "zh_hans", "zh_cn", "cn", "chinese",
        "simplified chinese", "中文", "简体中文", "简体", "汉语", "普通话",
    ),
}  # fmt: skip
# Each language's name in itself, as its button shows it.
_NAMES = {"en": "English", "zh-Hans": "简体中文"}


def language_of_user(language_code: str | None) -> str:
    """The language a person's Telegram client asks for, among ours: zh, zh-hans, zh-cn and
    zh-sg give zh-Hans; anything else (or nothing) gives English. An installed language is
    matched by its own tag."""
    code = (language_code or "").strip().casefold().replace("_", "-")
    if code in _SIMPLIFIED_CHINESE:
        return "zh-Hans"
    for language in known_languages():
        if code == language.casefold():
            return language
    return DEFAULT_LANGUAGE


def language_name(language: str) -> str:
    """The language's name in itself: English, 简体中文."""
    return _NAMES.get(language, language)


@dataclass(frozen=True, slots=True)
class LanguageChoice:
    """What /language ARG names: a language, or none and the one it most resembles."""

    language: str | None
    closest: str | None = None


def parse_language(text: str) -> LanguageChoice:
    """The language `text` names (a tag or a usual name, any case), else the closest one."""
    wanted = " ".join(text.split()).casefold()
    spellings = {alias: language for language, names in _ALIASES.items() for alias in names}
    spellings.update({language.casefold(): language for language in known_languages()})
    if wanted in spellings:
        return LanguageChoice(spellings[wanted])
    close = difflib.get_close_matches(wanted, list(spellings), n=1, cutoff=0.5)
    return LanguageChoice(None, spellings[close[0]] if close else None)
