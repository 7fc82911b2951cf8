"""`FakeTelegram`: the test-side handle on the fake Bot API (start/stop, scripting, assertions).

    with FakeTelegram(token="123456:TEST-TOKEN") as fake:
        app = ApplicationBuilder().token(fake.token).base_url(fake.base_url).build()
        fake.user_sends(42, "/start")
        fake.wait_sync(lambda: fake.sent(42), timeout=5)

Every method is thread-safe, so sync tests, async tests, a bench script and the server threads
can all use one instance. The token is never part of a repr, a record or an error text.
"""

from __future__ import annotations

import asyncio
import json
import threading
import time
from collections.abc import Callable, Iterable
from types import TracebackType

from tests.fakes.telegram.bot_api import BotApi
from tests.fakes.telegram.faults import Fault, FaultQueue
from tests.fakes.telegram.files import DocumentScripting
from tests.fakes.telegram.flood_control import FloodControl, RateLimits
from tests.fakes.telegram.http_server import CLIENT_PREFIX, ApiServer
from tests.fakes.telegram.inline import InlineScripting
from tests.fakes.telegram.members import OTHER_USER_ID, MemberScripting
from tests.fakes.telegram.profile import Profile
from tests.fakes.telegram.state import (
    CHANNEL_BOT,
    GROUP_ANONYMOUS_BOT,
    CallbackAnswer,
    ChatAction,
    ChatInfo,
    EditRecord,
    JsonDict,
    RecordedRequest,
    SentMessage,
    TelegramState,
    Topic,
    command_entities,
    user_json,
)

DEFAULT_TOKEN = "123456:TEST-TOKEN-not-a-secret"


