"""Everything the fake Bot API remembers: chats, messages, queued updates, and what the bot did.

One lock guards it all; `changed` (a Condition on that lock) wakes long polls and sync waiters
whenever anything moves. Records handed to tests are frozen dataclasses, copied out under the
lock, and never hold the bot token. The JSON shapes of users, chat members and command entities
are built here too.
"""

from __future__ import annotations

import threading
import time
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from tests.fakes.telegram.html_markup import utf16_length

JsonDict = dict[str, Any]

SUPERGROUP_ID_BELOW = -1_000_000_000_000  # Telegram's "-100…" ids are supergroups and channels
# Who `from` is when someone posts as a chat: as a channel (their own, or a linked channel's
# automatic forward), or as the group itself (an anonymous administrator).
CHANNEL_BOT = {"id": 136817688, "is_bot": True, "first_name": "Channel", "username": "Channel_Bot"}
GROUP_ANONYMOUS_BOT = {
    "id": 1087968824,
    "is_bot": True,
    "first_name": "Group",
    "username": "GroupAnonymousBot",
}
STAND_IN_USERS = frozenset({CHANNEL_BOT["id"], GROUP_ANONYMOUS_BOT["id"]})


class ApiError(Exception):
    """An error answer: HTTP status, Telegram description and optional `parameters`."""

    def __init__(self, status: int, description: str, parameters: JsonDict | None = None) -> None:
        super().__init__(description)
        self.status = status
        self.description = description
        self.parameters = parameters

    def to_json(self) -> JsonDict:
        body: JsonDict = {"ok": False, "error_code": self.status, "description": self.description}
        if self.parameters:
            body["parameters"] = self.parameters
        return body


def bad_request(reason: str, parameters: JsonDict | None = None) -> ApiError:
    return ApiError(400, f"Bad Request: {reason}", parameters)


@dataclass(frozen=True)
class SentMessage:
    """One message the bot sent successfully (what the recipient saw, plus what was sent)."""

    chat_id: int
    message_id: int
    text: str  # plain text after entity parsing, as Telegram stores it
    parse_mode: str | None
    html: str  # the `text` parameter exactly as sent
    entities: list[JsonDict]
    reply_markup: JsonDict | None
    link_preview_options: JsonDict | None
    time: float
    message_thread_id: int | None = None  # the forum topic it went to (None: General, no topics)
    reply_to_message_id: int | None = None  # the message it quotes
    paid_broadcast: bool = False  # sent with `allow_paid_broadcast`


@dataclass(frozen=True)
class EditRecord:
    method: str
    chat_id: int
    message_id: int
    text: str | None
    parse_mode: str | None
    reply_markup: JsonDict | None
    time: float


@dataclass(frozen=True)
class ChatAction:
    """One sendChatAction the fake accepted: the status ("typing", ...) a chat was shown."""

    chat_id: int
    action: str
    message_thread_id: int | None
    time: float


@dataclass(frozen=True)
class RecordedRequest:
    method: str
    params: dict[str, str]
    time: float
    status: int = 0  # HTTP status answered; 0 while in flight or when the connection dropped
    client: str = ""  # who asked, when it came through `FakeTelegram.base_url_for(client)`


@dataclass(frozen=True)
class CallbackAnswer:
    callback_query_id: str
    chat_id: int
    message_id: int
    data: str
    text: str | None
    show_alert: bool
    time: float


@dataclass
class Topic:
    """A forum topic. Its id is the id of the service message that created it, as in Telegram."""

    name: str
    closed: bool = False


