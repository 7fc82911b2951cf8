"""Ranking a batch of candidate papers against a profile, with a threshold, and saying why.

A batch (`Batch`) is prepared once for every chat: each candidate becomes a unit-length vector of
term weight x inverse document frequency, and each term a posting list of the candidates that
hold it. Ranking one chat (`rank`) walks the posting lists of its profile's terms only, so its
cost grows with the profile's terms and the batch's postings of them, not with the batch times
the vocabulary. The score is the cosine between the profile (`Profile.vector`) and the
candidate: 1 for the same words in the same proportions, 0 for no word in common, below 0 where
👎'd terms dominate. Candidates below `THRESHOLD` are not suggested, so a day with nothing close
to the chat's reading suggests nothing.

`explain` says why a candidate was suggested: the profile's example paper it is most like
("like: <title>"), when one is close enough (`LIKE_MIN`), else the words they share that weigh
most in the score.
"""

from __future__ import annotations

import heapq
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from watcher.suggestions.frequencies import DocumentFrequencies
from watcher.suggestions.terms import Terms, term_frequencies

# Chosen on the real sample (bench/suggestions.py, bench/README.md): about 1 in 1,000 papers of
# a month scores this high against an author's other papers, so most days bring a chat a paper
# or two above it, and a day with nothing near its reading brings none.
THRESHOLD = 0.25
LIKE_MIN = 0.2
SHARED_WORDS = 3

Vector = Mapping[str, float]


@dataclass(frozen=True, slots=True)
class Scored:
    """A candidate of the batch (its index there) and its score."""

    index: int
    score: float


@dataclass(frozen=True, slots=True)
class Example:
    """A paper of the profile that an explanation may name: its title and its terms."""

    title: str
    terms: Terms


@dataclass(frozen=True, slots=True)
class Explanation:
    """Why a paper was suggested: like one the chat read (`like`, its title), or shared words."""

    like: str | None
    shared: tuple[str, ...]

    def text(self) -> str:
        """"like: <title>" or "shared: w1, w2, w3"."""
        if self.like is not None:
            return f"like: {self.like}"
        return "shared: " + ", ".join(self.shared)


def weighted(terms: Terms, idf: Mapping[str, float] | DocumentFrequencies) -> dict[str, float]:
    """A paper's vector: term weight x idf, scaled to unit length."""
    lookup = idf.idf if isinstance(idf, DocumentFrequencies) else idf.__getitem__
    raw = {term: weight * lookup(term) for term, weight in term_frequencies(terms).items()}
    norm = math.sqrt(sum(value * value for value in raw.values())) or 1.0
    return {term: value / norm for term, value in raw.items()}


class Batch:
    """Candidates prepared for ranking: their vectors and each term's posting list."""

    __slots__ = ("idf", "postings", "size", "terms", "vectors")

    def __init__(self, candidates: Sequence[Terms], frequencies: DocumentFrequencies) -> None:
        self.size = len(candidates)
        self.terms = list(candidates)
        self.vectors = [weighted(terms, frequencies) for terms in candidates]
        postings: dict[str, list[tuple[int, float]]] = {}
        for index, vector in enumerate(self.vectors):
            for term, weight in vector.items():
                postings.setdefault(term, []).append((index, weight))
        self.postings = {term: tuple(found) for term, found in postings.items()}
        self.idf = frequencies.idfs(postings)


def scored(profile: Vector, batch: Batch) -> list[float]:
    """The score of every candidate of `batch` for the profile vector, in the batch's order."""
    scores = [0.0] * batch.size
    postings = batch.postings
    for term, weight in profile.items():
        found = postings.get(term)
        if found is None:
            continue
        for index, value in found:
            scores[index] += weight * value
    return scores


def rank(
    profile: Vector, batch: Batch, *, limit: int, threshold: float = THRESHOLD
) -> list[Scored]:
    """The best `limit` candidates of `batch` for the profile vector, best first, each scoring at
    least `threshold`; none when none does."""
    scores = scored(profile, batch)
    best = heapq.nlargest(limit, range(batch.size), key=scores.__getitem__)
    return [Scored(index, scores[index]) for index in best if scores[index] >= threshold]


def cosine(one: Vector, other: Vector) -> float:
    """The cosine of two unit-length vectors."""
    if len(other) < len(one):
        one, other = other, one
    return sum(weight * other.get(term, 0.0) for term, weight in one.items())


def explain(
    candidate: Terms,
    profile: Vector,
    examples: Sequence[Example],
    frequencies: DocumentFrequencies,
) -> Explanation:
    """Why `candidate` suits the profile: the example most like it, if one is at least `LIKE_MIN`
    alike, else the `SHARED_WORDS` words that add most to its score (as the candidate writes them)."""
    vector = weighted(candidate, frequencies)
    best_title, best = None, LIKE_MIN
    for example in examples:
        alike = cosine(vector, weighted(example.terms, frequencies))
        if alike >= best:
            best_title, best = example.title, alike
    if best_title is not None:
        return Explanation(like=best_title, shared=())
    shares = {term: weight * profile.get(term, 0.0) for term, weight in vector.items()}
    top = heapq.nlargest(SHARED_WORDS, (t for t in shares if shares[t] > 0), key=shares.__getitem__)
    return Explanation(like=None, shared=tuple(candidate.words[term] for term in top))