class FakeTelegram(DocumentScripting, MemberScripting, InlineScripting):
    """A fake Bot API on 127.0.0.1 (ephemeral port), from a daemon thread (files: its base)."""

    def __init__(
        self,
        token: str = DEFAULT_TOKEN,
        *,
        rate_limits: RateLimits | None = None,
        bot_username: str = "arxiv_watcher_bot",
        strict_chats: bool = False,
        strict_ampersand: bool = True,
    ) -> None:
        """`strict_chats`: refuse chats the fake has not seen ("chat not found"), like Telegram.

        `strict_ampersand`: refuse a bare `&` (see html_markup); False keeps it like the server.
        """
        self.token = token
        bot_id = int(token.split(":", 1)[0]) if token.split(":", 1)[0].isdigit() else 123456
        self._state = TelegramState(bot_id=bot_id, bot_username=bot_username)
        self._faults = FaultQueue()
        self._api = BotApi(
            self._state,
            FloodControl(rate_limits or RateLimits()),
            strict_chats=strict_chats,
            strict_ampersand=strict_ampersand,
        )
        self.webhooks = self._api.webhooks  # setWebhook's side: route, post, received
        self._files = self._api.files
        self._server: ApiServer | None = None
        self._thread: threading.Thread | None = None
        self._port = 0  # ephemeral at first; a restart listens on the same port again

    def __repr__(self) -> str:
        return f"<FakeTelegram {self.base_url if self._server else 'stopped'}>"

    # -- lifecycle ---------------------------------------------------------------------------
    def start(self) -> FakeTelegram:
        """Listen (again, after `stop`: on the same port, with every chat and message kept, as
        Telegram is the same after its servers were out of reach)."""
        with self._state.changed:
            self._state.closing = False
        self._server = ApiServer(
            token=self.token,
            state=self._state,
            api=self._api,
            faults=self._faults,
            port=self._port,
        )
        self._port = int(self._server.server_address[1])
        self._thread = threading.Thread(
            target=self._server.serve_forever,
            kwargs={"poll_interval": 0.05},
            name="fake-telegram",
            daemon=True,
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        """Stop serving, end pending long polls and cut open connections."""
        if self._server is None:
            return
        with self._state.changed:
            self._state.closing = True
            self._state.touch()
        self._server.shutdown()
        self._server.cut_connections()
        self._server.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)
        self._server = None

    def __enter__(self) -> FakeTelegram:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()

    @property
    def port(self) -> int:
        if self._server is None:
            raise RuntimeError("FakeTelegram is not started")
        return int(self._server.server_address[1])

    @property
    def base_url(self) -> str:
        """What PTB's `base_url` wants: it appends the token and `/method` itself."""
        return f"http://127.0.0.1:{self.port}/bot"

    def base_url_for(self, client: str) -> str:
        """A `base_url` whose requests are recorded as `client`'s (`RecordedRequest.client`)."""
        return f"http://127.0.0.1:{self.port}/{CLIENT_PREFIX}{client}/bot"

    # -- scripting the world -----------------------------------------------------------------
    def add_chat(
        self,
        chat_id: int,
        *,
        chat_type: str | None = None,
        title: str | None = None,
        username: str | None = None,
        first_name: str | None = None,
    ) -> None:
        with self._state.lock:
            self._describe(chat_id, chat_type, title, username, first_name)

    def add_channel(
        self,
        chat_id: int,
        *,
        title: str = "Channel",
        username: str | None = None,
        bot_is_admin: bool = True,
    ) -> None:
        with self._state.lock:
            chat = self._describe(chat_id, "channel", title, username, None)
            chat.bot_is_admin = bot_is_admin

    def _describe(
        self,
        chat_id: int,
        chat_type: str | None,
        title: str | None,
        username: str | None,
        first_name: str | None,
    ) -> ChatInfo:
        chat = self._state.chat(chat_id, chat_type=chat_type)
        if chat_type:
            chat.type = chat_type
        chat.title = title or chat.title
        chat.username = username or chat.username
        chat.first_name = first_name or chat.first_name
        return chat

    def user_sends(
        self,
        chat_id: int,
        text: str,
        *,
        user_id: int | None = None,
        chat_type: str | None = None,
        title: str | None = None,
        username: str | None = None,
        thread_id: int | None = None,
        as_chat: int | None = None,
        language_code: str | None = None,
    ) -> int:
        """Queue a Message update; a leading `/command[@bot]` gets its bot_command entity.

        `chat_type` defaults to what the fake knows of the chat, else to what the id implies
        (positive: private, -100…: supergroup, other negative: group). `username` is the
        sender's, and the private chat's. `thread_id`: the forum topic it is posted in (see
        `create_topic`). `as_chat`: the sender posts as that chat: a channel (their own), or
        the group itself (an anonymous administrator); `from` is then Telegram's stand-in.
        `language_code`: the sender's client language, sent when the client has one.
        """
        sender = user_id if user_id is not None else (chat_id if chat_id > 0 else OTHER_USER_ID)
        message: JsonDict = {
            "from": user_json(sender, username, language_code=language_code),
            "text": text,
        }
        message.update(command_entities(text))
        with self._state.lock:
            chat = self._describe(chat_id, chat_type, title, None, None)
            if chat.type == "private" and username:
                chat.username = username
            if thread_id is not None:
                if thread_id not in chat.topics:
                    raise KeyError(f"chat {chat_id} has no topic {thread_id}")
                message.update(message_thread_id=thread_id, is_topic_message=True)
            if as_chat is not None:
                stand_in = GROUP_ANONYMOUS_BOT if as_chat == chat_id else CHANNEL_BOT
                as_chat_info = self._state.chat(
                    as_chat, chat_type=None if as_chat == chat_id else "channel"
                )
                message.update({"from": dict(stand_in), "sender_chat": as_chat_info.to_json()})
            return self._state.queue_update("message", self._state.store_message(chat, message))

    # -- forums ------------------------------------------------------------------------------
    def create_topic(self, chat_id: int, name: str, *, title: str = "Forum") -> int:
        """Make the chat a forum supergroup (if it is not yet) and open a topic in it.

        Returns the topic's `message_thread_id`: the id of its "topic created" service message,
        as in Telegram.
        """
        with self._state.lock:
            chat = self._describe(chat_id, "supergroup", title, None, None)
            chat.is_forum = True
            created = self._state.store_message(
                chat,
                {
                    "from": user_json(self._admin_of(chat)),
                    "forum_topic_created": {"name": name, "icon_color": 7322096},
                },
            )
            thread_id = int(created["message_id"])
            created.update(message_thread_id=thread_id, is_topic_message=True)
            chat.topics[thread_id] = Topic(name)
            self._state.touch()
            return thread_id

    def close_topic(self, chat_id: int, thread_id: int | None) -> None:
        """Close a topic (`None`: General); the bot may not post there unless it is an admin."""
        self._set_topic_closed(chat_id, thread_id, closed=True)

    def reopen_topic(self, chat_id: int, thread_id: int | None, *, announce: bool = True) -> None:
        """Reopen a topic; `announce` queues the "topic reopened" service message, as Telegram
        sends one into the topic."""
        self._set_topic_closed(chat_id, thread_id, closed=False, announce=announce)

    def _set_topic_closed(
        self, chat_id: int, thread_id: int | None, *, closed: bool, announce: bool = True
    ) -> None:
        with self._state.lock:
            chat = self._state.chat(chat_id)
            if thread_id is None:
                chat.general_closed = closed
            else:
                chat.topics[thread_id].closed = closed
            service: JsonDict = {"from": user_json(self._admin_of(chat))}
            service["forum_topic_closed" if closed else "forum_topic_reopened"] = {}
            if thread_id is not None:
                service.update(message_thread_id=thread_id, is_topic_message=True)
            stored = self._state.store_message(chat, service)
            if announce:
                self._state.queue_update("message", stored)
            self._state.touch()

    @staticmethod
    def _admin_of(chat: ChatInfo) -> int:
        if chat.creator_id is not None:
            return chat.creator_id
        return chat.admin_ids[0] if chat.admin_ids else OTHER_USER_ID

    def channel_post(
        self, chat_id: int, text: str, *, title: str = "Channel", username: str | None = None
    ) -> int:
        """Queue a channel_post update: no `from`, the channel itself is `sender_chat`; a
        leading `/command` gets its bot_command entity, as in any other chat."""
        with self._state.lock:
            chat = self._describe(chat_id, "channel", title, username, None)
            message: JsonDict = {"sender_chat": chat.to_json(), "text": text}
            message.update(command_entities(text))
            return self._state.queue_update(
                "channel_post", self._state.store_message(chat, message)
            )

    def block(self, chat_id: int, *, blocked: bool = True) -> None:
        """The user blocked the bot: sends answer 403 until `unblock`."""
        with self._state.lock:
            self._state.chat(chat_id).blocked = blocked

    def unblock(self, chat_id: int) -> None:
        self.block(chat_id, blocked=False)

    def kick(self, chat_id: int) -> None:
        """The bot was removed from a group or channel."""
        with self._state.lock:
            self._state.chat(chat_id).kicked = True

    def migrate(self, old_id: int, new_id: int) -> None:
        """The group became a supergroup: `old_id` answers 400 with `migrate_to_chat_id`."""
        with self._state.lock:
            old = self._state.chat(old_id, chat_type="group")
            old.migrated_to = new_id
            new = self._state.chat(new_id, chat_type="supergroup")
            new.type = "supergroup"
            new.title = new.title or old.title
            new.admin_ids, new.creator_id = list(old.admin_ids), old.creator_id

    def set_admins(
        self,
        chat_id: int,
        admin_ids: Iterable[int],
        *,
        creator_id: int | None = None,
        bot_is_admin: bool | None = None,
    ) -> None:
        with self._state.lock:
            chat = self._state.chat(chat_id)
            chat.admin_ids = list(admin_ids)
            chat.creator_id = creator_id
            if bot_is_admin is not None:
                chat.bot_is_admin = bot_is_admin

    def inject(self, *faults: Fault, method: str = "sendMessage") -> None:
        """Queue faults for the next calls of `method`, one call each, in order."""
        self._faults.add(method, faults)

    def faults_pending(self, method: str = "sendMessage") -> int:
        """How many injected faults of `method` no call has met yet."""
        return self._faults.pending(method)

    # -- what the bot did --------------------------------------------------------------------
    def sent(self, chat_id: int | None = None) -> list[SentMessage]:
        with self._state.lock:
            return [m for m in self._state.sent if chat_id is None or m.chat_id == chat_id]

    def sent_count(self, chat_id: int | None = None) -> int:
        """Cheaper than `len(sent())` for waits over thousands of messages."""
        with self._state.lock:
            if chat_id is None:
                return len(self._state.sent)
            return sum(1 for m in self._state.sent if m.chat_id == chat_id)

    @property
    def edits(self) -> list[EditRecord]:
        with self._state.lock:
            return list(self._state.edits)

    def chat_actions(self, chat_id: int | None = None) -> list[ChatAction]:
        """The sendChatAction statuses the bot showed ("typing", ...), oldest first."""
        with self._state.lock:
            return [a for a in self._state.chat_actions if chat_id is None or a.chat_id == chat_id]

    @property
    def commands(self) -> list[JsonDict]:
        """The default-scope, no-language command list of the last setMyCommands."""
        return self.commands_for()

    @property
    def profile(self) -> Profile:
        """The menus and descriptions the bot set, with how often each was set."""
        return self._api.profile

    def commands_for(
        self, scope: JsonDict | None = None, language_code: str = ""
    ) -> list[JsonDict]:
        key = json.dumps(scope or {"type": "default"}, sort_keys=True) + "|" + language_code
        with self._state.lock:
            return [dict(c) for c in self._state.commands.get(key, [])]

    @property
    def callback_answers(self) -> list[CallbackAnswer]:
        with self._state.lock:
            return list(self._state.callback_answers)

    @property
    def requests(self) -> list[RecordedRequest]:
        self._settle()
        with self._state.lock:
            return list(self._state.requests)

    def _settle(self, within: float = 0.2) -> None:
        """Wait (briefly) until no request is in flight: the server records a request just
        after writing its answer, so a client can hold the answer a moment before the record."""
        deadline = time.monotonic() + within
        while time.monotonic() < deadline:
            with self._state.lock:
                if self._state.in_flight == 0:
                    return
            time.sleep(0.005)

    def calls(self, method: str) -> int:
        """How many requests for `method` arrived (faults and errors included)."""
        with self._state.lock:
            return self._state.method_counts[method]

    def requests_from(self, client: str, method: str | None = None) -> list[RecordedRequest]:
        """Requests answered (or dropped) that came through `base_url_for(client)`."""
        self._settle()
        with self._state.lock:
            return [
                r
                for r in self._state.requests
                if r.client == client and (method is None or r.method == method)
            ]

    @property
    def count_429(self) -> int:
        with self._state.lock:
            return self._state.count_429

    @property
    def max_concurrent(self) -> int:
        """Most requests other than getUpdates in flight at once."""
        with self._state.lock:
            return self._state.max_concurrent

    @property
    def pending_updates(self) -> int:
        """Updates queued and not yet confirmed by a getUpdates offset."""
        with self._state.lock:
            return len(self._state.updates)

    @property
    def internal_errors(self) -> list[str]:
        """Tracebacks of bugs in the fake itself (answered as 500); tests may assert it is empty."""
        return list(self._server.internal_errors) if self._server else []

    # -- waiting -----------------------------------------------------------------------------
    def wait_sync(self, predicate: Callable[[], object], timeout: float = 5.0) -> None:
        """Block until `predicate()` is truthy; re-checked whenever the fake's state changes."""
        deadline = time.monotonic() + timeout
        while not predicate():
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise TimeoutError(f"condition not met within {timeout} s")
            with self._state.changed:
                # Short waits: the predicate may also depend on things outside the fake.
                self._state.changed.wait(min(remaining, 0.05))

    # The timeout parameter mirrors wait_sync so tests read the same in both worlds.
    async def wait_for(
        self,
        predicate: Callable[[], object],
        timeout: float = 5.0,  # noqa: ASYNC109
    ) -> None:
        """Async twin of `wait_sync`; polls without blocking the event loop."""
        deadline = time.monotonic() + timeout
        while not predicate():
            if time.monotonic() >= deadline:
                raise TimeoutError(f"condition not met within {timeout} s")
            await asyncio.sleep(0.01)
