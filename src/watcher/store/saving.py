"""Writing a batch of records in a few set-based statements, for `Store.save_records`.

One query finds which of the batch's arXiv ids are stored and at which version, one which of
those papers are linked to which followed authors, one which author names exist. Everything
else is multi-row: INSERTs of new papers, their categories, authors and links (COPY on
PostgreSQL); UPDATEs by primary key of revised papers and links; DELETEs of the revised papers'
old details. A 2,000-record page costs a dozen statements instead of some 20,000.

The outcome is exactly that of storing the records one after the other, in order: a record
twice in one batch is stored once, and a higher version later in the batch is a revision of it.
The caller judges nothing here; it gets, per record, which followed authors found it new (linked
to it for the first time) and which found it revised, the paper's v1 date, and whether the
stored paper was at an older version: whether a first link is news is the caller's to say, and
the deliveries of a paper whose version rose wait for the new one (`watcher.store.papers`).

The counts of papers (`paper_count`: all, and per category) change in the same transaction, by
what was inserted and what the DELETE of a revised paper's old categories returned, so they stay
exact whatever the revisions do to the categories. They are added with `papers = papers + d`
(an upsert), in the order of their keys: two writers at once add up and never deadlock.

A paper stored at a newer version records what changed from the version stored before it
(`paper.changes`: title, authors, abstract, categories, comment, journal reference, DOI), which
a revision's message shows; a metadata update of the same version adds to it.

Each new paper's terms are kept and counted for the suggestions (`watcher.store.paper_terms`),
and a revision that changes the title or abstract replaces them, in the same transaction.

`paper_match_category` (a link times its paper's categories, for a chat's questions within a
category) is rewritten, in the same transaction, for every paper whose categories were
replaced or that got a new link, from what `paper_match` and `paper_category` then hold; a
link's rows go with it by cascade.
"""

from __future__ import annotations

import hashlib
from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, TypeVar

from sqlalchemy import Connection, Table, bindparam, delete, insert, text, update
from sqlalchemy.exc import DBAPIError
from sqlmodel import Session, col, select

from watcher.arxiv import records
from watcher.follows.names import name_key
from watcher.store import paper_terms
from watcher.store.tables import (
    ALL_PAPERS,
    Author,
    Paper,
    PaperAuthor,
    PaperCategory,
    PaperMatch,
    PaperMatchCategory,
    utcnow,
)

_T = TypeVar("_T")
# Ids in one IN (...) list: well below SQLite's and PostgreSQL's limits on bound parameters.
IN_CHUNK = 500

# What a version of a paper carries in the `paper` row itself (its id and v1 date never change).
_VERSIONED_FIELDS = (
    "version", "title", "abstract", "primary_category", "updated", "abs_url", "pdf_url",
    "comment", "journal_ref", "doi", "acm_class", "msc_class",
)  # fmt: skip


def _carried(paper: Paper | records.Record) -> tuple[Any, ...]:
    return tuple(getattr(paper, name) for name in _VERSIONED_FIELDS)


def name_digest(name: str) -> str:
    """What keeps `author.name` unique: its SHA-256, hex (PostgreSQL cannot index long text)."""
    return hashlib.sha256(name.encode("utf-8")).hexdigest()


def key_digest(name: str) -> str:
    """`author.key_digest`: the SHA-256 (hex) of `name`'s `name_key`, its words joined by
    spaces; equal for every spelling of one person ("Zoë Müller", "muller, zoe")."""
    return hashlib.sha256(" ".join(name_key(name)).encode("utf-8")).hexdigest()


@dataclass(frozen=True, slots=True)
class Linked:
    """What storing one record of the batch did for the followed authors it belongs to."""

    paper_id: int
    new_for: frozenset[int]
    revised_for: frozenset[int]
    published: datetime  # the paper's v1 date, as stored
    raised: bool = False  # the stored paper was at an older version: this record replaced it
    stored: bool = False  # the paper was stored before the batch


