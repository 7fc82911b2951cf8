"""Topics: follow the papers whose title or abstract holds some words, in some categories.

`"remote direct memory access" RDMA -ethernet in cs.DC,cs.NI` is a topic: a paper matches when
one of its categories (primary or cross-list) is one of the topic's, its title or abstract holds
every quoted phrase and every word, and none of the `-`excluded ones. Matching is whole-word,
ignores case and accents (`watcher.follows.folding`) and compares words by their stems
(`watcher.follows.stemming`, the English Snowball stemmer): "network" matches "networks" and
"Network", "RDMA" matches "rdma" and "RDMA-based", never "RDMAX"; a phrase is its words one
after the other, stem by stem, so "peer-to-peer" and "peer to peer" agree, and "interconnection
network" finds "Interconnection Networks". The stems are taken when matching, never stored:
topics stored before stemming are read and shown as they were, and match word forms too.

At least one category is required and at most `MAX_CATEGORIES` are allowed, so that a topic
cannot flood a chat with all of arXiv. A topic of categories alone (`in cs.DC`, no words) is a
*whole-category* topic: every paper of those categories (`Topic.whole`; its text is empty, and it
is shown as `all of cs.DC`). `parse_topic` refuses anything else with a `TopicError` whose message
is one line saying what is wrong and what would be right.

Words may have alternatives: `"graph neural" (gpu OR fpga) -survey in cs.LG` needs the phrase,
one of gpu and fpga, and not survey (`watcher.follows.topic_syntax` reads the syntax). A topic is
always "every one of these groups, none of those": required phrases, groups of alternatives
(`Topic.alternatives`, two or more each), excluded phrases.

A topic has one canonical text (`Topic.text`: terms folded, deduplicated and sorted, alternatives
sorted in parentheses, a group holding a required term or another group dropped as implied), so
that `RDMA "Remote Direct Memory Access"` and `"remote direct memory access" rdma` are one rule
(`Topic.rule_key`), and so are `rdma OR infiniband` and `(InfiniBand OR RDMA)`; the text keeps the
words as typed (folded), not their stems. `TopicIndex` holds many topics, each under the stem of
one of its required words (the longest: long words are the rare ones), or, when every required
term has alternatives, under the key stem of each alternative of its most selective group (the
fewest alternatives), so that matching a record costs one dict lookup per distinct word of its
title and abstract, then a check of the few topics found, however many topics are followed; a
whole-category topic is filed under each of its categories instead. In API mode a topic becomes
one arXiv query (`Topic.query`, with OR between alternatives) of its folded words, not their
stems (arXiv's search stems them itself), whose answers are checked here again.
"""

from __future__ import annotations

import html
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from watcher.errors import UnknownCategory
from watcher.follows.rules import MAX_RULE_CATEGORIES, BadRule, parse_categories, with_categories
from watcher.follows.stemming import stems
from watcher.follows.topic_syntax import (
    OR_EXAMPLE,
    Clause,
    NoCategory,
    Phrase,
    TopicError,
    read_stored,
    read_topic,
    words_of,
)
from watcher.sentences import sentence

__all__ = [
    "EXAMPLE",
    "MAX_CATEGORIES",
    "MAX_TERMS",
    "MAX_TOPIC_LENGTH",
    "OR_EXAMPLE",
    "NoCategory",
    "Phrase",
    "RecordText",
    "Topic",
    "TopicError",
    "TopicIndex",
    "parse_topic",
    "strip_markup",
    "topic_from_stored",
    "whole_label",
    "words_of",
]

MAX_TOPIC_LENGTH = 100  # the canonical text is stored as the follow's name, 100 characters
MAX_CATEGORIES = MAX_RULE_CATEGORIES
MAX_TERMS = 10
EXAMPLE = '"remote direct memory access" RDMA in cs.DC'

Group = tuple[Phrase, ...]  # alternatives, of which a paper needs one

