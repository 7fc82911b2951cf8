"""arXiv's category taxonomy: is `cs.dc` a category, what is it called, what did you mean.

Read once from the packaged `data/arxiv-taxonomy.tsv` (see `data/README.md` for its origin).
"""

from __future__ import annotations

import csv
import difflib
import functools
import re
from importlib.resources import files

from watcher.errors import UnknownCategory

# The shape of an arXiv category id: an archive ("hep-th", "math", "cond-mat"), then maybe a
# subject class ("cs.DC", "astro-ph.CO", "cond-mat.mtrl-sci"). ACM classes ("H.5.4; H.3.5") and
# MSC classes ("Primary 05C50, 15A18") never have it. The longest real id has 17 characters.
_CATEGORY_ID = re.compile(r"[a-z]+(?:-[a-z]+)*(?:\.[A-Za-z]+(?:-[A-Za-z]+)*)?")
MAX_CATEGORY_ID_LENGTH = 40


def is_category_id(term: str) -> bool:
    """Whether `term` is shaped like an arXiv category id, known or not: "cs.DC", and also a
    future "cs.XX"; but not "H.5.4" (ACM) or "05C50" (MSC)."""
    return len(term) <= MAX_CATEGORY_ID_LENGTH and _CATEGORY_ID.fullmatch(term) is not None


def is_paper_category(term: str) -> bool:
    """Whether a `category term=` of a paper is an arXiv category rather than an ACM or MSC class.

    Shape alone cannot tell a lone archive from a one-word ACM class: "software" and "networks"
    are words of the 2012 ACM classification, and lowercase. The archives that have no subject
    classes are all hyphenated ("hep-th", "quant-ph", and retired ones such as "alg-geom"), so a
    term without a dot is a category only with a hyphen.
    """
    return is_category_id(term) and ("." in term or "-" in term)


@functools.cache
def categories() -> dict[str, str]:
    """Every active category id mapped to its name, e.g. "cs.DC" → "Distributed, ..."."""
    text = files("watcher").joinpath("data/arxiv-taxonomy.tsv").read_text(encoding="utf-8")
    rows = csv.DictReader(text.splitlines(), delimiter="\t")
    return {row["id"]: row["name"] for row in rows}


@functools.cache
def _by_folded_id() -> dict[str, str]:
    return {category.casefold(): category for category in categories()}


def category_name(category: str) -> str | None:
    return categories().get(category)


def resolve_category(text: str) -> str:
    """The canonical id for `text`, ignoring case ("cs.dc" → "cs.DC").

    Raises UnknownCategory with close matches (by id, or by words of the name) otherwise.
    """
    wanted = text.strip()
    found = _by_folded_id().get(wanted.casefold())
    if found:
        return found
    raise UnknownCategory(wanted[:40], suggest_categories(wanted))


def suggest_categories(text: str, *, limit: int = 3) -> list[str]:
    folded = text.strip().casefold()
    by_id = difflib.get_close_matches(folded, list(_by_folded_id()), n=limit, cutoff=0.6)
    suggestions = [_by_folded_id()[match] for match in by_id]
    if len(suggestions) < limit and len(folded) >= 3:
        suggestions += [
            category
            for category, name in categories().items()
            if folded in name.casefold() and category not in suggestions
        ][: limit - len(suggestions)]
    if not suggestions and "." in folded:
        archive = folded.split(".", 1)[0]
        suggestions = [c for c in categories() if c.casefold().startswith(archive + ".")][:limit]
    return suggestions
