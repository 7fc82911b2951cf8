"""Where a sent message lands: the forum topic (`message_thread_id`) and the message it replies
to (`reply_parameters`), with Telegram's refusals.

- In a forum, a topic that does not exist answers "message thread not found", a closed one
  (General included) "TOPIC_CLOSED", unless the bot is an administrator (admins may post in
  closed topics).
- Outside forums a `message_thread_id` names a chain of replies: it must be a message of the chat.
- A reply must name a message of the chat ("message to be replied not found", unless
  `allow_sending_without_reply`), and it stays in that message's topic: replying to a message of
  topic 5 without `message_thread_id` 5 is refused the same way. This is what makes the fake
  check that the bot's replies carry the topic of the command they answer.
"""

from __future__ import annotations

from dataclasses import dataclass

from tests.fakes.telegram.request_params import Params, bool_param, int_param, json_param
from tests.fakes.telegram.state import ChatInfo, JsonDict, TelegramState, bad_request

REPLY_NOT_FOUND = "message to be replied not found"


@dataclass(frozen=True)
class Placement:
    thread_id: int | None
    reply_to: JsonDict | None  # the replied message, as stored


def message_thread(message: JsonDict) -> int | None:
    """The forum topic of a stored message, if it is in one."""
    return message.get("message_thread_id") if message.get("is_topic_message") else None


def place_message(state: TelegramState, chat: ChatInfo, params: Params) -> Placement:
    """Check `message_thread_id` and the reply target of a send. Caller holds the state lock."""
    thread = int_param(params, "message_thread_id")
    if thread is not None:
        if chat.is_forum:
            topic = chat.topics.get(thread)
            if topic is None:
                raise bad_request("message thread not found")
            if topic.closed and not chat.bot_is_admin:
                raise bad_request("TOPIC_CLOSED")
        elif (chat.id, thread) not in state.messages:
            raise bad_request("message thread not found")
    elif chat.is_forum and chat.general_closed and not chat.bot_is_admin:
        raise bad_request("TOPIC_CLOSED")
    return Placement(thread if chat.is_forum else None, _reply_target(state, chat, params, thread))


def _reply_target(
    state: TelegramState, chat: ChatInfo, params: Params, thread: int | None
) -> JsonDict | None:
    wanted = json_param(params, "reply_parameters", "reply parameters")
    if isinstance(wanted, dict):
        message_id = wanted.get("message_id")
        lenient = bool(wanted.get("allow_sending_without_reply"))
        if wanted.get("chat_id") not in (None, chat.id, str(chat.id)):
            raise bad_request("the fake Bot API does not implement replies to other chats")
    else:
        message_id = int_param(params, "reply_to_message_id")
        lenient = bool_param(params, "allow_sending_without_reply")
    if message_id is None:
        return None
    target = state.messages.get((chat.id, int(message_id)))
    if target is not None and chat.is_forum and message_thread(target) != thread:
        target = None  # Telegram looks for the replied message in the given topic only
    if target is None:
        if lenient:
            return None
        raise bad_request(REPLY_NOT_FOUND)
    return {key: value for key, value in target.items() if key != "reply_to_message"}
