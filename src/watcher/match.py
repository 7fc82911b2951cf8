"""Match step: decides whether a record is by a followed author, and builds the arXiv queries.

arXiv's own author search is only a first sieve (it lets "D. Dong", "Daoyi Dong" and papers that
merely mention the name through), so every record it returns is checked here against the
author list itself. Two names are the same person when they have the same `name_key`: equal up
to case, accents, punctuation and word order. Nothing fuzzier: an extra or missing name word
("Dezun Dong Li", "D. Dong") is a different person, because announcing a stranger's paper is
worse than asking the user to add an alias.

`FollowRules` holds every follow at once, for the harvest that reads all of arXiv: a dict from
name key to followed ids, so that matching a record costs O(its authors) however many people are
followed. A person followed only in some categories ("Wei Wang in cs.DC,cs.NI") matches a paper
by that name only when one of the paper's categories, primary or cross-list, is among them. A
topic (`watcher.topics`) is matched on the title and abstract, through an index by one of its
words. The rules are the one place where follows are matched, not the store or the handlers.

`check_person_name` is the one rule for a name anyone asks to follow (bot, CLI, WATCH_AUTHORS):
a given name and a family name, so that both arXiv's search and `name_key` can find the person.
"""

from __future__ import annotations

import logging
import unicodedata
from collections.abc import Iterable, Iterator, Sequence
from typing import TYPE_CHECKING
from urllib.parse import quote

from watcher.errors import WatcherError
from watcher.folding import UNDECOMPOSED_LETTERS
from watcher.records import Record

if TYPE_CHECKING:
    from watcher.store import Followed
    from watcher.topics import Topic, TopicIndex

log = logging.getLogger(__name__)
# Joined rather than split, so "De-Zun" and "Dezun", "O'Brien" and "OBrien" agree.
_JOINING_MARKS = frozenset("'’ʼ`´")
_QUERY_OR = " OR "
MAX_NAME_LENGTH = 100
# Besides letters and accents, what real author names carry: "J. R. R. Tolkien", "Jean-Luc",
# "O'Brien", "Dong, Dezun". Anything else ("|", quotes, digits, brackets) is a typo or an attack
# on the arXiv query, so it is refused with an explanation rather than silently dropped.
_NAME_PUNCTUATION = frozenset(" .-'’,")


def check_person_name(name: str) -> str | None:
    """What is wrong with following `name`, in a few words; None when it can be followed.

    A followed name needs a given name and a family name: a single word ("Li") makes arXiv's
    search return a good part of arXiv, page after page, and matches nobody's whole name. At most
    MAX_NAME_LENGTH characters, only letters and the punctuation names use, and it must make an
    arXiv query.
    """
    name = " ".join(name.split())
    if not name:
        return "no name given"
    if len(name) > MAX_NAME_LENGTH:
        return f"that name is too long (at most {MAX_NAME_LENGTH} characters)"
    for character in name:
        category = unicodedata.category(character)
        if character not in _NAME_PUNCTUATION and category[0] not in "LM":
            return "an author name has only letters, spaces and . - ' , in it"
    words = [word for word in name_key(name) if any(c.isalpha() for c in word)]
    if not words:
        return "that does not look like a name"
    if len(words) < 2:
        return "a name needs a given name and a family name, as arXiv lists the author"
    try:
        author_query([name])
    except ValueError:
        return "that name cannot be searched for on arXiv"
    return None


def name_key(name: str) -> tuple[str, ...]:
    """A normalised, order-independent key for a person's name.

    "Dézun Dong", "Dong, Dezun", "DEZUN DONG" and "De-Zun Dong" all give ("dezun", "dong").
    """
    if name.isascii():
        return _ascii_name_key(name)
    return _general_name_key(name)


def _ascii_name_key(name: str) -> tuple[str, ...]:
    """`name_key` of a plain-ASCII name (most names), by one `str.translate`: the same key as
    `_general_name_key`, whose per-character loop costs about ten times as much. The table is
    built from `_general_name_key` itself, character by character."""
    return tuple(sorted(name.lower().translate(_ASCII_NAME_FOLD).split()))


def _general_name_key(name: str) -> tuple[str, ...]:
    """`name_key` of any name: fold (case, NFKD, accents), join on hyphens and apostrophes,
    split on other punctuation, symbols and spaces."""
    folded = unicodedata.normalize("NFKD", name.casefold()).translate(UNDECOMPOSED_LETTERS)
    characters: list[str] = []
    for character in folded:
        category = unicodedata.category(character)
        if category == "Mn" or category == "Pd" or character in _JOINING_MARKS:
            continue  # accents dropped; hyphens and apostrophes join their neighbours
        if category[0] in "PSZC":
            characters.append(" ")  # other punctuation, symbols and spaces separate words
        else:
            characters.append(character)
    return tuple(sorted("".join(characters).split()))


def _ascii_name_fold() -> dict[int, str]:
    """What `_general_name_key` does to each ASCII character, as a `str.translate` table:
    letters and digits kept (lower-cased beforehand), joining marks dropped, the rest a space."""
    table: dict[int, str] = {}
    for code in range(128):
        character = chr(code)
        # A character alone between two letters: kept, dropped (joins) or a separator.
        between = _general_name_key(f"a{character}b")
        if between == ("a" + character.lower() + "b",):
            continue  # kept as it is (lower-cased by the caller)
        table[code] = "" if between == ("ab",) else " "
    return table


_ASCII_NAME_FOLD = _ascii_name_fold()


def is_same_person(author_name: str, names: Sequence[str]) -> bool:
    """True when `author_name` is one of `names` (a followed author's name and aliases)."""
    return _matches_any(author_name, _keys(names))