# Phones turn " into typographic quotes; they all mean a phrase.
_QUOTES = str.maketrans({"“": '"', "”": '"', "„": '"', "«": '"', "»": '"'})
_TOKEN = re.compile(r'(?P<minus>-?)(?:"(?P<quoted>[^"]*)"|(?P<bare>[^\s"]+))')
# Markup pasted or typed into a topic (`<b>bold</b>`): tags are no words to look for.
_TAG = re.compile(r"</?[A-Za-z][^<>]*>")
# Between the title's words and the abstract's: no phrase runs across it.
_GAP = ""


@dataclass(frozen=True, slots=True)
class Topic:
    """A followed topic: phrases that must all appear, groups of which one phrase each must,
    phrases that must not, categories."""

    required: tuple[Phrase, ...]
    excluded: tuple[Phrase, ...]
    categories: tuple[str, ...]  # canonical ids, sorted
    alternatives: tuple[Group, ...] = ()  # each of two phrases or more, sorted; sorted
    # What matching compares: the phrases above, word by word as stems (`watcher.follows.stemming`).
    required_stems: tuple[Phrase, ...] = field(init=False, repr=False, compare=False)
    excluded_stems: tuple[Phrase, ...] = field(init=False, repr=False, compare=False)
    alternative_stems: tuple[Group, ...] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "required_stems", tuple(_stemmed(p) for p in self.required))
        object.__setattr__(self, "excluded_stems", tuple(_stemmed(p) for p in self.excluded))
        object.__setattr__(
            self,
            "alternative_stems",
            tuple(tuple(_stemmed(p) for p in group) for group in self.alternatives),
        )

    @property
    def whole(self) -> bool:
        """Whether it is every paper of its categories: no words at all."""
        return not self.required and not self.excluded and not self.alternatives

    @property
    def phrases(self) -> tuple[Phrase, ...]:
        return tuple(p for p in self.required if len(p) > 1)

    @property
    def words(self) -> tuple[str, ...]:
        return tuple(p[0] for p in self.required if len(p) == 1)

    @property
    def text(self) -> str:
        """The canonical text, without the categories: `"remote direct memory access" rdma -x`,
        `"graph neural" (fpga OR gpu) -survey`."""
        wanted = sorted([*map(_shown, self.required), *map(_shown_group, self.alternatives)])
        return " ".join([*wanted, *("-" + _shown(p) for p in self.excluded)])

    @property
    def rule_key(self) -> str:
        """The unique key of this rule among all follows (`followed_author.rule_key`)."""
        return f"topic:{self}"

    def __str__(self) -> str:
        """As a follow rule is shown: `rdma in cs.DC,cs.NI`
        (`watcher.follows.rules.with_categories`), or `all of cs.DC,cs.NI` for a whole-category
        topic (`whole_label`)."""
        if self.whole:
            return whole_label(self.categories)
        return with_categories(self.text, self.categories)

    @property
    def key_words(self) -> tuple[str, ...]:
        """The words a `TopicIndex` files it under, one of which every match holds: the longest
        required word (the rarest likely), or, with alternatives only, the longest word of each
        alternative of the group with the fewest (then the longest such words)."""
        if self.required:
            return (_key_word(w for p in self.required for w in p),)
        group = min(
            self.alternatives,
            key=lambda g: (len(g), -min(len(_key_word(p)) for p in g), _shown_group(g)),
        )
        return tuple(dict.fromkeys(_key_word(p) for p in group))

    @property
    def key_stems(self) -> tuple[str, ...]:
        """The stems of `key_words`, each once: what a `TopicIndex` looks it up by."""
        return tuple(dict.fromkeys(_stemmed(self.key_words)))

    def matches(self, title: str, abstract: str, categories: Iterable[str]) -> bool:
        """Whether a paper with this title, abstract and categories is one of the topic's."""
        return self.matches_text(RecordText(title, abstract), categories)

    def matches_text(self, text: RecordText, categories: Iterable[str]) -> bool:
        if not any(category in self.categories for category in categories):
            return False
        return (
            all(text.has(p) for p in self.required_stems)
            and all(any(text.has(p) for p in group) for group in self.alternative_stems)
            and not any(text.has(p) for p in self.excluded_stems)
        )

    @property
    def query(self) -> str:
        """The arXiv API `search_query` finding its papers; the answers are checked again here.

        `(ti:"a b" OR abs:"a b") AND (ti:"c" OR abs:"c" OR ti:"d" OR abs:"d") AND ... AND
        (cat:cs.DC OR cat:cs.NI) ANDNOT (ti:"x" OR abs:"x")`: every group in parentheses, since
        arXiv's manual says nothing of precedence. Folded words hold only letters and digits, so
        nothing can break out of the quotes.
        """
        terms = [_either((p,)) for p in self.required]
        terms += [_either(group) for group in self.alternatives]
        categories = " OR ".join(f"cat:{category}" for category in self.categories)
        query = " AND ".join([*terms, f"({categories})"])
        for phrase in self.excluded:
            query += f" ANDNOT {_either((phrase,))}"
        return query