@dataclass
class ChatInfo:
    """A chat as the fake knows it, with the bot's standing in it.

    `bot_can_send` False: the bot is restricted (a group) or an administrator without the right
    to post (a channel). A forum (`is_forum`) has `topics`; its General topic may be closed too.
    """

    id: int
    type: str  # private | group | supergroup | channel
    title: str | None = None
    username: str | None = None
    first_name: str | None = None
    blocked: bool = False  # private chat: the user blocked the bot
    kicked: bool = False  # group/channel: the bot was removed
    migrated_to: int | None = None
    bot_is_admin: bool = False
    admin_ids: list[int] = field(default_factory=list)
    creator_id: int | None = None
    bot_can_send: bool = True
    is_forum: bool = False
    topics: dict[int, Topic] = field(default_factory=dict)
    general_closed: bool = False
    left_ids: set[int] = field(default_factory=set)  # users seen here who are not members

    def to_json(self) -> JsonDict:
        chat: JsonDict = {"id": self.id, "type": self.type}
        if self.is_forum:
            chat["is_forum"] = True
        if self.type == "private":
            chat["first_name"] = self.first_name or f"User {self.id}"
        else:
            chat["title"] = self.title or f"Chat {self.id}"
        if self.username:
            chat["username"] = self.username
        return chat

    def to_full_json(self) -> JsonDict:
        """ChatFullInfo (getChat), with the fields PTB 22 requires."""
        full = self.to_json()
        full.update(
            accent_color_id=0,
            max_reaction_count=11,
            accepted_gift_types={
                "unlimited_gifts": False,
                "limited_gifts": False,
                "unique_gifts": False,
                "premium_subscription": False,
                "gifts_from_channels": False,
            },
        )
        return full


def sent_as(chat: ChatInfo, bot_user: JsonDict) -> JsonDict:
    """The sender fields of a message the bot posts: in a channel the channel itself is
    `sender_chat` and there is no `from` (Bot API `Message.from`: "may be empty for messages
    sent to channels"); elsewhere `from` is the bot."""
    if chat.type == "channel":
        return {"sender_chat": chat.to_json()}
    return {"from": dict(bot_user)}


def sent_by_bot(chat: ChatInfo, message: JsonDict, bot_user: JsonDict) -> bool:
    """Whether the bot posted this message (in a channel: a post of the channel itself)."""
    if chat.type == "channel":
        return "from" not in message and message.get("sender_chat", {}).get("id") == chat.id
    return bool(message.get("from", {}).get("id") == bot_user["id"])


def default_chat_type(chat_id: int) -> str:
    if chat_id > 0:
        return "private"
    return "supergroup" if chat_id < SUPERGROUP_ID_BELOW else "group"


def user_json(
    user_id: int, username: str | None = None, *, language_code: str | None = None
) -> JsonDict:
    """A User; `language_code` is optional in the Bot API (the client's IETF tag: "en",
    "zh-hans"), sent only when the client has one."""
    user: JsonDict = {"id": user_id, "is_bot": False, "first_name": f"User {user_id}"}
    if username:
        user["username"] = username
    if language_code:
        user["language_code"] = language_code
    return user


_ADMIN_RIGHTS = (
    "can_be_edited",
    "can_manage_chat",
    "can_delete_messages",
    "can_manage_video_chats",
    "can_restrict_members",
    "can_promote_members",
    "can_change_info",
    "can_invite_users",
    "can_post_stories",
    "can_edit_stories",
    "can_delete_stories",
    "can_post_messages",
    "can_edit_messages",
    "can_pin_messages",
)


_MEMBER_PERMISSIONS = (
    "can_change_info",
    "can_invite_users",
    "can_pin_messages",
    "can_send_polls",
    "can_send_other_messages",
    "can_add_web_page_previews",
    "can_manage_topics",
    "can_send_audios",
    "can_send_documents",
    "can_send_photos",
    "can_send_videos",
    "can_send_video_notes",
    "can_send_voice_notes",
    "can_edit_tag",
    "can_react_to_messages",
)


def command_entities(text: str) -> JsonDict:
    """Telegram marks a leading `/command[@bot]` with a bot_command entity (UTF-16 length)."""
    if not text.startswith("/"):
        return {}
    command = text.split(maxsplit=1)[0]
    return {"entities": [{"type": "bot_command", "offset": 0, "length": utf16_length(command)}]}


