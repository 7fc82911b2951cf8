"""Inline mode in the fake Bot API: a person types `@bot QUERY` (`InlineScripting.inline_query`
queues an `inline_query` update) and the bot answers with `answerInlineQuery`
(`answer_inline_query`), validated as Telegram does and recorded as an `InlineAnswer`.

Where each rule comes from:
- core.telegram.org/bots/api, "InlineQuery": the update's fields `id`, `from`, `query` (up to
  256 characters), `offset`, and the optional `chat_type` ("sender" for the private chat with
  the bot itself, else "private", "group", "supergroup", "channel"); `from.language_code` is the
  User's optional IETF tag.
- core.telegram.org/bots/api, "answerInlineQuery": `inline_query_id` and `results` (a JSON array)
  required, "No more than 50 results per query are allowed"; `cache_time` (seconds, default
  300), `is_personal`, `next_offset` ("Offset length can't exceed 64 bytes").
- core.telegram.org/bots/api, "InlineQueryResultArticle": `type` "article", `id` ("Unique
  identifier for this result, 1-64 Bytes"), `title` and `input_message_content` required;
  `reply_markup`, `url`, `description` optional. "InputTextMessageContent": `message_text`,
  1-4096 characters after entities parsing, with `parse_mode`, `entities`,
  `link_preview_options`. (Checked through the docs corpus: the Bot API's own wording as PTB's,
  teloxide's and aiogram's reference pages quote it.)
- The error wording is what bots report from Telegram in their trackers (the issues corpus):
  `RESULTS_TOO_MUCH` (over 50), `RESULT_ID_DUPLICATE`, `RESULT_ID_INVALID` (an id of 0 or over
  64 bytes), `can't parse inline query result: Can't find field "id"` for a missing field; and
  the callback query's "query is too old and response timeout expired or query ID is invalid"
  for a query answered twice, unknown, or made old by the test (`expire_inline_query`: Telegram
  does not document after how long, so the fake never ages a query by itself).
  `MESSAGE_EMPTY`, `MESSAGE_TOO_LONG` and `NEXT_OFFSET_INVALID` are the MTProto error names,
  assumed to pass through as they are.
Only article results are implemented; another type is refused as not implemented.
"""

from __future__ import annotations

import time
import uuid
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from tests.fakes.telegram.html_markup import HtmlParseError, parse_html, utf16_length
from tests.fakes.telegram.request_params import (
    Params,
    bool_param,
    int_param,
    json_param,
    validate_reply_markup,
)
from tests.fakes.telegram.state import JsonDict, TelegramState, bad_request, user_json

if TYPE_CHECKING:
    from tests.fakes.telegram.bot_api import BotApi

MAX_RESULTS = 50
MAX_RESULT_ID_BYTES = 64
MAX_OFFSET_BYTES = 64
MAX_MESSAGE_TEXT = 4096
DEFAULT_CACHE_TIME = 300
TOO_OLD = "query is too old and response timeout expired or query ID is invalid"
CHAT_TYPES = frozenset({"sender", "private", "group", "supergroup", "channel"})


@dataclass(frozen=True)
class InlineAnswer:
    """One answerInlineQuery the fake accepted: the results as sent (JSON), and the options."""

    query_id: str
    user_id: int
    query: str
    results: list[JsonDict]
    cache_time: int
    is_personal: bool
    next_offset: str
    time: float

    @property
    def texts(self) -> list[str]:
        """Each result's message text as it would be posted (entities parsed away)."""
        return [result["message_plain"] for result in self.results]


