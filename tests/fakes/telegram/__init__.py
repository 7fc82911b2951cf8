"""A fake Telegram Bot API over real HTTP on 127.0.0.1, for end-to-end tests of the bot.

Its updates and answers were checked against python-telegram-bot 22.8's types, which target Bot
API 10.0 (python-telegram-bot 1183d401): `tests/bot/fake_telegram/test_shapes.py` runs each
through PTB's `de_json`/`to_dict`; tests/fakes/README.md says what differs on purpose.

Modules: `fake` (FakeTelegram, the test-side handle), `http_server` (HTTP framing), `webhook`
(setWebhook, and pushing updates to the bot's webhook),
`bot_api` (the methods and Telegram's error wording), `members` (button presses,
`my_chat_member` and `chat_member` updates), `forum` (topics and reply targets of a
send), `html_markup` (parse_mode=HTML),
`flood_control` (429s), `faults` (injected failures), `chat_actions` (sendChatAction),
`inline` (inline queries and answerInlineQuery),
`state` (what the fake remembers).

This package never imports python-telegram-bot: it is the far side, and it must not share the
client's assumptions.
"""

from tests.fakes.telegram.fake import DEFAULT_TOKEN, FakeTelegram
from tests.fakes.telegram.faults import Fault, FaultKind
from tests.fakes.telegram.files import SentDocument
from tests.fakes.telegram.flood_control import RateLimits
from tests.fakes.telegram.html_markup import HtmlParseError, ParsedText, parse_html, utf16_length
from tests.fakes.telegram.inline import InlineAnswer
from tests.fakes.telegram.state import (
    CallbackAnswer,
    ChatAction,
    EditRecord,
    RecordedRequest,
    SentMessage,
)
from tests.fakes.telegram.webhook import SECRET_HEADER, WebhookPost

__all__ = [
    "DEFAULT_TOKEN",
    "SECRET_HEADER",
    "CallbackAnswer",
    "ChatAction",
    "EditRecord",
    "FakeTelegram",
    "Fault",
    "FaultKind",
    "HtmlParseError",
    "InlineAnswer",
    "ParsedText",
    "RateLimits",
    "RecordedRequest",
    "SentDocument",
    "SentMessage",
    "WebhookPost",
    "parse_html",
    "utf16_length",
]
