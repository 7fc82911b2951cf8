"""`Coauthors`: /authors, a paper's authors listed, and following one of them from the list.

The paper is found as /paper finds it (`watcher.core.lookup`: the store, else one `id_list`
request on the chat's look-up budget), at its newest version: a paper fetched is stored, so the
list's buttons find it again. Each author is listed with whether the chat (forum topic) follows
them already, and a `mark`: a few hex digits of the name. A button carries the paper's id, the
author's position and the mark, never the name (Telegram allows 64 bytes); a press reads the
stored paper again, and the mark tells a position whose name changed since (a new version with
another author list) from the one shown. `author` turns a press into the name's `PersonRule`,
and the front end follows it with `/subscribe NAME`'s own use case
(`watcher.core.following.Follows.subscribe`): the homonym question, the chat's budget of new
follows, the follow limit and "already followed" all apply as they do there.
"""

from __future__ import annotations

import zlib
from dataclasses import dataclass

from watcher.aio import in_db_thread
from watcher.arxiv.records import Record
from watcher.core.lookup import Found, LookupOutcome, NoSuchVersion, PaperLookup, canonical_id
from watcher.follows.names import check_person_name, matches_any, name_keys
from watcher.follows.rules import PersonRule
from watcher.kinds import FollowKind
from watcher.sentences import Sentence
from watcher.store import Store
from watcher.store.chats import Chats

__all__ = [
    "AuthorEntry",
    "AuthorList",
    "AuthorMoved",
    "Coauthors",
    "PaperGone",
    "Unfollowable",
    "author_mark",
]


def author_mark(name: str) -> str:
    """Six hex digits of `name`: enough to tell, on a press, that the author at a position is
    still the one the button was made for."""
    return f"{zlib.crc32(name.encode('utf-8')) & 0xFFFFFF:06x}"


@dataclass(frozen=True, slots=True)
class AuthorEntry:
    """One author of the paper: `position` (0-based, as arXiv lists them), the name, whether
    this chat (topic) follows the person already, and the name's `mark`."""

    position: int
    name: str
    followed: bool
    mark: str


@dataclass(frozen=True, slots=True)
class AuthorList:
    """The paper and its authors, in arXiv's order."""

    record: Record
    authors: tuple[AuthorEntry, ...]


@dataclass(frozen=True, slots=True)
class PaperGone:
    """A button's paper is no longer stored."""

    arxiv_id: str


@dataclass(frozen=True, slots=True)
class AuthorMoved:
    """The paper's author list no longer has the button's author at its position."""

    arxiv_id: str


@dataclass(frozen=True, slots=True)
class Unfollowable:
    """The author's name, as arXiv lists it, cannot be followed by name: `problem` says why."""

    name: str
    problem: Sentence


ListOutcome = AuthorList | LookupOutcome
PressedAuthor = PersonRule | PaperGone | AuthorMoved | Unfollowable


class Coauthors:
    """/authors and its buttons, on one core's store, chats and paper look-up."""

    def __init__(self, store: Store, chats: Chats, *, papers: PaperLookup) -> None:
        self.store = store
        self.chats = chats
        self.papers = papers

    async def authors(self, chat_id: int, thread_id: int, arxiv_id: str) -> ListOutcome:
        """/authors ID: the paper's authors (its newest version), or why there is no list."""
        found = await self.papers.find(chat_id, arxiv_id, None)
        if not isinstance(found, Found | NoSuchVersion):
            return found
        return await in_db_thread(self._listed, chat_id, thread_id, found.record)

    async def stored(self, chat_id: int, thread_id: int, arxiv_id: str) -> AuthorList | PaperGone:
        """A list's page turned: the stored paper's authors, arXiv never asked."""
        arxiv_id = canonical_id(arxiv_id)
        record = await in_db_thread(self.store.paper, arxiv_id)
        if record is None:
            return PaperGone(arxiv_id)
        return await in_db_thread(self._listed, chat_id, thread_id, record)

    async def author(self, arxiv_id: str, position: int, mark: str) -> PressedAuthor:
        """A list's "Follow" pressed: the person at `position` (named by `mark`) as a rule to
        follow, or why there is none."""
        arxiv_id = canonical_id(arxiv_id)
        record = await in_db_thread(self.store.paper, arxiv_id)
        if record is None:
            return PaperGone(arxiv_id)
        names = record.author_names
        if not 0 <= position < len(names) or author_mark(names[position]) != mark:
            return AuthorMoved(arxiv_id)
        name = " ".join(names[position].split())
        problem = check_person_name(name)
        if problem is not None:
            return Unfollowable(name, problem)
        return PersonRule((name,))

    def _listed(self, chat_id: int, thread_id: int, record: Record) -> AuthorList:
        """Database thread: `record`'s authors, each marked if the chat follows the person."""
        subscribed = self.chats.subscribed_ids(chat_id, thread_id=thread_id)
        people = name_keys(
            name
            for followed in self.store.followed(subscribed, counted=False)
            if followed.kind != FollowKind.TOPIC
            for name in followed.names
        )
        entries = tuple(
            AuthorEntry(
                position,
                name,
                followed=matches_any(name, people),
                mark=author_mark(name),
            )
            for position, name in enumerate(record.author_names)
        )
        return AuthorList(record, entries)
