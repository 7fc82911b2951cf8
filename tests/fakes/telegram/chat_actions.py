"""sendChatAction: a status ("typing", ...) shown in a chat, recorded for tests, never stored
in the chat (tests/fakes/README.md says what it was checked against)."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

from tests.fakes.telegram.forum import place_message
from tests.fakes.telegram.request_params import Params
from tests.fakes.telegram.state import ChatAction, bad_request

if TYPE_CHECKING:
    from tests.fakes.telegram.bot_api import BotApi

# sendChatAction's actions (Bot API 10.0; PTB 22.8 `telegram.constants.ChatAction`).
CHAT_ACTIONS = frozenset(
    {
        "typing",
        "upload_photo",
        "record_video",
        "upload_video",
        "record_voice",
        "upload_voice",
        "upload_document",
        "choose_sticker",
        "find_location",
        "record_video_note",
        "upload_video_note",
    }
)


def send_chat_action(api: BotApi, params: Params) -> bool:
    """A status shown for 5 s or until the bot's next message; True. Refused where a message
    could not be sent (blocked, kicked, a missing or closed topic)."""
    action = params.get("action", "")
    if not action:
        raise bad_request("action is empty")
    if action not in CHAT_ACTIONS:
        raise bad_request("wrong parameter action in request")
    with api.state.lock:
        chat = api._resolve_chat(params)
        api._check_can_post(chat)
        placement = place_message(api.state, chat, params)
        api.state.chat_actions.append(ChatAction(chat.id, action, placement.thread_id, time.time()))
        api.state.touch()
    return True