class RecordText:
    """A paper's title and abstract as the stems of their folded words, with what matching
    needs built lazily."""

    __slots__ = ("_positions", "distinct", "sequence")

    def __init__(self, title: str, abstract: str) -> None:
        self.sequence = [*stems(words_of(title)), _GAP, *stems(words_of(abstract))]
        self.distinct = frozenset(self.sequence)
        self._positions: dict[str, list[int]] | None = None

    @staticmethod
    def phrase_stems(phrase: Phrase) -> Phrase:
        """The stems `has` compares a phrase of folded words by."""
        return _stemmed(phrase)

    def has(self, phrase: Phrase) -> bool:
        """Whether the stems of `phrase` appear one after the other (one stem: anywhere)."""
        if any(word not in self.distinct for word in phrase):
            return False
        if len(phrase) == 1:
            return True
        if self._positions is None:
            self._positions = {}
            for index, word in enumerate(self.sequence):
                self._positions.setdefault(word, []).append(index)
        width = len(phrase)
        return any(
            tuple(self.sequence[start : start + width]) == phrase
            for start in self._positions[phrase[0]]
        )


class TopicIndex:
    """Many followed topics, matched against a record at once, each filed under a stem."""

    def __init__(self, topics: Iterable[tuple[int, Topic]] = ()) -> None:
        # (followed id, topic, whether it is filed under other stems too)
        self._by_word: dict[str, list[tuple[int, Topic, bool]]] = {}
        self._by_category: dict[str, list[int]] = {}  # whole-category topics
        self._count = 0
        for followed_id, topic in topics:
            self.add(followed_id, topic)

    def add(self, followed_id: int, topic: Topic) -> None:
        if topic.whole:
            for category in topic.categories:
                self._by_category.setdefault(category, []).append(followed_id)
        else:
            stems = topic.key_stems
            for stem in stems:
                self._by_word.setdefault(stem, []).append((followed_id, topic, len(stems) > 1))
        self._count += 1

    def __len__(self) -> int:
        return self._count

    def match(self, title: str, abstract: str, categories: Sequence[str]) -> frozenset[int]:
        """The followed ids of the topics this paper matches."""
        if not self._count:
            return frozenset()
        found = {i for category in categories for i in self._by_category.get(category, ())}
        if not self._by_word:
            return frozenset(found)
        text = RecordText(title, abstract)
        tried: set[int] = set()  # topics filed under several stems, each checked once
        for stem in text.distinct:
            for followed_id, topic, several in self._by_word.get(stem, ()):
                if followed_id in found:
                    continue
                if several:
                    if followed_id in tried:
                        continue
                    tried.add(followed_id)
                if topic.matches_text(text, categories):
                    found.add(followed_id)
        return frozenset(found)


def strip_markup(text: str) -> str:
    """`text` without HTML tags, its entities (`&amp;`) read, spaces tidied: what a topic's
    words are read from, so `<b>RDMA</b>` is the word rdma and not a phrase "b rdma b"."""
    return " ".join(html.unescape(_TAG.sub(" ", text)).split())


