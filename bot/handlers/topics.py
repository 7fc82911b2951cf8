"""What a chat watches by topic: /watch and /unwatch.

`/watch "remote direct memory access" RDMA in cs.DC` follows the new papers in cs.DC whose title or
abstract holds the phrase and the word (`watcher.topics`). A topic is a follow like a person (it
counts towards `MAX_SUBSCRIPTIONS`, and /subscriptions lists it); as for /subscribe, only a group's
administrators may change it, and in a forum each topic watches its own. A topic nobody watched yet
has its recent papers fetched once, silently (`Poller.poll_soon`; that costs arXiv requests, so it
spends one of the chat's new follows like a new name, `watcher.store.budgets`): a topic never
announces the papers that came before it.

`/watch in cs.DC` (no words) follows every new paper of up to 3 categories; the answer says how
many papers a day that usually is, from the last week in the store (`Store.category_week`), or
that it is not known, and suggests /digest for a busy category.

`/unwatch` alone lists the chat's topics, numbered; `/unwatch N` or `/unwatch TOPIC` stops one.
"""

from __future__ import annotations

import html
from collections.abc import Sequence

from telegram import Update

from bot.arguments import Refused
from bot.handlers.common import (
    Context,
    DeliveryEvents,
    Place,
    ServiceHandlers,
    capped_lines,
    place_of,
    refusal,
    refuse_non_admin,
    reply,
    reply_usage,
)
from bot.handlers.follow_answers import topic_answer
from bot.render import MAX_MESSAGE_LENGTH
from watcher.aio import in_db_thread
from watcher.core import Core
from watcher.errors import UsageError
from watcher.followed import Followed
from watcher.kinds import FollowKind
from watcher.store.tables import utcnow
from watcher.subscribing import Subscribing
from watcher.topics import EXAMPLE, Topic, TopicError, parse_topic, strip_markup

WATCH_EXAMPLE = f"/watch {EXAMPLE}"
UNWATCH_EXAMPLE = "/unwatch 1"


def topic_argument(args: Sequence[str], *, example: str) -> Topic:
    """The topic the command's words ask for, or a `Refused` saying what is wrong."""
    try:
        return parse_topic(" ".join(args))
    except TopicError as error:
        text = str(error)
        end = "" if text.endswith(("?", ".")) else "."
        raise Refused(f"{text[0].upper()}{text[1:]}{end}", example) from error


class Topics(ServiceHandlers):
    """/watch and /unwatch; `subscribing` decides. `events.unsubscribed(chat_id)` as for
    /unsubscribe."""

    def __init__(self, service: Core, *, subscribing: Subscribing, events: DeliveryEvents) -> None:
        super().__init__(service)
        self.subscribing = subscribing
        self.events = events

    async def watch(self, update: Update, context: Context) -> None:
        """/watch WORDS in CATEGORY: follow the new papers on a topic."""
        try:
            if not context.args:
                raise Refused("No topic given: words, then in and a category.", WATCH_EXAMPLE)
            topic = topic_argument(context.args, example=WATCH_EXAMPLE)
        except UsageError as error:
            await reply_usage(update, context, error)
            return
        if await refuse_non_admin(update, context):
            return
        place = place_of(update)
        outcome = await self.subscribing.watch_topic(place.chat_id, place.thread_id, topic)
        week = None
        if topic.whole:
            week = await in_db_thread(self.store.category_week, topic.categories, now=utcnow())
        answer = topic_answer(place, topic, outcome, self.settings, week=week)
        typed = " ".join(context.args)
        if strip_markup(typed) != typed:
            answer += "\nI left out the markup (HTML tags) you typed: only words are looked for."
        await reply(update, context, answer)

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
                topic = topic_argument(args, example=UNWATCH_EXAMPLE)
        except UsageError as error:
            await reply_usage(update, context, error)
            return
        if await refuse_non_admin(update, context):
            return
        answer = await in_db_thread(self._unwatch, place, number, topic)
        self.events.unsubscribed(place.chat_id)
        await reply(update, context, answer)

    def _watched(self, place: Place) -> list[Followed]:
        subscribed = self.chats.subscribed_ids(place.chat_id, thread_id=place.thread_id)
        return [f for f in self.store.followed(subscribed) if f.kind == FollowKind.TOPIC]

    def _listing(self, place: Place) -> str:
        """Database thread: the chat's topics, numbered for /unwatch N."""
        topics = self._watched(place)
        if not topics:
            return refusal(f"{place.here} watches no topic yet.", WATCH_EXAMPLE, lead="Start with:")
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
                return refusal(
                    f"{place.here} has no topic number {number} (it has {listed}).",
                    "/unwatch",
                    lead="See them with:",
                )
            found: Followed | None = topics[number - 1]
        else:
            assert topic is not None
            found = next((f for f in topics if _is(f, topic)), None)
            if found is None:
                return refusal(
                    f"{place.here} does not watch <b>{html.escape(str(topic))}</b>.",
                    "/unwatch",
                    lead="See its topics with:",
                )
        assert found is not None
        self.chats.unsubscribe(place.chat_id, found.id, thread_id=place.thread_id)
        return f"✅ {place.here} no longer watches <b>{html.escape(found.label)}</b>."


def _is(followed: Followed, topic: Topic) -> bool:
    return followed.topic == topic.text and tuple(followed.categories) == topic.categories
