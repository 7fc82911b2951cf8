"""Document frequencies: in how many stored papers each term occurs, kept globally, one count a
term, grown paper by paper as papers are stored (never recounted).

A term's weight in a comparison is its inverse document frequency (`DocumentFrequencies.idf`),
read when a batch is scored, not when a profile is updated: profiles keep raw term weights, so a
profile stays right as the counts grow and need not be rewritten when they do.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field


@dataclass(slots=True)
class DocumentFrequencies:
    """How many papers were counted (`papers`) and how many of them hold each term (`counts`)."""

    papers: int = 0
    counts: dict[str, int] = field(default_factory=dict)

    def add(self, terms: Iterable[str]) -> None:
        """Count one more paper, which holds `terms` (each distinct term once)."""
        self.papers += 1
        counts = self.counts
        for term in terms:
            counts[term] = counts.get(term, 0) + 1

    def idf(self, term: str) -> float:
        """The smoothed inverse document frequency, ln((1 + N) / (1 + df)) + 1: a term no paper
        was counted with weighs most, one in every paper weighs 1."""
        # Computed each time, not cached: a cache keyed by the callers' strings would keep every
        # term of every profile a batch reads alive to its end (bench/README.md, issue 32).
        return math.log((1 + self.papers) / (1 + self.counts.get(term, 0))) + 1.0

    def idfs(self, terms: Iterable[str]) -> dict[str, float]:
        """`idf` of each of `terms`."""
        return {term: self.idf(term) for term in terms}

    @classmethod
    def from_counts(cls, papers: int, counts: Mapping[str, int]) -> DocumentFrequencies:
        """The frequencies as stored: the number of papers and each term's count."""
        return cls(papers=papers, counts=dict(counts))
