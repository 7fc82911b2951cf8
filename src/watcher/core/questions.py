"""`Questions`: the read-only questions a chat asks, as the core's face offers them; one async
call each, nothing changed.

Their scope rule: a chat's (forum topic's) questions are about the authors it follows, or, while
it follows nobody, about the operator's watched ones (WATCH_AUTHORS): `Scope`. /recent and
/subject read one page of their papers (`papers`), /subjects their categories, and /paper marks
their names (`marked_names`). /subscriptions, /unwatch and /start read what the chat follows,
/watch how busy a category is, and a paper's "Cite" button one stored paper. /search reads
every stored paper, whoever's it is (`search`), and marks the scope's people in the answer.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from watcher.aio import in_db_thread
from watcher.arxiv.records import Record
from watcher.clock import Clock
from watcher.follows.followed import Followed
from watcher.follows.search_words import SearchQuery
from watcher.kinds import FollowKind
from watcher.settings import Settings
from watcher.store import Store
from watcher.store.chats import Chats
from watcher.store.digests import DigestSettings
from watcher.store.speaking import SpeakingSettings


@dataclass(frozen=True, slots=True)
class Scope:
    """Whose papers a chat's questions are about: its own follows (`own`), else the watched."""

    followed: tuple[Followed, ...]
    own: bool

    @property
    def ids(self) -> list[int]:
        return [f.id for f in self.followed]

    @property
    def names(self) -> list[str]:
        """Every name (and alias) of the people in scope: those a paper marks ★."""
        return [name for f in self.followed for name in f.names]

    @property
    def people(self) -> list[str]:
        """The names of the people in scope, topics aside."""
        return [name for f in self.followed if f.kind != FollowKind.TOPIC for name in f.names]


@dataclass(frozen=True, slots=True)
class PapersPage:
    """One page of /recent (`categories` None) or /subject: `records` of `total`."""

    scope: Scope
    records: tuple[Record, ...]
    total: int


@dataclass(frozen=True, slots=True)
class NobodyFollowed:
    """Nobody is in scope: the chat follows nobody, and nobody is watched."""


@dataclass(frozen=True, slots=True)
class NoneStored:
    """No paper of the scope is stored yet (the first fetch may still run)."""

    scope: Scope


@dataclass(frozen=True, slots=True)
class NoneInCategory:
    """No stored paper of the scope is in the categories; `counts`: those that have some."""

    scope: Scope
    counts: tuple[tuple[str, int], ...]


@dataclass(frozen=True, slots=True)
class Subjects:
    """/subjects: the categories of the scope's stored papers, most papers first."""

    scope: Scope
    counts: tuple[tuple[str, int], ...]


@dataclass(frozen=True, slots=True)
class FollowsSummary:
    """/subscriptions: what the chat (topic) follows, and how it is spoken to, read at `now`
    (the core's clock: a pause's age and the next digest are told from it)."""

    followed: tuple[Followed, ...]
    speaking: SpeakingSettings
    digest: DigestSettings
    revisions: bool
    now: datetime


@dataclass(frozen=True, slots=True)
class SearchPage:
    """One page of /search: `records` of `total` stored papers matching `query`, newest first
    (none when nothing matches, or the page is past the last); `people`: the names to mark ★.
    `more`: more papers match than are counted (`watcher.store.search.MAX_FOUND`), and the
    pages hold the newest of them."""

    query: SearchQuery
    records: tuple[Record, ...]
    total: int
    people: tuple[str, ...]
    more: bool = False


PapersAnswer = PapersPage | NobodyFollowed | NoneStored | NoneInCategory


