"""A paper's terms: the stems of its title and abstract, counted, as the suggestions weigh them.

Words are folded (`watcher.follows.folding`) and stemmed (`watcher.follows.stemming`) the way
topics match them, so "networks" and "Network" are one term. English function words
(`watcher.follows.search_words.STOP_WORDS`), a few words every abstract uses, single letters and
bare numbers are dropped: they tell no paper from another, and each would cost a long posting
list when a batch is scored. The title's terms count twice, as a title says what a paper is about
in fewer words.

A paper's term weights (`term_frequencies`) depend on its text alone, so the store can keep them
with the paper, written once when the paper is saved.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from dataclasses import dataclass

from watcher.follows.folding import fold
from watcher.follows.search_words import STOP_WORDS
from watcher.follows.stemming import stem as stem_of
from watcher.follows.stemming import stems

TITLE_WEIGHT = 2
# Abstract boilerplate (as stems): in most abstracts, whatever they are about.
_COMMON_STEMS = frozenset(
    """
    paper propos present show result method approach use also base introduc novel work demonstr
    achiev outperform experi exist furthermor moreov howev addit well
    """.split()  # noqa: SIM905
)
_WORD = re.compile(r"[^\W_]+")
_DROPPED = STOP_WORDS | {"et", "al", "ie", "eg", "via", "mathcal", "mathbf", "mathrm", "textit"}
# Longer "words" are run-together formulas, sequences or URLs, never shared by two papers; and a
# term is a key of `term_frequency` (200 characters at most on PostgreSQL).
MAX_WORD = 40


@dataclass(frozen=True, slots=True)
class Terms:
    """A text's terms: how often each stem occurs, and the word first seen for it (to show)."""

    counts: dict[str, int]
    words: dict[str, str]


def _words(text: str) -> list[str]:
    return [
        word
        for word in _WORD.findall(fold(text))
        if 1 < len(word) <= MAX_WORD and not word.isdigit() and word not in _DROPPED
    ]


def paper_terms(title: str, abstract: str) -> Terms:
    """The terms of a paper: its title's stems counted `TITLE_WEIGHT` times, then its abstract's."""
    counts: Counter[str] = Counter()
    words: dict[str, str] = {}
    for text, weight in ((title, TITLE_WEIGHT), (abstract, 1)):
        folded = _words(text)
        for word, stem in zip(folded, stems(folded), strict=True):
            if stem in _COMMON_STEMS:
                continue
            # Not interned: a batch's terms reach its posting lists through the JSON the store
            # keeps, and sys.intern's table, which never shrinks, grew to 1.9 MB for one batch.
            counts[stem] += weight
            if stem not in words:
                words[stem] = word
    return Terms(counts=dict(counts), words=words)


def term_frequencies(terms: Terms) -> dict[str, float]:
    """The paper's term weights before any document frequency: sublinear (1 + ln count), scaled
    to unit length, so that a long abstract weighs as much as a short one in a profile."""
    raw = {term: 1.0 + math.log(count) for term, count in terms.counts.items()}
    norm = math.sqrt(sum(weight * weight for weight in raw.values())) or 1.0
    return {term: weight / norm for term, weight in raw.items()}


def shown_word(title: str, abstract: str, term: str) -> str:
    """The word `paper_terms` shows for `term` (a stem) in this paper: the first that has it as
    its stem, the title's first. Only the words sharing the stem's first letters are stemmed
    (a stem keeps its word's first letters nearly always; the rest are tried when none does),
    so that naming a few shared words costs little next to all the paper's terms."""
    words = [*_words(title), *_words(abstract)]
    head = term[:3]
    for word in (w for w in words if w.startswith(head)):
        if stem_of(word) == term:
            return word
    for word in words:
        if stem_of(word) == term:
            return word
    return term


class ShownWords(dict[str, str]):
    """`Terms.words` filled when asked (`shown_word`): for a paper whose counts are stored, to
    explain it without stemming its whole text again."""

    def __init__(self, title: str, abstract: str) -> None:
        super().__init__()
        self._title, self._abstract = title, abstract

    def __missing__(self, term: str) -> str:
        found = self[term] = shown_word(self._title, self._abstract, term)
        return found
