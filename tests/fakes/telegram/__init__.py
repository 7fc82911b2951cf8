"""A fake Telegram Bot API over real HTTP on 127.0.0.1, for end-to-end tests of the bot.

Modules: `fake` (FakeTelegram, the test-side handle), `http_server` (HTTP framing),
`bot_api` (the methods and Telegram's error wording), `forum` (topics and reply targets of a
send), `html_markup` (parse_mode=HTML),
`flood_control` (429s), `faults` (injected failures), `state` (what the fake remembers).

This package never imports python-telegram-bot: it is the far side, and it must not share the
client's assumptions.
"""

from tests.fakes.telegram.fake import DEFAULT_TOKEN, FakeTelegram
from tests.fakes.telegram.faults import Fault, FaultKind
from tests.fakes.telegram.files import SentDocument
from tests.fakes.telegram.flood_control import RateLimits
from tests.fakes.telegram.html_markup import HtmlParseError, ParsedText, parse_html, utf16_length
from tests.fakes.telegram.state import (
    CallbackAnswer,
    EditRecord,
    RecordedRequest,
    SentMessage,
)

__all__ = [
    "DEFAULT_TOKEN",
    "CallbackAnswer",
    "EditRecord",
    "FakeTelegram",
    "Fault",
    "FaultKind",
    "HtmlParseError",
    "ParsedText",
    "RateLimits",
    "RecordedRequest",
    "SentDocument",
    "SentMessage",
    "parse_html",
    "utf16_length",
]
