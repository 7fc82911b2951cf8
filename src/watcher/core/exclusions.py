"""`ExcludedWords`: the words a chat never wants to see, as the core's face offers them
(`Core.exclusions`): /exclude WORD adds one, /exclude lists them, /exclude off N|WORD takes one
off, and the 🔇 count of papers they held back this week (/subscriptions).

The list is the chat's, all its forum topics together, at most `MAX_EXCLUDED` entries
(`watcher.store.exclusions`); an entry is read as `watcher.follows.excluded_words` reads it. The
queue holds back the papers (`watcher.store.announce`); nothing here sends or filters.

Each method is ONE async call on the runtime's clock; who may call the writing ones (in a group,
its administrators) is the front end's to check.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta

from watcher.aio import in_db_thread
from watcher.clock import Clock
from watcher.follows.excluded_words import (
    MAX_EXCLUDED,
    MAX_EXCLUDED_LENGTH,
    ExcludedError,
    ExcludedWord,
    parse_excluded,
)
from watcher.store.exclusions import AddDone, Exclusions

__all__ = [
    "MAX_EXCLUDED",
    "MAX_EXCLUDED_LENGTH",
    "Added",
    "ExcludedError",
    "ExcludedWords",
    "ListFull",
    "NotExcluded",
    "Removed",
    "UnknownChat",
]

WEEK = timedelta(days=7)


@dataclass(frozen=True, slots=True)
class Added:
    """The entry is on the list: `fresh` when this call put it there."""

    shown: str
    fresh: bool


@dataclass(frozen=True, slots=True)
class ListFull:
    """The chat has `limit` entries already: nothing was added."""

    limit: int


@dataclass(frozen=True, slots=True)
class UnknownChat:
    """The chat never spoke to this service."""


@dataclass(frozen=True, slots=True)
class Removed:
    """The entry is off the list."""

    shown: str


@dataclass(frozen=True, slots=True)
class NotExcluded:
    """No such entry (`asked`: the number or words given); `count`: how many the chat has."""

    asked: str
    count: int


class ExcludedWords:
    """The excluded words of one core's chats."""

    def __init__(self, exclusions: Exclusions, clock: Clock) -> None:
        self._exclusions = exclusions
        self._clock = clock

    async def add(self, chat_id: int, text: str) -> Added | ListFull | UnknownChat:
        """/exclude WORD: raises ExcludedError for an empty or too long entry."""
        entry = parse_excluded(text)
        done = await in_db_thread(lambda: self._exclusions.add(chat_id, entry, now=self._clock()))
        if done == AddDone.FULL:
            return ListFull(MAX_EXCLUDED)
        if done == AddDone.NO_CHAT:
            return UnknownChat()
        return Added(entry.shown, fresh=done == AddDone.ADDED)

    async def listed(self, chat_id: int) -> tuple[str, ...]:
        """/exclude: the entries as shown (a phrase in quotes), in the order added."""
        texts = await in_db_thread(self._exclusions.entries, chat_id)
        return tuple(ExcludedWord.stored(text).shown for text in texts)

    async def remove(self, chat_id: int, which: str) -> Removed | NotExcluded:
        """/exclude off N (its number in the list) or /exclude off WORD."""

        def write() -> Removed | NotExcluded:
            texts = self._exclusions.entries(chat_id)
            target: str | None = None
            if which.strip().isdigit():
                number = int(which)
                if 1 <= number <= len(texts):
                    target = texts[number - 1]
            else:
                try:
                    target = parse_excluded(which).text
                except ExcludedError:
                    target = None
            if target is None or not self._exclusions.remove(chat_id, target):
                return NotExcluded(which.strip(), len(texts))
            return Removed(ExcludedWord.stored(target).shown)

        return await in_db_thread(write)

    async def held_this_week(self, chat_id: int) -> int:
        """How many papers the chat's entries held back in the last 7 days."""
        since = self._clock() - WEEK
        return await in_db_thread(self._exclusions.held_since, chat_id, since)
