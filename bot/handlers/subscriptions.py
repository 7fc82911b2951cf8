"""What a chat follows: /subscribe, /unsubscribe, /subscriptions and the /revisions setting.

In groups only administrators may change these, and press the homonym question's buttons
(`refuse_non_admin`, `refuse_press`; see `bot.handlers.permissions`); anyone may look. In a forum,
each topic follows its own authors: the subscription is the topic's the command was sent in
(`Place`), and so are the papers posted later.

/subscribe takes names as people type them: in quotes of any kind, and several in one message,
separated by `;` or new lines as WATCH_AUTHORS is (`bot.arguments.follow_parts`); several get
one answer line each. /unsubscribe reads names the same way.

/subscribe NAME never waits on a poll. A name nobody follows yet costs one small arXiv request
(its number of results and the categories of its newest hundred, run as a task of its own so
the chat is served meanwhile): no results, and the name is refused; a name that looks like
several people (`watcher.follows.homonyms`) gets the homonym question, buttons for its most common
categories and one to go ahead anyway (kept by the core, `watcher.core.homonym_question`, in
the database, so they work after a restart; shown by `bot.handlers.offers`); otherwise the chat
subscribes at once and the runtime is asked for a round of polls now to fetch the history, the
answer not waiting for it. /subscribe
AUTHOR-ID (an arXiv author id or an ORCID iD) reads the person's author feed once, so that an id
arXiv does not know is refused at once. A chat may start `FIRST_ALLOWANCE` new follows at
first, then `BACKFILLS_PER_CHAT_HOUR` an hour; only a follow started counts
(`watcher.store.budgets`). What may be followed is decided in the core (`Core.follows`:
`watcher.core.subscribing`, and for /unsubscribe `watcher.core.unfollowing`); each outcome has its
one answer (`bot.handlers.follow_answers`).
"""

from __future__ import annotations

import html
from datetime import tzinfo

from telegram import Update
from telegram.constants import ParseMode
from telegram.error import BadRequest

from bot import arguments
from bot.handlers.busy import typing_shown
from bot.handlers.common import (
    NO_PREVIEW,
    Context,
    DeliveryEvents,
    Place,
    ServiceHandlers,
    capped_lines,
    command_text,
    papers,
    place_of,
    refusal,
    refuse_non_admin,
    refuse_press,
    reply,
    reply_usage,
    when,
)
from bot.handlers.follow_answers import (
    budget_spent,
    chosen_answer,
    identity_answer,
    person_answer,
    watched_answer,
)
from bot.handlers.growing_answer import GrowingAnswer
from bot.handlers.offers import STALE, expired, parse_press, question
from bot.handlers.speaking import settings_lines
from bot.handlers.unfollow_all import UnfollowAll
from bot.i18n import _, ngettext
from bot.render import MAX_MESSAGE_LENGTH, Message, visible_length
from watcher.core import Core
from watcher.core.following import SubscribeOutcome
from watcher.core.homonym_question import Answered, Asked, Expired
from watcher.core.questions import FollowsSummary
from watcher.core.subscribing import BudgetSpent
from watcher.core.unfollowing import NotFollowed, Stopped
from watcher.errors import UNKNOWN_AUTHOR, UsageError
from watcher.follows.followed import Followed, closest_person
from watcher.follows.identity import Identity
from watcher.follows.rules import PersonRule
from watcher.kinds import FollowKind

# Failed polls in a row from which a chat is shown arXiv's answer (one or two are a blip).
FAILURE_SHOWN = 3


