"""The catalogs say what the code says, completely and safely (issue 31, item 6).

- Stale: the sentences marked in the code (extracted as `make i18n` extracts them, with Babel's
  own extractor and `bot/locales/babel.cfg`) are exactly the template's and each catalog's.
  A new `_("...")` without `make i18n` fails here.
- Complete: every sentence of zh-Hans is translated, none fuzzy, every plural form filled.
- Safe: a translation has the same `{placeholders}` as its source, the same markup tags, and
  parses as Telegram's HTML (the fake Bot API's parser, which mirrors the real one).
"""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

import pytest
from babel.messages.catalog import Catalog, Message
from babel.messages.extract import extract_from_dir
from babel.messages.pofile import read_po

from tests.fakes.telegram.html_markup import HtmlParseError, parse_html

ROOT = Path(__file__).resolve().parents[2]
LOCALES = ROOT / "bot" / "locales"
KEYWORDS = {"_": None, "N_": None, "ngettext": (1, 2), "sentence": None}
TRANSLATED = ["zh_Hans"]
_PLACEHOLDER = re.compile(r"\{(\w*)[^{}]*\}")
_TAG = re.compile(r"</?([a-z-]+)")


def _ids(messages: list[Message] | Catalog) -> set[str]:
    return {m.id if isinstance(m.id, str) else m.id[0] for m in messages if m.id}


def _from_code() -> set[str]:
    with (LOCALES / "babel.cfg").open() as cfg:
        from babel.messages.frontend import parse_mapping_cfg

        method_map, options_map = parse_mapping_cfg(cfg)
    found: set[str] = set()
    for _name, _line, message, _comments, _context in extract_from_dir(
        ROOT,
        method_map,
        options_map,
        keywords=KEYWORDS,
        directory_filter=lambda path: Path(path).relative_to(ROOT).parts[0] in {"bot", "src"},
    ):
        found.add(message if isinstance(message, str) else message[0])
    return found


def _catalog(name: str) -> Catalog:
    path = LOCALES / name / "LC_MESSAGES" / "messages.po" if name else LOCALES / "messages.pot"
    with path.open("rb") as po:
        return read_po(po)


def test_the_template_and_each_catalog_hold_what_the_code_marks() -> None:
    in_code = _from_code()
    for name in ["", *TRANSLATED]:
        in_catalog = _ids(_catalog(name))
        assert in_code - in_catalog == set(), f"not in {name or 'the template'}: run make i18n"
        assert in_catalog - in_code == set(), f"gone from the code, still in {name or 'template'}"


@pytest.mark.parametrize("name", TRANSLATED)
def test_every_sentence_is_translated_and_none_fuzzy(name: str) -> None:
    catalog = _catalog(name)
    untranslated = [m.id for m in catalog if m.id and not all(_forms(m))]
    fuzzy = [m.id for m in catalog if m.id and m.fuzzy]
    assert untranslated == []
    assert fuzzy == []


def _forms(message: Message) -> list[str]:
    return list(message.string) if isinstance(message.string, tuple) else [message.string]


def _sources(message: Message) -> list[str]:
    return list(message.id) if isinstance(message.id, tuple) else [message.id]


@pytest.mark.parametrize("name", TRANSLATED)
def test_translations_keep_the_placeholders_and_the_markup(name: str) -> None:
    wrong = []
    for message in _catalog(name):
        if not message.id:
            continue
        placeholders = set().union(*(set(_PLACEHOLDER.findall(s)) for s in _sources(message)))
        tags = Counter(_TAG.findall(_sources(message)[0]))
        for form in filter(None, _forms(message)):
            if set(_PLACEHOLDER.findall(form)) != placeholders - ({"n"} - _uses_n(form)):
                wrong.append((message.id, form, "placeholders differ"))
            if Counter(_TAG.findall(form)) != tags:
                wrong.append((message.id, form, "markup differs"))
            try:
                parse_html(_PLACEHOLDER.sub("x", form), strict_ampersand=False)
            except HtmlParseError as error:
                wrong.append((message.id, form, f"does not parse: {error}"))
    assert wrong == []


def _uses_n(form: str) -> set[str]:
    """A plural form may leave `{n}` out ("one paper" has no number); Chinese keeps it."""
    return {"n"} if "{n}" in form else set()


@pytest.mark.parametrize("name", TRANSLATED)
def test_no_translation_outgrows_its_english_by_more_than_a_line(name: str) -> None:
    """Every message is built to fit Telegram's limits in English, with room for the longest
    values (`bot.render`'s cutting, `fit_reply`'s last guard); a translation that is no longer
    than the English (by a line's worth, 40 visible characters) keeps every message within them
    in that language too."""
    too_long = []
    for message in _catalog(name):
        if not message.id:
            continue
        english = max(len(_visible(source)) for source in _sources(message))
        for form in filter(None, _forms(message)):
            if len(_visible(form)) > max(english * 1.25, english + 40):
                too_long.append((message.id, form))
    assert too_long == []


def _visible(text: str) -> str:
    return re.sub(r"<[^>]*>", "", text)
