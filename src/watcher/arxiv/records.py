"""The domain record: one arXiv paper as the API describes it, free of feed and database types.

Everything downstream of the parser (matching, storing, rendering) speaks in `Record`s.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import UTC, datetime

# What a revision can change, as `Record.changes` names it: the order a message lists them in.
CHANGEABLE = ("title", "authors", "abstract", "categories", "comment", "journal_ref", "doi")


@dataclass(frozen=True, slots=True)
class Author:
    """One author of a paper, in the order arXiv lists them."""

    name: str
    affiliations: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Record:
    """One arXiv paper at one version.

    `arxiv_id` never carries the version ("2604.01234", "astro-ph/0601001"); `version` does.
    `published` is the v1 date and `updated` the current version's; both are timezone-aware UTC.
    `categories` are arXiv taxonomy ids only, the primary one first. The ACM and MSC classes the
    authors gave (which the API lists as extra categories) are free text in `acm_class` and
    `msc_class`.
    """

    arxiv_id: str
    version: int
    title: str
    abstract: str
    authors: tuple[Author, ...]
    primary_category: str
    categories: tuple[str, ...]
    published: datetime
    updated: datetime
    abs_url: str
    pdf_url: str
    comment: str | None = None
    journal_ref: str | None = None
    doi: str | None = None
    acm_class: str | None = None
    msc_class: str | None = None
    # What this version changed from the one stored before it (`CHANGEABLE`), as the store saw
    # it; None for a first version or when unknown. Not part of the paper's identity.
    changes: frozenset[str] | None = field(default=None, compare=False)

    @property
    def author_names(self) -> list[str]:
        return [author.name for author in self.authors]

    @property
    def versioned_id(self) -> str:
        return f"{self.arxiv_id}v{self.version}"


# -- the order of announcement -------------------------------------------------------------
# arXiv gives a paper its identifier when it announces it ("The final arXiv identifier is
# assigned as part of the automated process when the work is announced", arXiv/arxiv-docs
# source/help/availability.md), so new-style ids (YYMM.NNNN, YYMM.NNNNN since 1501) run in the
# order of announcement, whatever the submission (v1) date says: a paper held in moderation
# for a week is announced with a week-old date and a new id. Old-style ids (hep-th/9901001)
# ended in March 2007.
_NEW_STYLE = re.compile(r"(\d{2})(0[1-9]|1[0-2])\.(\d{4,5})")


def announcement_order(arxiv_id: str) -> tuple[int, int] | None:
    """(YYMM, number) of a new-style id, which sorts as arXiv announced them; None for an
    old-style id: "2612.00042" -> (2612, 42), "0704.0001" -> (704, 1), "hep-th/9901001" -> None.
    """
    match = _NEW_STYLE.fullmatch(arxiv_id)
    if match is None:
        return None
    year, month, number = match.groups()
    return int(year) * 100 + int(month), int(number)


def announced_after(arxiv_id: str, horizon: str) -> bool:
    """Whether arXiv announced `arxiv_id` after `horizon` (both new-style; an old-style id never
    was: it is older than every new-style one)."""
    order, limit = announcement_order(arxiv_id), announcement_order(horizon)
    return order is not None and (limit is None or order > limit)


def start_floor(when: datetime) -> str:
    """The id before every id arXiv announces from `when` on, when nothing else is known: the
    first of January of the year before `when`'s: 2026-12-03 -> "2501.00000". Low on purpose:
    it serves only a follow that started on a store holding no paper at all, where too high a
    floor would lose papers; too low a one lets a paper of the last year or two count as new
    (a person claiming last year's paper in their arXiv account), never a paper of years ago."""
    return f"{(when.astimezone(UTC).year - 1) % 100:02d}01.00000"
