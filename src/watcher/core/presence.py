"""Whether the bot may reach a chat, as the front end learns it: a chat spoke or let the bot in
(`seen`), refused it (`gone`: its deliveries wait, parked), opened again what was closed
(`retry_parked`), or moved to a new id (`moved`, a group become a supergroup). One store
transaction each (`watcher.store.chats`, `watcher.store.parking`)."""

from __future__ import annotations

from watcher.aio import in_db_thread
from watcher.clock import Clock
from watcher.store.chats import Chats
from watcher.store.tables import NO_THREAD


class Presence:
    """The chats' reachability, one async call each."""

    def __init__(self, chats: Chats, clock: Clock) -> None:
        self._chats = chats
        self._clock = clock

    async def seen(
        self,
        chat_id: int,
        *,
        kind: str,
        title: str | None,
        language: str | None = None,
        thread_id: int = NO_THREAD,
    ) -> tuple[bool, str | None]:
        """The chat is reachable (again): whether it came back from being gone, and the
        language the destination (`thread_id`) speaks. `language`: what the person who wrote
        asked for, kept if the chat has none yet. One transaction: a command's first."""
        return await in_db_thread(
            self._chats.arrived,
            chat_id,
            kind=kind,
            title=title,
            language=language,
            thread_id=thread_id,
        )

    async def gone(self, chat_id: int, *, reason: str) -> None:
        """The chat refused the bot: its deliveries wait, parked, until it is seen again."""
        await in_db_thread(self._chats.deactivate, chat_id, reason=reason)

    async def retry_parked(self, chat_id: int, thread_id: int | None) -> int:
        """The chat (or one forum topic, `thread_id`) may be written to again: its parked
        destinations are tried now. How many were parked."""
        return await in_db_thread(
            self._chats.parking.retry_now, chat_id, thread_id=thread_id, now=self._clock()
        )

    async def moved(self, old_id: int, new_id: int) -> None:
        """The chat `old_id` is now `new_id`: its follows, settings and deliveries move."""
        await in_db_thread(self._chats.migrate, old_id, new_id)
