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

A topic has one canonical text (`Topic.text`: terms folded, deduplicated and sorted), so that
`RDMA "Remote Direct Memory Access"` and `"remote direct memory access" rdma` are one rule
(`Topic.rule_key`); the text keeps the words as typed (folded), not their stems. `TopicIndex`
holds many topics, each under the stem of one of its required words (the longest: long words
are the rare ones), so that matching a record costs one dict lookup per
distinct word of its title and abstract, then a check of the few topics found, however many
topics are followed; a whole-category topic is filed under each of its categories instead.
In API mode a topic becomes one arXiv query (`Topic.query`) of its folded words, not their
stems (arXiv's search stems them itself), whose answers are checked here again.
"""

from __future__ import annotations

import html
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from watcher.errors import UnknownCategory
from watcher.follows.folding import fold
from watcher.follows.rules import MAX_RULE_CATEGORIES, BadRule, parse_categories, with_categories
from watcher.follows.stemming import stems

MAX_TOPIC_LENGTH = 100  # the canonical text is stored as the follow's name, 100 characters
MAX_CATEGORIES = MAX_RULE_CATEGORIES
MAX_TERMS = 10
EXAMPLE = '"remote direct memory access" RDMA in cs.DC'

Phrase = tuple[str, ...]  # folded words, in order; a single word is a phrase of one

_WORD = re.compile(r"[^\W_]+")
# Phones turn " into typographic quotes; they all mean a phrase.
_QUOTES = str.maketrans({"“": '"', "”": '"', "„": '"', "«": '"', "»": '"'})
_TOKEN = re.compile(r'(?P<minus>-?)(?:"(?P<quoted>[^"]*)"|(?P<bare>[^\s"]+))')
_OPERATORS = frozenset({"AND", "OR", "NOT", "ANDNOT"})
# Markup pasted or typed into a topic (`<b>bold</b>`): tags are no words to look for.
_TAG = re.compile(r"</?[A-Za-z][^<>]*>")
# Between the title's words and the abstract's: no phrase runs across it.
_GAP = ""


class TopicError(BadRule):
    """A topic that cannot be followed; the message says why and what would do, in one line."""


class NoCategory(TopicError):
    """A topic given without `in CATEGORY`: /unwatch explains it its own way."""


def words_of(text: str) -> list[str]:
    """The folded words of `text`, in order: letters and digits; everything else separates."""
    return _WORD.findall(fold(text))


@dataclass(frozen=True, slots=True)
class Topic:
    """A followed topic: phrases that must all appear, phrases that must not, categories."""

    required: tuple[Phrase, ...]
    excluded: tuple[Phrase, ...]
    categories: tuple[str, ...]  # canonical ids, sorted
    # What matching compares: the phrases above, word by word as stems (`watcher.follows.stemming`).
    required_stems: tuple[Phrase, ...] = field(init=False, repr=False, compare=False)
    excluded_stems: tuple[Phrase, ...] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "required_stems", tuple(_stemmed(p) for p in self.required))
        object.__setattr__(self, "excluded_stems", tuple(_stemmed(p) for p in self.excluded))

    @property
    def whole(self) -> bool:
        """Whether it is every paper of its categories: no words at all."""
        return not self.required and not self.excluded

    @property
    def phrases(self) -> tuple[Phrase, ...]:
        return tuple(p for p in self.required if len(p) > 1)

    @property
    def words(self) -> tuple[str, ...]:
        return tuple(p[0] for p in self.required if len(p) == 1)

    @property
    def text(self) -> str:
        """The canonical text, without the categories: `"remote direct memory access" rdma -x`."""
        return " ".join(
            [*(_shown(p) for p in self.required), *("-" + _shown(p) for p in self.excluded)]
        )

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
    def key_word(self) -> str:
        """The required word a `TopicIndex` files it under: the longest, the rarest likely."""
        return min((w for p in self.required for w in p), key=lambda w: (-len(w), w))

    @property
    def key_stem(self) -> str:
        """The stem of `key_word`: what a `TopicIndex` looks it up by."""
        return _stemmed((self.key_word,))[0]

    def matches(self, title: str, abstract: str, categories: Iterable[str]) -> bool:
        """Whether a paper with this title, abstract and categories is one of the topic's."""
        return self.matches_text(RecordText(title, abstract), categories)

    def matches_text(self, text: RecordText, categories: Iterable[str]) -> bool:
        if not any(category in self.categories for category in categories):
            return False
        return all(text.has(p) for p in self.required_stems) and not any(
            text.has(p) for p in self.excluded_stems
        )

    @property
    def query(self) -> str:
        """The arXiv API `search_query` finding its papers; the answers are checked again here.

        `(ti:"a b" OR abs:"a b") AND ... AND (cat:cs.DC OR cat:cs.NI) ANDNOT (ti:"x" OR abs:"x")`.
        Folded words hold only letters and digits, so nothing can break out of the quotes.
        """
        terms = [f'(ti:"{" ".join(p)}" OR abs:"{" ".join(p)}")' for p in self.required]
        categories = " OR ".join(f"cat:{category}" for category in self.categories)
        query = " AND ".join([*terms, f"({categories})"])
        for phrase in self.excluded:
            query += f' ANDNOT (ti:"{" ".join(phrase)}" OR abs:"{" ".join(phrase)}")'
        return query


class RecordText:
    """A paper's title and abstract as the stems of their folded words, with what matching
    needs built lazily."""

    __slots__ = ("_positions", "distinct", "sequence")

    def __init__(self, title: str, abstract: str) -> None:
        self.sequence = [*stems(words_of(title)), _GAP, *stems(words_of(abstract))]
        self.distinct = frozenset(self.sequence)
        self._positions: dict[str, list[int]] | None = None

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
        self._by_word: dict[str, list[tuple[int, Topic]]] = {}
        self._by_category: dict[str, list[int]] = {}  # whole-category topics
        self._count = 0
        for followed_id, topic in topics:
            self.add(followed_id, topic)

    def add(self, followed_id: int, topic: Topic) -> None:
        if topic.whole:
            for category in topic.categories:
                self._by_category.setdefault(category, []).append(followed_id)
        else:
            self._by_word.setdefault(topic.key_stem, []).append((followed_id, topic))
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
        for stem in text.distinct:
            for followed_id, topic in self._by_word.get(stem, ()):
                if followed_id not in found and topic.matches_text(text, categories):
                    found.add(followed_id)
        return frozenset(found)


def strip_markup(text: str) -> str:
    """`text` without HTML tags, its entities (`&amp;`) read, spaces tidied: what a topic's
    words are read from, so `<b>RDMA</b>` is the word rdma and not a phrase "b rdma b"."""
    return " ".join(html.unescape(_TAG.sub(" ", text)).split())


def parse_topic(text: str) -> Topic:
    """The topic `text` asks for, e.g. `"remote direct memory access" RDMA -ethernet in cs.DC`.

    HTML tags are left out first (`strip_markup`). Raises TopicError for: nothing to look for,
    excluded words only, no category, more than
    `MAX_CATEGORIES`, an unknown category (with the nearest ones), a quote left open, AND/OR/NOT
    (every term is required; they are no operators here), more than `MAX_TERMS` terms, a term
    both required and excluded, or more than `MAX_TOPIC_LENGTH` characters.
    """
    text = strip_markup(text).translate(_QUOTES)
    if len(text) > MAX_TOPIC_LENGTH:
        raise TopicError(
            f"that topic is too long ({len(text)} characters; at most {MAX_TOPIC_LENGTH})"
        )
    if text.count('"') % 2:
        raise TopicError('a quote is not closed: put each phrase between two "')
    tokens = list(_TOKEN.finditer(text))
    split = next(
        (
            index
            for index in range(len(tokens) - 1, -1, -1)
            if _bare(tokens[index]) and tokens[index]["bare"].casefold() == "in"
        ),
        None,
    )
    terms, wanted = (tokens, []) if split is None else (tokens[:split], tokens[split + 1 :])
    # "in cs.DC" with no words at all: the whole category.
    required, excluded = ((), ()) if split == 0 else _terms(terms)
    raw_categories = [
        part for token in wanted for part in token.group(0).strip('"-').split(",") if part
    ]
    topic = Topic(required=required, excluded=excluded, categories=_categories(raw_categories))
    _refuse_forms_both_ways(topic)
    if len(topic.text) > MAX_TOPIC_LENGTH:  # punctuation inside a word makes it a quoted phrase
        raise TopicError(
            f"that topic is too long ({len(topic.text)} characters as stored; at most "
            f"{MAX_TOPIC_LENGTH})"
        )
    return topic


def topic_from_stored(text: str, categories: Sequence[str]) -> Topic:
    """The topic stored as its canonical `text` and category ids; TopicError if it is not one.

    The categories were checked when the topic was made, and are taken as stored: a category
    the taxonomy has since dropped must not make the stored rule unreadable."""
    tokens = list(_TOKEN.finditer(text))
    required, excluded = _terms(tokens) if tokens or not categories else ((), ())
    return Topic(required=required, excluded=excluded, categories=tuple(sorted(categories)))


def whole_label(categories: Iterable[str]) -> str:
    """How a whole-category topic is shown: `all of cs.DC,cs.NI`."""
    return f"all of {','.join(categories)}"


def _terms(tokens: list[re.Match[str]]) -> tuple[tuple[Phrase, ...], tuple[Phrase, ...]]:
    required: dict[Phrase, None] = {}
    excluded: dict[Phrase, None] = {}
    for token in tokens:
        if _bare(token) and token["bare"] in _OPERATORS:
            raise TopicError(
                f"{token['bare']} is no operator here: every word and phrase must appear, so "
                "watch two topics for papers with either of two words"
            )
        phrase = tuple(words_of(token["quoted"] if token["quoted"] is not None else token["bare"]))
        if phrase:
            (excluded if token["minus"] else required)[phrase] = None
    if not required:
        if excluded:
            raise TopicError(
                "a topic of excluded words only would match nearly everything: add a word or "
                '"quoted phrase" papers must contain'
            )
        raise TopicError(
            'the topic is empty: give the words or "quoted phrases" papers must contain (or '
            "only in and a category, for all of its papers)"
        )
    if len(required) + len(excluded) > MAX_TERMS:
        raise TopicError(
            f"a topic has at most {MAX_TERMS} words and phrases "
            f"({len(required) + len(excluded)} given): keep the ones that matter most"
        )
    both = [phrase for phrase in excluded if phrase in required]
    if both:
        raise TopicError(f"{_shown(both[0])!r} is both required and excluded: keep one of them")
    return tuple(sorted(required, key=_shown)), tuple(sorted(excluded, key=_shown))


def _categories(raw: Sequence[str]) -> tuple[str, ...]:
    """Sorted canonical ids, checked as every follow rule's are (`watcher.follows.rules`), and
    required."""
    if not raw:
        raise NoCategory(
            "at least one category is required (in cs.DC, for example), so that a topic cannot "
            "bring all of arXiv"
        )
    try:
        return tuple(sorted(parse_categories(raw)))
    except UnknownCategory as error:
        near = error.suggestions
        raise TopicError(
            f"{error.category[:40]!r} is not an arXiv category"
            + (
                f"; did you mean {', '.join(near)}?"
                if near
                else " (arxiv.org/category_taxonomy lists them all)"
            )
        ) from error
    except BadRule as error:
        raise TopicError(str(error)) from error


def _refuse_forms_both_ways(topic: Topic) -> None:
    """A new topic that requires and excludes two forms of one term (`network -networks`)
    could never match: refused as the same term both ways is. A stored one is read as it is."""
    for excluded, excluded_stems in zip(topic.excluded, topic.excluded_stems, strict=True):
        for required, required_stems in zip(topic.required, topic.required_stems, strict=True):
            if excluded_stems == required_stems:
                raise TopicError(
                    f"{_shown(excluded)!r} is a form of {_shown(required)!r}, which is required: "
                    "keep one of them"
                )


def _stemmed(phrase: Phrase) -> Phrase:
    return tuple(stems(phrase))


def _bare(token: re.Match[str]) -> bool:
    return token["bare"] is not None and not token["minus"]


def _shown(phrase: Phrase) -> str:
    return phrase[0] if len(phrase) == 1 else '"' + " ".join(phrase) + '"'
