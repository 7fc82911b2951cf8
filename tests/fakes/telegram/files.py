"""Files in the fake Bot API: documents users send, getFile, the download path, sendDocument.

As in Telegram: a document a user sends has a `file_id`; getFile answers its `file_path`, and
the file is then downloaded from `/file/bot<token>/<file_path>` (an unknown path or token answers
404 and 401). A file larger than `MAX_DOWNLOAD` (20 MB for bots) is refused by getFile. The bot
sends a document with a multipart upload (`sendDocument`); the fake keeps its bytes for tests
(`SentDocument`). Nothing here logs or keeps the token.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field

from tests.fakes.telegram.state import (
    JsonDict,
    TelegramState,
    bad_request,
    command_entities,
    user_json,
)

MAX_DOWNLOAD = 20 * 1024 * 1024


@dataclass(frozen=True)
class Upload:
    """A file part of a multipart request: its form field, file name, content type and bytes."""

    field: str
    file_name: str
    content_type: str
    data: bytes


@dataclass(frozen=True)
class StoredFile:
    file_id: str
    unique_id: str
    path: str
    data: bytes


@dataclass(frozen=True)
class SentDocument:
    """A document the bot sent."""

    chat_id: int
    message_id: int
    file_name: str
    data: bytes
    caption: str | None
    message_thread_id: int | None
    reply_to_message_id: int | None = None  # the message it quotes (a command in a group)


@dataclass
class FileStore:
    """Every file the fake holds, by id and by path, and the documents the bot sent. Callers
    hold the state lock."""

    by_id: dict[str, StoredFile] = field(default_factory=dict)
    by_path: dict[str, StoredFile] = field(default_factory=dict)
    sent: list[SentDocument] = field(default_factory=list)

    def add(self, data: bytes, suffix: str, *, downloadable: bool = True) -> StoredFile:
        unique = uuid.uuid4().hex[:12]
        stored = StoredFile(
            f"BQAC{unique}", unique, f"documents/file_{len(self.by_id)}{suffix}", data
        )
        self.by_id[stored.file_id] = stored
        if downloadable:
            self.by_path[stored.path] = stored
        return stored

    def get_file(self, params: dict[str, str]) -> JsonDict:
        stored = self.by_id.get(params.get("file_id", ""))
        if stored is None:
            raise bad_request("invalid file_id")
        if len(stored.data) > MAX_DOWNLOAD:
            raise bad_request("file is too big")
        return {
            "file_id": stored.file_id,
            "file_unique_id": stored.unique_id,
            "file_size": len(stored.data),
            "file_path": stored.path,
        }


def document_json(stored: StoredFile, file_name: str, mime_type: str | None) -> JsonDict:
    document: JsonDict = {
        "file_id": stored.file_id,
        "file_unique_id": stored.unique_id,
        "file_name": file_name,
        "file_size": len(stored.data),
    }
    if mime_type is not None:
        document["mime_type"] = mime_type
    return document


class DocumentScripting:
    """What `FakeTelegram` adds for files: users send documents, tests read what the bot sent."""

    _state: TelegramState
    _files: FileStore

    def user_sends_document(
        self,
        chat_id: int,
        data: bytes,
        *,
        file_name: str = "follows.txt",
        mime_type: str | None = "text/plain",
        caption: str | None = None,
        user_id: int | None = None,
        size: int | None = None,
        downloadable: bool = True,
        thread_id: int | None = None,
    ) -> int:
        """Queue a Message update with a document (and a caption, whose leading `/command`
        gets its bot_command entity, as Telegram marks it). `size`: the file_size Telegram
        reports, when a test wants it to differ from the bytes. `downloadable` False: its download
        answers 404, as an expired link does. `thread_id`: the forum topic it is posted in. In a
        channel it is a channel_post (no `from`). Returns the message id."""
        sender = user_id if user_id is not None else (chat_id if chat_id > 0 else 1000)
        with self._state.lock:
            stored = self._files.add(
                data, "." + file_name.rpartition(".")[2], downloadable=downloadable
            )
            document = document_json(stored, file_name, mime_type)
            if size is not None:
                document["file_size"] = size
            message: JsonDict = {"from": user_json(sender), "document": document}
            if thread_id is not None:
                message.update(message_thread_id=thread_id, is_topic_message=True)
            if caption is not None:
                message["caption"] = caption
                entities = command_entities(caption).get("entities")
                if entities:
                    message["caption_entities"] = entities
            chat = self._state.chat(chat_id)
            kind = "message"
            if chat.type == "channel":  # posted by the channel itself, as any channel post
                del message["from"]
                message["sender_chat"], kind = chat.to_json(), "channel_post"
            stored_message = self._state.store_message(chat, message)
            self._state.queue_update(kind, stored_message)
            return int(stored_message["message_id"])

    def user_replies(
        self, chat_id: int, text: str, reply_to: int, *, user_id: int | None = None
    ) -> int:
        """Queue a Message update that replies to message `reply_to` of the chat (a command
        gets its bot_command entity). Returns the update id."""
        sender = user_id if user_id is not None else (chat_id if chat_id > 0 else 1000)
        with self._state.lock:
            target = self._state.messages[(chat_id, reply_to)]
            replied = {key: value for key, value in target.items() if key != "reply_to_message"}
            message: JsonDict = {"from": user_json(sender), "text": text}
            message.update(command_entities(text), reply_to_message=replied)
            stored = self._state.store_message(self._state.chat(chat_id), message)
            return self._state.queue_update("message", stored)

    def documents(self, chat_id: int | None = None) -> list[SentDocument]:
        with self._state.lock:
            return [d for d in self._files.sent if chat_id is None or d.chat_id == chat_id]
