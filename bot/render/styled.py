"""Styled text, the material of every renderer: lines of styled spans, their two views (Telegram
HTML, and the plain text sent when Telegram refuses the HTML), lengths as Telegram counts them,
cutting to a length, a translated sentence's simple markup read back into spans (`spans_of`),
and the `Message` and `Button`s a renderer returns.

A message is built once as lines, and both views are taken from those lines (`message_of`), so
they say the same thing; the visible length (what Telegram counts against its 4096 limit, in
UTF-16 code units) is the length of the plain view, so a budget is exact rather than estimated.
"""

from __future__ import annotations

import html
import re
from collections.abc import Iterable
from dataclasses import dataclass

MAX_MESSAGE_LENGTH = 4096  # Telegram's limit on a message's text after entity parsing
MAX_CALLBACK_DATA_BYTES = 64  # Telegram's limit on an inline button's callback_data
MAX_COPY_TEXT = 256  # Telegram's limit on a copy button's text (CopyTextButton.text)
MAX_INLINE_QUERY = 256  # Telegram's limit on an inline query's text

# Kept below MAX_MESSAGE_LENGTH so that Telegram's own counting quirks can never tip us over.
BUDGET = 4000

_TAG = re.compile(r"<[^>]*>")


@dataclass(frozen=True, slots=True)
class Button:
    """An inline keyboard button: opens `url`, sends `callback_data` back to the bot, copies
    `copy_text` to the clipboard, or (`share_query`) asks the reader for a chat and starts the
    bot's inline mode there with that query."""

    text: str
    url: str | None = None
    callback_data: str | None = None
    copy_text: str | None = None
    share_query: str | None = None

    def __post_init__(self) -> None:
        kinds = (self.url, self.callback_data, self.copy_text, self.share_query)
        if sum(kind is not None for kind in kinds) != 1:
            raise ValueError(
                "a button needs exactly one of url, callback_data, copy_text and share_query"
            )
        if self.copy_text is not None and not 1 <= len(self.copy_text) <= MAX_COPY_TEXT:
            raise ValueError(f"copy_text must be 1-{MAX_COPY_TEXT} characters")
        if self.share_query is not None and len(self.share_query) > MAX_INLINE_QUERY:
            raise ValueError(f"share_query must be at most {MAX_INLINE_QUERY} characters")
        if self.callback_data is not None:
            size = len(self.callback_data.encode("utf-8"))
            if not 1 <= size <= MAX_CALLBACK_DATA_BYTES:
                raise ValueError(
                    f"callback_data must be 1-{MAX_CALLBACK_DATA_BYTES} bytes, got {size}"
                )


@dataclass(frozen=True, slots=True)
class Message:
    """A message in Telegram's HTML parse mode, with rows of inline buttons, and `plain`: the
    same text without markup, to send (with the same buttons) when Telegram refuses the HTML."""

    html: str
    plain: str
    buttons: tuple[tuple[Button, ...], ...] = ()

    @classmethod
    def from_html(cls, html_text: str, buttons: tuple[tuple[Button, ...], ...] = ()) -> Message:
        """A message written as HTML by hand (a command's answer); its plain text is the HTML's
        visible text."""
        return cls(html_text, _visible_text(html_text), buttons)


def visible_length(html_text: str) -> int:
    """The length Telegram counts for `html_text`: tags stripped, entities decoded, UTF-16 units."""
    return units(_visible_text(html_text))


def _visible_text(html_text: str) -> str:
    return html.unescape(_TAG.sub("", html_text))


# --- lines of styled spans, and their two views ---------------------------------------------


@dataclass(frozen=True, slots=True)
class Span:
    """A run of text, in HTML `tags` (outermost first), a link to `href` if any."""

    text: str
    tags: tuple[str, ...] = ()
    href: str | None = None


@dataclass(frozen=True, slots=True)
class Line:
    """One line of a message; `quoted` shows it as a block quote, an expandable one (three
    lines shown, a tap opens the rest) when `expandable`."""

    spans: tuple[Span, ...]
    quoted: bool = False
    expandable: bool = False


_MARKUP = re.compile(r"<(/?)(b|i|u)>")


def spans_of(markup: str) -> list[Span]:
    """The spans a translated sentence with simple markup makes: "<b>Changed:</b> title" ->
    a bold span and a plain one. Only <b>, <i> and <u>, not nested; entities are decoded (so the
    values filled into the sentence must be escaped, `html.escape`)."""
    spans: list[Span] = []
    tags: tuple[str, ...] = ()
    position = 0
    for tag in _MARKUP.finditer(markup):
        if tag.start() > position:
            spans.append(Span(html.unescape(markup[position : tag.start()]), tags))
        tags = () if tag.group(1) else (tag.group(2),)
        position = tag.end()
    if position < len(markup):
        spans.append(Span(html.unescape(markup[position:]), tags))
    return spans


def message_of(lines: Iterable[Line], buttons: tuple[tuple[Button, ...], ...] = ()) -> Message:
    """The message these lines make: their HTML and their plain text, with `buttons`."""
    lines = list(lines)
    return Message(_to_html(lines), _to_plain(lines), buttons)


def _to_html(lines: Iterable[Line]) -> str:
    rendered = []
    for line in lines:
        text = "".join(_span_html(span) for span in line.spans)
        if line.quoted:
            opening = "<blockquote expandable>" if line.expandable else "<blockquote>"
            text = f"{opening}{text}</blockquote>"
        rendered.append(text)
    return "\n".join(rendered)


def _span_html(span: Span) -> str:
    if not span.text:
        return ""  # an empty <b></b> is an entity of length 0, which Telegram has no use for
    text = html.escape(span.text, quote=False)
    for tag in reversed(span.tags):
        text = f"<{tag}>{text}</{tag}>"
    if span.href is not None:
        text = f'<a href="{html.escape(span.href, quote=True)}">{text}</a>'
    return text


def _to_plain(lines: Iterable[Line]) -> str:
    return "\n".join("".join(span.text for span in line.spans) for line in lines)


# --- lengths and cutting --------------------------------------------------------------------


def line_units(line: Line) -> int:
    """The visible length of a line, without its newline."""
    return sum(units(span.text) for span in line.spans)


def units(text: str) -> int:
    """Length in UTF-16 code units, as Telegram counts: astral characters (emoji) count two."""
    return len(text.encode("utf-16-le", "surrogatepass")) // 2


def clip(text: str, limit: int) -> str:
    """`text` if it fits in `limit` UTF-16 units, else cut at a word boundary and ended with "…"."""
    if units(text) <= limit:
        return text
    room = limit - 1  # for the ellipsis
    cut = room
    while (excess := units(text[:cut]) - room) > 0:
        cut -= (excess + 1) // 2  # each character is one or two units
    if cut < len(text) and not text[cut].isspace():
        space = text.rfind(" ", 0, cut)
        if space > cut * 2 // 3:  # a boundary not too far back; else one giant "word" is cut
            cut = space
    return text[:cut].rstrip() + "…"