class Subscriptions(ServiceHandlers):
    """The commands that change or show what a chat follows; the core decides (`Core.follows`).

    `events.unsubscribed(chat_id)` runs after /unsubscribe dropped the chat's unwanted
    deliveries (the front end makes the delivery sender forget what it had fetched of them).
    """

    def __init__(self, service: Core, *, events: DeliveryEvents) -> None:
        super().__init__(service)
        self.follows = service.follows
        self.questions = service.questions
        self.events = events
        self.unfollow_all = UnfollowAll(service, events=events)

    async def subscribe(self, update: Update, context: Context) -> None:
        """/subscribe [NAME | AUTHOR-ID; ...]: follow the watched authors, or more authors."""
        try:
            parts = arguments.follow_parts(command_text(update))
            # One name is refused at once; among several, each answers on its own line.
            one = arguments.follow_request(parts[0]) if len(parts) == 1 else None
        except UsageError as error:
            await reply_usage(update, context, error)
            return
        if await refuse_non_admin(update, context):
            return
        place = place_of(update)
        if not parts:
            joined = await self.follows.subscribe_watched(place.chat_id, place.thread_id)
            await reply(update, context, watched_answer(place, joined))
            return
        # A follow nobody has yet waits for arXiv (one request, politely spaced): run it aside,
        # so that this chat's next commands and every other chat are served meanwhile. Its
        # errors still reach `on_error` through the update.
        work = (
            self._subscribe_one(update, context, place, one)
            if one is not None
            else self._subscribe_several(update, context, place, parts)
        )
        context.application.create_task(work, update=update, name=f"subscribe-{place.chat_id}")

    async def _subscribe_one(
        self, update: Update, context: Context, place: Place, asked: Identity | PersonRule
    ) -> None:
        """/subscribe NAME or AUTHOR-ID: the core decides, the chat hears its outcome once."""
        async with typing_shown(update, context):
            answer = await self._follow(place, asked)
        await reply(update, context, answer)

    async def _subscribe_several(
        self, update: Update, context: Context, place: Place, parts: list[str]
    ) -> None:
        """/subscribe A; B (or one per line): one answer line per name, in the order given,
        shown as they are decided when arXiv is slow (`GrowingAnswer`). A name that is several
        people gets its own question, after the answers."""
        answer = GrowingAnswer(update, context)
        questions: list[Message] = []
        async with typing_shown(update, context):
            for number, part in enumerate(parts):
                try:
                    asked = arguments.follow_request(part)
                except UsageError as error:
                    wrong = error.wrong if isinstance(error, arguments.Refused) else str(error)
                    answer.add(f"❌ <b>{html.escape(part[:60])}</b>: {html.escape(wrong)}")
                    continue
                outcome = await answer.decide(
                    self.follows.subscribe(place.chat_id, place.thread_id, asked),
                    undecided=len(parts) - number,
                )
                if isinstance(outcome, BudgetSpent):  # says which name, among several
                    answer.add(
                        _(
                            "⏳ <b>{name}</b>: {why}",
                            name=html.escape(str(asked)),
                            why=budget_spent(outcome),
                        )
                    )
                    continue
                decided = self._render(place, asked, outcome)
                if isinstance(decided, Message):
                    questions.append(decided)
                    answer.add(
                        _(
                            "❓ <b>{name}</b>: several people may share this name; answer the "
                            "question below.",
                            name=html.escape(str(asked)),
                        )
                    )
                else:
                    answer.add(decided.split("\n", 1)[0])  # its sentence, not each example
        await answer.finish()
        for homonym_question in questions:
            await reply(update, context, homonym_question)

    async def _follow(self, place: Place, asked: Identity | PersonRule) -> str | Message:
        """The core's decision on one name or author id, as the chat's answer (the homonym
        question is a `Message` with buttons)."""
        outcome = await self.follows.subscribe(place.chat_id, place.thread_id, asked)
        return self._render(place, asked, outcome)

    def _render(
        self, place: Place, asked: Identity | PersonRule, outcome: SubscribeOutcome
    ) -> str | Message:
        """The chat's answer to the core's `outcome` for `asked`."""
        if isinstance(outcome, Asked):
            # One name, several people: the question (nothing is followed until answered).
            return question(outcome)
        if isinstance(asked, Identity):
            return identity_answer(place, asked, outcome, self.settings)
        return person_answer(place, asked, outcome, self.settings)

    async def choose(self, update: Update, context: Context) -> None:
        """A button of the homonym question: follow the name in that category, or anyway."""
        query = update.callback_query
        chat = update.effective_chat
        assert query is not None
        if chat is None or query.message is None:
            await query.answer(_(STALE))
            return
        if await refuse_press(update, context):
            return
        press = parse_press(query.data or "")
        answered = None if press is None else await self.follows.answer(chat.id, *press)
        if not isinstance(answered, Answered):
            await query.answer(
                expired(answered.name) if isinstance(answered, Expired) else _(STALE)
            )
            return
        place = Place(answered.chat_id, answered.thread_id)
        outcome = answered.outcome
        answer = chosen_answer(place, answered.rule, outcome)
        if isinstance(outcome, BudgetSpent):  # the question stays open
            await query.answer(answer)
            return
        await query.answer()
        try:
            await query.edit_message_text(
                answer, parse_mode=ParseMode.HTML, link_preview_options=NO_PREVIEW
            )
        except BadRequest:
            await reply(update, context, answer)  # the question is gone: say it anew

    async def unsubscribe(self, update: Update, context: Context) -> None:
        """/unsubscribe [NAME; ...]: stop following some authors; alone, ask to stop all."""
        try:
            parts = arguments.follow_parts(command_text(update))
            found = [arguments.person_rule(part.split(), command="unsubscribe") for part in parts]
            rules = [rule for rule in found if rule is not None]
        except UsageError as error:
            await reply_usage(update, context, error)
            return
        if await refuse_non_admin(update, context):
            return
        if not rules:
            await self.unfollow_all.ask(update, context)  # asks first, with two buttons
            return
        place = place_of(update)
        answers = []
        for rule in rules:
            stopped = await self.follows.unsubscribe(
                place.chat_id, place.thread_id, rule.display, rule.categories
            )
            close = None
            if isinstance(stopped, NotFollowed):
                follows = await self.questions.follows(place.chat_id, place.thread_id)
                close = closest_person(rule.display, follows)
            answers.append(_unsubscribed(place, rule, stopped, close))
        # The sender drops what it fetched for the chat (every topic: it simply reads the
        # outbox again), so nothing the topic no longer wants goes out.
        self.events.unsubscribed(place.chat_id)
        await reply(update, context, "\n".join(answers))

    async def subscriptions(self, update: Update, context: Context) -> None:
        """/subscriptions: what this chat follows, with counts and last successful poll."""
        place = place_of(update)
        summary = await self.questions.summary(place.chat_id, place.thread_id)
        answer = _subscriptions(place, summary)
        excluded = len(await self.service.exclusions.listed(place.chat_id))
        held = await self.service.exclusions.held_this_week(place.chat_id)
        if excluded or held:  # the chat's words, all its topics together (/exclude)
            answer += "\n" + ngettext(
                "🔇 {papers} held back this week by {n} excluded word (/exclude lists them).",
                "🔇 {papers} held back this week by {n} excluded words (/exclude lists them).",
                excluded,
                papers=papers(held),
            )
        await reply(update, context, answer)

    async def revisions(self, update: Update, context: Context) -> None:
        """/revisions on|off: whether this chat (topic) hears about new versions of papers."""
        place = place_of(update)
        here = place.here.lower()
        try:
            enabled = arguments.on_off(context.args or [])
        except UsageError as error:
            await reply_usage(update, context, error)
            return
        if enabled is None:
            now = await self.service.chat_settings.revisions(place.chat_id, place.thread_id)
            await reply(
                update,
                context,
                _(
                    "New versions of papers are on for {here}. /revisions off changes that.",
                    here=here,
                )
                if now
                else _(
                    "New versions of papers are off for {here}. /revisions on changes that.",
                    here=here,
                ),
            )
            return
        if await refuse_non_admin(update, context):
            return
        await self.service.chat_settings.set_revisions(place.chat_id, place.thread_id, enabled)
        await reply(
            update,
            context,
            _("✅ {here} will now be told about new versions of papers.", here=place.here)
            if enabled
            else _(
                "✅ {here} will no longer be told about new versions of papers.", here=place.here
            ),
        )


