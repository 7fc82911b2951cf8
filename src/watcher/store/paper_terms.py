"""Each paper's terms and the document frequencies, inside the caller's transaction (issue 32).

A paper's term counts (`watcher.suggestions.terms.paper_terms`: the stems of its title and
abstract) are computed once and kept by arXiv id (`paper_terms`); the first writer of a row
counts the paper in `term_frequency`, in the same transaction. Whoever needs a paper's terms
first writes them: the batch of a mailing (`watcher.store.suggesting`, for its papers, mostly
never stored), or a profile or an explanation needing a stored paper (`weights_of`). The save
keeps none (most papers a follow brings are in some mailing's batch anyway, and a service with
no chat taking suggestions would pay for nothing); a revision it stores that changes the title
or abstract of a paper whose terms are kept replaces them and moves the frequencies from the
old terms to the new (`reword`).

The frequencies change only by `papers = papers + delta`, in one statement whose rows come from
a JSON parameter, in the terms' order: two writers at once add up and never deadlock.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime

from sqlalchemy import select as sa_select
from sqlalchemy import text
from sqlmodel import Session, col, select

from watcher.store.dialects import upsert_into
from watcher.store.suggestion_tables import ALL_TERMS, PaperTerms, TermFrequency
from watcher.store.tables import Paper
from watcher.suggestions.frequencies import DocumentFrequencies
from watcher.suggestions.terms import Terms, paper_terms, term_frequencies

_PER_READ = 500  # ids per IN (...): well below the databases' bound parameters

# `papers = papers + delta` for each term of a JSON object {term: delta}.
_ADD_FREQUENCIES = {
    "sqlite": "INSERT INTO term_frequency (term, papers) "
    "SELECT key, value FROM json_each(:deltas) WHERE true ORDER BY key "
    "ON CONFLICT (term) DO UPDATE SET papers = term_frequency.papers + excluded.papers",
    "postgresql": "INSERT INTO term_frequency (term, papers) "
    "SELECT key, CAST(value AS bigint) FROM json_each_text(CAST(:deltas AS json)) ORDER BY key "
    "ON CONFLICT (term) DO UPDATE SET papers = term_frequency.papers + excluded.papers",
}


def terms_of(title: str, abstract: str) -> Terms:
    """A paper's terms, as counted and kept."""
    return paper_terms(title, abstract)


def counts_json(terms: Terms) -> str:
    return json.dumps(terms.counts, separators=(",", ":"), sort_keys=True)


def weights_from(counts: Mapping[str, int]) -> dict[str, float]:
    """A paper's term weights (`term_frequencies`) from its stored counts."""
    return term_frequencies(Terms(counts=dict(counts), words={}))


def add_frequencies(session: Session, deltas: Mapping[str, int]) -> None:
    """Add each delta to its term's count (`ALL_TERMS`: the papers counted), creating rows."""
    kept = {term: delta for term, delta in deltas.items() if delta}
    if not kept:
        return
    dialect = session.get_bind().dialect.name
    session.execute(
        text(_ADD_FREQUENCIES[dialect]), {"deltas": json.dumps(kept, separators=(",", ":"))}
    )


def count_papers(
    session: Session, papers: Iterable[tuple[str, str]], *, now: datetime
) -> list[str]:
    """Keep the terms of the papers (arXiv id, term counts as `counts_json` writes them) not
    kept yet, and count them in the frequencies. Returns the arXiv ids counted here (those
    another writer kept are not)."""
    rows = dict(papers)
    if not rows:
        return []
    dialect = session.get_bind().dialect.name
    table = PaperTerms.__table__  # type: ignore[attr-defined]
    # One statement run for many rows (not a VALUES list of many rows: each length would be
    # another statement compiled and cached).
    insert = (
        upsert_into(dialect, table)
        .on_conflict_do_nothing(index_elements=["arxiv_id"])
        .returning(table.c.arxiv_id)
    )
    counted: list[str] = []
    ids = sorted(rows)
    for start in range(0, len(ids), _PER_READ):
        part = ids[start : start + _PER_READ]
        counted += session.scalars(
            insert,
            [{"arxiv_id": a, "counts": rows[a], "counted_at": now} for a in part],
        ).all()
    deltas: Counter[str] = Counter()
    for arxiv_id in counted:
        deltas.update(json.loads(rows[arxiv_id]).keys())
    deltas[ALL_TERMS] += len(counted)
    add_frequencies(session, deltas)
    return counted


