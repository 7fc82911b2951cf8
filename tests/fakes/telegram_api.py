"""Public entry point of the fake Telegram Bot API used by the bot's tests and benchmarks.

    from tests.fakes.telegram_api import FakeTelegram, Fault, RateLimits

The implementation lives in `tests/fakes/telegram/`; see its package docstring.
"""

from tests.fakes.telegram import (
    DEFAULT_TOKEN,
    CallbackAnswer,
    EditRecord,
    FakeTelegram,
    Fault,
    FaultKind,
    HtmlParseError,
    ParsedText,
    RateLimits,
    RecordedRequest,
    SentMessage,
    parse_html,
    utf16_length,
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
    "SentMessage",
    "parse_html",
    "utf16_length",
]
