"""A chat's profile: what it reads, as one sparse vector of term weights, updated paper by paper.

Each paper announced to the chat adds its term weights (`watcher.suggestions.terms`, before any
document frequency); 👍 adds them again (`Reading.LIKED`), 👎 subtracts them
(`Reading.DISLIKED`). Recent papers weigh more: a paper's contribution is scaled by
`growth(at)`, which doubles every `HALF_LIFE` from a fixed `EPOCH`. Growing the new instead of
decaying the old gives the same relative weights (a paper half a year older weighs half as much)
while an update touches only the new paper's terms: nothing stored is rewritten as time passes,
and the scale cancels when the profile is compared (`watcher.suggestions.scoring` normalises
it). A paper that leaves the window (the last 365 days) is taken out again with
`Profile.remove` at its own instant.

The profile keeps at most `MAX_TERMS` terms (`Profile.prune`, by weight times inverse document
frequency: the terms that tell this chat's reading apart), and the ids of its last
`EXAMPLES` papers read (not 👎'd), the candidates for "like: <title>" explanations.
"""

from __future__ import annotations

import enum
import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta

from watcher.suggestions.frequencies import DocumentFrequencies

EPOCH = datetime(2025, 1, 1, tzinfo=UTC)
HALF_LIFE = timedelta(days=180)
MAX_TERMS = 400
EXAMPLES = 10
# Below this a weight is what is left of a paper taken out again: no term.
_NEGLIGIBLE = 1e-9


class Reading(enum.Enum):
    """How a paper reached the profile, and how much it counts."""

    ANNOUNCED = "announced"
    LIKED = "liked"
    DISLIKED = "disliked"


READING_WEIGHTS = {
    Reading.ANNOUNCED: 1.0,
    Reading.LIKED: 1.0,  # on top of its announcement: a 👍'd paper counts twice
    Reading.DISLIKED: -1.5,  # outweighs its announcement: a 👎'd paper pushes its terms down
}


def growth(at: datetime) -> float:
    """The scale of a contribution made at `at`: 2 ** ((at - EPOCH) / HALF_LIFE)."""
    return math.pow(2.0, (at - EPOCH) / HALF_LIFE)


@dataclass(slots=True)
class Profile:
    """Term weights (growth-scaled sums) and the ids of the latest papers read, newest last."""

    weights: dict[str, float] = field(default_factory=dict)
    examples: list[str] = field(default_factory=list)

    def add(
        self,
        frequencies: Mapping[str, float],
        *,
        at: datetime,
        reading: Reading = Reading.ANNOUNCED,
        paper_id: str | None = None,
    ) -> None:
        """Add one paper's term weights (`watcher.suggestions.terms.term_frequencies`), read at
        `at`, counted as `reading` says."""
        self._scaled_add(frequencies, READING_WEIGHTS[reading] * growth(at))
        if paper_id is None:
            return
        if paper_id in self.examples:
            self.examples.remove(paper_id)
        if reading is not Reading.DISLIKED:
            self.examples.append(paper_id)
            del self.examples[:-EXAMPLES]

    def remove(
        self,
        frequencies: Mapping[str, float],
        *,
        at: datetime,
        reading: Reading = Reading.ANNOUNCED,
        paper_id: str | None = None,
    ) -> None:
        """Take back what `add` added for this paper at `at` (it left the window)."""
        self._scaled_add(frequencies, -READING_WEIGHTS[reading] * growth(at))
        if paper_id in self.examples:
            self.examples.remove(paper_id)

    def _scaled_add(self, frequencies: Mapping[str, float], scale: float) -> None:
        weights = self.weights
        for term, weight in frequencies.items():
            total = weights.get(term, 0.0) + scale * weight
            if abs(total) <= _NEGLIGIBLE * abs(scale):
                weights.pop(term, None)
            else:
                weights[term] = total

    def prune(self, frequencies: DocumentFrequencies, keep: int = MAX_TERMS) -> None:
        """Keep the `keep` terms of largest |weight| x idf."""
        if len(self.weights) <= keep:
            return
        ranked = sorted(
            self.weights.items(),
            key=lambda item: abs(item[1]) * frequencies.idf(item[0]),
            reverse=True,
        )
        self.weights = dict(ranked[:keep])

    def vector(self, idf: Mapping[str, float] | DocumentFrequencies) -> dict[str, float]:
        """The profile as compared: weight x idf of each term, scaled to unit length."""
        lookup = idf.idf if isinstance(idf, DocumentFrequencies) else idf.__getitem__
        raw = {term: weight * lookup(term) for term, weight in self.weights.items()}
        norm = math.sqrt(sum(value * value for value in raw.values()))
        if norm == 0.0:
            return {}
        return {term: value / norm for term, value in raw.items()}

    @classmethod
    def built(
        cls,
        papers: Iterable[tuple[str, Mapping[str, float], datetime]],
        frequencies: DocumentFrequencies,
    ) -> Profile:
        """A profile of `papers` (id, term weights, when read), all announced, pruned."""
        profile = cls()
        for paper_id, weights, at in sorted(papers, key=lambda paper: paper[2]):
            profile.add(weights, at=at, paper_id=paper_id)
        profile.prune(frequencies)
        return profile