def parse_topic(text: str) -> Topic:
    """The topic `text` asks for, e.g. `"remote direct memory access" RDMA -ethernet in cs.DC`,
    `"graph neural" (gpu OR fpga) -survey in cs.LG`.

    HTML tags are left out first (`strip_markup`). Raises TopicError for: nothing to look for,
    excluded words only, no category, more than `MAX_CATEGORIES`, an unknown category (with the
    nearest ones), a quote left open, what `watcher.follows.topic_syntax` refuses (a parenthesis
    left open or closing none, empty parentheses, an OR without a term on each side, AND/NOT,
    a lower-case or), more than `MAX_TERMS` terms (each alternative one), a term both required
    (or an alternative) and excluded, or more than `MAX_TOPIC_LENGTH` characters.
    """
    text = strip_markup(text).translate(_QUOTES)
    if len(text) > MAX_TOPIC_LENGTH:
        raise TopicError(
            sentence(
                "that topic is too long ({count} characters; at most {most})",
                count=len(text),
                most=MAX_TOPIC_LENGTH,
            )
        )
    if text.count('"') % 2:
        raise TopicError(sentence('a quote is not closed: put each phrase between two "'))
    reading = read_topic(text)
    # "in cs.DC" with no words at all: the whole category.
    whole = reading.categories is not None and not reading.typed
    required, excluded, alternatives = ((), (), ()) if whole else _terms(reading.clauses)
    raw_categories = [
        part
        for token in _TOKEN.finditer(reading.categories or "")
        for part in token.group(0).strip('"-').split(",")
        if part
    ]
    topic = Topic(
        required=required,
        excluded=excluded,
        categories=_categories(raw_categories),
        alternatives=alternatives,
    )
    _refuse_forms_both_ways(topic)
    if len(topic.text) > MAX_TOPIC_LENGTH:  # punctuation inside a word makes it a quoted phrase
        raise TopicError(
            sentence(
                "that topic is too long ({count} characters as stored; at most {most})",
                count=len(topic.text),
                most=MAX_TOPIC_LENGTH,
            )
        )
    return topic


def topic_from_stored(text: str, categories: Sequence[str]) -> Topic:
    """The topic stored as its canonical `text` and category ids; TopicError if it is not one.

    The categories were checked when the topic was made, and are taken as stored: a category
    the taxonomy has since dropped must not make the stored rule unreadable."""
    clauses = read_stored(text)
    required, excluded, alternatives = (
        _terms(clauses) if clauses or not categories else ((), (), ())
    )
    return Topic(
        required=required,
        excluded=excluded,
        categories=tuple(sorted(categories)),
        alternatives=alternatives,
    )


def whole_label(categories: Iterable[str]) -> str:
    """How a whole-category topic is shown: `all of cs.DC,cs.NI`."""
    return f"all of {','.join(categories)}"


