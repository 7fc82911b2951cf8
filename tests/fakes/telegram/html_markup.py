"""Telegram's `parse_mode=HTML`: validation, plain text and entities, the way the Bot API does it.

Behaviour mirrors the real server (tdlib's HTML parser) where bots break:

- Only the documented tags are accepted; anything else is `Unsupported start tag "x" at byte
  offset N`. A `<` that does not open a valid tag (`latency < 200`) is such an error too.
- End tags must match the innermost open tag (`</>` closes whatever is open).
- Only `&lt; &gt; &amp; &quot;` and numeric entities are decoded; the `;` is optional.
- Offsets in error texts are UTF-8 byte offsets; entity offsets are UTF-16 code units.

One deliberate difference: the real server quietly keeps a bare `&` that starts no entity, while
its documentation says every `&` must be escaped. The fake refuses it by default
(`strict_ampersand=True`) so that an unescaped `A&B` abstract fails in tests, not in production.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

ALLOWED_TAGS = frozenset(
    {
        "a",
        "b",
        "strong",
        "i",
        "em",
        "u",
        "ins",
        "s",
        "strike",
        "del",
        "span",
        "tg-spoiler",
        "tg-emoji",
        "code",
        "pre",
        "blockquote",
    }
)

_ENTITY_TYPE_BY_TAG = {
    "b": "bold",
    "strong": "bold",
    "i": "italic",
    "em": "italic",
    "u": "underline",
    "ins": "underline",
    "s": "strikethrough",
    "strike": "strikethrough",
    "del": "strikethrough",
    "span": "spoiler",
    "tg-spoiler": "spoiler",
    "code": "code",
    "pre": "pre",
}

_NAMED_ENTITIES = {"lt": "<", "gt": ">", "amp": "&", "quot": '"'}
_SPACES = " \t\n\r\f\v"


class HtmlParseError(ValueError):
    """The markup is refused; str(error) is Telegram's wording after `can't parse entities: `."""


@dataclass
class ParsedText:
    """Plain text as Telegram stores it, with MessageEntity dicts (UTF-16 offsets)."""

    text: str
    entities: list[dict[str, Any]] = field(default_factory=list)


def utf16_length(text: str) -> int:
    """Length in UTF-16 code units, the unit Telegram counts limits and offsets in."""
    return len(text.encode("utf-16-le")) // 2


@dataclass
class _OpenTag:
    name: str
    start: int  # UTF-16 offset in the output text
    attributes: dict[str, str]


class _HtmlParser:
    """Single-pass scanner; one instance per message."""

    def __init__(self, source: str, *, strict_ampersand: bool) -> None:
        self.source = source
        self.strict_ampersand = strict_ampersand
        self.pos = 0
        self.out: list[str] = []
        self.out_units = 0
        self.stack: list[_OpenTag] = []
        self.entities: list[dict[str, Any]] = []

    # -- helpers ---------------------------------------------------------------------------
    def _byte_offset(self, index: int) -> int:
        return len(self.source[:index].encode("utf-8"))

    def _peek(self, index: int) -> str:
        return self.source[index] if index < len(self.source) else ""

    def _emit(self, chars: str) -> None:
        self.out.append(chars)
        self.out_units += utf16_length(chars)

    def _decode_entity(self, index: int) -> tuple[str, int] | None:
        """Decode the entity starting at `index` (a `&`); return (char, end index) or None."""
        cursor = index + 1
        if self._peek(cursor) == "#":
            cursor += 1
            hexadecimal = self._peek(cursor) in ("x", "X")
            if hexadecimal:
                cursor += 1
            digits_start = cursor
            allowed = "0123456789abcdefABCDEF" if hexadecimal else "0123456789"
            while self._peek(cursor) and self._peek(cursor) in allowed:
                cursor += 1
            digits = self.source[digits_start:cursor]
            if not digits or len(digits) > 8:
                return None
            code_point = int(digits, 16 if hexadecimal else 10)
            if code_point == 0 or code_point >= 0x10FFFF or 0xD800 <= code_point <= 0xDFFF:
                return None
            char = chr(code_point)
        else:
            while self._peek(cursor).isascii() and self._peek(cursor).isalpha():
                cursor += 1
            named = _NAMED_ENTITIES.get(self.source[index + 1 : cursor])
            if named is None:
                return None
            char = named
        if self._peek(cursor) == ";":
            cursor += 1
        return char, cursor

    # -- scanning --------------------------------------------------------------------------
    def parse(self) -> ParsedText:
        while self.pos < len(self.source):
            char = self.source[self.pos]
            if char == "&":
                decoded = self._decode_entity(self.pos)
                if decoded is not None:
                    self._emit(decoded[0])
                    self.pos = decoded[1]
                    continue
                if self.strict_ampersand:
                    raise HtmlParseError(
                        f'Character "&" must be escaped as "&amp;" at byte offset '
                        f"{self._byte_offset(self.pos)}"
                    )
            if char != "<":
                self._emit(char)
                self.pos += 1
                continue
            if self._peek(self.pos + 1) == "/":
                self._end_tag()
            else:
                self._start_tag()
        if self.stack:
            raise HtmlParseError(
                f"Can't find end tag corresponding to start tag {self.stack[-1].name}"
            )
        return _finish(ParsedText("".join(self.out), self.entities))

    def _start_tag(self) -> None:
        begin = self.pos
        cursor = begin + 1
        while self._peek(cursor) and self._peek(cursor) not in _SPACES + ">":
            cursor += 1
        if not self._peek(cursor):
            raise HtmlParseError(f"Unclosed start tag at byte offset {self._byte_offset(begin)}")
        name = self.source[begin + 1 : cursor].lower()
        if name not in ALLOWED_TAGS:
            raise HtmlParseError(
                f'Unsupported start tag "{name}" at byte offset {self._byte_offset(begin)}'
            )
        attributes, cursor = self._attributes(name, begin, cursor)
        if name == "span" and attributes.get("class") != "tg-spoiler":
            raise HtmlParseError(
                f'Tag "span" must have class "tg-spoiler" at byte offset {self._byte_offset(begin)}'
            )
        self.stack.append(_OpenTag(name, self.out_units, attributes))
        self.pos = cursor + 1  # past '>'

    def _attributes(self, tag: str, begin: int, cursor: int) -> tuple[dict[str, str], int]:
        attributes: dict[str, str] = {}
        while True:
            while self._peek(cursor) and self._peek(cursor) in _SPACES:
                cursor += 1
            if not self._peek(cursor):
                raise HtmlParseError(
                    f"Unclosed start tag at byte offset {self._byte_offset(begin)}"
                )
            if self._peek(cursor) == ">":
                return attributes, cursor
            name_start = cursor
            while self._peek(cursor) and self._peek(cursor) not in _SPACES + "=>":
                cursor += 1
            attribute = self.source[name_start:cursor].lower()
            if not attribute:
                raise HtmlParseError(
                    f'Empty attribute name in the tag "{tag}" at byte offset '
                    f"{self._byte_offset(begin)}"
                )
            while self._peek(cursor) and self._peek(cursor) in _SPACES:
                cursor += 1
            if self._peek(cursor) != "=":
                if tag == "blockquote" and attribute == "expandable":
                    attributes[attribute] = ""
                    continue
                raise HtmlParseError(
                    f'Expected equal sign in declaration of an attribute of the tag "{tag}" '
                    f"at byte offset {self._byte_offset(begin)}"
                )
            cursor += 1
            while self._peek(cursor) and self._peek(cursor) in _SPACES:
                cursor += 1
            value, cursor = self._attribute_value(cursor, begin)
            attributes[attribute] = value

    def _attribute_value(self, cursor: int, begin: int) -> tuple[str, int]:
        quote = self._peek(cursor)
        if quote not in ("'", '"'):
            token_start = cursor
            while self._peek(cursor) and (
                self._peek(cursor).isalnum() or self._peek(cursor) in ".-"
            ):
                cursor += 1
            if self._peek(cursor) and self._peek(cursor) not in _SPACES + ">":
                raise HtmlParseError(
                    f"Unexpected end of name token at byte offset {self._byte_offset(token_start)}"
                )
            if not self._peek(cursor):
                raise HtmlParseError(
                    f"Unclosed start tag at byte offset {self._byte_offset(begin)}"
                )
            return self.source[token_start:cursor].lower(), cursor
        cursor += 1
        chars: list[str] = []
        while self._peek(cursor) and self._peek(cursor) != quote:
            decoded = self._decode_entity(cursor) if self._peek(cursor) == "&" else None
            if decoded is not None:
                chars.append(decoded[0])
                cursor = decoded[1]
            else:
                chars.append(self._peek(cursor))
                cursor += 1
        if not self._peek(cursor):
            raise HtmlParseError(f"Unclosed start tag at byte offset {self._byte_offset(begin)}")
        return "".join(chars), cursor + 1

    def _end_tag(self) -> None:
        begin = self.pos
        if not self.stack:
            raise HtmlParseError(f"Unexpected end tag at byte offset {self._byte_offset(begin)}")
        cursor = begin + 2
        while self._peek(cursor) and self._peek(cursor) not in _SPACES + ">":
            cursor += 1
        name = self.source[begin + 2 : cursor].lower()
        while self._peek(cursor) and self._peek(cursor) in _SPACES:
            cursor += 1
        if self._peek(cursor) != ">":
            raise HtmlParseError(f"Unclosed end tag at byte offset {self._byte_offset(begin)}")
        open_tag = self.stack.pop()
        if name and name != open_tag.name:
            raise HtmlParseError(
                f"Unmatched end tag at byte offset {self._byte_offset(begin)}, "
                f'expected "</{open_tag.name}>", found "</{name}>"'
            )
        self.pos = cursor + 1
        entity = _entity_for(open_tag, self.out_units - open_tag.start)
        if entity is not None:
            self.entities.append(entity)


def _entity_for(tag: _OpenTag, length: int) -> dict[str, Any] | None:
    if length == 0:
        return None
    entity: dict[str, Any] = {"offset": tag.start, "length": length}
    if tag.name == "a":
        href = tag.attributes.get("href")
        if not href:
            return None
        entity.update(type="text_link", url=href)
    elif tag.name == "tg-emoji":
        entity.update(type="custom_emoji", custom_emoji_id=tag.attributes.get("emoji-id", ""))
    elif tag.name == "blockquote":
        expandable = "expandable" in tag.attributes
        entity["type"] = "expandable_blockquote" if expandable else "blockquote"
    else:
        entity["type"] = _ENTITY_TYPE_BY_TAG[tag.name]
        language = tag.attributes.get("class", "")
        if tag.name == "code" and language.startswith("language-"):
            entity["language"] = language.removeprefix("language-")
    return entity


def _finish(parsed: ParsedText) -> ParsedText:
    """Merge `<pre><code class="language-x">` into one pre entity; strip outer whitespace."""
    entities = parsed.entities
    for code in [e for e in entities if e["type"] == "code" and "language" in e]:
        for pre in entities:
            if pre["type"] == "pre" and (pre["offset"], pre["length"]) == (
                code["offset"],
                code["length"],
            ):
                pre["language"] = code["language"]
                entities.remove(code)
                break
    stripped = parsed.text.strip()
    if stripped == parsed.text:
        return ParsedText(parsed.text, sorted(entities, key=lambda e: e["offset"]))
    shift = utf16_length(parsed.text[: len(parsed.text) - len(parsed.text.lstrip())])
    limit = utf16_length(stripped)
    kept: list[dict[str, Any]] = []
    for entity in entities:
        start = max(entity["offset"] - shift, 0)
        end = min(entity["offset"] + entity["length"] - shift, limit)
        if end > start:
            kept.append({**entity, "offset": start, "length": end - start})
    return ParsedText(stripped, sorted(kept, key=lambda e: e["offset"]))


def parse_html(source: str, *, strict_ampersand: bool = True) -> ParsedText:
    """Parse Telegram HTML; raise HtmlParseError with Telegram's wording when it is refused."""
    return _HtmlParser(source, strict_ampersand=strict_ampersand).parse()


def strip_outer_whitespace(text: str) -> str:
    """Telegram trims messages sent without parse mode the same way."""
    return text.strip()