def write_batch(
    session: Session, batch: Sequence[tuple[records.Record, frozenset[int]]]
) -> list[Linked]:
    """Store `batch` (records already `storable`, with their followed authors' ids) in
    `session`, uncommitted. Returns one `Linked` per record, in order."""
    arxiv_ids = list(dict.fromkeys(record.arxiv_id for record, _ in batch))
    paper_ids: dict[str, int] = {}
    versions: dict[str, int] = {}
    published: dict[str, datetime] = {}
    carried: dict[str, tuple[Any, ...]] = {}  # what each stored paper's row says now
    stored_versions: dict[str, int] = {}  # the version of each paper stored before the batch
    stored_changes: dict[str, str | None] = {}  # and what that version had changed
    for chunk in _chunks(arxiv_ids):
        for paper in session.exec(select(Paper).where(col(Paper.arxiv_id).in_(chunk))):
            assert paper.id is not None
            arxiv_id = paper.arxiv_id
            paper_ids[arxiv_id], versions[arxiv_id], published[arxiv_id] = (
                paper.id,
                paper.version,
                paper.published,
            )
            carried[arxiv_id] = _carried(paper)
            stored_versions[arxiv_id] = paper.version
            stored_changes[arxiv_id] = paper.changes
    stored_ids = list(paper_ids.values())
    before = dict(carried)

    # Paper rows, in the batch's order: what each paper ends up carrying is its newest version.
    written: dict[str, records.Record] = {}
    new: list[str] = []
    for record, _ in batch:
        known = versions.get(record.arxiv_id)
        if known is None:
            new.append(record.arxiv_id)
            published[record.arxiv_id] = record.published
        elif record.version < known or (
            record.version == known and carried.get(record.arxiv_id) == _carried(record)
        ):
            continue
        # A same-version record that differs is a metadata update (a DOI or journal reference
        # added): stored, and as neither new nor a revision, announced to nobody.
        carried[record.arxiv_id] = _carried(record)
        versions[record.arxiv_id] = record.version
        written[record.arxiv_id] = record
    revised = [arxiv_id for arxiv_id in written if arxiv_id in paper_ids]
    changes = _changes(session, {a: paper_ids[a] for a in revised}, written, before)
    for arxiv_id in revised:
        if written[arxiv_id].version == stored_versions[arxiv_id]:
            # A metadata update of the same version adds to what that version changed.
            earlier = (stored_changes[arxiv_id] or "").split(",")
            changes[arxiv_id] = _joined(set(earlier) | set(changes[arxiv_id].split(",")))
    removed = _write_papers(session, new=[written[a] for a in new], revised=revised,
                            written=written, paper_ids=paper_ids, published=published,
                            changes=changes)  # fmt: skip
    added = _write_details(session, [written[a] for a in written], paper_ids, published)
    _reword_terms(session, revised=revised, written=written, changes=changes)
    counts = Counter(added)
    counts.subtract(removed)
    counts[ALL_PAPERS] += len(new)
    _add_to_counts(session, counts)

    # Links, in the batch's order, from the ones stored before it.
    links: dict[tuple[int, int], int] = {}
    for some_ids in _chunks(stored_ids):
        for paper_id, followed_id, version in session.exec(
            select(PaperMatch.paper_id, PaperMatch.followed_author_id, PaperMatch.version).where(
                col(PaperMatch.paper_id).in_(some_ids)
            )
        ):
            links[paper_id, followed_id] = version
    inserted: dict[tuple[int, int], int] = {}
    raised: dict[tuple[int, int], int] = {}
    outcome = []
    for record, followed_ids in batch:
        paper_id = paper_ids[record.arxiv_id]
        new_for, revised_for = set(), set()
        for followed_id in followed_ids:
            key = (paper_id, followed_id)
            seen = links.get(key)
            if seen is None:
                new_for.add(followed_id)
                inserted[key] = record.version
            elif record.version > seen:
                revised_for.add(followed_id)
                (inserted if key in inserted else raised)[key] = record.version
            else:
                continue
            links[key] = record.version
        newer = record.version > stored_versions.get(record.arxiv_id, record.version)
        outcome.append(
            Linked(
                paper_id, frozenset(new_for), frozenset(revised_for), published[record.arxiv_id],
                newer, record.arxiv_id in stored_versions,
            )
        )  # fmt: skip
    paper_dates = {paper_ids[a]: published[a] for a in paper_ids}
    _insert(session, PaperMatch, [
        {"paper_id": p, "followed_author_id": f, "version": v, "published": paper_dates[p]}
        for (p, f), v in inserted.items()
    ])  # fmt: skip
    if raised:
        session.execute(
            update(PaperMatch),
            [
                {"paper_id": p, "followed_author_id": f, "version": v}
                for (p, f), v in raised.items()
            ],
        )
    # Whose categories may have changed: every paper written (its categories were replaced)
    # and every paper with a new link.
    _relink_categories(session, {paper_ids[a] for a in written} | {p for p, _ in inserted})
    return outcome


def _reword_terms(
    session: Session,
    *,
    revised: list[str],
    written: dict[str, records.Record],
    changes: dict[str, str],
) -> None:
    """A revision that changed a paper's title or abstract replaces the suggestions' terms kept
    for it (`watcher.store.paper_terms.reword`), if any were. The save keeps no terms of its
    own: a paper's are first kept by whoever needs them, a batch or a profile."""
    paper_terms.reword(
        session,
        {
            arxiv_id: (written[arxiv_id].title, written[arxiv_id].abstract)
            for arxiv_id in revised
            if {"title", "abstract"} & set(changes[arxiv_id].split(","))
        },
    )


