"""What a chat follows: /subscribe, /unsubscribe, /subscriptions and the /revisions setting.

In groups only administrators may change these (`refuse_non_admin`); anyone may look. In a forum,
each topic follows its own authors: the subscription is the topic's the command was sent in
(`Place`), and so are the papers posted later.

/subscribe NAME never waits on a poll. A name nobody follows yet costs one small arXiv request
(its number of results and the categories of its newest hundred, run as a task of its own so
the chat is served meanwhile): no results, and the name is refused; a name that looks like
several people (`watcher.homonyms`) gets the homonym question, buttons for its most common
categories and one to go ahead anyway (`bot.handlers.offers`); otherwise the chat subscribes at
once and the poller is asked for a round now (`Poller.poll_soon`) to fetch the history, the
answer not waiting for it. /subscribe AUTHOR-ID (an arXiv author id or an ORCID iD) reads the
person's author feed once, so that an id arXiv does not know is refused at once. Each chat may
start at most `BACKFILLS_PER_CHAT_HOUR` such look-ups (or restarts of an author nobody polled)
an hour.
"""

from __future__ import annotations

import asyncio
import html
from collections.abc import Awaitable, Callable

from telegram import Update
from telegram.constants import ParseMode
from telegram.error import BadRequest

from bot import arguments
from bot.arguments import UsageError
from bot.handlers.budget import BackfillBudget, minutes
from bot.handlers.common import (
    MAX_NAMES_IN_A_SENTENCE,
    NO_PREVIEW,
    Context,
    Place,
    ServiceHandlers,
    bold_names,
    capped_lines,
    may_manage,
    papers,
    place_of,
    refuse_non_admin,
    reply,
    reply_usage,
    when,
)
from bot.handlers.offers import STALE, Offers
from bot.render import MAX_MESSAGE_LENGTH, Message, visible_length
from watcher.aio import in_db_thread
from watcher.errors import ArxivError, UnknownAuthorId
from watcher.followed import Followed
from watcher.homonyms import NameSurvey
from watcher.identity import EXAMPLE_ARXIV_PAGE, Identity, IdentityError, parse_identity
from watcher.records import Record
from watcher.rules import PersonRule
from watcher.service import ServiceContext
from watcher.sources.author_feed import likely_name
from watcher.store.chats import MAX_SUBSCRIPTIONS

# Seconds a /subscribe waits for arXiv's count of a new name, its turn on the polite client
# included (a poll's request may hold it, with retries, for minutes while arXiv struggles):
# past that, the chat is told to try again rather than left waiting.
LOOKUP_PATIENCE = 60.0


