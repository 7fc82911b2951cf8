"""What a chat watches by topic: /watch and /unwatch.

`/watch "remote direct memory access" RDMA in cs.DC` follows the new papers in cs.DC whose title
or abstract holds the phrase and the word (`watcher.topics`). A topic is a follow like a person
(it counts towards `MAX_SUBSCRIPTIONS`, and /subscriptions lists it); as for /subscribe, only a
group's administrators may change it, and in a forum each topic watches its own. A topic nobody
watched yet has its recent papers fetched once, silently (`Poller.poll_soon`; that costs arXiv
requests, so it spends the chat's `BackfillBudget` like a new name): a topic never announces the
papers that came before it.

`/unwatch` alone lists the chat's topics, numbered; `/unwatch N` or `/unwatch TOPIC` stops one.
"""

from __future__ import annotations

import html
from collections.abc import Callable, Sequence

from telegram import Update

from bot.arguments import UsageError
from bot.handlers.budget import BackfillBudget, minutes
from bot.handlers.common import (
    Context,
    Place,
    ServiceHandlers,
    capped_lines,
    place_of,
    refuse_non_admin,
    reply,
    reply_usage,
)
from bot.render import MAX_MESSAGE_LENGTH
from watcher.aio import in_db_thread
from watcher.followed import Followed
from watcher.service import ServiceContext
from watcher.store.chats import MAX_SUBSCRIPTIONS
from watcher.topics import EXAMPLE, Topic, TopicError, parse_topic

WATCH_USAGE = f"Usage: /watch WORDS in CATEGORY, e.g. /watch {EXAMPLE}"
UNWATCH_USAGE = "Usage: /unwatch N (the number /unwatch lists), or /unwatch TOPIC"


def topic_argument(args: Sequence[str], *, usage: str) -> Topic:
    """The topic the command's words ask for, or a UsageError saying what is wrong."""
    try:
        return parse_topic(" ".join(args))
    except TopicError as error:
        text = str(error)
        raise UsageError(f"{text[0].upper()}{text[1:]}. {usage}") from error


