"""`Follows`: what a chat follows, as the core's face offers it; one async call each, with a
typed outcome.

- subscribe: the watched authors (`subscribe_watched`), a name or author id (`subscribe`: the
  decision of `watcher.core.subscribing`, or, for a name that looks like several people, the homonym
  question `Asked`, kept in the core: `watcher.core.homonym_question`), the question's answer
  (`answer`), a topic (`watch`);
- stop: `unsubscribe` (by name), `unwatch`, `unfollow` (a paper's button), `unfollow_all`
  (the use cases of `watcher.core.unfollowing`, which the command line shares).
(The chat's /revisions setting is `watcher.core.chat_settings`'.)

The sync use cases run on the database thread (`in_db_thread`); arXiv is asked off it.
"""

from __future__ import annotations

from collections.abc import Sequence

from watcher.aio import in_db_thread
from watcher.clock import Clock
from watcher.core.homonym_question import (
    Answered,
    Asked,
    Expired,
    HomonymQuestions,
    Picked,
    Stale,
)
from watcher.core.subscribing import (
    BudgetSpent,
    NeedsChoice,
    Outcome,
    Subscribing,
    TopicOutcome,
    WatchedOutcome,
)
from watcher.core.unfollowing import (
    Here,
    NoSuchNumber,
    NotFollowed,
    OutOfDate,
    Stopped,
    StoppedAll,
    Unfollowing,
)
from watcher.follows.followed import Followed
from watcher.follows.identity import Identity
from watcher.follows.rules import PersonRule
from watcher.follows.topics import Topic
from watcher.settings import Settings
from watcher.store import Store
from watcher.store.chats import Chats
from watcher.store.offers import OfferStore

__all__ = ["Follows", "SubscribeOutcome"]

# What /subscribe NAME (or AUTHOR-ID) ends in: a decision, or the homonym question asked.
SubscribeOutcome = Outcome | Asked


class Follows:
    """The follow use cases of one core."""

    def __init__(
        self,
        settings: Settings,
        store: Store,
        chats: Chats,
        subscribing: Subscribing,
        *,
        clock: Clock,
    ) -> None:
        self.settings = settings
        self.chats = chats
        self.subscribing = subscribing
        self.unfollowing = Unfollowing(store, chats)
        self.homonyms = HomonymQuestions(OfferStore(chats.engine, clock=clock))

    # -- following ---------------------------------------------------------------------------

    async def subscribe_watched(self, chat_id: int, thread_id: int) -> WatchedOutcome:
        """/subscribe alone: follow the operator's watched authors here."""
        return await self.subscribing.subscribe_watched(
            chat_id, thread_id, self.settings.followed_specs
        )

    async def subscribe(
        self, chat_id: int, thread_id: int, asked: Identity | PersonRule
    ) -> SubscribeOutcome:
        """/subscribe NAME or AUTHOR-ID. A name that looks like several people is asked about
        (`Asked`, its token for the answers); nothing is followed until answered."""
        if isinstance(asked, Identity):
            return await self.subscribing.subscribe_identity(chat_id, thread_id, asked)
        outcome = await self.subscribing.subscribe_person(chat_id, thread_id, asked)
        if isinstance(outcome, NeedsChoice):
            return await in_db_thread(self.homonyms.ask, chat_id, thread_id, asked.names, outcome)
        return outcome

    async def answer(
        self, chat_id: int, token: str, pick: int | None
    ) -> Answered | Expired | Stale:
        """The homonym question `token` answered in `chat_id`: a category's index, or
        `ANY_CATEGORY`."""
        picked = await in_db_thread(self.homonyms.take, token, pick, chat_id=chat_id)
        if not isinstance(picked, Picked):
            return picked
        offer = picked.offer
        categories = () if picked.category is None else (picked.category,)
        rule = PersonRule(offer.names, categories)
        outcome = await self.subscribing.choose(
            offer.chat_id, offer.thread_id, rule, total=offer.total
        )
        if isinstance(outcome, BudgetSpent):
            await in_db_thread(self.homonyms.put_back, picked)  # the question stays open
        return Answered(offer.chat_id, offer.thread_id, rule, outcome)

    async def watch(self, chat_id: int, thread_id: int, topic: Topic) -> TopicOutcome:
        """/watch: follow a topic here."""
        return await self.subscribing.watch_topic(chat_id, thread_id, topic)

    # -- stopping ----------------------------------------------------------------------------

    async def unsubscribe(
        self, chat_id: int, thread_id: int, name: str, categories: Sequence[str] = ()
    ) -> Stopped | NotFollowed:
        """/unsubscribe NAME: stop one person (or author id) here."""
        where = Here(chat_id, thread_id)
        return await in_db_thread(self.unfollowing.by_name, where, name, categories)

    async def unwatch(
        self, chat_id: int, thread_id: int, *, number: int | None = None, topic: Topic | None = None
    ) -> Stopped | NotFollowed | NoSuchNumber:
        """/unwatch N or /unwatch TOPIC: stop one topic here."""
        where = Here(chat_id, thread_id)
        return await in_db_thread(lambda: self.unfollowing.topic(where, number=number, topic=topic))

    async def unfollow(
        self, chat_id: int, thread_id: int, followed_id: int
    ) -> Stopped | NotFollowed:
        """A paper's "Unfollow …" confirmed: stop that one follow here."""
        return await in_db_thread(self.unfollowing.by_id, Here(chat_id, thread_id), followed_id)

    async def unfollow_all(
        self, chat_id: int, thread_id: int, asked: int
    ) -> StoppedAll | OutOfDate:
        """/unsubscribe alone, confirmed: stop everything, if it is still `asked` many."""
        return await in_db_thread(self.unfollowing.everything, Here(chat_id, thread_id), asked)

    async def subscribed(self, chat_id: int, thread_id: int, followed_id: int) -> Followed | None:
        """The follow a paper's button names, if the chat (topic) still has it."""
        return await in_db_thread(
            self.unfollowing.subscribed, Here(chat_id, thread_id), followed_id
        )
