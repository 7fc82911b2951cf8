"""What `FakeTelegram` adds for people and the bot in chats: button presses (callback queries,
answered by `answer_callback_query`), and the `my_chat_member` and `chat_member` updates, in
the shapes python-telegram-bot 22.8 (Bot API 10.0) reads (see tests/fakes/README.md).

- A press carries the bot's message as stored, `reply_to_message` included when the bot's
  message was a reply (Telegram's `CallbackQuery.message`).
- In a channel anyone who reads it may press: `from` is that reader, never the channel. A reader
  of a public channel need not have joined it (`joined=False`): getChatMember then answers
  "left" for them.
- `my_chat_member` (the bot's own status) is delivered by default; `chat_member` (anyone
  else's) only when the bot is an administrator of the chat and `allowed_updates` names it, as
  the Bot API documents for `Update.chat_member`.
"""

from __future__ import annotations

import time
import uuid
from typing import TYPE_CHECKING

from tests.fakes.telegram.request_params import Params, bool_param
from tests.fakes.telegram.state import (
    CallbackAnswer,
    TelegramState,
    bad_request,
    chat_member_json,
    user_json,
)

if TYPE_CHECKING:
    from tests.fakes.telegram.bot_api import BotApi

OTHER_USER_ID = 1000  # the member who speaks (or presses) in a group when the test names nobody


def default_sender(chat_id: int, user_id: int | None) -> int:
    """Who acts when the test names nobody: the user of a private chat, else `OTHER_USER_ID`."""
    if user_id is not None:
        return user_id
    return chat_id if chat_id > 0 else OTHER_USER_ID


class MemberScripting:
    """Presses and membership changes, queued as updates."""

    _state: TelegramState

    def press_button(
        self,
        chat_id: int,
        message_id: int,
        data: str,
        user_id: int | None = None,
        *,
        joined: bool = True,
        language_code: str | None = None,
    ) -> int:
        """Queue a CallbackQuery for an inline button under a message the fake knows.

        `user_id` is whoever pressed: in a group anyone in it, in a channel any reader (an
        administrator or not). `joined` False: the presser reads a public channel without
        having joined it (their getChatMember status is "left"). `language_code`: the
        presser's client language (Telegram sends it when the client has one)."""
        sender = default_sender(chat_id, user_id)
        query_id = uuid.uuid4().hex[:16]
        with self._state.lock:
            message = self._state.messages.get((chat_id, message_id))
            if message is None:
                raise KeyError(f"no message {message_id} in chat {chat_id}")
            chat = self._state.chat(chat_id)
            if not joined:
                chat.left_ids.add(sender)
            self._state.callback_queries[query_id] = (chat_id, message_id, data)
            query = {
                "id": query_id,
                "from": user_json(sender, language_code=language_code),
                "message": message,
                "chat_instance": str(chat_id),
                "data": data,
            }
            return self._state.queue_update("callback_query", query)

    def my_chat_member(
        self,
        chat_id: int,
        new_status: str,
        *,
        old_status: str | None = None,
        user_id: int | None = None,
        chat_type: str | None = None,
        can_send: bool = True,
        language_code: str | None = None,
    ) -> int:
        """Queue a my_chat_member update and apply it: kicked/left block or remove the bot.

        `can_send` False takes the bot's right to post: with "restricted" in a group, with
        "administrator" in a channel (an admin without the right to post messages).
        `language_code`: the client language of whoever did it (added the bot, say).
        """
        with self._state.lock:
            chat = self._state.chat(chat_id, chat_type=chat_type)
            removed = new_status in ("kicked", "left")
            if chat.type == "private":
                chat.blocked = removed
            else:
                chat.kicked = removed
                chat.bot_is_admin = new_status == "administrator"
                chat.bot_can_send = can_send
            if old_status is None:
                old_status = (
                    "member" if removed else ("kicked" if chat.type == "private" else "left")
                )
            bot = dict(self._state.bot_user)
            update = {
                "chat": chat.to_json(),
                "from": user_json(default_sender(chat_id, user_id), language_code=language_code),
                "date": int(time.time()),
                "old_chat_member": chat_member_json(bot, old_status),
                "new_chat_member": chat_member_json(bot, new_status, can_send=can_send),
            }
            return self._state.queue_update("my_chat_member", update)

    def chat_member(
        self,
        chat_id: int,
        user_id: int,
        new_status: str,
        *,
        old_status: str = "left",
        by: int | None = None,
    ) -> int | None:
        """Someone's status changed (joined, left, promoted, banned): queue a chat_member
        update, and apply it to the chat's administrators. `by`: who changed it (default: the
        user themselves). Telegram makes none when the bot is no administrator of the chat:
        then nothing is queued and the answer is None."""
        with self._state.lock:
            chat = self._state.chat(chat_id)
            if new_status == "administrator" and user_id not in chat.admin_ids:
                chat.admin_ids.append(user_id)
            elif new_status != "administrator" and user_id in chat.admin_ids:
                chat.admin_ids.remove(user_id)
            if new_status in ("left", "kicked"):
                chat.left_ids.add(user_id)
            else:
                chat.left_ids.discard(user_id)
            if not chat.bot_is_admin:
                return None
            user = user_json(user_id)
            update = {
                "chat": chat.to_json(),
                "from": user_json(by if by is not None else user_id),
                "date": int(time.time()),
                "old_chat_member": chat_member_json(user, old_status),
                "new_chat_member": chat_member_json(user, new_status),
            }
            return self._state.queue_update("chat_member", update)


def answer_callback_query(api: BotApi, params: Params) -> bool:
    """answerCallbackQuery: a press is answered once; an unknown or answered one is too old."""
    query_id = params.get("callback_query_id", "")
    with api.state.lock:
        known = api.state.callback_queries.get(query_id)
        if known is None or query_id in api.state.answered_queries:
            raise bad_request(
                "query is too old and response timeout expired or query ID is invalid"
            )
        api.state.answered_queries.add(query_id)
        chat_id, message_id, data = known
        api.state.callback_answers.append(
            CallbackAnswer(
                query_id,
                chat_id,
                message_id,
                data,
                params.get("text") or None,
                bool_param(params, "show_alert"),
                time.time(),
            )
        )
        api.state.touch()
    return True
