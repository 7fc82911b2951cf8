"""Decoding Bot API request parameters (all strings on the wire) and validating reply markup.

Wrong values answer like Telegram: a 400 `Bad Request: ...` raised as `ApiError`.
"""

from __future__ import annotations

import json
from typing import Any

from tests.fakes.telegram.state import bad_request

MAX_CALLBACK_DATA_BYTES = 64

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
            if "callback_data" in button:
                size = len(str(button["callback_data"]).encode("utf-8"))
                if not 1 <= size <= MAX_CALLBACK_DATA_BYTES:
                    raise bad_request("BUTTON_DATA_INVALID")
            elif not any(key in button for key in ("url", "switch_inline_query", "web_app")):
                raise bad_request(
                    "can't parse inline keyboard button: Text buttons are unallowed in the "
                    "inline keyboard"
                )