def reword(session: Session, texts: Mapping[str, tuple[str, str]]) -> None:
    """A revision changed these papers' title or abstract (arXiv id: (title, abstract)): those
    whose terms are kept get the new ones, and the frequencies move from the old terms to the
    new. A paper not kept yet stays so: whoever needs it keeps it as it then reads."""
    if not texts:
        return
    ids = sorted(texts)
    deltas: Counter[str] = Counter()
    for start in range(0, len(ids), _PER_READ):
        part = ids[start : start + _PER_READ]
        for row in session.exec(select(PaperTerms).where(col(PaperTerms.arxiv_id).in_(part))):
            new = terms_of(*texts[row.arxiv_id])
            deltas.subtract(json.loads(row.counts).keys())
            deltas.update(new.counts.keys())
            row.counts = counts_json(new)
            session.add(row)
    add_frequencies(session, deltas)


def frequencies(session: Session, terms: Iterable[str] | None = None) -> DocumentFrequencies:
    """The document frequencies: of every term, or only of `terms` (and the papers counted)."""
    papers = session.get(TermFrequency, ALL_TERMS)
    counts: dict[str, int] = {}
    if terms is None:
        every = select(TermFrequency.term, TermFrequency.papers).execution_options(yield_per=2000)
        for term, count in session.exec(every):
            if term != ALL_TERMS:
                counts[term] = count
    else:
        wanted = sorted(set(terms) - {ALL_TERMS})
        for start in range(0, len(wanted), _PER_READ):
            part = wanted[start : start + _PER_READ]
            counts.update(
                session.exec(
                    select(TermFrequency.term, TermFrequency.papers).where(
                        col(TermFrequency.term).in_(part)
                    )
                ).all()
            )
    # Not `from_counts`, which copies: the frequencies are the largest thing a batch reads.
    return DocumentFrequencies(papers=papers.papers if papers else 0, counts=counts)


def counts_by_arxiv_id(session: Session, arxiv_ids: Sequence[str]) -> dict[str, str]:
    """The kept term counts of these papers (those kept), as `counts_json` wrote them."""
    found: dict[str, str] = {}
    ids = sorted(set(arxiv_ids))
    for start in range(0, len(ids), _PER_READ):
        part = ids[start : start + _PER_READ]
        for arxiv_id, counts in session.exec(
            select(PaperTerms.arxiv_id, PaperTerms.counts).where(col(PaperTerms.arxiv_id).in_(part))
        ):
            found[arxiv_id] = counts
    return found


def weights_of(
    session: Session, paper_ids: Iterable[int], *, now: datetime
) -> dict[int, tuple[str, dict[str, float]]]:
    """Stored papers' titles and term weights, by paper id. A paper whose terms are not kept
    yet (no batch read it, or it was stored before migration 0034) gets them now, and is
    counted."""
    ids = sorted(set(paper_ids))
    found: dict[int, tuple[str, dict[str, float]]] = {}
    missing: list[int] = []
    for start in range(0, len(ids), _PER_READ):
        part = ids[start : start + _PER_READ]
        rows = session.execute(
            sa_select(col(Paper.id), col(Paper.title), col(PaperTerms.counts))
            .outerjoin(PaperTerms, col(PaperTerms.arxiv_id) == col(Paper.arxiv_id))
            .where(col(Paper.id).in_(part))
        ).all()
        for paper_id, title, counts in rows:
            assert paper_id is not None
            if counts is None:
                missing.append(paper_id)
            else:
                found[paper_id] = (title, weights_from(json.loads(counts)))
    kept: list[tuple[str, str]] = []
    for start in range(0, len(missing), _PER_READ):
        for paper_id, arxiv_id, title, abstract in session.exec(
            select(Paper.id, Paper.arxiv_id, Paper.title, Paper.abstract).where(
                col(Paper.id).in_(missing[start : start + _PER_READ])
            )
        ):
            assert paper_id is not None
            terms = terms_of(title, abstract)
            kept.append((arxiv_id, counts_json(terms)))
            found[paper_id] = (title, term_frequencies(terms))
    count_papers(session, kept, now=now)
    return found
