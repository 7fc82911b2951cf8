"""The Bot API methods the fake implements, with Telegram's answers and error wording.

`BotApi.call(method, params)` takes the decoded request parameters (all strings, JSON fields
still JSON) and returns the `result`, or raises `ApiError`. The HTTP layer knows nothing of
methods; the state knows nothing of HTTP.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Sequence
from typing import Any

from tests.fakes.telegram.chat_actions import send_chat_action
from tests.fakes.telegram.files import FileStore, SentDocument, Upload, document_json
from tests.fakes.telegram.flood_control import FloodControl
from tests.fakes.telegram.forum import place_message
from tests.fakes.telegram.html_markup import (
    HtmlParseError,
    ParsedText,
    parse_html,
    strip_outer_whitespace,
    utf16_length,
)
from tests.fakes.telegram.inline import answer_inline_query
from tests.fakes.telegram.members import answer_callback_query
from tests.fakes.telegram.profile import Profile
from tests.fakes.telegram.request_params import (
    Params,
    bool_param,
    int_param,
    json_param,
    required_int,
    validate_reply_markup,
)
from tests.fakes.telegram.state import (
    STAND_IN_USERS,
    ApiError,
    ChatInfo,
    EditRecord,
    JsonDict,
    SentMessage,
    TelegramState,
    bad_request,
    chat_member_json,
    sent_as,
    sent_by_bot,
    user_json,
)
from tests.fakes.telegram.webhook import Webhooks

MAX_TEXT_UTF16 = 4096
DEFAULT_UPDATE_KINDS_EXCLUDED = frozenset(
    {"chat_member", "message_reaction", "message_reaction_count"}
)
CONFLICT = (
    "Conflict: terminated by other getUpdates request; make sure that only one bot instance is "
    "running"
)
NOT_MODIFIED = (
    "message is not modified: specified new message content and reply markup are exactly the "
    "same as a current content and reply markup of the message"
)


class BotApi:
    """Method implementations over a shared `TelegramState`."""

    def __init__(
        self,
        state: TelegramState,
        flood: FloodControl,
        *,
        strict_chats: bool,
        strict_ampersand: bool,
    ) -> None:
        self.state = state
        self.flood = flood
        self.strict_chats = strict_chats
        self.strict_ampersand = strict_ampersand
        self.webhooks = Webhooks(state, self._deliverable)
        self.files = FileStore()
        self.profile = Profile(state)
        self.methods: dict[str, Callable[[Params], Any]] = {
            "getMe": self.get_me,
            "setWebhook": self.webhooks.set_webhook,
            "deleteWebhook": self.webhooks.delete_webhook,
            "getWebhookInfo": self.webhooks.get_webhook_info,
            "getUpdates": self.get_updates,
            "sendMessage": self.send_message,
            "editMessageText": self.edit_message_text,
            "editMessageReplyMarkup": self.edit_message_reply_markup,
            "answerCallbackQuery": lambda params: answer_callback_query(self, params),
            "setMyCommands": self.profile.set_my_commands,
            "getMyCommands": self.profile.get_my_commands,
            "deleteMyCommands": self.profile.delete_my_commands,
            "setMyDescription": self.profile.set_description,
            "getMyDescription": self.profile.get_description,
            "setMyShortDescription": self.profile.set_short_description,
            "getMyShortDescription": self.profile.get_short_description,
            "getChatMember": self.get_chat_member,
            "getChatAdministrators": self.get_chat_administrators,
            "getChat": self.get_chat,
            "getFile": self.files.get_file,
            "sendDocument": self.send_document,
            "sendChatAction": lambda params: send_chat_action(self, params),
            "answerInlineQuery": lambda params: answer_inline_query(self, params),
            "close": lambda _params: True,
            "logOut": lambda _params: True,
        }
        self._by_lower_name = {name.lower(): name for name in self.methods}

    def canonical_name(self, method: str) -> str | None:
        """Method names are case-insensitive in the Bot API."""
        return self._by_lower_name.get(method.lower())

    def call(self, method: str, params: Params, uploads: Sequence[Upload] = ()) -> Any:
        if method == "sendDocument":
            return self.send_document(params, uploads)
        return self.methods[method](params)

    # -- chats and text ----------------------------------------------------------------------
    def _resolve_chat(self, params: Params) -> ChatInfo:
        """Caller holds the state lock."""
        raw = params.get("chat_id", "")
        if not raw:
            raise bad_request("chat_id is empty")
        if raw.startswith("@"):
            found = self.state.chat_by_username(raw)
            if found is None:
                raise bad_request("chat not found")
            return found
        try:
            chat_id = int(raw)
        except ValueError:
            raise bad_request("chat not found") from None
        if chat_id == 0 or (self.strict_chats and chat_id not in self.state.chats):
            raise bad_request("chat not found")
        return self.state.chat(chat_id)

    @staticmethod
    def _check_can_post(chat: ChatInfo) -> None:
        if chat.migrated_to is not None:
            raise bad_request(
                "group chat was upgraded to a supergroup chat",
                {"migrate_to_chat_id": chat.migrated_to},
            )
        if chat.blocked:
            raise ApiError(403, "Forbidden: bot was blocked by the user")
        if chat.kicked:
            if chat.type == "channel":
                raise ApiError(403, "Forbidden: bot is not a member of the channel chat")
            raise ApiError(403, f"Forbidden: bot was kicked from the {chat.type} chat")
        if chat.type == "channel" and not (chat.bot_is_admin and chat.bot_can_send):
            raise bad_request("need administrator rights in the channel chat")
        if not chat.bot_can_send:
            raise bad_request("not enough rights to send text messages to the chat")

    def _render(self, params: Params) -> tuple[ParsedText, str | None]:
        text = params.get("text", "")
        parse_mode = params.get("parse_mode") or None
        if not text.strip():
            raise bad_request("message text is empty")
        if parse_mode is None:
            given = json_param(params, "entities", "message entities")
            parsed = ParsedText(strip_outer_whitespace(text), list(given or []))
        elif parse_mode.lower() == "html":
            try:
                parsed = parse_html(text, strict_ampersand=self.strict_ampersand)
            except HtmlParseError as error:
                raise bad_request(f"can't parse entities: {error}") from None
        elif parse_mode.lower() in ("markdown", "markdownv2"):
            raise bad_request(f"the fake Bot API does not implement parse_mode {parse_mode}")
        else:
            raise bad_request("unsupported parse_mode")
        if not parsed.text:
            raise bad_request("message text is empty")
        if utf16_length(parsed.text) > MAX_TEXT_UTF16:
            raise bad_request("message is too long")
        return parsed, parse_mode

    def _reply_markup(self, params: Params) -> JsonDict | None:
        markup = json_param(params, "reply_markup", "reply keyboard markup")
        if markup is None:
            return None
        validate_reply_markup(markup)
        return dict(markup)

    # -- methods -----------------------------------------------------------------------------
    def get_me(self, _params: Params) -> JsonDict:
        return dict(self.state.bot_user)

    def get_updates(self, params: Params) -> list[JsonDict]:
        offset = int_param(params, "offset")
        limit = min(max(int_param(params, "limit", 100) or 100, 1), 100)
        timeout = max(int_param(params, "timeout", 0) or 0, 0)
        allowed = json_param(params, "allowed_updates", "allowed updates")
        state = self.state
        deadline = time.monotonic() + timeout
        with state.changed:
            self.webhooks.refuse_get_updates()
            state.poll_generation += 1
            generation = state.poll_generation
            state.touch()  # an older long poll must notice it has been superseded
            if allowed is not None:
                state.allowed_updates = list(allowed)
            self._confirm(offset)
            while True:
                if state.poll_generation != generation:
                    raise ApiError(409, CONFLICT)
                batch = self._deliverable()[:limit]
                remaining = deadline - time.monotonic()
                if batch or state.closing or remaining <= 0:
                    return batch
                state.changed.wait(remaining)

    def _confirm(self, offset: int | None) -> None:
        """Updates below `offset` are confirmed and gone; a negative offset keeps the last N."""
        updates = self.state.updates
        if offset is None or offset == 0:
            return
        if offset < 0:
            del updates[: max(len(updates) + offset, 0)]
        else:
            updates[:] = [update for update in updates if update["update_id"] >= offset]

    def _deliverable(self) -> list[JsonDict]:
        """Pending updates of the allowed kinds; others are dropped, as Telegram does."""
        allowed = self.state.allowed_updates

        def wanted(update: JsonDict) -> bool:
            kind = next(key for key in update if key != "update_id")
            if allowed:
                return kind in allowed
            return kind not in DEFAULT_UPDATE_KINDS_EXCLUDED

        self.state.updates[:] = [update for update in self.state.updates if wanted(update)]
        return [json.loads(json.dumps(update)) for update in self.state.updates]

    def send_message(self, params: Params) -> JsonDict:
        with self.state.lock:
            chat = self._resolve_chat(params)
            self._check_can_post(chat)
            placement = place_message(self.state, chat, params)
        parsed, parse_mode = self._render(params)
        markup = self._reply_markup(params)
        preview = json_param(params, "link_preview_options", "link preview options")
        with self.state.lock:
            paid = bool_param(params, "allow_paid_broadcast")
            retry_after = self.flood.admit(chat.id, paid=paid)
            if retry_after is not None:
                raise ApiError(
                    429,
                    f"Too Many Requests: retry after {retry_after}",
                    {"retry_after": retry_after},
                )
            message: JsonDict = {**sent_as(chat, self.state.bot_user), "text": parsed.text}
            if placement.thread_id is not None:
                message.update(message_thread_id=placement.thread_id, is_topic_message=True)
            if placement.reply_to is not None:
                message["reply_to_message"] = placement.reply_to
            if parsed.entities:
                message["entities"] = parsed.entities
            if markup and "inline_keyboard" in markup:
                message["reply_markup"] = markup
            if preview is not None:
                message["link_preview_options"] = preview
            stored = self.state.store_message(chat, message)
            self.state.sent.append(
                SentMessage(
                    chat_id=chat.id,
                    message_id=stored["message_id"],
                    text=parsed.text,
                    parse_mode=parse_mode,
                    html=params.get("text", ""),
                    entities=parsed.entities,
                    reply_markup=markup,
                    link_preview_options=preview,
                    time=time.time(),
                    paid_broadcast=paid,
                    message_thread_id=placement.thread_id,
                    reply_to_message_id=(
                        placement.reply_to["message_id"] if placement.reply_to else None
                    ),
                )
            )
            self.state.touch()
            return json.loads(json.dumps(stored))  # type: ignore[no-any-return]

    def send_document(self, params: Params, uploads: Sequence[Upload] = ()) -> JsonDict:
        """A document uploaded (multipart, field `document`), with an optional caption."""
        upload = next((u for u in uploads if u.field == "document"), None)
        if upload is None:
            raise bad_request("there is no document in the request")
        caption = params.get("caption") or None
        if caption is not None and utf16_length(caption) > 1024:
            raise bad_request("message caption is too long")
        with self.state.lock:
            chat = self._resolve_chat(params)
            self._check_can_post(chat)
            placement = place_message(self.state, chat, params)
            suffix = "." + upload.file_name.rpartition(".")[2]
            document = document_json(
                self.files.add(upload.data, suffix), upload.file_name, upload.content_type
            )
            message: JsonDict = {**sent_as(chat, self.state.bot_user), "document": document}
            if caption is not None:
                message["caption"] = caption
            if placement.thread_id is not None:
                message.update(message_thread_id=placement.thread_id, is_topic_message=True)
            if placement.reply_to is not None:
                message["reply_to_message"] = placement.reply_to
            stored = self.state.store_message(chat, message)
            self.files.sent.append(
                SentDocument(
                    chat.id,
                    stored["message_id"],
                    upload.file_name,
                    upload.data,
                    caption,
                    placement.thread_id,
                    placement.reply_to["message_id"] if placement.reply_to else None,
                )
            )
            self.state.touch()
            return json.loads(json.dumps(stored))  # type: ignore[no-any-return]

    def _message_to_edit(self, params: Params) -> tuple[ChatInfo, JsonDict]:
        if params.get("inline_message_id"):
            raise bad_request("the fake Bot API does not implement inline messages")
        chat = self._resolve_chat(params)
        self._check_can_post(chat)
        message_id = required_int(params, "message_id")
        message = self.state.messages.get((chat.id, message_id))
        if message is None:
            raise bad_request("message to edit not found")
        if not sent_by_bot(chat, message, self.state.bot_user):
            raise bad_request("message can't be edited")
        return chat, message

    def edit_message_text(self, params: Params) -> JsonDict:
        parsed, parse_mode = self._render(params)
        markup = self._reply_markup(params)
        with self.state.lock:
            chat, message = self._message_to_edit(params)
            unchanged = (
                message["text"] == parsed.text
                and message.get("entities", []) == parsed.entities
                and message.get("reply_markup") == markup
            )
            if unchanged:
                raise bad_request(NOT_MODIFIED)
            message["text"] = parsed.text
            message.pop("entities", None)
            if parsed.entities:
                message["entities"] = parsed.entities
            self._apply_markup(message, markup)
            return self._record_edit("editMessageText", chat, message, parse_mode, markup)

    def edit_message_reply_markup(self, params: Params) -> JsonDict:
        markup = self._reply_markup(params)
        with self.state.lock:
            chat, message = self._message_to_edit(params)
            if message.get("reply_markup") == markup:
                raise bad_request(NOT_MODIFIED)
            self._apply_markup(message, markup)
            return self._record_edit("editMessageReplyMarkup", chat, message, None, markup)

    @staticmethod
    def _apply_markup(message: JsonDict, markup: JsonDict | None) -> None:
        message.pop("reply_markup", None)
        if markup and "inline_keyboard" in markup:
            message["reply_markup"] = markup

    def _record_edit(
        self,
        method: str,
        chat: ChatInfo,
        message: JsonDict,
        parse_mode: str | None,
        markup: JsonDict | None,
    ) -> JsonDict:
        message["edit_date"] = int(time.time())
        text = message["text"] if method == "editMessageText" else None
        self.state.edits.append(
            EditRecord(
                method, chat.id, message["message_id"], text, parse_mode, markup, time.time()
            )
        )
        self.state.touch()
        return json.loads(json.dumps(message))  # type: ignore[no-any-return]

    def _member_status(self, chat: ChatInfo, user_id: int) -> str:
        if user_id == self.state.bot_user["id"]:
            if chat.kicked:
                return "kicked"
            if chat.bot_is_admin:
                return "administrator"
            return "member" if chat.bot_can_send else "restricted"
        if user_id == chat.creator_id:
            return "creator"
        if user_id in chat.admin_ids:
            return "administrator"
        return "left" if user_id in chat.left_ids else "member"

    def _user(self, user_id: int) -> JsonDict:
        return (
            dict(self.state.bot_user)
            if user_id == self.state.bot_user["id"]
            else user_json(user_id)
        )

    def get_chat_member(self, params: Params) -> JsonDict:
        user_id = required_int(params, "user_id")
        if user_id <= 0 or user_id in STAND_IN_USERS:
            # Chats are not members, and neither are the stand-ins for who posts as a chat.
            raise bad_request("PARTICIPANT_ID_INVALID")
        with self.state.lock:
            chat = self._resolve_chat(params)
            if chat.migrated_to is not None:
                self._check_can_post(chat)
            can_send = chat.bot_can_send or user_id != self.state.bot_user["id"]
            return chat_member_json(
                self._user(user_id), self._member_status(chat, user_id), can_send=can_send
            )

    def get_chat_administrators(self, params: Params) -> list[JsonDict]:
        with self.state.lock:
            chat = self._resolve_chat(params)
            self._check_can_post(chat)
            if chat.type == "private":
                raise bad_request("there are no administrators in the private chat")
            ids = ([chat.creator_id] if chat.creator_id is not None else []) + [
                user_id for user_id in chat.admin_ids if user_id != chat.creator_id
            ]
            if chat.bot_is_admin:
                ids.append(self.state.bot_user["id"])
            return [
                chat_member_json(self._user(user_id), self._member_status(chat, user_id))
                for user_id in ids
            ]

    def get_chat(self, params: Params) -> JsonDict:
        with self.state.lock:
            chat = self._resolve_chat(params)
            return chat.to_full_json()