# The same statement on SQLite and PostgreSQL. "WHERE" keeps SQLite from reading ON CONFLICT
# as a join's ON; DO NOTHING lets a writer at once on the same paper add the same rows.
_LINK_CATEGORIES = text(
    "INSERT INTO paper_match_category (followed_author_id, category, published, paper_id) "
    "SELECT m.followed_author_id, c.category, c.published, c.paper_id "
    "FROM paper_match m JOIN paper_category c ON c.paper_id = m.paper_id "
    "WHERE m.paper_id IN :paper_ids ON CONFLICT DO NOTHING"
).bindparams(bindparam("paper_ids", expanding=True))


def _relink_categories(session: Session, paper_ids: set[int]) -> None:
    """Make `paper_match_category` of these papers what their links and categories now are:
    their rows removed, then written again from `paper_match` and `paper_category`."""
    for some_ids in _chunks(sorted(paper_ids)):
        session.execute(
            delete(PaperMatchCategory).where(col(PaperMatchCategory.paper_id).in_(some_ids))
        )
        session.execute(_LINK_CATEGORIES, {"paper_ids": list(some_ids)})


def _write_papers(
    session: Session,
    *,
    new: list[records.Record],
    revised: list[str],
    written: dict[str, records.Record],
    paper_ids: dict[str, int],
    published: dict[str, datetime],
    changes: dict[str, str],
) -> list[str]:
    """Insert the new papers (their ids go into `paper_ids`); update the revised ones and
    remove their old authors and categories, which their new version replaces. Returns the
    categories removed, one entry per paper."""
    first_seen = utcnow()
    _insert(session, Paper, [
        {"arxiv_id": r.arxiv_id, "published": published[r.arxiv_id], "first_seen": first_seen,
         **_versioned(r)}
        for r in new
    ])  # fmt: skip
    for chunk in _chunks([r.arxiv_id for r in new]):
        for paper_id, arxiv_id in session.exec(
            select(Paper.id, Paper.arxiv_id).where(col(Paper.arxiv_id).in_(chunk))
        ):
            assert paper_id is not None
            paper_ids[arxiv_id] = paper_id
    if not revised:
        return []
    session.execute(
        update(Paper),
        [{"id": paper_ids[a], "changes": changes[a], **_versioned(written[a])} for a in revised],
    )
    removed: list[str] = []
    for some_ids in _chunks([paper_ids[a] for a in revised]):
        removed += session.scalars(
            delete(PaperCategory)
            .where(col(PaperCategory.paper_id).in_(some_ids))
            .returning(col(PaperCategory.category))
        )
        session.execute(delete(PaperAuthor).where(col(PaperAuthor.paper_id).in_(some_ids)))
    return removed


def _changes(
    session: Session,
    revised: dict[str, int],
    written: dict[str, records.Record],
    before: dict[str, tuple[Any, ...]],
) -> dict[str, str]:
    """What each revised paper's new record changes from its stored row (arXiv id → the ","
    joined names of `records.CHANGEABLE`), its stored authors and categories read here."""
    ids = list(revised.values())
    authors: dict[int, list[str]] = {paper_id: [] for paper_id in ids}
    categories: dict[int, list[str]] = {paper_id: [] for paper_id in ids}
    for some_ids in _chunks(ids):
        for paper_id, name in session.exec(
            select(PaperAuthor.paper_id, Author.name)
            .join(Author, col(Author.id) == col(PaperAuthor.author_id))
            .where(col(PaperAuthor.paper_id).in_(some_ids))
            .order_by(col(PaperAuthor.paper_id), col(PaperAuthor.position))
        ):
            authors[paper_id].append(name)
        for paper_id, category in session.exec(
            select(PaperCategory.paper_id, PaperCategory.category)
            .where(col(PaperCategory.paper_id).in_(some_ids))
            .order_by(col(PaperCategory.paper_id), col(PaperCategory.position))
        ):
            categories[paper_id].append(category)
    found: dict[str, str] = {}
    for arxiv_id, paper_id in revised.items():
        record, old = written[arxiv_id], dict(zip(_VERSIONED_FIELDS, before[arxiv_id], strict=True))
        changed = {
            name for name in ("title", "abstract", "comment", "journal_ref", "doi")
            if _tidy(getattr(record, name)) != _tidy(old[name])
        }  # fmt: skip
        if [a.name for a in record.authors] != authors[paper_id]:
            changed.add("authors")
        old_categories = categories[paper_id] or [old["primary_category"]]
        new_categories = [record.primary_category, *record.categories]
        if old_categories[0] != record.primary_category or set(old_categories) != set(
            new_categories
        ):
            changed.add("categories")
        found[arxiv_id] = _joined(changed)
    return found


def _tidy(text: str | None) -> str:
    """Text as a reader compares it: runs of white space are one space, none is empty."""
    return " ".join((text or "").split())


