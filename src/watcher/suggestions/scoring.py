"""Ranking a batch of candidate papers against a profile, with a threshold, and saying why.

A batch (`Batch`) is prepared once for every chat: each candidate becomes a unit-length vector of
term weight x inverse document frequency, kept only as posting lists, one a term, of the
candidates that hold it (indices and weights in two arrays); a term in more than `COMMON` of
all papers gets none, as it tells no candidate from another. Ranking one chat (`rank`) walks the
posting lists of its profile's terms only, so its cost grows with the profile's terms and their
postings in the batch, not with the batch times the vocabulary. The score is the cosine between
the profile (`watcher.suggestions.profile.Profile.vector`) and the candidate: 1 for the same
words in the same proportions, 0 for no word in common, below 0 where 👎'd terms dominate.
Candidates below `THRESHOLD` are not suggested, so a day with nothing close to the chat's reading
suggests nothing.

`explain` says why a candidate was suggested: the profile's example paper it is most like
("like: <title>"), when one is close enough (`LIKE_MIN`), else the words they share that weigh
most in the score.
"""

from __future__ import annotations

import heapq
import math
from array import array
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from watcher.suggestions.frequencies import DocumentFrequencies
from watcher.suggestions.terms import Terms, term_frequencies

# Chosen on the real sample (bench/suggestions.py, bench/README.md): about 1 in 1,000 papers in
# none of the categories an author writes in scores this high against the author's other papers
# (3 in 1,000 of all papers of the month), while a fifth of the author's next papers do.
THRESHOLD = 0.08
# A term in more than this share of all papers ("model", "learn", "data") adds much the same to
# every candidate's score, yet walking its long posting list is most of a ranking's cost: it
# is left out of the comparison (not of the vectors' lengths). bench/README.md has the figures.
COMMON = 0.05
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
    """A paper of the profile that an explanation may name: its title and its vector."""

    title: str
    vector: Vector

    @classmethod
    def of(
        cls, title: str, weights: Mapping[str, float], frequencies: DocumentFrequencies
    ) -> Example:
        """The example of a paper titled `title` with these term weights (`term_frequencies`)."""
        return cls(title=title, vector=weighted(weights, frequencies))


@dataclass(frozen=True, slots=True)
class Explanation:
    """Why a paper was suggested: like one the chat read (`like`, its title), or shared words."""

    like: str | None
    shared: tuple[str, ...]

    def text(self) -> str:
        """ "like: <title>" or "shared: w1, w2, w3"."""
        if self.like is not None:
            return f"like: {self.like}"
        return "shared: " + ", ".join(self.shared)


def weighted(weights: Mapping[str, float], frequencies: DocumentFrequencies) -> dict[str, float]:
    """A paper's vector: each term weight (`term_frequencies`) x idf, scaled to unit length."""
    raw = {term: weight * frequencies.idf(term) for term, weight in weights.items()}
    norm = math.sqrt(sum(value * value for value in raw.values())) or 1.0
    return {term: value / norm for term, value in raw.items()}


def discriminating(
    vector: Vector, frequencies: DocumentFrequencies, common: float = COMMON
) -> dict[str, float]:
    """`vector` without its terms in more than `common` of all papers (its length unchanged)."""
    most = common * frequencies.papers
    counts = frequencies.counts
    return {term: weight for term, weight in vector.items() if counts.get(term, 0) <= most}


class Batch:
    """Candidates prepared for ranking: each term's posting list (candidate indices, weights)."""

    __slots__ = ("postings", "size")

    def __init__(
        self,
        candidates: Sequence[Mapping[str, float]],
        frequencies: DocumentFrequencies,
        *,
        common: float = COMMON,
    ) -> None:
        """`candidates`: each candidate's term weights (`term_frequencies`), in batch order;
        terms in more than `common` of all papers are not compared."""
        self.size = len(candidates)
        postings: dict[str, tuple[array[int], array[float]]] = {}
        for index, weights in enumerate(candidates):
            vector = discriminating(weighted(weights, frequencies), frequencies, common)
            for term, weight in vector.items():
                found = postings.get(term)
                if found is None:
                    found = postings[term] = (array("i"), array("d"))
                found[0].append(index)
                found[1].append(weight)
        self.postings = postings


def scored(profile: Vector, batch: Batch) -> list[float]:
    """The score of every candidate of `batch` for the profile vector, in the batch's order."""
    scores = [0.0] * batch.size
    postings = batch.postings
    for term, weight in profile.items():
        found = postings.get(term)
        if found is None:
            continue
        for index, value in zip(*found, strict=True):
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
    alike, else the `SHARED_WORDS` words that add most to its score (as the candidate writes
    them)."""
    vector = weighted(term_frequencies(candidate), frequencies)
    best_title, best = None, LIKE_MIN
    for example in examples:
        alike = cosine(vector, example.vector)
        if alike >= best:
            best_title, best = example.title, alike
    if best_title is not None:
        return Explanation(like=best_title, shared=())
    shares = {term: weight * profile.get(term, 0.0) for term, weight in vector.items()}
    top = heapq.nlargest(
        SHARED_WORDS, (term for term in shares if shares[term] > 0), key=shares.__getitem__
    )
    return Explanation(like=None, shared=tuple(candidate.words[term] for term in top))