class Subscriptions(ServiceHandlers):
    """The commands that change or show what a chat follows.

    `on_unsubscribed(chat_id)` runs after /unsubscribe dropped the chat's unwanted deliveries
    (the front end makes the delivery sender forget what it had fetched of them).
    """

    def __init__(
        self,
        service: ServiceContext,
        *,
        lookup_patience: float = LOOKUP_PATIENCE,
        on_unsubscribed: Callable[[int], None] | None = None,
    ) -> None:
        super().__init__(service)
        self.backfills = BackfillBudget(per_hour=service.settings.backfills_per_chat_hour)
        self.lookup_patience = lookup_patience
        self.on_unsubscribed = on_unsubscribed
        self.offers = Offers()

    async def subscribe(self, update: Update, context: Context) -> None:
        """/subscribe [NAME | AUTHOR-ID]: follow the watched authors, or one more author."""
        try:
            identity = arguments.identity(context.args or [])
            rule = None
            if identity is None:
                rule = arguments.person_rule(context.args or [], command="subscribe")
        except UsageError as error:
            await reply_usage(update, context, error)
            return
        if await refuse_non_admin(update, context):
            return
        place = place_of(update)
        if identity is not None:
            context.application.create_task(
                self._subscribe_identity(update, context, place, identity),
                update=update,
                name=f"subscribe-{place.chat_id}",
            )
            return
        if rule is None:
            await reply(update, context, await in_db_thread(self._subscribe_watched, place))
            return
        # A new name waits for arXiv (one request, politely spaced): run it aside, so that this
        # chat's next commands and every other chat are served meanwhile. Its errors still reach
        # `on_error` through the update.
        context.application.create_task(
            self._subscribe_author(update, context, place, rule),
            update=update,
            name=f"subscribe-{place.chat_id}",
        )

    def _subscribe_watched(self, place: Place) -> str:
        """Database thread: subscribe the chat to every watched author; the answer."""
        subscribed = set(self.chats.subscribed_ids(place.chat_id, thread_id=place.thread_id))
        watched = [self.store.follow_watched(rule)[0] for rule in self.settings.followed_specs]
        missing = [f for f in watched if f.id not in subscribed]
        if not watched:
            return "I watch nobody yet; follow someone with /subscribe NAME."
        if not missing:
            return (
                f"{place.here} already follows {bold_names(watched)}. "
                "/recent shows the newest papers."
            )
        if len(subscribed) + len(missing) > MAX_SUBSCRIPTIONS:
            return _full_message()
        for followed in missing:
            if not self._subscribe(place, followed.id):  # the limit counts the other topics too
                return _full_message()
        details = "; ".join(
            f"<b>{html.escape(f.label)}</b> ({papers(f.record_count)} on record)"
            if f.backfilled
            else f"<b>{html.escape(f.label)}</b> (papers not fetched yet)"
            for f in missing[:MAX_NAMES_IN_A_SENTENCE]
        )
        if len(missing) > MAX_NAMES_IN_A_SENTENCE:
            details += f"; and {len(missing) - MAX_NAMES_IN_A_SENTENCE} more"
        return f"✅ {place.here} now follows {details}. New papers will be posted here."

    async def _subscribe_author(
        self, update: Update, context: Context, place: Place, rule: PersonRule
    ) -> None:
        prepared = await in_db_thread(self._prepare_follow, place, rule)
        await self._subscribe_rule(
            update, context, place, prepared, lambda: self._new_author(update, context, place, rule)
        )

    async def _subscribe_rule(
        self,
        update: Update,
        context: Context,
        place: Place,
        prepared: str | Followed | None,
        follow_new: Callable[[], Awaitable[str | None]],
    ) -> None:
        """The flow of `/subscribe NAME` and `/subscribe AUTHOR-ID`, from what `_can_take`
        prepared: the refusal; an author kept up to date already; else a history to fetch, within
        the chat's budget: `follow_new` asks arXiv about a rule nobody follows (and answers itself
        when it does not follow it: None), a paused author is polled again."""
        if isinstance(prepared, str):
            await reply(update, context, prepared)
            return
        followed = prepared
        if followed is not None and followed.polled:
            # Kept up to date already (or being fetched for someone else): nothing to ask arXiv.
            await reply(update, context, await in_db_thread(self._subscribe_known, place, followed))
            return
        # A rule nobody follows, or an author nobody polled for a while: a history to fetch.
        wait = self.backfills.take(place.chat_id)
        if wait is not None:
            await reply(update, context, self._budget_spent(wait))
            return
        if followed is None:
            answer = await follow_new()
            if answer is None:
                return
        else:
            answer = await in_db_thread(self._subscribe_paused, place, followed)
        self.service.poller.poll_soon()  # its history now, not at the next round
        await reply(update, context, answer)

    async def _new_author(
        self, update: Update, context: Context, place: Place, rule: PersonRule
    ) -> str | None:
        """A name nobody follows: survey it on arXiv, then follow it, or ask which person is
        meant, or refuse (answered here: None)."""
        try:
            async with asyncio.timeout(self.lookup_patience):
                survey = await self.service.poller.survey(rule.names, rule.categories)
        except TimeoutError:
            await reply(update, context, _too_slow(str(rule)))
            return None
        except ArxivError as error:
            await reply(update, context, _unreachable(str(rule), error))
            return None
        if not rule.categories and survey.several_people and survey.top_categories():
            # One name, several people? Ask which (nothing is followed until answered).
            await reply(update, context, self._homonym_question(place, rule, survey))
            return None
        refusal = self._refusal(rule, survey.total)
        if refusal is not None:
            await reply(update, context, refusal)
            return None
        return await in_db_thread(self._follow_new, place, rule, survey.total)

    def _prepare_follow(self, place: Place, rule: PersonRule) -> str | Followed | None:
        """Database thread: the author already followed under that name in those categories
        (None if nobody follows it yet), or the answer why this chat cannot subscribe."""
        existing = self.store.find_followed(rule.display, categories=rule.categories)
        return self._can_take(
            place, existing, already=_already(place, existing), full=_full_message()
        )

    def _subscribe_known(self, place: Place, followed: Followed) -> str:
        """Database thread: subscribe to an author polled already; the answer."""
        shown = f"<b>{html.escape(followed.label)}</b>"
        if not self._subscribe(place, followed.id):
            return _full_message()
        if not followed.backfilled:
            return (
                f"✅ {place.here} now follows {shown}. Its papers are being fetched from arXiv; "
                "new ones will be posted here."
            )
        return (
            f"✅ {place.here} now follows {shown}: {papers(followed.record_count)} found on arXiv. "
            "New ones will be posted here; /recent shows the newest."
        )

    def _follow_new(self, place: Place, rule: PersonRule, total: int) -> str:
        """Database thread: follow a name arXiv knows, for this chat; the answer."""
        followed, created = self.store.follow_person(rule, watched=False)
        if not self._subscribe(place, followed.id, added=created):
            return _full_message()
        return (
            f"✅ {place.here} now follows <b>{html.escape(followed.label)}</b>: arXiv lists "
            f"{papers(total)} under that name{' there' if followed.categories else ''}. "
            "Their history is being fetched; new papers will "
            "be posted here."
        )

    def _subscribe_paused(self, place: Place, followed: Followed) -> str:
        """Database thread: subscribe to an author nobody polled lately; its history is fetched
        again, silently, so the papers of the pause are stored and none is announced as new."""
        if not self._subscribe(place, followed.id):
            return _full_message()
        return (
            f"✅ {place.here} now follows <b>{html.escape(followed.label)}</b> "
            f"({papers(followed.record_count)} on record). Its papers are being fetched again; "
            "new ones will be posted here."
        )

    def _refusal(self, rule: PersonRule, total: int) -> str | None:
        """Why a name with `total` results on arXiv cannot be followed, or None if it can."""
        shown = f"<b>{html.escape(str(rule))}</b>"
        if total == 0:
            return (
                f"No arXiv papers by {shown} were found, so this chat does not follow that name. "
                "Check the spelling: the full name as arXiv lists it, e.g. /subscribe Dezun Dong."
            )
        limit = self.service.poller.backfill_limit
        if total > limit:
            return (
                f"arXiv lists {total:,} papers under {shown}, more than one name may bring "
                f"(at most {limit:,}), so this chat does not follow it. A name that common is "
                "many people: try a fuller one, with the given names spelled out as arXiv lists "
                "them (e.g. /subscribe Dezun Dong rather than /subscribe D. Dong)."
            )
        return None

    # -- the homonym question --------------------------------------------------------------

    def _homonym_question(self, place: Place, rule: PersonRule, survey: NameSurvey) -> Message:
        """The buttons for a name that looks like several people: its most common categories,
        and "anyway" unless the name is too broad to be followed whole."""
        return self.offers.ask(
            chat_id=place.chat_id,
            thread_id=place.thread_id,
            names=rule.names,
            survey=survey,
            anyway=survey.total <= self.service.poller.backfill_limit,
        )

    async def choose(self, update: Update, context: Context) -> None:
        """A button of the homonym question: follow the name in that category, or anyway."""
        query = update.callback_query
        chat = update.effective_chat
        assert query is not None
        if chat is None or query.message is None:
            await query.answer(STALE)
            return
        if not await may_manage(update, context):
            await query.answer("Only this group's administrators can change what it follows.")
            return
        choice = self.offers.take(query.data or "", chat_id=chat.id)
        if choice is None:
            await query.answer(STALE)
            return
        await query.answer()
        offer = choice.offer
        place = Place(offer.chat_id, offer.thread_id)
        if choice.category is None:
            rule = PersonRule(offer.names)
            answer = await in_db_thread(self._follow_new, place, rule, offer.total)
        else:
            rule = PersonRule(offer.names, (choice.category,))
            answer = await in_db_thread(self._follow_in_category, place, rule)
        self.service.poller.poll_soon()
        try:
            await query.edit_message_text(
                answer, parse_mode=ParseMode.HTML, link_preview_options=NO_PREVIEW
            )
        except BadRequest:
            await reply(update, context, answer)  # the question is gone: say it anew

    def _follow_in_category(self, place: Place, rule: PersonRule) -> str:
        """Database thread: follow a name in a category, for this chat; the answer."""
        subscribed = self.chats.subscribed_ids(place.chat_id, thread_id=place.thread_id)
        followed, created = self.store.follow_person(rule, watched=False)
        shown = f"<b>{html.escape(followed.label)}</b>"
        if followed.id in subscribed:
            return f"{place.here} already follows {shown}. /subscriptions lists what it follows."
        if not self._subscribe(place, followed.id, added=created):
            return _full_message()
        return (
            f"✅ {place.here} now follows {shown}: their papers listed in "
            f"{', '.join(rule.categories)}, primary or cross-list. Their history is being "
            "fetched; new papers will be posted here."
        )

    # -- a person by arXiv identity ---------------------------------------------------------

    async def _subscribe_identity(
        self, update: Update, context: Context, place: Place, identity: Identity
    ) -> None:
        prepared = await in_db_thread(self._prepare_identity, place, identity)
        await self._subscribe_rule(
            update,
            context,
            place,
            prepared,
            lambda: self._new_identity(update, context, place, identity),
        )

    async def _new_identity(
        self, update: Update, context: Context, place: Place, identity: Identity
    ) -> str | None:
        """An identity nobody follows: follow it once arXiv confirmed it knows it (answered
        here otherwise: None)."""
        try:
            async with asyncio.timeout(self.lookup_patience):
                found = await self.service.poller.identity_papers(identity)
        except TimeoutError:
            await reply(update, context, _too_slow(identity.shown))
            return None
        except UnknownAuthorId:
            await reply(update, context, unknown_identity(identity))
            return None
        except ArxivError as error:
            await reply(update, context, _unreachable(identity.shown, error))
            return None
        return await in_db_thread(self._follow_identity, place, identity, found)

    def _prepare_identity(self, place: Place, identity: Identity) -> str | Followed | None:
        """Database thread: the identity if followed already, or why this chat cannot."""
        existing = self.store.find_identity(identity.key)
        return self._can_take(
            place, existing, already=_already(place, existing), full=_full_message()
        )

    def _follow_identity(self, place: Place, identity: Identity, found: list[Record]) -> str:
        """Database thread: follow an identity arXiv knows, for this chat; the answer."""
        followed, created = self.store.follow_identity(
            identity, name=likely_name(found), watched=False
        )
        if not self._subscribe(place, followed.id, added=created):
            return _full_message()
        return (
            f"✅ {place.here} now follows <b>{html.escape(followed.label)}</b>: arXiv lists "
            f"{papers(len(found))} they claimed. Their history is being fetched; new papers will "
            "be posted here (only those they claim on arXiv)."
        )

    def _budget_spent(self, wait: float) -> str:
        most = self.backfills.per_hour
        return (
            f"This chat has looked up {most} new names on arXiv within the last hour, the most "
            f"allowed. Try again in {minutes(wait)}; authors I already follow can be added now."
        )

    async def unsubscribe(self, update: Update, context: Context) -> None:
        """/unsubscribe [NAME]: stop following one author, or everything."""
        try:
            rule = arguments.person_rule(context.args or [], command="unsubscribe")
        except UsageError as error:
            await reply_usage(update, context, error)
            return
        if await refuse_non_admin(update, context):
            return
        place = place_of(update)
        answer = await in_db_thread(self._unsubscribe, place, rule)
        if self.on_unsubscribed is not None:
            # The sender drops what it fetched for the chat (every topic: it simply reads
            # the outbox again), so nothing the topic no longer wants goes out.
            self.on_unsubscribed(place.chat_id)
        await reply(update, context, answer)

    def _unsubscribe(self, place: Place, rule: PersonRule | None) -> str:
        """Database thread. Authors stay followed by the service: others may still want them."""
        subscribed = self.chats.subscribed_ids(place.chat_id, thread_id=place.thread_id)
        if rule is None:
            if not subscribed:
                return f"{place.here} follows nobody; nothing to stop."
            followed = self.store.followed(subscribed)
            self.chats.unsubscribe(place.chat_id, None, thread_id=place.thread_id)
            return f"✅ {place.here} no longer follows {bold_names(followed)}."
        found = self._find(rule)
        if found is None or found.id not in subscribed:
            return (
                f"{place.here} does not follow <b>{html.escape(str(rule))}</b>. "
                "/subscriptions lists what it follows."
            )
        self.chats.unsubscribe(place.chat_id, found.id, thread_id=place.thread_id)
        return f"✅ {place.here} no longer follows <b>{html.escape(found.label)}</b>."

    def _find(self, rule: PersonRule) -> Followed | None:
        """Database thread: the follow `rule` names: an identity, or a person in categories."""
        try:
            identity = parse_identity(rule.display) if not rule.categories else None
        except IdentityError:
            identity = None
        if identity is not None:
            return self.store.find_identity(identity.key)
        return self.store.find_followed(rule.display, categories=rule.categories)

    async def subscriptions(self, update: Update, context: Context) -> None:
        """/subscriptions: what this chat follows, with counts and last successful poll."""
        await reply(update, context, await in_db_thread(self._subscriptions, place_of(update)))

    def _subscriptions(self, place: Place) -> str:
        followed = self.store.followed(
            self.chats.subscribed_ids(place.chat_id, thread_id=place.thread_id)
        )
        info = self.chats.get(place.chat_id)
        if not followed:
            return (
                f"{place.here} follows nobody yet. /subscribe follows the authors I watch; "
                "/subscribe NAME follows anyone; /watch follows a topic."
            )
        topics = [f for f in followed if f.kind == "topic"]
        followed = [f for f in followed if f.kind != "topic"]
        head = f"{place.here} follows {len(followed)} author{'' if len(followed) == 1 else 's'}"
        head += f" and {len(topics)} topic{'' if len(topics) == 1 else 's'}:" if topics else ":"
        revisions = info is not None and info.notify_revisions
        tail = (
            f"New versions of papers: {'on' if revisions else 'off'} "
            f"(/revisions {'off' if revisions else 'on'} to change)."
        )
        room = MAX_MESSAGE_LENGTH - visible_length(head) - visible_length(tail) - 2
        entries = [_followed_line(f) for f in followed]
        if topics:
            entries += ["<b>Topics</b> (/unwatch N stops topic N):"]
            entries += [_topic_line(n, f) for n, f in enumerate(topics, 1)]
        lines = [head, *capped_lines(entries, room=room), tail]
        return "\n".join(lines)

    async def revisions(self, update: Update, context: Context) -> None:
        """/revisions on|off: whether this chat hears about new versions of papers."""
        chat = update.effective_chat
        assert chat is not None
        try:
            enabled = arguments.on_off(context.args or [])
        except UsageError as error:
            await reply_usage(update, context, error)
            return
        if enabled is None:
            info = await in_db_thread(self.chats.get, chat.id)
            now = info is not None and info.notify_revisions
            await reply(
                update,
                context,
                f"New versions of papers are {'on' if now else 'off'} for this chat. "
                f"/revisions {'off' if now else 'on'} changes that.",
            )
            return
        if await refuse_non_admin(update, context):
            return
        await in_db_thread(self.chats.set_notify_revisions, chat.id, enabled)
        await reply(
            update,
            context,
            "✅ This chat will now be told about new versions of papers."
            if enabled
            else "✅ This chat will no longer be told about new versions of papers.",
        )