def _subscriptions(place: Place, summary: FollowsSummary) -> str:
    """/subscriptions' answer: the follows, then the settings."""
    followed = list(summary.followed)
    tail = "\n".join(
        settings_lines(
            summary.speaking, summary.digest, revisions=summary.revisions, now=summary.now
        )
    )
    if not followed:
        nobody = _(
            "{here} follows nobody yet. /subscribe follows the authors I watch; /subscribe NAME "
            "follows anyone; /watch follows a topic.",
            here=place.here,
        )
        return f"{nobody}\n\n{tail}"
    topics = [f for f in followed if f.kind == FollowKind.TOPIC]
    followed = [f for f in followed if f.kind != FollowKind.TOPIC]
    head = (
        _(
            "{here} follows {authors} and {topics}:",
            here=place.here,
            authors=ngettext("{n} author", "{n} authors", len(followed)),
            topics=ngettext("{n} topic", "{n} topics", len(topics)),
        )
        if topics
        else ngettext(
            "{here} follows {n} author:",
            "{here} follows {n} authors:",
            len(followed),
            here=place.here,
        )
    )
    room = MAX_MESSAGE_LENGTH - visible_length(head) - visible_length(tail) - 2
    zone = summary.digest.zone  # the chat's (topic's) clock (/timezone)
    entries = [_followed_line(f, zone) for f in followed]
    if topics:
        entries += [_("<b>Topics</b> (/unwatch N stops topic N):")]
        entries += [_topic_line(n, f, zone) for n, f in enumerate(topics, 1)]
    lines = [head, *capped_lines(entries, room=room), tail]
    return "\n".join(lines)