class Topics(ServiceHandlers):
    """/watch and /unwatch. `on_unsubscribed(chat_id)` as for /unsubscribe."""

    def __init__(
        self,
        service: ServiceContext,
        *,
        backfills: BackfillBudget,
        on_unsubscribed: Callable[[int], None] | None = None,
    ) -> None:
        super().__init__(service)
        self.backfills = backfills
        self.on_unsubscribed = on_unsubscribed

    async def watch(self, update: Update, context: Context) -> None:
        """/watch WORDS in CATEGORY: follow the new papers on a topic."""
        try:
            if not context.args:
                raise UsageError(f"Which topic? {WATCH_USAGE}")
            topic = topic_argument(context.args, usage=WATCH_USAGE)
        except UsageError as error:
            await reply_usage(update, context, error)
            return
        if await refuse_non_admin(update, context):
            return
        place = place_of(update)
        prepared = await in_db_thread(self._prepare, place, topic)
        if isinstance(prepared, str):
            await reply(update, context, prepared)
            return
        if prepared is None or not prepared.polled:
            # Nobody watches it now: its recent papers are fetched once, silently.
            wait = self.backfills.take(place.chat_id)
            if wait is not None:
                await reply(update, context, self._budget_spent(wait))
                return
        answer = await in_db_thread(self._watch, place, topic)
        if prepared is None or not prepared.backfilled or not prepared.polled:
            self.service.poller.poll_soon()
        await reply(update, context, answer)

    def _prepare(self, place: Place, topic: Topic) -> str | Followed | None:
        """Database thread: the topic if someone watches it already (None if nobody does), or
        the answer why this chat cannot watch it."""
        already = (
            f"{place.here} already watches <b>{html.escape(str(topic))}</b>. "
            "/subscriptions lists what it follows."
        )
        existing = self.store.find_topic(topic)
        return self._can_take(place, existing, already=already, full=_full_message())

    def _watch(self, place: Place, topic: Topic) -> str:
        """Database thread: watch the topic for this chat; the answer."""
        followed, created = self.store.watch_topic(topic, watched=False)
        if not self._subscribe(place, followed.id, added=created):
            return _full_message()
        categories = ", ".join(topic.categories)
        return (
            f"✅ {place.here} now watches <b>{html.escape(topic.text)}</b> in {categories}: "
            "new papers whose title or abstract holds every word and phrase will be posted "
            "here. Papers that came out before now are not announced."
        )

    def _budget_spent(self, wait: float) -> str:
        return (
            f"This chat has started {self.backfills.per_hour} new follows within the last hour, "
            f"the most allowed. Try again in {minutes(wait)}."
        )

    async def unwatch(self, update: Update, context: Context) -> None:
        """/unwatch [N | TOPIC]: stop watching a topic; alone, list them."""
        args = context.args or []
        place = place_of(update)
        if not args:
            await reply(update, context, await in_db_thread(self._listing, place))
            return
        number: int | None = None
        topic: Topic | None = None
        try:
            if len(args) == 1 and args[0].isascii() and args[0].isdigit():
                number = int(args[0])
            else:
                topic = topic_argument(args, usage=UNWATCH_USAGE)
        except UsageError as error:
            await reply_usage(update, context, error)
            return
        if await refuse_non_admin(update, context):
            return
        answer = await in_db_thread(self._unwatch, place, number, topic)
        if self.on_unsubscribed is not None:
            self.on_unsubscribed(place.chat_id)
        await reply(update, context, answer)

    def _watched(self, place: Place) -> list[Followed]:
        subscribed = self.chats.subscribed_ids(place.chat_id, thread_id=place.thread_id)
        return [f for f in self.store.followed(subscribed) if f.kind == "topic"]

    def _listing(self, place: Place) -> str:
        """Database thread: the chat's topics, numbered for /unwatch N."""
        topics = self._watched(place)
        if not topics:
            return f"{place.here} watches no topic. {WATCH_USAGE}"
        head = f"{place.here} watches {len(topics)} topic{'s' if len(topics) > 1 else ''}:"
        tail = "/unwatch N stops topic N, e.g. /unwatch 1."
        entries = [f"{n}. <code>{html.escape(f.label)}</code>" for n, f in enumerate(topics, 1)]
        room = MAX_MESSAGE_LENGTH - len(head) - len(tail) - 2
        return "\n".join([head, *capped_lines(entries, room=room), tail])

    def _unwatch(self, place: Place, number: int | None, topic: Topic | None) -> str:
        """Database thread. The topic stays followed by the service while others watch it."""
        topics = self._watched(place)
        if number is not None:
            if not 1 <= number <= len(topics):
                listed = f"1 to {len(topics)}" if topics else "none"
                return (
                    f"{place.here} has no topic number {number} (it has {listed}). "
                    "/unwatch alone lists them."
                )
            found: Followed | None = topics[number - 1]
        else:
            assert topic is not None
            found = next((f for f in topics if _is(f, topic)), None)
            if found is None:
                return (
                    f"{place.here} does not watch <b>{html.escape(str(topic))}</b>. "
                    "/unwatch alone lists its topics."
                )
        assert found is not None
        self.chats.unsubscribe(place.chat_id, found.id, thread_id=place.thread_id)
        return f"✅ {place.here} no longer watches <b>{html.escape(found.label)}</b>."


def _is(followed: Followed, topic: Topic) -> bool:
    return followed.topic == topic.text and tuple(followed.categories) == topic.categories


def _full_message() -> str:
    return (
        f"This chat already follows {MAX_SUBSCRIPTIONS} authors and topics, the most allowed. "
        "Stop one first with /unsubscribe NAME or /unwatch."
    )
