"""What a chat watches by topic: /watch and /unwatch.

`/watch "remote direct memory access" RDMA in cs.DC` follows the new papers in cs.DC whose title or
abstract holds the phrase and the word (`watcher.follows.topics`). A topic is a follow like a person
(it counts towards `MAX_SUBSCRIPTIONS`, and /subscriptions lists it); as for /subscribe, only a
group's administrators may change it, and in a forum each topic watches its own. A topic nobody
watched yet has its recent papers fetched once, silently (a round of polls asked for now; that costs
arXiv requests, so it spends one of the chat's new follows like a new name,
`watcher.store.budgets`): a topic never announces the papers that came before it.

`/watch in cs.DC` (no words) follows every new paper of up to 3 categories; the answer says how
many papers a day that usually is, from the last week in the store (`Store.category_week`), or
that it is not known, and suggests /digest for a busy category.

`/unwatch` alone lists the chat's topics, numbered; `/unwatch N` or `/unwatch TOPIC` stops one
(`Core.follows`, as every way of unfollowing: `watcher.core.unfollowing`).
"""

from __future__ import annotations

import html
from collections.abc import Sequence

from telegram import Update

from bot.arguments import Refused, said
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
from bot.i18n import _, ngettext
from bot.render import MAX_MESSAGE_LENGTH
from watcher.arxiv.taxonomy import resolve_category
from watcher.core import Core
from watcher.core.unfollowing import NoSuchNumber, NotFollowed, Stopped
from watcher.errors import UnknownCategory, UsageError
from watcher.follows.followed import Followed
from watcher.follows.topics import (
    EXAMPLE,
    NoCategory,
    Topic,
    TopicError,
    parse_topic,
    strip_markup,
)

WATCH_EXAMPLE = f"/watch {EXAMPLE}"
UNWATCH_EXAMPLE = "/unwatch 1"


def topic_argument(args: Sequence[str], *, example: str) -> Topic:
    """The topic the command's words ask for, or a `Refused` saying what is wrong, with
    `example`, or the command with the topic the error shows (one with OR, for OR's errors)."""
    try:
        return parse_topic(" ".join(args))
    except TopicError as error:
        if error.example is not None:
            example = f"{example.split()[0]} {error.example}"
        raise Refused(said(error), example) from error


def _unwatch_argument(args: Sequence[str]) -> Topic:
    """The topic /unwatch names; without `in CATEGORY`, /unwatch's own reason (a lone category
    such as `cs.DC` is told to put `in` before it), not /watch's."""
    try:
        return topic_argument(args, example=UNWATCH_EXAMPLE)
    except Refused as refused:
        if not isinstance(refused.__cause__, NoCategory):
            raise
        typed = " ".join(args)
        try:
            category = resolve_category(typed)
        except UnknownCategory:
            raise Refused(
                _(
                    "/unwatch stops a topic by its number in the /unwatch list, or by its words "
                    "and categories as they were watched, with in before the categories."
                ),
                UNWATCH_EXAMPLE,
            ) from refused
        raise Refused(
            _("To stop the topic of all of {category}, put in before it.", category=category),
            f"/unwatch in {category}",
        ) from refused


class Topics(ServiceHandlers):
    """/watch and /unwatch; the core decides (`Core.follows`). `events.unsubscribed(chat_id)` as
    for /unsubscribe."""

    def __init__(self, service: Core, *, events: DeliveryEvents) -> None:
        super().__init__(service)
        self.follows = service.follows
        self.questions = service.questions
        self.events = events

    async def watch(self, update: Update, context: Context) -> None:
        """/watch WORDS in CATEGORY: follow the new papers on a topic."""
        try:
            if not context.args:
                raise Refused(_("No topic given: words, then in and a category."), WATCH_EXAMPLE)
            topic = topic_argument(context.args, example=WATCH_EXAMPLE)
        except UsageError as error:
            await reply_usage(update, context, error)
            return
        if await refuse_non_admin(update, context):
            return
        place = place_of(update)
        outcome = await self.follows.watch(place.chat_id, place.thread_id, topic)
        week = None
        if topic.whole:
            week = await self.questions.category_week(topic.categories)
        answer = topic_answer(place, topic, outcome, self.settings, week=week)
        typed = " ".join(context.args)
        if strip_markup(typed) != typed:
            answer += "\n" + _(
                "I left out the markup (HTML tags) you typed: only words are looked for."
            )
        await reply(update, context, answer)

    async def unwatch(self, update: Update, context: Context) -> None:
        """/unwatch [N | TOPIC]: stop watching a topic; alone, list them."""
        args = context.args or []
        place = place_of(update)
        if not args:
            topics = await self.questions.topics(place.chat_id, place.thread_id)
            await reply(update, context, _listing(place, topics))
            return
        number: int | None = None
        topic: Topic | None = None
        try:
            if len(args) == 1 and args[0].isascii() and args[0].isdigit():
                number = int(args[0])
            else:
                topic = _unwatch_argument(args)
        except UsageError as error:
            await reply_usage(update, context, error)
            return
        if await refuse_non_admin(update, context):
            return
        stopped = await self.follows.unwatch(
            place.chat_id, place.thread_id, number=number, topic=topic
        )
        self.events.unsubscribed(place.chat_id)
        await reply(update, context, _unwatched(place, stopped, topic))


def _listing(place: Place, topics: list[Followed]) -> str:
    """The chat's topics, numbered for /unwatch N."""
    if not topics:
        return refusal(
            _("{here} watches no topic yet.", here=place.here), WATCH_EXAMPLE, lead=_("Start with:")
        )
    head = ngettext(
        "{here} watches {n} topic:", "{here} watches {n} topics:", len(topics), here=place.here
    )
    tail = _("/unwatch N stops topic N, e.g. /unwatch 1.")
    entries = [f"{n}. <code>{html.escape(f.label)}</code>" for n, f in enumerate(topics, 1)]
    room = MAX_MESSAGE_LENGTH - len(head) - len(tail) - 2
    return "\n".join([head, *capped_lines(entries, room=room), tail])


def _unwatched(
    place: Place, stopped: Stopped | NotFollowed | NoSuchNumber, topic: Topic | None
) -> str:
    """/unwatch's answer. The topic stays followed by the service while others watch it."""
    if isinstance(stopped, NoSuchNumber):
        wrong = (
            _(
                "{here} has no topic number {number} (it has 1 to {count}).",
                here=place.here,
                number=stopped.number,
                count=stopped.count,
            )
            if stopped.count
            else _(
                "{here} has no topic number {number} (it has none).",
                here=place.here,
                number=stopped.number,
            )
        )
        return refusal(wrong, "/unwatch", lead=_("See them with:"))
    if isinstance(stopped, NotFollowed):
        return refusal(
            _(
                "{here} does not watch <b>{topic}</b>.",
                here=place.here,
                topic=html.escape(str(topic)),
            ),
            "/unwatch",
            lead=_("See its topics with:"),
        )
    return _(
        "✅ {here} no longer watches <b>{name}</b>.",
        here=place.here,
        name=html.escape(stopped.followed.label),
    )
