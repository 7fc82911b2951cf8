"""The domain record: one arXiv paper as the API describes it, free of feed and database types.

Everything downstream of the parser (matching, storing, rendering) speaks in `Record`s.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

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