def _terms(
    clauses: Iterable[Clause],
) -> tuple[tuple[Phrase, ...], tuple[Phrase, ...], tuple[Group, ...]]:
    """Required phrases, excluded ones and groups of alternatives, each sorted, each once; a group
    of one is a required phrase, and a group that holds a required phrase or all of another
    group is implied, so left out (one canonical form for equivalent topics)."""
    required: dict[Phrase, None] = {}
    excluded: dict[Phrase, None] = {}
    groups: dict[Group, None] = {}
    for clause in clauses:
        if clause.excluded:
            excluded.update(dict.fromkeys(clause.alternatives))
            continue
        group = tuple(sorted(set(clause.alternatives), key=_shown))
        if len(group) == 1:
            required[group[0]] = None
        else:
            groups[group] = None
    kept = [g for g in groups if not any(phrase in required for phrase in g)]
    kept = [g for g in kept if not any(set(other) < set(g) for other in kept)]
    if not required and not kept:
        if excluded:
            raise TopicError(
                sentence(
                    "a topic of excluded words only would match nearly everything: add a word or "
                    '"quoted phrase" papers must contain'
                )
            )
        raise TopicError(
            sentence(
                'the topic is empty: give the words or "quoted phrases" papers must contain (or '
                "only in and a category, for all of its papers)"
            )
        )
    count = len(required) + sum(len(g) for g in kept) + len(excluded)
    if count > MAX_TERMS:
        raise TopicError(
            sentence(
                "a topic has at most {most} words and phrases, each alternative one "
                "({count} given): keep the ones that matter most",
                most=MAX_TERMS,
                count=count,
            )
        )
    both = [phrase for phrase in excluded if phrase in required]
    if both:
        raise TopicError(
            sentence(
                "{term} is both required and excluded: keep one of them", term=repr(_shown(both[0]))
            )
        )
    both = [phrase for phrase in excluded if any(phrase in g for g in kept)]
    if both:
        raise TopicError(
            sentence(
                "{term} is both an alternative and excluded: keep one of them",
                term=repr(_shown(both[0])),
            )
        )
    return (
        tuple(sorted(required, key=_shown)),
        tuple(sorted(excluded, key=_shown)),
        tuple(sorted(kept, key=_shown_group)),
    )


def _categories(raw: Sequence[str]) -> tuple[str, ...]:
    """Sorted canonical ids, checked as every follow rule's are (`watcher.follows.rules`), and
    required."""
    if not raw:
        raise NoCategory(
            sentence(
                "at least one category is required (in cs.DC, for example), so that a topic "
                "cannot bring all of arXiv"
            )
        )
    try:
        return tuple(sorted(parse_categories(raw)))
    except UnknownCategory as error:
        near = error.suggestions
        shown = repr(error.category[:40])
        raise TopicError(
            sentence(
                "{category} is not an arXiv category; did you mean {suggestions}?",
                category=shown,
                suggestions=", ".join(near),
            )
            if near
            else sentence(
                "{category} is not an arXiv category (arxiv.org/category_taxonomy lists them all)",
                category=shown,
            )
        ) from error
    except BadRule as error:
        raise TopicError(error.sentence) from error


def _refuse_forms_both_ways(topic: Topic) -> None:
    """A new topic that requires and excludes two forms of one term (`network -networks`)
    could never match: refused as the same term both ways is. A stored one is read as it is."""
    wanted = [(p, s, True) for p, s in zip(topic.required, topic.required_stems, strict=True)]
    wanted += [
        (phrase, stemmed, False)
        for group, group_stems in zip(topic.alternatives, topic.alternative_stems, strict=True)
        for phrase, stemmed in zip(group, group_stems, strict=True)
    ]
    for excluded, excluded_stems in zip(topic.excluded, topic.excluded_stems, strict=True):
        for required, required_stems, is_required in wanted:
            if excluded_stems == required_stems:
                raise TopicError(
                    sentence(
                        "{excluded} is a form of {term}, which is required: keep one of them",
                        excluded=repr(_shown(excluded)),
                        term=repr(_shown(required)),
                    )
                    if is_required
                    else sentence(
                        "{excluded} is a form of {term}, an alternative: keep one of them",
                        excluded=repr(_shown(excluded)),
                        term=repr(_shown(required)),
                    )
                )


def _stemmed(phrase: Phrase) -> Phrase:
    return tuple(stems(phrase))


def _key_word(words: Iterable[str]) -> str:
    return min(words, key=lambda w: (-len(w), w))


def _shown(phrase: Phrase) -> str:
    return phrase[0] if len(phrase) == 1 else '"' + " ".join(phrase) + '"'


def _shown_group(group: Group) -> str:
    return "(" + " OR ".join(map(_shown, group)) + ")"


def _either(group: Group) -> str:
    """The query part finding a paper whose title or abstract holds one of these phrases."""
    return "(" + " OR ".join(f'ti:"{" ".join(p)}" OR abs:"{" ".join(p)}"' for p in group) + ")"
