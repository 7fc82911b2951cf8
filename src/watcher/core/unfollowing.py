"""Stopping follows, every way there is, as plain synchronous use cases over the store (call
them on the database thread): each change is one store call, one transaction.

- `by_name`: /unsubscribe NAME and `arxiv-watcher unfollow NAME` (an author id, or a name with
  its categories, as `find_named` reads it);
- `topic`: /unwatch N (the chat's topics numbered as listed) or /unwatch TOPIC, and
  `arxiv-watcher unwatch TOPIC`;
- `by_id`: the "Unfollow …" / "Mute topic" button under a paper;
- `everything`: /unsubscribe alone, once confirmed, if the chat still follows the number it was
  asked about.

Where a follow stops is `Here` (one chat's forum topic, or the chat: the service keeps polling
it for the other chats, and drops the pending deliveries this one no longer wants), or
`EVERYWHERE` (the operator's command line: the follow itself goes, for every chat).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from watcher.core.subscribing import find_named
from watcher.follows.followed import Followed
from watcher.follows.topics import Topic
from watcher.kinds import FollowKind
from watcher.store import Store
from watcher.store.chats import Chats
from watcher.store.tables import NO_THREAD


@dataclass(frozen=True, slots=True)
class Here:
    """One chat, in its forum topic `thread_id` (`NO_THREAD`: the chat itself)."""

    chat_id: int
    thread_id: int = NO_THREAD


@dataclass(frozen=True, slots=True)
class Everywhere:
    """Every chat: the operator stops the follow itself."""


EVERYWHERE = Everywhere()
Where = Here | Everywhere


@dataclass(frozen=True, slots=True)
class Stopped:
    """`followed` is no longer followed where it was asked."""

    followed: Followed


@dataclass(frozen=True, slots=True)
class NotFollowed:
    """Nothing by that name (id, topic) is followed there: nothing changed."""


@dataclass(frozen=True, slots=True)
class NoSuchNumber:
    """/unwatch N with no topic N: the chat has `count` topics. Nothing changed."""

    number: int
    count: int


@dataclass(frozen=True, slots=True)
class StoppedAll:
    """Everything the chat (topic) followed is stopped: `followed`."""

    followed: tuple[Followed, ...]


@dataclass(frozen=True, slots=True)
class OutOfDate:
    """The chat no longer follows the number it was asked about (or nothing): nothing changed."""


class Unfollowing:
    """The unfollow use cases of one store."""

    def __init__(self, store: Store, chats: Chats) -> None:
        self.store = store
        self.chats = chats

    def follows_here(self, here: Here) -> list[Followed]:
        """What the chat (topic) follows, by name."""
        return self.store.followed(
            self.chats.subscribed_ids(here.chat_id, thread_id=here.thread_id)
        )

    def topics_here(self, here: Here) -> list[Followed]:
        """The chat's (topic's) topics, numbered from 1 in this order by /unwatch."""
        return [f for f in self.follows_here(here) if f.kind == FollowKind.TOPIC]

    def by_name(
        self, where: Where, name: str, categories: Sequence[str] = ()
    ) -> Stopped | NotFollowed:
        """Stop the person (or author id) `name` in `categories`."""
        if isinstance(where, Everywhere):
            return self._stop(where, find_named(self.store, name, categories))
        subscribed = self.chats.subscribed_ids(where.chat_id, thread_id=where.thread_id)
        found = find_named(self.store, name, categories, among=subscribed)
        return self._stop(where, found if found is not None and found.id in subscribed else None)

    def topic(
        self, where: Where, *, number: int | None = None, topic: Topic | None = None
    ) -> Stopped | NotFollowed | NoSuchNumber:
        """Stop a topic: the chat's topic `number`, or the one `topic` asks for."""
        if isinstance(where, Everywhere):
            assert topic is not None, "the operator names a topic by its words"
            return self._stop(where, self.store.find_topic(topic))
        topics = self.topics_here(where)
        if number is not None:
            if not 1 <= number <= len(topics):
                return NoSuchNumber(number, len(topics))
            return self._stop(where, topics[number - 1])
        assert topic is not None
        return self._stop(where, next((f for f in topics if _is(f, topic)), None))

    def by_id(self, here: Here, followed_id: int) -> Stopped | NotFollowed:
        """Stop the one follow `followed_id` names, if the chat (topic) still has it."""
        return self._stop(here, self.subscribed(here, followed_id))

    def subscribed(self, here: Here, followed_id: int) -> Followed | None:
        """The follow `followed_id`, if the chat (topic) has it."""
        if followed_id not in self.chats.subscribed_ids(here.chat_id, thread_id=here.thread_id):
            return None
        found = self.store.followed([followed_id])
        return found[0] if found else None

    def everything(self, here: Here, asked: int) -> StoppedAll | OutOfDate:
        """Stop everything, if the chat (topic) still follows `asked` many (checked again in the
        transaction that stops them)."""
        followed = self.follows_here(here)
        if not followed or len(followed) != asked:
            return OutOfDate()
        dropped = self.chats.unsubscribe(
            here.chat_id, None, thread_id=here.thread_id, only_if=asked
        )
        return StoppedAll(tuple(followed)) if dropped else OutOfDate()

    def _stop(self, where: Where, followed: Followed | None) -> Stopped | NotFollowed:
        """The one write: the follow stops where asked."""
        if followed is None:
            return NotFollowed()
        if isinstance(where, Everywhere):
            self.store.unfollow(followed.id)
        else:
            self.chats.unsubscribe(where.chat_id, followed.id, thread_id=where.thread_id)
        return Stopped(followed)


def _is(followed: Followed, topic: Topic) -> bool:
    return followed.topic == topic.text and tuple(followed.categories) == topic.categories
