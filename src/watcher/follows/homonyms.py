"""The homonym guard's judgement: does a name look like several people?

Before a chat follows a bare name, the API source reads how many papers arXiv lists under it
and a bounded sample of them (`ApiSource.survey`, one request). A name looks like several
people when arXiv lists more than `MANY_PAPERS` papers under it, or when the sample's papers
(by their primary category) span `MANY_FIELDS` fields or more, such as cs, math and physics.

A field is the archive, the part of a category before the dot ("cs" for cs.DC, "math" for
math.OC), except that the physics archives are one field: "hep-th", "hep-ph", "gr-qc",
"astro-ph", "cond-mat", "quant-ph" and the like are separate archives, and one physicist often
writes in three of them. Pure: no I/O.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from watcher.arxiv.records import Record
from watcher.follows.match import record_matches

MANY_PAPERS = 300
MANY_FIELDS = 3
SURVEY_SAMPLE = 100  # papers read to see the categories: one API page
OFFERED_CATEGORIES = 3
# arXiv's physics group: archives with no dot of their own, or "physics.*".
_PHYSICS_ARCHIVES = frozenset(
    {
        "astro-ph", "cond-mat", "gr-qc", "hep-ex", "hep-lat", "hep-ph", "hep-th", "math-ph",
        "nlin", "nucl-ex", "nucl-th", "physics", "quant-ph",
        # retired archives, found on old papers
        "acc-phys", "ao-sci", "atom-ph", "bayes-an", "chem-ph", "plasm-ph", "supr-con",
        "chao-dyn", "adap-org", "comp-gas", "patt-sol", "solv-int", "mtrl-th",
    }
)  # fmt: skip


def archive_of(category: str) -> str:
    """The archive of a category: "cs" for cs.DC, "astro-ph" for astro-ph.CO, "hep-th" itself."""
    return category.split(".", 1)[0]


def field_of(category: str) -> str:
    """The field a category counts for: its archive, every physics archive being "physics"."""
    archive = archive_of(category)
    return "physics" if archive in _PHYSICS_ARCHIVES else archive


@dataclass(frozen=True, slots=True)
class NameSurvey:
    """What arXiv lists under a name: the total, and the primary categories of a sample."""

    total: int
    categories: tuple[tuple[str, int], ...] = ()  # most common first, ties by name

    @property
    def fields(self) -> frozenset[str]:
        return frozenset(field_of(category) for category, _ in self.categories)

    @property
    def several_people(self) -> bool:
        """Whether the name looks like more than one person."""
        return self.total > MANY_PAPERS or len(self.fields) >= MANY_FIELDS

    def top_categories(self, count: int = OFFERED_CATEGORIES) -> list[str]:
        return [category for category, _ in self.categories[:count]]


def survey_of(total: int, sample: Iterable[Record], names: Sequence[str]) -> NameSurvey:
    """The survey of a name from arXiv's total and a sample of its results; only the sample's
    papers really by one of `names` count (arXiv's search lets look-alikes through)."""
    counts = Counter(r.primary_category for r in sample if record_matches(r, names))
    ranked = sorted(counts.items(), key=lambda item: (-item[1], item[0]))
    return NameSurvey(total=total, categories=tuple(ranked))