def _unsubscribed(
    place: Place, rule: PersonRule, stopped: Stopped | NotFollowed, close: Followed | None
) -> str:
    """The answer line of /unsubscribe NAME, naming the `close` follow it may have meant. The
    service keeps following the author for the chats that still do."""
    if not isinstance(stopped, Stopped) and close is not None:
        return refusal(
            _(
                "{here} does not follow <b>{name}</b>, but it follows <b>{close}</b>.",
                here=place.here,
                name=html.escape(str(rule)),
                close=html.escape(close.label),
            ),
            f"/unsubscribe {close.label}",
            lead=_("Stop that with:"),
        )
    if not isinstance(stopped, Stopped):
        return refusal(
            _(
                "{here} does not follow <b>{name}</b>.",
                here=place.here,
                name=html.escape(str(rule)),
            ),
            "/subscriptions",
            lead=_("See what it follows with:"),
        )
    return _(
        "✅ {here} no longer follows <b>{name}</b>.",
        here=place.here,
        name=html.escape(stopped.followed.label),
    )


def _followed_line(followed: Followed, zone: tzinfo) -> str:
    return f"• <b>{html.escape(followed.label)}</b>: {_checked(followed, zone)}"


def _topic_line(number: int, topic: Followed, zone: tzinfo) -> str:
    return f"{number}. <code>{html.escape(topic.label)}</code>: {_checked(topic, zone)}"


def _checked(followed: Followed, zone: tzinfo) -> str:
    """A follow's papers, when it was last checked, and its failures if it keeps failing."""
    count = papers(followed.record_count)
    line = (
        _(
            "{papers}, last checked {when}",
            papers=count,
            when=when(followed.last_success, zone),
        )
        if followed.backfilled
        else _("{papers}, not fetched yet", papers=count)
    )
    return line + _failing(followed)


def _failing(followed: Followed) -> str:
    """How a follow whose polls fail is shown to the chats that follow it: arXiv's answer once
    it keeps failing (`FAILURE_SHOWN` tries), so that the chat can act on it; an author id
    arXiv no longer knows says so, and what to do."""
    failures = followed.consecutive_failures
    if not failures:
        return ""
    error = followed.last_error or ""
    if error.startswith(UNKNOWN_AUTHOR):
        return " " + _(
            "(⚠️ arXiv no longer knows this author id; /unsubscribe it, or follow them by name)"
        )
    if failures >= FAILURE_SHOWN and error:
        return " " + ngettext(
            "(⚠️ the last try failed: {cause}; retrying)",
            "(⚠️ the last {n} tries failed: {cause}; retrying)",
            failures,
            cause=html.escape(error[:120]),
        )
    return " " + ngettext(
        "(⚠️ the last try failed; retrying)", "(⚠️ the last {n} tries failed; retrying)", failures
    )
