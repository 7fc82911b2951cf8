"""Whether a chat may follow one more person, author id or topic, and following it: the decision
behind /subscribe NAME, /subscribe AUTHOR-ID, the homonym question's buttons and /watch, free of
any chat framework.

Each request ends in one typed outcome, which the front end renders once: `Subscribed`, `Already`,
`OverLimit` (the chat follows `MAX_SUBSCRIPTIONS`), `BudgetSpent` (the chat started as many new
follows, or asked arXiv as often, as its budget allows for now), `NeedsChoice` (the name looks like
several people), `NotFound` (arXiv lists nothing under the name, or knows no such author id),
`TooCommon` (more papers than a history may hold), `TooSlow` and `Unreachable` (arXiv did not
answer the look-up).

A follow already kept up to date costs nothing. One nobody follows (or nobody polled lately)
costs arXiv requests, so it reserves one of the chat's new follows first (`LookupBudget`, kept
in the database: `watcher.store.budgets`), and a look-up asked of arXiv if one is; a new name is
surveyed (`Poller.survey`) and an author id confirmed (`Poller.identity_papers`) before anything
is stored, and then a round of polls is asked for now (`poll_soon`, the runtime's, injected)
to fetch the history. Only a follow started keeps its reservation: a request refused, that
found nothing, or that arXiv failed gives the follow back (the look-up stays spent, which
bounds what a script inventing names costs arXiv). A chat's first allowance is
`FIRST_ALLOWANCE` new follows. A rule stored for a request that then found the chat full is
removed again, so that nothing nobody follows is polled.

Every store and chats call runs on the database thread (`in_db_thread`); the methods that run
there say so ("Database thread").
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Collection, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Protocol, TypeVar

from watcher.aio import in_db_thread
from watcher.arxiv.records import Record
from watcher.core.watched_check import known_watched
from watcher.errors import ArxivError, UnknownAuthorId
from watcher.follows.followed import Followed
from watcher.follows.homonyms import NameSurvey
from watcher.follows.identity import Identity, IdentityError, parse_identity
from watcher.follows.names import likely_name
from watcher.follows.rules import PersonRule, WatchedRule
from watcher.follows.topics import Topic
from watcher.polling.poll import Poller
from watcher.store import Store
from watcher.store.budgets import FIRST_ALLOWANCE
from watcher.store.chats import MAX_SUBSCRIPTIONS, Chats, SubscriptionLimit

# Seconds a look-up waits for arXiv (a new name's count, an author id's feed), its turn on the
# polite client included (a poll's request may hold it, with retries, for minutes while arXiv
# struggles): past that, the chat is told to try again rather than left waiting.
LOOKUP_PATIENCE = 60.0

__all__ = [
    "FIRST_ALLOWANCE",
    "LOOKUP_PATIENCE",
    "MAX_SUBSCRIPTIONS",
    "AllFollowed",
    "Already",
    "BudgetSpent",
    "LookupBudget",
    "NeedsChoice",
    "NotFound",
    "NothingWatched",
    "Outcome",
    "OverLimit",
    "Start",
    "Subscribed",
    "Subscribing",
    "TooCommon",
    "TooSlow",
    "TopicOutcome",
    "Unreachable",
    "WatchedJoined",
    "WatchedOutcome",
    "find_named",
]


class Start(StrEnum):
    """What following costs the poller."""

    KEPT = "kept"  # polled already (for another chat, or the operator): nothing to fetch
    NEW = "new"  # nobody followed it: its history is being fetched
    RESUMED = "resumed"  # nobody polled it lately: its history is fetched again, silently


@dataclass(frozen=True, slots=True)
class Subscribed:
    """The chat follows `followed` now. `found`: the papers arXiv listed for a `NEW` follow
    (the name's total, or the papers the author id claimed)."""

    followed: Followed
    start: Start
    found: int = 0


@dataclass(frozen=True, slots=True)
class Already:
    """The chat (topic) follows it already."""

    followed: Followed


@dataclass(frozen=True, slots=True)
class OverLimit:
    """The chat, all its topics together, follows `MAX_SUBSCRIPTIONS` already."""


@dataclass(frozen=True, slots=True)
class BudgetSpent:
    """The chat spent its budget of new follows (or of arXiv look-ups) for now; it may start
    another in `wait` seconds."""

    wait: float


@dataclass(frozen=True, slots=True)
class NeedsChoice:
    """The name looks like several people: nothing is followed until the chat picks one of
    the survey's categories, or the name whole (only if `anyway`: not too many papers)."""

    survey: NameSurvey
    anyway: bool


@dataclass(frozen=True, slots=True)
class NotFound:
    """arXiv lists no paper under the name, or knows no such author id."""


@dataclass(frozen=True, slots=True)
class TooCommon:
    """arXiv lists `total` papers under the name, more than one history may hold (`limit`)."""

    total: int
    limit: int


@dataclass(frozen=True, slots=True)
class TooSlow:
    """arXiv did not answer the look-up within the patience given."""


@dataclass(frozen=True, slots=True)
class Unreachable:
    """The look-up failed: arXiv could not be reached, or answered with an error."""

    error: ArxivError


@dataclass(frozen=True, slots=True)
class WatchedJoined:
    """The chat follows the operator's watched authors now: `added` are the ones it lacked."""

    added: tuple[Followed, ...]


@dataclass(frozen=True, slots=True)
class AllFollowed:
    """The chat follows every watched author already."""

    watched: tuple[Followed, ...]


@dataclass(frozen=True, slots=True)
class NothingWatched:
    """The operator watches nobody (WATCH_AUTHORS is empty)."""


Refusal = NeedsChoice | NotFound | TooCommon | TooSlow | Unreachable
Outcome = Subscribed | Already | OverLimit | BudgetSpent | Refusal
TopicOutcome = Subscribed | Already | OverLimit | BudgetSpent
WatchedOutcome = WatchedJoined | AllFollowed | NothingWatched | OverLimit


_O = TypeVar("_O", bound=Outcome)


class LookupBudget(Protocol):
    """How many new follows a chat may start (`watcher.store.budgets.LookupBudgets`). `take`
    reserves one, and one look-up asked of arXiv if `lookup`, and returns None, or the seconds
    until the chat may; `give_back` returns a reserved follow that was not started. Database
    thread."""

    def take(self, chat_id: int, *, lookup: bool) -> float | None: ...
    def give_back(self, chat_id: int) -> None: ...


@dataclass(frozen=True, slots=True)
class _Room:
    """A chat (topic) may take the rule: `existing`, or None when nobody follows it yet."""

    existing: Followed | None


class Subscribing:
    """The subscribe decision of one service: its store, chats and poller, and one budget of
    look-ups a chat for names, author ids and topics together."""

    def __init__(
        self,
        *,
        store: Store,
        chats: Chats,
        poller: Poller,
        budget: LookupBudget,
        patience: float = LOOKUP_PATIENCE,
        poll_soon: Callable[[], None] = lambda: None,
    ) -> None:
        self.store = store
        self.chats = chats
        self.poller = poller
        self.budget = budget
        self.patience = patience  # seconds a look-up may wait for arXiv, its turn included
        # Asks the runtime for a round of polls now (a new follow's history); without one (the
        # CLI, some tests) the next scheduled round fetches it.
        self.poll_soon = poll_soon

    # -- /subscribe alone --------------------------------------------------------------------

    def _subscribe_watched(
        self, chat_id: int, thread_id: int, watched_rules: Sequence[WatchedRule]
    ) -> WatchedOutcome:
        """Database thread: subscribe the chat (topic) to every watched author."""
        subscribed = set(self.chats.subscribed_ids(chat_id, thread_id=thread_id))
        watched = known_watched(self.store, watched_rules)  # never an id the start refused
        missing = tuple(f for f in watched if f.id not in subscribed)
        if not watched:
            return NothingWatched()
        if not missing:
            return AllFollowed(tuple(watched))
        if len(subscribed) + len(missing) > MAX_SUBSCRIPTIONS:
            return OverLimit()
        for followed in missing:
            if not self._subscribe(chat_id, thread_id, followed.id):
                return OverLimit()  # the limit counts the chat's other topics too
        return WatchedJoined(missing)

    async def subscribe_watched(
        self, chat_id: int, thread_id: int, watched_rules: Sequence[WatchedRule]
    ) -> WatchedOutcome:
        """Follow the operator's watched authors (`Settings.followed_specs`) in this chat."""
        return await in_db_thread(self._subscribe_watched, chat_id, thread_id, watched_rules)

    # -- a person by name --------------------------------------------------------------------

    async def subscribe_person(self, chat_id: int, thread_id: int, rule: PersonRule) -> Outcome:
        """Follow a name (maybe in categories): surveyed on arXiv first if nobody follows it."""
        return await self._take(
            chat_id,
            thread_id,
            lambda: self.store.find_person(rule),
            lambda: self._new_person(chat_id, thread_id, rule),
        )

    async def _new_person(self, chat_id: int, thread_id: int, rule: PersonRule) -> Outcome:
        try:
            async with asyncio.timeout(self.patience):
                survey = await self.poller.survey(rule.names, rule.categories)
        except TimeoutError:
            return TooSlow()
        except ArxivError as error:
            return Unreachable(error)
        limit = self.poller.backfill_limit
        if not rule.categories and survey.several_people and survey.top_categories():
            return NeedsChoice(survey, anyway=survey.total <= limit)
        if survey.total == 0:
            return NotFound()
        if survey.total > limit:
            return TooCommon(survey.total, limit)
        return await in_db_thread(self._follow_person, chat_id, thread_id, rule, survey.total)

    def _follow_person(
        self, chat_id: int, thread_id: int, rule: PersonRule, total: int
    ) -> Subscribed | OverLimit:
        """Database thread: follow a name arXiv lists `total` papers under, for this chat."""
        followed, created = self.store.follow_person(rule, watched=False)
        if not self._subscribe(chat_id, thread_id, followed.id, added=created):
            return OverLimit()
        return Subscribed(followed, Start.NEW, found=total)

    async def choose(
        self, chat_id: int, thread_id: int, rule: PersonRule, *, total: int
    ) -> Subscribed | Already | OverLimit | BudgetSpent:
        """The answer to `NeedsChoice`: follow the name whole (`rule` without categories, of
        `total` papers) or in the category picked (`rule` with it). arXiv was asked already;
        a follow nobody keeps up to date still spends one of the chat's new follows."""
        room = await in_db_thread(
            self._room_for,
            chat_id,
            thread_id,
            lambda: self.store.find_person(rule),
        )
        if not isinstance(room, _Room):
            return room
        if room.existing is not None and room.existing.polled:
            return await in_db_thread(self._join, chat_id, thread_id, room.existing, Start.KEPT)
        wait = await in_db_thread(self.budget.take, chat_id, lookup=False)
        if wait is not None:
            return BudgetSpent(wait)
        outcome: Subscribed | Already | OverLimit
        if rule.categories:
            outcome = await in_db_thread(self._follow_in_category, chat_id, thread_id, rule)
        else:
            outcome = await in_db_thread(self._follow_person, chat_id, thread_id, rule, total)
        return await self._started(chat_id, outcome)

    def _follow_in_category(
        self, chat_id: int, thread_id: int, rule: PersonRule
    ) -> Subscribed | Already | OverLimit:
        """Database thread: follow a name in the category picked, for this chat."""
        subscribed = self.chats.subscribed_ids(chat_id, thread_id=thread_id)
        followed, created = self.store.follow_person(rule, watched=False)
        if followed.id in subscribed:
            return Already(followed)
        if not self._subscribe(chat_id, thread_id, followed.id, added=created):
            return OverLimit()
        return Subscribed(followed, Start.NEW)

    # -- a person by arXiv author id or ORCID iD ---------------------------------------------

    async def subscribe_identity(self, chat_id: int, thread_id: int, identity: Identity) -> Outcome:
        """Follow an author id, once arXiv confirmed it knows it (if nobody follows it)."""
        return await self._take(
            chat_id,
            thread_id,
            lambda: self.store.find_identity(identity.key),
            lambda: self._new_identity(chat_id, thread_id, identity),
        )

    async def _new_identity(self, chat_id: int, thread_id: int, identity: Identity) -> Outcome:
        try:
            async with asyncio.timeout(self.patience):
                found = await self.poller.identity_papers(identity)
        except TimeoutError:
            return TooSlow()
        except UnknownAuthorId:
            return NotFound()
        except ArxivError as error:
            return Unreachable(error)
        return await in_db_thread(self._follow_identity, chat_id, thread_id, identity, found)

    def _follow_identity(
        self, chat_id: int, thread_id: int, identity: Identity, found: list[Record]
    ) -> Subscribed | OverLimit:
        """Database thread: follow an author id arXiv knows (it claimed `found`)."""
        followed, created = self.store.follow_identity(
            identity, name=likely_name(found), watched=False
        )
        if not self._subscribe(chat_id, thread_id, followed.id, added=created):
            return OverLimit()
        return Subscribed(followed, Start.NEW, found=len(found))

    # -- a topic -----------------------------------------------------------------------------

    async def watch_topic(self, chat_id: int, thread_id: int, topic: Topic) -> TopicOutcome:
        """Follow a topic; one nobody watches has its recent papers fetched once, silently."""
        room = await in_db_thread(
            self._room_for, chat_id, thread_id, lambda: self.store.find_topic(topic)
        )
        if not isinstance(room, _Room):
            return room
        existing = room.existing
        if existing is not None and existing.polled:
            outcome = await in_db_thread(self._watch_topic, chat_id, thread_id, topic)
            if isinstance(outcome, Subscribed) and not existing.backfilled:
                self.poll_soon()
            return outcome
        wait = await in_db_thread(self.budget.take, chat_id, lookup=False)
        if wait is not None:
            return BudgetSpent(wait)
        return await self._started(
            chat_id, await in_db_thread(self._watch_topic, chat_id, thread_id, topic)
        )

    def _watch_topic(self, chat_id: int, thread_id: int, topic: Topic) -> Subscribed | OverLimit:
        """Database thread: watch the topic for this chat."""
        followed, created = self.store.watch_topic(topic, watched=False)
        if not self._subscribe(chat_id, thread_id, followed.id, added=created):
            return OverLimit()
        return Subscribed(followed, Start.NEW if created else Start.KEPT)

    # -- the shared steps --------------------------------------------------------------------

    async def _take(
        self,
        chat_id: int,
        thread_id: int,
        find: Callable[[], Followed | None],
        follow_new: Callable[[], Awaitable[Outcome]],
    ) -> Outcome:
        """The flow of a person or an author id: refused if the chat has it or is full; at once
        if it is kept up to date already; else a history to fetch, within the chat's budget,
        asking arXiv first (`follow_new`) about a rule nobody follows."""
        room = await in_db_thread(self._room_for, chat_id, thread_id, find)
        if not isinstance(room, _Room):
            return room
        existing = room.existing
        if existing is not None and existing.polled:
            return await in_db_thread(self._join, chat_id, thread_id, existing, Start.KEPT)
        wait = await in_db_thread(self.budget.take, chat_id, lookup=existing is None)
        if wait is not None:
            return BudgetSpent(wait)
        if existing is None:
            outcome = await follow_new()
        else:
            outcome = await in_db_thread(self._join, chat_id, thread_id, existing, Start.RESUMED)
        return await self._started(chat_id, outcome)

    async def _started(self, chat_id: int, outcome: _O) -> _O:
        """After a follow was reserved in the budget: a follow started keeps it, and the poller
        is asked for a round now (its history now, not at the next round); anything else
        (refused, not found, arXiv failing, the chat found full) gives it back."""
        if isinstance(outcome, Subscribed):
            self.poll_soon()
        else:
            await in_db_thread(self.budget.give_back, chat_id)
        return outcome

    def _room_for(
        self, chat_id: int, thread_id: int, find: Callable[[], Followed | None]
    ) -> _Room | Already | OverLimit:
        """Database thread: whether the chat (topic) may take the rule `find` finds."""
        existing = find()
        subscribed = self.chats.subscribed_ids(chat_id, thread_id=thread_id)
        if existing is not None and existing.id in subscribed:
            return Already(existing)
        if len(subscribed) >= MAX_SUBSCRIPTIONS:
            return OverLimit()
        return _Room(existing)

    def _join(
        self, chat_id: int, thread_id: int, followed: Followed, start: Start
    ) -> Subscribed | OverLimit:
        """Database thread: subscribe to a rule stored already."""
        if not self._subscribe(chat_id, thread_id, followed.id):
            return OverLimit()
        return Subscribed(followed, start)

    def _subscribe(
        self, chat_id: int, thread_id: int, followed_id: int, *, added: bool = False
    ) -> bool:
        """Database thread: subscribe, the limit checked again (other requests ran meanwhile).
        False if the chat is full; a rule `added` for this request alone is then removed."""
        try:
            self.chats.subscribe(chat_id, followed_id, thread_id=thread_id)
        except SubscriptionLimit:
            if added and self.chats.subscribers(followed_id) == 0:
                self.store.unfollow(followed_id)
            return False
        return True


def find_named(
    store: Store,
    name: str,
    categories: Sequence[str] = (),
    *,
    among: Collection[int] | None = None,
) -> Followed | None:
    """The follow `name` names, as /unsubscribe and `arxiv-watcher unfollow` take it: an arXiv
    author id or ORCID iD when it reads as one (and no categories come with it), else the person
    followed under that name (or alias) in `categories`, of the follows `among` if given (the
    chat's: several follows may share a name, with other aliases). A text plainly meant as an
    author id but wrong is looked up as a name (the CLI refuses it before)."""
    try:
        identity = parse_identity(name) if not categories else None
    except IdentityError:
        identity = None
    if identity is not None:
        return store.find_identity(identity.key)
    return store.find_followed(name, categories=categories, among=among)
