"""Plain-text and JSON views of records, for the command line and the console front end.

Titles and abstracts are shown with their LaTeX made readable (`watcher.arxiv.latex`), as the bot
shows them; the JSON keeps arXiv's own text. `counted` says a count with its noun in the
right number ("1 record", "2 records").
"""

from __future__ import annotations

from typing import Any

from watcher.arxiv.latex import latex_to_text
from watcher.arxiv.records import Record
from watcher.kinds import NewsKind


def counted(count: int, noun: str) -> str:
    """`count` and `noun`, plural unless the count is one: "1 record", "0 records"."""
    return f"{count} {noun}{'' if count == 1 else 's'}"


def summary_line(record: Record) -> str:
    """One line: date, id, primary category, title, first author."""
    authors = record.author_names
    who = authors[0] + (" et al." if len(authors) > 1 else "") if authors else "unknown"
    return (
        f"{record.published:%Y-%m-%d}  {record.versioned_id:<22} {record.primary_category:<8} "
        f"{latex_to_text(record.title)} — {who}"
    )


def describe_record(record: Record, *, kind: NewsKind = NewsKind.NEW) -> str:
    """A paper in full, as the console front end prints it."""
    heading = "New paper" if kind == NewsKind.NEW else f"Updated to v{record.version}"
    lines = [
        f"{heading}: {latex_to_text(record.title)}",
        f"  {', '.join(record.author_names)}",
        f"  {record.primary_category}"
        + (
            f" (also {', '.join(c for c in record.categories if c != record.primary_category)})"
            if len(record.categories) > 1
            else ""
        )
        + f" · submitted {record.published:%Y-%m-%d} · arXiv:{record.versioned_id}",
        *(
            f"  {label}: {value}"
            for label, value in (("MSC", record.msc_class), ("ACM", record.acm_class))
            if value
        ),
        f"  {record.abs_url}",
        "",
        f"  {latex_to_text(record.abstract)}",
        "",
    ]
    return "\n".join(lines)


def record_json(record: Record, *, kind: NewsKind | None = None) -> dict[str, Any]:
    """The JSON object of `--json` output; `kind` (new or revision) only for `poll`."""
    data: dict[str, Any] = {
        "arxiv_id": record.arxiv_id,
        "version": record.version,
        "title": record.title,
        "authors": record.author_names,
        "primary_category": record.primary_category,
        "categories": list(record.categories),
        "published": record.published.isoformat(),
        "updated": record.updated.isoformat(),
        "abstract": record.abstract,
        "abs_url": record.abs_url,
        "pdf_url": record.pdf_url,
        "doi": record.doi,
        "comment": record.comment,
        "journal_ref": record.journal_ref,
        "acm_class": record.acm_class,
        "msc_class": record.msc_class,
    }
    if kind is not None:
        data["kind"] = kind
    return data