def _followed_line(followed: Followed) -> str:
    line = f"• <b>{html.escape(followed.label)}</b>: {papers(followed.record_count)}, "
    line += (
        f"last checked {when(followed.last_success)}" if followed.backfilled else "not fetched yet"
    )
    failures = followed.consecutive_failures
    if failures:
        tries = "the last try" if failures == 1 else f"the last {failures} tries"
        line += f" (⚠️ {tries} failed; retrying)"
    return line


def _topic_line(number: int, topic: Followed) -> str:
    line = f"{number}. <code>{html.escape(topic.label)}</code>: {papers(topic.record_count)}, "
    line += f"last checked {when(topic.last_success)}" if topic.backfilled else "not fetched yet"
    failures = topic.consecutive_failures
    if failures:
        line += f" (⚠️ the last {failures} tries failed; retrying)"
    return line


def _unreachable(name: str, error: ArxivError) -> str:
    return (
        f"⚠️ I could not reach arXiv just now ({html.escape(str(error)[:200])}), so this chat "
        f"does not follow <b>{html.escape(name)}</b> yet. Please try again in a few minutes."
    )


def unknown_identity(identity: Identity) -> str:
    """The answer to an author id (or ORCID iD) that arXiv has no author feed for."""
    if identity.kind == "orcid":
        return (
            f"arXiv knows no author with ORCID iD {identity.value}: arXiv knows an ORCID iD only "
            "when its owner linked it to their arXiv account. Try the arXiv author id instead, "
            f"the end of their arXiv author page's address, like {EXAMPLE_ARXIV_PAGE}."
        )
    return (
        f"arXiv knows no author id {html.escape(identity.value)}; the id is the end of your arXiv "
        f"author page's address, like {EXAMPLE_ARXIV_PAGE}."
    )


def _too_slow(name: str) -> str:
    return (
        f"⚠️ arXiv is slow to answer just now, so this chat does not follow "
        f"<b>{html.escape(name)}</b> yet. Please try again in a few minutes."
    )


def _already(place: Place, existing: Followed | None) -> str:
    shown = html.escape(existing.label) if existing is not None else ""
    return f"{place.here} already follows <b>{shown}</b>. /subscriptions lists what it follows."


def _full_message() -> str:
    return (
        f"This chat already follows {MAX_SUBSCRIPTIONS} authors, the most allowed. "
        "Stop one first with /unsubscribe NAME."
    )