def _joined(names: set[str]) -> str:
    return ",".join(name for name in records.CHANGEABLE if name in names)


def _write_details(
    session: Session,
    written: list[records.Record],
    paper_ids: dict[str, int],
    published: dict[str, datetime],
) -> list[str]:
    """The categories (primary first) and the ordered authors of each written record. Returns
    the categories inserted, one entry per paper."""
    author_ids = _author_ids(session, (a.name for r in written for a in r.authors))
    categories, authors = [], []
    for record in written:
        paper_id, v1_date = paper_ids[record.arxiv_id], published[record.arxiv_id]
        ordered = [record.primary_category] + [
            c for c in dict.fromkeys(record.categories) if c != record.primary_category
        ]
        categories += [
            {"paper_id": paper_id, "category": c, "position": p, "published": v1_date}
            for p, c in enumerate(ordered)
        ]
        authors += [
            {
                "paper_id": paper_id,
                "position": position,
                "author_id": author_ids[author.name],
                "affiliations": "\n".join(author.affiliations) or None,
                "published": v1_date,
            }
            for position, author in enumerate(record.authors)
        ]
    _insert(session, PaperCategory, categories)
    _insert(session, PaperAuthor, authors)
    return [str(row["category"]) for row in categories]


# The same statement on SQLite and PostgreSQL.
_ADD_TO_COUNT = text(
    "INSERT INTO paper_count (scope, papers) VALUES (:scope, :papers) "
    "ON CONFLICT (scope) DO UPDATE SET papers = paper_count.papers + excluded.papers"
)


def _add_to_counts(session: Session, counts: Counter[str]) -> None:
    """`papers = papers + delta` for each changed scope, creating missing rows (an upsert)."""
    rows = [{"scope": scope, "papers": delta} for scope, delta in sorted(counts.items()) if delta]
    if not rows:
        return
    session.execute(_ADD_TO_COUNT, rows)


def _author_ids(session: Session, names: Iterable[str]) -> dict[str, int]:
    """The author row of each name, created where missing (names are unique by digest)."""
    by_digest = {name_digest(name): name for name in dict.fromkeys(names)}
    ids: dict[str, int] = {}

    def read() -> None:
        for chunk in _chunks([d for d in by_digest if by_digest[d] not in ids]):
            for author_id, digest in session.exec(
                select(Author.id, Author.name_digest).where(col(Author.name_digest).in_(chunk))
            ):
                assert author_id is not None
                ids[by_digest[digest]] = author_id

    read()
    missing = [
        {"name": n, "name_digest": d, "key_digest": key_digest(n)}
        for d, n in by_digest.items()
        if n not in ids
    ]
    if missing:
        _insert(session, Author, missing)
        read()
    return ids


def _versioned(record: records.Record) -> dict[str, Any]:
    return {name: getattr(record, name) for name in _VERSIONED_FIELDS}


def _insert(session: Session, model: type[Any], rows: list[dict[str, Any]]) -> None:
    """Insert `rows` into the model's table: a multi-row INSERT (Core: the ORM's bulk path adds
    about 15% to a save for nothing we use), or PostgreSQL's COPY (`_copy`)."""
    if not rows:
        return
    table: Table = model.__table__
    connection = session.connection()
    if connection.dialect.name == "postgresql":
        _copy(connection, table, rows)
    else:
        connection.execute(insert(table), rows)


def _copy(connection: Connection, table: Table, rows: list[dict[str, Any]]) -> None:
    """`COPY table FROM STDIN` of `rows`, in the connection's transaction: one stream, where an
    INSERT of many rows is a statement a row on PostgreSQL (bench/README.md). Each value goes
    through its column's bind processing and a driver's error comes out as SQLAlchemy's, as
    with an INSERT."""
    dialect = connection.dialect
    names = list(rows[0])
    processors = [table.c[name].type.bind_processor(dialect) for name in names]
    quote = dialect.identifier_preparer.quote
    statement = (
        f"COPY {dialect.identifier_preparer.format_table(table)} "
        f"({', '.join(quote(name) for name in names)}) FROM STDIN"
    )
    driver = connection.connection.driver_connection
    assert driver is not None
    try:
        with driver.cursor() as cursor, cursor.copy(statement) as copy:
            for row in rows:
                copy.write_row(
                    [
                        process(row[name]) if process else row[name]
                        for name, process in zip(names, processors, strict=True)
                    ]
                )
    except dialect.loaded_dbapi.Error as error:
        raise DBAPIError.instance(statement, None, error, dialect.loaded_dbapi.Error) from error


def _chunks(items: Sequence[_T]) -> Iterator[Sequence[_T]]:
    for start in range(0, len(items), IN_CHUNK):
        yield items[start : start + IN_CHUNK]