class Questions:
    """The read-only questions of one core."""

    def __init__(self, settings: Settings, store: Store, chats: Chats, *, clock: Clock) -> None:
        self.settings = settings
        self.store = store
        self.chats = chats
        self.clock = clock

    # -- the scope rule, and what it answers -------------------------------------------------

    def scope(self, chat_id: int, thread_id: int) -> Scope:
        """Database thread: the authors a chat's (topic's) questions are about."""
        ids = self.chats.subscribed_ids(chat_id, thread_id=thread_id)
        if ids:
            return Scope(tuple(self.store.followed(ids)), own=True)
        found = (self.store.find_watched(rule) for rule in self.settings.followed_specs)
        return Scope(tuple(f for f in found if f is not None), own=False)

    async def papers(
        self,
        chat_id: int,
        thread_id: int,
        categories: tuple[str, ...] | None,
        *,
        per_page: int,
        page: int,
    ) -> PapersAnswer:
        """/recent (`categories` None) or /subject: page `page` of the scope's newest papers."""
        return await in_db_thread(self._papers, chat_id, thread_id, categories, per_page, page)

    def _papers(
        self,
        chat_id: int,
        thread_id: int,
        categories: tuple[str, ...] | None,
        per_page: int,
        page: int,
    ) -> PapersAnswer:
        scope = self.scope(chat_id, thread_id)
        if not scope.followed:
            return NobodyFollowed()
        ids, offset = scope.ids, page * per_page
        if categories is None:
            total = self.store.count(followed_ids=ids)
            records = self.store.recent(limit=per_page, offset=offset, followed_ids=ids)
        else:
            total = self.store.count_category(categories, followed_ids=ids)
            records = self.store.by_category(
                categories, limit=per_page, offset=offset, followed_ids=ids
            )
        if total == 0 and categories is None:
            return NoneStored(scope)
        if total == 0:
            return NoneInCategory(scope, tuple(self.store.category_counts(followed_ids=ids)))
        return PapersPage(scope, tuple(records), total)

    async def search(
        self, chat_id: int, thread_id: int, query: SearchQuery, *, per_page: int, page: int
    ) -> SearchPage:
        """/search: page `page` of the stored papers (all of them) matching `query`."""

        def read() -> SearchPage:
            found = self.store.search(query, limit=per_page, offset=page * per_page)
            people = tuple(self.scope(chat_id, thread_id).people)
            return SearchPage(query, found.records, found.total, people, more=found.more)

        return await in_db_thread(read)

    async def subjects(self, chat_id: int, thread_id: int) -> Subjects:
        """/subjects: the categories of the scope's stored papers."""

        def read() -> Subjects:
            scope = self.scope(chat_id, thread_id)
            return Subjects(scope, tuple(self.store.category_counts(followed_ids=scope.ids)))

        return await in_db_thread(read)

    async def marked_names(self, chat_id: int, thread_id: int) -> list[str]:
        """The names /paper marks ★: those of the scope (another chat's authors are not)."""
        return (await in_db_thread(self.scope, chat_id, thread_id)).names

    # -- what the chat follows ---------------------------------------------------------------

    async def follows(self, chat_id: int, thread_id: int) -> list[Followed]:
        """What the chat (topic) follows, by name (topics too)."""
        return await in_db_thread(self._follows, chat_id, thread_id)

    def _follows(self, chat_id: int, thread_id: int) -> list[Followed]:
        return self.store.followed(self.chats.subscribed_ids(chat_id, thread_id=thread_id))

    async def how_many_follows(self, chat_id: int, thread_id: int) -> int:
        """How many follows the chat (topic) has."""
        ids = await in_db_thread(self.chats.subscribed_ids, chat_id, thread_id=thread_id)
        return len(ids)

    async def topics(self, chat_id: int, thread_id: int) -> list[Followed]:
        """The chat's (topic's) topics, numbered from 1 in this order by /unwatch N."""
        return [f for f in await self.follows(chat_id, thread_id) if f.kind == FollowKind.TOPIC]

    async def summary(self, chat_id: int, thread_id: int) -> FollowsSummary:
        """/subscriptions: the follows, and the settings shown under them."""

        def read() -> FollowsSummary:
            return FollowsSummary(
                tuple(self._follows(chat_id, thread_id)),
                self.chats.speaking.settings(chat_id, thread_id),
                self.chats.digests.settings(chat_id, thread_id),
                revisions=self.chats.wants_revisions(chat_id, thread_id=thread_id),
                now=self.clock(),
            )

        return await in_db_thread(read)

    # -- papers ------------------------------------------------------------------------------

    async def category_week(self, categories: Sequence[str]) -> int | None:
        """Papers of the week before now in `categories`, or None when not known."""
        return await in_db_thread(self.store.category_week, categories, now=self.clock())

    async def paper(self, arxiv_id: str) -> Record | None:
        """A stored paper (its newest version), or None."""
        return await in_db_thread(self.store.paper, arxiv_id)
