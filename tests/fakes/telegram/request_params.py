"""Decoding Bot API request parameters (all strings on the wire) and validating reply markup.

Wrong values answer like Telegram: a 400 `Bad Request: ...` raised as `ApiError`.
"""

from __future__ import annotations

import json
from typing import Any

from tests.fakes.telegram.state import bad_request

MAX_CALLBACK_DATA_BYTES = 64
MAX_COPY_TEXT = 256  # CopyTextButton.text: 1-256 characters
MAX_INLINE_QUERY = 256
# The fields that give a button its kind: Telegram takes exactly one of them.
BUTTON_KINDS = (
    "url", "callback_data", "web_app", "login_url", "switch_inline_query",
    "switch_inline_query_current_chat", "switch_inline_query_chosen_chat", "copy_text",
    "callback_game", "pay",
)  # fmt: skip
_CHOSEN_CHAT_KINDS = (
    "allow_user_chats", "allow_bot_chats", "allow_group_chats", "allow_channel_chats",
)  # fmt: skip

Params = dict[str, str]


def json_param(params: Params, name: str, what: str) -> Any:
    raw = params.get(name)
    if raw is None or raw == "":
        return None
    try:
        return json.loads(raw)
    except json.JSONDecodeError:
        raise bad_request(f"can't parse {what} JSON object") from None


def int_param(params: Params, name: str, default: int | None = None) -> int | None:
    raw = params.get(name)
    if raw is None or raw == "":
        return default
    try:
        return int(float(raw))
    except ValueError:
        raise bad_request(f"invalid {name} specified") from None


def bool_param(params: Params, name: str) -> bool:
    return params.get(name, "").lower() in ("true", "1")


def required_int(params: Params, name: str) -> int:
    value = int_param(params, name)
    if value is None:
        raise bad_request(f"{name} is empty")
    return value


def validate_reply_markup(markup: Any) -> None:
    if not isinstance(markup, dict):
        raise bad_request("can't parse reply keyboard markup JSON object")
    for row in markup.get("inline_keyboard", []):
        for button in row:
            if not isinstance(button, dict) or not button.get("text"):
                raise bad_request("can't parse inline keyboard button: Text is empty")
            kinds = [key for key in BUTTON_KINDS if key in button]
            if not kinds:
                raise bad_request(
                    "can't parse inline keyboard button: Text buttons are unallowed in the "
                    "inline keyboard"
                )
            if len(kinds) > 1:
                raise bad_request("can't parse inline keyboard button: one button type expected")
            _validate_button(kinds[0], button[kinds[0]])


def _validate_button(kind: str, value: Any) -> None:
    if kind == "callback_data":
        size = len(str(value).encode("utf-8"))
        if not 1 <= size <= MAX_CALLBACK_DATA_BYTES:
            raise bad_request("BUTTON_DATA_INVALID")
    elif kind == "copy_text":
        text = value.get("text") if isinstance(value, dict) else None
        if not isinstance(text, str):
            raise bad_request('can\'t parse inline keyboard button: Field "text" must be a String')
        if not 1 <= len(text) <= MAX_COPY_TEXT:
            raise bad_request("COPY_TEXT_INVALID")
    elif kind == "switch_inline_query_chosen_chat":
        if not isinstance(value, dict):
            raise bad_request("can't parse inline keyboard button: Object expected")
        query = value.get("query", "")
        if not isinstance(query, str) or len(query) > MAX_INLINE_QUERY:
            raise bad_request('can\'t parse inline keyboard button: Field "query" must be a String')
        if not any(value.get(key) is True for key in _CHOSEN_CHAT_KINDS):
            raise bad_request("BUTTON_TYPE_INVALID")