def chat_member_json(user: JsonDict, status: str, *, can_send: bool = True) -> JsonDict:
    """A ChatMember of `status`; `can_send` False takes the right to post (admin: in a channel)
    or to send messages (restricted)."""
    member: JsonDict = {"status": status, "user": user}
    if status == "creator":
        member["is_anonymous"] = False
    elif status == "administrator":
        member.update(dict.fromkeys(_ADMIN_RIGHTS, True), is_anonymous=False)
        member["can_be_edited"] = False
        member["can_post_messages"] = can_send
    elif status == "restricted":
        member.update(dict.fromkeys(_MEMBER_PERMISSIONS, False), is_member=True, until_date=0)
        member["can_send_messages"] = can_send
    elif status == "kicked":
        member["until_date"] = 0
    return member


class TelegramState:
    """Shared state. Callers take `lock` (or use `changed`) around every read and write."""

    def __init__(self, *, bot_id: int, bot_username: str) -> None:
        self.lock = threading.RLock()
        self.changed = threading.Condition(self.lock)
        self.bot_user: JsonDict = {
            "id": bot_id,
            "is_bot": True,
            "first_name": "Fake Bot",
            "username": bot_username,
            "can_join_groups": True,
            "can_read_all_group_messages": False,
            "supports_inline_queries": True,  # inline mode on (@BotFather's /setinline)
            "can_connect_to_business": False,
            "has_main_web_app": False,
        }
        self.chats: dict[int, ChatInfo] = {}
        self.messages: dict[tuple[int, int], JsonDict] = {}
        self.last_message_id: Counter[int] = Counter()
        self.updates: list[JsonDict] = []  # pending, ascending update_id
        self.next_update_id = 100_000
        self.allowed_updates: list[str] | None = None
        self.poll_generation = 0
        self.closing = False
        self.callback_queries: dict[str, tuple[int, int, str]] = {}
        self.answered_queries: set[str] = set()
        # Inline queries not answered yet: id -> (user id, query); and the answers given.
        self.inline_queries: dict[str, tuple[int, str]] = {}
        self.inline_answers: list[Any] = []  # `inline.InlineAnswer`s
        self.commands: dict[str, list[JsonDict]] = {}  # key: scope JSON + language code
        # What the bot did, for assertions.
        self.sent: list[SentMessage] = []
        self.edits: list[EditRecord] = []
        self.chat_actions: list[ChatAction] = []
        self.callback_answers: list[CallbackAnswer] = []
        self.requests: list[RecordedRequest] = []
        self.method_counts: Counter[str] = Counter()
        self.count_429 = 0
        self.in_flight = 0
        self.max_concurrent = 0

    def touch(self) -> None:
        """Wake every waiter: long polls and `wait_sync`. Caller holds the lock."""
        self.changed.notify_all()

    def chat(self, chat_id: int, *, chat_type: str | None = None) -> ChatInfo:
        """The chat with this id, created on first sight."""
        chat = self.chats.get(chat_id)
        if chat is None:
            chat = ChatInfo(chat_id, chat_type or default_chat_type(chat_id))
            self.chats[chat_id] = chat
        return chat

    def chat_by_username(self, username: str) -> ChatInfo | None:
        wanted = username.removeprefix("@").lower()
        for chat in self.chats.values():
            if chat.username and chat.username.lower() == wanted:
                return chat
        return None

    def store_message(self, chat: ChatInfo, message: JsonDict) -> JsonDict:
        """Give `message` the chat's next message_id and date, and keep it."""
        self.last_message_id[chat.id] += 1
        message_id = self.last_message_id[chat.id]
        stored = {"message_id": message_id, "date": int(time.time()), "chat": chat.to_json()}
        stored.update(message)
        self.messages[(chat.id, message_id)] = stored
        return stored

    def queue_update(self, kind: str, payload: JsonDict) -> int:
        update_id = self.next_update_id
        self.next_update_id += 1
        self.updates.append({"update_id": update_id, kind: payload})
        self.touch()
        return update_id
