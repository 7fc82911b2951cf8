"""How a topic is written: words, "quoted phrases", `-`exclusions, `OR` and parentheses.

`read_topic` turns what a user typed into `Clause`s, each a set of alternatives of which a paper
needs one (or, for an excluded clause, none), and the text after the last `in` outside parentheses
and quotes (the categories, read by `watcher.follows.topics`); `read_stored` reads a stored
canonical text. Only `topics` builds a `Topic` from them; this module knows the syntax and
nothing of matching.

- Side by side, terms are all required: `"graph neural" gpu` needs both.
- `OR`, in capitals, joins alternatives, and binds closer than side by side, as in a web search:
  `"graph neural" gpu OR fpga` is `"graph neural" (gpu OR fpga)`. Parentheses group the
  alternatives and may nest (`(a OR (b OR c))` is `(a OR b OR c)`), but they only hold
  alternatives: `(a b)` is refused rather than read as a conjunction to be OR-ed, so that a topic
  is always "all of these groups, none of those words", which one arXiv query and a one-word
  index can serve.
- `-` excludes a term, or each alternative of a group: `-(survey OR review)` is
  `-review -survey`. An excluded term is no alternative (`a OR -b` is refused).
- A lower-case `or` (or `Or`) typed bare is refused in a new topic: nearly every abstract holds the
  word, so whoever typed it meant `OR`, or wants it inside a quoted phrase. A stored text is folded
  to lower case, so there a bare `or` is the word (topics stored before OR existed) and `OR` the
  operator. `AND`, `NOT` and `ANDNOT` are refused, typed or stored (no canonical text holds them).
- A parenthesis inside a word belongs to it (`O(n)` is the phrase "o n"), so only one that starts
  a term or closes a group groups.

Every refusal is a `TopicError` of one line saying what is wrong and what would do; those about
`OR` and parentheses carry an example of them (`OR_EXAMPLE`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from watcher.follows.folding import fold
from watcher.follows.rules import BadRule
from watcher.sentences import Sentence, sentence

OR = "OR"
OR_EXAMPLE = '"graph neural" (gpu OR fpga) -survey in cs.LG'

Phrase = tuple[str, ...]  # folded words, in order; a single word is a phrase of one

_WORD = re.compile(r"[^\W_]+")
# Capitals that look like operators from other search engines; OR is ours.
_NOT_OURS = {
    "AND": sentence(
        "AND is not needed: words side by side must all appear; OR (in capitals) joins alternatives"
    ),
    "NOT": sentence("NOT is written -word here; OR (in capitals) joins alternatives"),
    "ANDNOT": sentence("ANDNOT is written -word here; OR (in capitals) joins alternatives"),
}


class TopicError(BadRule):
    """A topic that cannot be followed; the message says why and what would do, in one line.
    `example`: a topic that shows what would do, when the usual one would not."""

    def __init__(self, message: Sentence, *, example: str | None = None) -> None:
        super().__init__(message)
        self.example = example


class NoCategory(TopicError):
    """A topic given without `in CATEGORY`: /unwatch explains it its own way."""


def words_of(text: str) -> list[str]:
    """The folded words of `text`, in order: letters and digits; everything else separates."""
    return _WORD.findall(fold(text))


@dataclass(frozen=True, slots=True)
class Clause:
    """Phrases of which a paper must hold one (`excluded`: none), as typed, duplicates kept."""

    alternatives: tuple[Phrase, ...]
    excluded: bool = False


@dataclass(frozen=True, slots=True)
class _Token:
    kind: str  # "term", "or", "open", "close"
    text: str = ""  # a term's text: what is between its quotes, or the bare word
    minus: bool = False
    quoted: bool = False
    end: int = 0  # where it ends in the text read


@dataclass(frozen=True, slots=True)
class Reading:
    """What a topic's text says: its clauses, and what follows its last `in` (None without one;
    an `in` inside quotes or parentheses is a word), and whether anything stood before that `in`
    (`in cs.DC` alone is a whole category; `+ in cs.DC` is an empty topic)."""

    clauses: list[Clause]
    categories: str | None
    typed: bool


def read_topic(text: str) -> Reading:
    """What a user typed, with the refusals meant for it. Quotes must be balanced (checked
    before)."""
    tokens = _tokens(text)
    split = _last_in(tokens)
    terms = tokens if split is None else tokens[:split]
    rest = None if split is None else text[tokens[split].end :]
    return Reading(_Reader(terms, stored=False).clauses(), rest, bool(terms))


def read_stored(text: str) -> list[Clause]:
    """The clauses of a canonical text as the store keeps it (no categories in it; a bare `or`
    there is the word, not a refusal)."""
    return _Reader(_tokens(text), stored=True).clauses()


def _tokens(text: str) -> list[_Token]:
    found: list[_Token] = []
    i, size = 0, len(text)
    while i < size:
        if text[i].isspace():
            i += 1
            continue
        minus = text[i] == "-" and i + 1 < size and not text[i + 1].isspace() and text[i + 1] != ")"
        i += minus
        char = text[i]
        if char in "()":
            found.append(_Token("open" if char == "(" else "close", minus=minus, end=i + 1))
            i += 1
        elif char == '"':
            close = text.find('"', i + 1)
            close = size if close < 0 else close
            found.append(_Token("term", text[i + 1 : close], minus, quoted=True, end=close + 1))
            i = close + 1
        else:
            end, depth = i, 0
            while end < size and not text[end].isspace() and text[end] != '"':
                if text[end] == "(":
                    depth += 1
                elif text[end] == ")":
                    if not depth:
                        break  # closes a group, not a parenthesis of this word
                    depth -= 1
                end += 1
            word = text[i:end]
            kind = "or" if word == OR and not minus else "term"
            found.append(_Token(kind, word, minus, end=end))
            i = end
    return found


def _last_in(tokens: list[_Token]) -> int | None:
    """The last bare `in` outside parentheses, or, when they do not balance (refused then, for
    that), the last bare `in` at all: `(a OR b in cs.DC` is told of its (, not of its `in`."""
    depth, split, anywhere = 0, None, None
    for index, token in enumerate(tokens):
        depth += (token.kind == "open") - (token.kind == "close")
        bare = token.kind == "term" and not token.quoted and not token.minus
        if bare and token.text.casefold() == "in":
            anywhere = index
            split = index if not depth else split
    return split if not depth else anywhere


_DANGLING = sentence("OR needs a word or phrase on each side")
_OPEN = sentence("a ( is not closed: close each group of alternatives with )")
_CLOSE = sentence(
    'a ) closes no (: open each group of alternatives with (; quote a term such as "O(n)"'
)


class _Reader:
    """`topic := clause*`, `clause := [-] item (OR item)*`, `item := term | ( item (OR item)* )`."""

    def __init__(self, tokens: list[_Token], *, stored: bool) -> None:
        self.tokens = tokens
        self.at = 0
        self.stored = stored

    def _peek(self) -> _Token | None:
        return self.tokens[self.at] if self.at < len(self.tokens) else None

    def _refuse(self, message: Sentence) -> TopicError:
        return TopicError(message, example=OR_EXAMPLE)

    def clauses(self) -> list[Clause]:
        found: list[Clause] = []
        while (token := self._peek()) is not None:
            if token.kind == "close":
                raise self._refuse(_CLOSE)
            if token.kind == "or":
                raise self._refuse(_DANGLING)
            alternatives = self._alternatives()
            if alternatives:
                found.append(Clause(tuple(alternatives), excluded=token.minus))
        return found

    def _alternatives(self) -> list[Phrase]:
        """`item (OR item)*`; an empty list for a lone term of no words (`+`), skipped."""
        first = self._peek()
        assert first is not None
        alternatives = self._item()
        while (token := self._peek()) is not None and token.kind == "or":
            self.at += 1
            following = self._peek()
            if following is None or following.kind in ("or", "close") or not alternatives:
                raise self._refuse(_DANGLING)
            if first.minus or following.minus:
                raise self._refuse(
                    sentence(
                        "an excluded word is no alternative: put -word apart, outside the group"
                    )
                )
            more = self._item()
            if not more:
                raise self._refuse(_DANGLING)
            alternatives += more
        return alternatives

    def _item(self) -> list[Phrase]:
        token = self.tokens[self.at]
        self.at += 1
        if token.kind == "term":
            self._check_word(token)
            phrase = tuple(words_of(token.text))
            return [phrase] if phrase else []
        if token.kind != "open":
            raise self._refuse(_CLOSE if token.kind == "close" else _DANGLING)
        inner = self._peek()
        if inner is None:
            raise self._refuse(_OPEN)
        if inner.kind == "close":
            raise self._refuse(sentence("empty parentheses: put the alternatives in them"))
        if inner.kind == "or":
            raise self._refuse(_DANGLING)
        if inner.minus:
            raise self._refuse(
                sentence("an excluded word is no alternative: put -word outside the group")
            )
        alternatives = self._alternatives()
        closing = self._peek()
        if closing is None:
            raise self._refuse(_OPEN)
        if closing.kind != "close":  # side by side after alternatives: `(a OR b c)`
            raise self._refuse(
                sentence(
                    "inside parentheses put OR between the alternatives; words that must all "
                    "appear need no parentheses"
                )
            )
        self.at += 1
        if not alternatives:
            raise self._refuse(
                sentence("the parentheses hold no word: put the alternatives in them")
            )
        return alternatives

    def _check_word(self, token: _Token) -> None:
        if token.quoted or token.minus:
            return
        if token.text in _NOT_OURS:  # in a stored text too: a canonical text is lower case
            raise self._refuse(_NOT_OURS[token.text])
        if not self.stored and token.text.casefold() == "or":
            raise self._refuse(
                sentence(
                    'write OR in capitals for either of two words, or quote a "phrase with {word}"',
                    word=token.text,
                )
            )