def record_matches(record: Record, names: Sequence[str], categories: Sequence[str] = ()) -> bool:
    """True when one of the record's authors is the person (and, if `categories` are given, the
    record has one of them); the title and abstract never count."""
    if not in_categories(record.categories, categories):
        return False
    keys = _keys(names)
    return any(_matches_any(author.name, keys) for author in record.authors)


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
        from watcher.topics import topic_from_stored  # see add_topic

        rules = cls()
        for follow in followed:
            if follow.kind == "topic" and follow.topic is not None:
                try:
                    topic = topic_from_stored(follow.topic, follow.categories)
                except WatcherError as error:
                    # One unreadable rule (written by another version) must not stop every
                    # other follow's matching: it is skipped, loudly, at every cycle.
                    rules.unreadable.append((follow.id, follow.topic, str(error)))
                    continue
                rules.add_topic(follow.id, topic)
            elif follow.kind == "person":
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
        for key in _keys(names):
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
        # Imported here: watcher.topics checks categories with watcher.rules, which imports
        # this module for names.
        from watcher.topics import TopicIndex

        if self._topics is None:
            self._topics = TopicIndex()
        self._topics.add(followed_id, topic)

    def match(
        self, author_names: Iterable[str], categories: Sequence[str], *, title: str, abstract: str
    ) -> frozenset[int]:
        """Every followed id a paper belongs to: the persons among its authors (in their
        categories) and the topics its title and abstract match (`watcher.topics`)."""
        found = self.match_authors(author_names, categories)
        if self._topics is not None:
            found |= self._topics.match(title, abstract, categories)
        return found


def author_query(names: Sequence[str]) -> str:
    """The arXiv `search_query` finding papers by any of `names`: 'au:"A B" OR au:"C D"'.

    Names are always quoted whole: unquoted names turn into `all:` searches and underscore forms
    into initials on arXiv's side. Characters that could end the quote or change the query's
    meaning are dropped. Raises ValueError when no usable name is left.
    """
    cleaned: list[str] = []
    seen: set[str] = set()
    for name in names:
        clean = _query_safe(name)
        if clean and clean.casefold() not in seen:
            seen.add(clean.casefold())
            cleaned.append(clean)
    if not cleaned:
        raise ValueError(f"no usable author name in {list(names)!r}")
    return _QUERY_OR.join(f'au:"{name}"' for name in cleaned)


def person_query(names: Sequence[str], categories: Sequence[str] = ()) -> str:
    """`author_query`, narrowed to papers in one of `categories` when there are some:
    '(au:"A B") AND (cat:cs.DC OR cat:cs.NI)'."""
    query = author_query(names)
    if not categories:
        return query
    return f"({query}) AND ({_QUERY_OR.join(f'cat:{c}' for c in categories)})"


def group_queries(
    name_lists: Sequence[Sequence[str]], *, max_query_length: int = 1000
) -> list[list[int]]:
    """Pack followed authors (by index) into groups whose OR-ed query fits `max_query_length`
    (`query_groups`, all of them)."""
    return list(query_groups(name_lists, max_query_length=max_query_length))


def query_groups(
    name_lists: Sequence[Sequence[str]], *, max_query_length: int = 1000
) -> Iterator[list[int]]:
    """Pack followed authors (by index) into groups whose OR-ed query fits `max_query_length`,
    each group as soon as it is complete.

    The length is measured URL-encoded with spaces as %20, the longest encoding a client may
    use, so the query fits however it is sent. Authors keep their order; an author whose own
    query is already too long goes alone. Raises ValueError for an author without usable names.

    The group's length is kept as it grows (each distinct name's term once, a separator between
    two), so packing 100,000 authors reads each name once; building each candidate's query
    took seconds, at every poll tick of `auto` mode.
    """
    separator = _encoded_length(_QUERY_OR)
    current: list[int] = []
    seen: set[str] = set()  # the group's names, casefolded, as `author_query` drops repeats
    count = total = 0  # the group's terms, and their encoded lengths added up
    for index, names in enumerate(name_lists):
        own = _terms(names)
        if not own:
            raise ValueError(f"followed author #{index}: no usable author name in {list(names)!r}")
        added = {name: size for name, size in own.items() if name not in seen}
        joined = total + sum(added.values()) + separator * (count + len(added) - 1)
        if current and joined > max_query_length:
            yield current
            current, seen, count, total = [], set(), 0, 0
            added = own
        current.append(index)
        seen.update(added)
        count, total = count + len(added), total + sum(added.values())
    if current:
        yield current


def _terms(names: Sequence[str]) -> dict[str, int]:
    """The distinct names (casefolded) `author_query` keeps of `names`, and the encoded length
    of each one's term."""
    terms: dict[str, int] = {}
    for name in names:
        clean = _query_safe(name)
        if clean and clean.casefold() not in terms:
            terms[clean.casefold()] = _encoded_length(f'au:"{clean}"')
    return terms


def _keys(names: Iterable[str]) -> frozenset[tuple[str, ...]]:
    return frozenset(key for key in map(name_key, names) if key)


def _matches_any(author_name: str, keys: frozenset[tuple[str, ...]]) -> bool:
    key = name_key(author_name)
    return bool(key) and key in keys


def _query_safe(name: str) -> str:
    """Keep letters, digits and the punctuation real names use; everything else becomes a space."""
    kept = [
        character if unicodedata.category(character)[0] in "LMN" or character in "-'’." else " "
        for character in name
    ]
    return " ".join("".join(kept).split())


def _encoded_length(query: str) -> int:
    return len(quote(query, safe=""))