class InlineScripting:
    """Inline queries typed by people, queued as updates; the answers the bot gave them."""

    _state: TelegramState

    def inline_query(
        self,
        user_id: int,
        query: str,
        *,
        offset: str = "",
        chat_type: str | None = "sender",
        language_code: str | None = None,
    ) -> str:
        """Queue an InlineQuery from `user_id` typing `@bot query` in a chat of `chat_type`
        (None: Telegram could not tell); returns the query's id."""
        if chat_type is not None and chat_type not in CHAT_TYPES:
            raise ValueError(f"no inline query comes from a {chat_type} chat")
        query_id = str(uuid.uuid4().int % 10**18)
        sender = user_json(user_id)
        if language_code is not None:
            sender["language_code"] = language_code
        update: JsonDict = {"id": query_id, "from": sender, "query": query, "offset": offset}
        if chat_type is not None:
            update["chat_type"] = chat_type
        with self._state.lock:
            self._state.inline_queries[query_id] = (user_id, query)
            self._state.queue_update("inline_query", update)
        return query_id

    def expire_inline_query(self, query_id: str) -> None:
        """The query is too old now: answering it fails, as on Telegram after a while."""
        with self._state.lock:
            self._state.inline_queries.pop(query_id, None)

    @property
    def inline_answers(self) -> list[InlineAnswer]:
        with self._state.lock:
            return list(self._state.inline_answers)

    def inline_answer(self, query_id: str) -> InlineAnswer | None:
        """The answer to one query, once the bot gave it."""
        with self._state.lock:
            return next((a for a in self._state.inline_answers if a.query_id == query_id), None)


def answer_inline_query(api: BotApi, params: Params) -> bool:
    """Validate and record the answer to a pending inline query; True."""
    query_id = params.get("inline_query_id", "")
    results = json_param(params, "results", "inline query results")
    if not isinstance(results, list):
        raise bad_request("can't parse inline query results JSON object")
    if len(results) > MAX_RESULTS:
        raise bad_request("RESULTS_TOO_MUCH")
    seen: set[str] = set()
    checked = [_checked_result(api, result, seen) for result in results]
    cache_time = int_param(params, "cache_time", DEFAULT_CACHE_TIME)
    if cache_time is None or cache_time < 0:
        raise bad_request("invalid cache_time specified")
    next_offset = params.get("next_offset", "")
    if len(next_offset.encode("utf-8")) > MAX_OFFSET_BYTES:
        raise bad_request("NEXT_OFFSET_INVALID")
    with api.state.lock:
        pending = api.state.inline_queries.pop(query_id, None)
        if pending is None:
            raise bad_request(TOO_OLD)
        user_id, query = pending
        api.state.inline_answers.append(
            InlineAnswer(
                query_id,
                user_id,
                query,
                checked,
                cache_time,
                bool_param(params, "is_personal"),
                next_offset,
                time.time(),
            )
        )
        api.state.touch()
    return True


def _checked_result(api: BotApi, result: Any, seen: set[str]) -> JsonDict:
    """One result, refused as Telegram refuses it; kept with `message_plain`, its text as the
    chat would show it."""
    if not isinstance(result, dict):
        raise bad_request("can't parse inline query result JSON object")
    for field in ("type", "id"):
        if field not in result:
            raise bad_request(f"can't parse inline query result: Can't find field \"{field}\"")
    result_id = result["id"]
    if not isinstance(result_id, str) or not 1 <= len(result_id.encode()) <= MAX_RESULT_ID_BYTES:
        raise bad_request("RESULT_ID_INVALID")
    if result_id in seen:
        raise bad_request("RESULT_ID_DUPLICATE")
    seen.add(result_id)
    if result["type"] != "article":
        raise bad_request(f"the fake Bot API does not implement inline results of {result['type']}")
    for field in ("title", "input_message_content"):
        if field not in result:
            raise bad_request(f"can't parse inline query result: Can't find field \"{field}\"")
    if "reply_markup" in result:
        validate_reply_markup(result["reply_markup"])
    content = result["input_message_content"]
    text = content.get("message_text") if isinstance(content, dict) else None
    if not isinstance(text, str):
        raise bad_request("can't parse inline query result: Can't find field \"message_text\"")
    parse_mode = str(content.get("parse_mode") or "").lower()
    if parse_mode == "html":
        try:
            text = parse_html(text, strict_ampersand=api.strict_ampersand).text
        except HtmlParseError as error:
            raise bad_request(f"can't parse entities: {error}") from None
    elif parse_mode:
        raise bad_request(f"the fake Bot API does not implement parse_mode {parse_mode}")
    if not text.strip():
        raise bad_request("MESSAGE_EMPTY")
    if utf16_length(text) > MAX_MESSAGE_TEXT:
        raise bad_request("MESSAGE_TOO_LONG")
    return {**result, "message_plain": text}
