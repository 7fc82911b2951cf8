"""A batch's papers as "Suggested for you" keeps them (`suggestion_candidate.record`): a `Record`
as compact JSON and back, the fields a suggestion shows and stores (no affiliations, no ACM or
MSC class: a listing and an OAI-PMH record of a new paper carry what is kept here)."""

from __future__ import annotations

import json
from datetime import UTC, datetime

from watcher.arxiv.records import Author, Record

__all__ = ["record_json", "record_of"]


def record_json(record: Record) -> str:
    """A record as a batch keeps it."""
    return json.dumps(
        {
            "id": record.arxiv_id, "v": record.version, "title": record.title,
            "abstract": record.abstract, "authors": [a.name for a in record.authors],
            "primary": record.primary_category, "categories": list(record.categories),
            "published": record.published.isoformat(), "updated": record.updated.isoformat(),
            "abs": record.abs_url, "pdf": record.pdf_url, "comment": record.comment,
            "journal_ref": record.journal_ref, "doi": record.doi,
        },
        separators=(",", ":"),
    )  # fmt: skip


def record_of(stored: str) -> Record:
    data = json.loads(stored)
    return Record(
        arxiv_id=data["id"],
        version=data["v"],
        title=data["title"],
        abstract=data["abstract"],
        authors=tuple(Author(name) for name in data["authors"]),
        primary_category=data["primary"],
        categories=tuple(data["categories"]),
        published=datetime.fromisoformat(data["published"]).astimezone(UTC),
        updated=datetime.fromisoformat(data["updated"]).astimezone(UTC),
        abs_url=data["abs"],
        pdf_url=data["pdf"],
        comment=data["comment"],
        journal_ref=data["journal_ref"],
        doi=data["doi"],
    )
