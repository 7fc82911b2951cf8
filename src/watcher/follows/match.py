"""Match step: which follows a record belongs to.

`FollowRules` holds every follow at once, for the harvest that reads all of arXiv: a dict from
name key (`watcher.follows.names`) to followed ids, so that matching a record costs O(its authors)
however many people are followed. A person followed only in some categories ("Wei Wang in
cs.DC,cs.NI") matches a paper by that name only when one of the paper's categories, primary or
cross-list, is among them. A topic (`watcher.follows.topics`) is matched on the title and abstract,
through an index by one of its words. The rules are the one place where follows are matched,
not the store or the handlers.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Sequence

from watcher.arxiv.records import Record
from watcher.errors import WatcherError
from watcher.follows.followed import Followed
from watcher.follows.names import matches_any, name_key, name_keys
from watcher.follows.topics import Topic, TopicIndex, topic_from_stored
from watcher.kinds import FollowKind

log = logging.getLogger(__name__)


def record_matches(record: Record, names: Sequence[str], categories: Sequence[str] = ()) -> bool:
    """True when one of the record's authors is the person (and, if `categories` are given, the
    record has one of them); the title and abstract never count."""
    if not in_categories(record.categories, categories):
        return False
    keys = name_keys(names)
    return any(matches_any(author.name, keys) for author in record.authors)


def in_categories(paper_categories: Iterable[str], wanted: Iterable[str]) -> bool:
    """Whether a paper with `paper_categories` is in one of `wanted`; no wanted ones is any."""
    wanted = set(wanted)
    return not wanted or not wanted.isdisjoint(paper_categories)


class FollowRules:
    """Every follow, matched in one place: which followed ids does a record belong to?"""

    def __init__(self, follows: Iterable[tuple[int, Sequence[str]]] = ()) -> None:
        # A name key's followed ids as a tuple, not a set: 100,000 follows are 100,000 of them,
        # and a tuple of ints is a third of a set's size and never walked by the garbage
        # collector (bench/README.md). A key rarely has more than one id.
        self._by_key: dict[tuple[str, ...], tuple[int, ...]] = {}
        self._categories: dict[int, frozenset[str]] = {}
        self._topics: TopicIndex | None = None
        self.unreadable: list[tuple[int, str, str]] = []  # (followed id, stored topic, why)
        for followed_id, names in follows:
            self.add(followed_id, names)

    @classmethod
    def of(cls, followed: Iterable[Followed]) -> FollowRules:
        """The rules of these follows: persons by their names (in their categories), topics by
        their stored text and categories. Identities are not matched here: their papers come
        from the person's own arXiv feed."""
        rules = cls()
        for follow in followed:
            if follow.kind == FollowKind.TOPIC and follow.topic is not None:
                try:
                    topic = topic_from_stored(follow.topic, follow.categories)
                except WatcherError as error:
                    # One unreadable rule (written by another version) must not stop every
                    # other follow's matching: it is skipped, loudly, at every cycle.
                    rules.unreadable.append((follow.id, follow.topic, str(error)))
                    continue
                rules.add_topic(follow.id, topic)
            elif follow.kind == FollowKind.PERSON:
                rules.add(follow.id, follow.names, follow.categories)
        rules.log_unreadable()
        return rules

    @staticmethod
    def fingerprint(followed: Iterable[Followed]) -> tuple[tuple[object, ...], ...]:
        """Everything `of` reads from the follows, so that rules built once can be kept while
        this stays equal (building them for 100,000 names costs about a second)."""
        return tuple((f.id, f.kind, f.name, f.aliases, f.categories, f.topic) for f in followed)

    def log_unreadable(self) -> None:
        """Say again which stored topics these rules skip: at every cycle that uses them."""
        for followed_id, topic, error in self.unreadable:
            log.error("topic #%d %r cannot be read: %s", followed_id, topic, error)

    def add(self, followed_id: int, names: Sequence[str], categories: Sequence[str] = ()) -> None:
        """Follow a person by these names (display name and aliases), maybe only in some
        categories."""
        for key in name_keys(names):
            ids = self._by_key.get(key, ())
            if followed_id not in ids:
                self._by_key[key] = (*ids, followed_id)
        if categories:
            self._categories[followed_id] = frozenset(categories)

    def __len__(self) -> int:
        return len(self._by_key)

    def match_authors(
        self, author_names: Iterable[str], categories: Iterable[str] = ()
    ) -> frozenset[int]:
        """The followed ids any of these authors is (the same key rule as `is_same_person`),
        leaving out those followed only in other categories than the paper's `categories`."""
        found: set[int] = set()
        for name in author_names:
            found.update(self._by_key.get(name_key(name), ()))
        if found and self._categories:
            paper = frozenset(categories)
            found = {i for i in found if i not in self._categories or self._categories[i] & paper}
        return frozenset(found)

    def add_topic(self, followed_id: int, topic: Topic) -> None:
        """Follow a topic: words and phrases in a title or abstract, in some categories."""
        if self._topics is None:
            self._topics = TopicIndex()
        self._topics.add(followed_id, topic)

    def match(
        self, author_names: Iterable[str], categories: Sequence[str], *, title: str, abstract: str
    ) -> frozenset[int]:
        """Every followed id a paper belongs to: the persons among its authors (in their
        categories) and the topics its title and abstract match (`watcher.follows.topics`)."""
        found = self.match_authors(author_names, categories)
        if self._topics is not None:
            found |= self._topics.match(title, abstract, categories)
        return found
