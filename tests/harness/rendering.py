"""What the tests of the pure renderers in `bot.render` share: `telegram_html_text`, a strict
checker written for these tests that accepts only what Telegram's HTML parse mode accepts and
returns the visible text (`check_message` runs it on a `Message`), and records built by hand
(`make_record`) or from the real ones in `tests/data/followed-author-records.json` (`real_record`).
"""

from __future__ import annotations

import html
import json
import re
from datetime import UTC, datetime

from bot.render import MAX_MESSAGE_LENGTH, Message, visible_length
from tests.harness.paths import DATA
from watcher.arxiv.records import Author, Record
from watcher.follows.names import is_same_person

RECORDS_FILE = DATA / "followed-author-records.json"
FOLLOWED = ["Dezun Dong"]


def follows(name: str) -> bool:
    return is_same_person(name, FOLLOWED)


def nobody(name: str) -> bool:
    return False


# --- a strict checker of Telegram HTML ------------------------------------------------------

_ENTITY = re.compile(r"&(?:lt|gt|amp|quot|#[0-9]+|#x[0-9a-fA-F]+);")
_OPEN_TAG = re.compile(r'<(b|i|u|code|blockquote|a)((?: [a-z]+(?:="[^"<>]*")?)*)>')
_CLOSE_TAG = re.compile(r"</(b|i|u|code|blockquote|a)>")
_ATTRIBUTE = re.compile(r' ([a-z]+)(?:="([^"<>]*)")?')
_ALLOWED_ATTRIBUTES = {"a": {"href"}, "blockquote": {"expandable"}}


def telegram_html_text(message: str) -> str:
    """The visible text of `message`; fails the test on anything Telegram would refuse."""
    visible: list[str] = []
    open_tags: list[tuple[str, int]] = []  # each open tag, and how much text preceded it
    position = 0
    while position < len(message):
        character = message[position]
        if character == "<":
            if closing := _CLOSE_TAG.match(message, position):
                assert open_tags, f"closing {closing.group()} with nothing open"
                tag, text_before = open_tags.pop()
                assert tag == closing.group(1), f"misnested at {position}"
                assert len(visible) > text_before, f"empty <{tag}> at {position}"
                position = closing.end()
                continue
            opening = _OPEN_TAG.match(message, position)
            assert opening, f"not an allowed tag: {message[position : position + 30]!r}"
            tag = opening.group(1)
            attributes = dict(_ATTRIBUTE.findall(opening.group(2)))
            assert set(attributes) <= _ALLOWED_ATTRIBUTES.get(tag, set()), opening.group()
            if tag == "a":
                assert html.unescape(attributes["href"]).startswith("https://"), opening.group()
            if tag == "blockquote":
                assert attributes.get("expandable", "") == "", opening.group()
            assert tag not in [open_tag for open_tag, _ in open_tags], f"{tag} inside itself"
            open_tags.append((tag, len(visible)))
            position = opening.end()
        elif character == "&":
            entity = _ENTITY.match(message, position)
            assert entity, f"bare & at {position}: {message[position : position + 20]!r}"
            visible.append(html.unescape(entity.group()))
            position = entity.end()
        else:
            assert character != ">", f"bare > at {position}"
            visible.append(character)
            position += 1
    assert not open_tags, f"left open: {open_tags}"
    return "".join(visible)


def utf16_units(text: str) -> int:
    return len(text.encode("utf-16-le")) // 2


def check_message(message: Message) -> str:
    """Valid HTML within the length limit (with our margin); returns the visible text."""
    text = telegram_html_text(message.html)
    assert visible_length(message.html) == utf16_units(text)
    assert utf16_units(text) <= 4000 < MAX_MESSAGE_LENGTH
    return text


# --- records ----------------------------------------------------------------------------------


def make_record(
    *,
    arxiv_id: str = "2604.01234",
    version: int = 1,
    title: str = "A paper",
    abstract: str = "An abstract.",
    authors: tuple[str, ...] = ("Dezun Dong",),
    primary_category: str = "cs.DC",
    categories: tuple[str, ...] = ("cs.DC",),
    comment: str | None = None,
) -> Record:
    return Record(
        arxiv_id=arxiv_id,
        version=version,
        title=title,
        abstract=abstract,
        authors=tuple(Author(name) for name in authors),
        primary_category=primary_category,
        categories=categories,
        published=datetime(2026, 4, 3, 17, 59, tzinfo=UTC),
        updated=datetime(2026, 4, 10, 9, 0, tzinfo=UTC)
        if version > 1
        else datetime(2026, 4, 3, 17, 59, tzinfo=UTC),
        abs_url=f"https://arxiv.org/abs/{arxiv_id}v{version}",
        pdf_url=f"https://arxiv.org/pdf/{arxiv_id}v{version}",
        comment=comment,
    )


def real_record(index: int, *, authors: tuple[str, ...] | None = None) -> Record:
    data = json.loads(RECORDS_FILE.read_text(encoding="utf-8"))[index]
    return make_record(
        arxiv_id=f"2604.{index + 1:05d}",
        title=data["title"],
        abstract=data["abstract"],
        authors=authors if authors is not None else tuple(data["authors_known"]),
        primary_category=data["primary_category"],
        categories=(data["primary_category"], "cs.LG", "cs.AR"),
    )


def lines_of(text: str) -> list[str]:
    return text.split("\n")
