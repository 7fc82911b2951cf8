"""Inline mode's reads (`@bot NAME`, `@bot` alone): a person's newest stored papers by their
exact name, and the newest papers announced to one chat. Never a scan of the author names.

A name is found by one of two indexed paths, and only the same person (`watcher.follows.names`:
equal `name_key`, the homonym guard of every follow) is ever answered:
- when the name alone is followed (its `rule_key`, unique), that follow's `paper_match` rows,
  newest first on their own index: every paper its polls found, each with an author of exactly
  that key (whatever accents or hyphens arXiv wrote), the person's whole history;
- else (or while that follow has found nothing yet) the `author` rows of every spelling of the
  name, by `key_digest` (the digest of its `name_key`: "zoe muller" finds the "Zoë Müller" and
  "Müller, Zoë" arXiv wrote, never "Zoey Muller"), and each one's newest papers on
  `paper_author`'s index (author_id, published, paper_id): a few index entries per spelling,
  however many papers the person wrote.
`bench/queries.py` times both ("inline name"; bench/README.md has the figures).
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import Engine
from sqlmodel import Session, col, select

from watcher.arxiv import records
from watcher.follows.names import name_key
from watcher.follows.rules import rule_key
from watcher.kinds import FollowKind
from watcher.store.rows import load_records
from watcher.store.saving import key_digest
from watcher.store.tables import (
    AnnouncedPaper,
    Author,
    FollowedAuthor,
    Paper,
    PaperAuthor,
    PaperMatch,
)


class NameStore:
    """Inline mode's reads. Each method is one transaction."""

    engine: Engine

    def papers_by_name(self, name: str, *, limit: int) -> list[records.Record]:
        """The newest `limit` stored papers one of whose authors is `name` (equal `name_key`),
        newest first (v1 date, then arXiv id)."""
        key = name_key(name)
        if not key:
            return []
        newest = (col(Paper.published).desc(), col(Paper.arxiv_id).desc())
        with Session(self.engine) as session:
            followed = session.exec(
                select(FollowedAuthor.id).where(
                    col(FollowedAuthor.kind) == FollowKind.PERSON,
                    col(FollowedAuthor.rule_key) == rule_key(name),
                )
            ).first()
            ids: set[int] = set()
            if followed is not None:
                ids.update(
                    session.exec(
                        select(PaperMatch.paper_id)
                        .where(col(PaperMatch.followed_author_id) == followed)
                        .order_by(col(PaperMatch.published).desc(), col(PaperMatch.paper_id).desc())
                        .limit(limit)
                    )
                )
            if not ids:  # followed by nobody, or not polled yet
                authors = session.exec(
                    select(Author.id, Author.name).where(col(Author.key_digest) == key_digest(name))
                ).all()
                same = [a for a, written in authors if a is not None and name_key(written) == key]
                ids.update(self._newest_of_authors(session, same, limit))
            if not ids:
                return []
            papers = session.exec(
                select(Paper).where(col(Paper.id).in_(ids)).order_by(*newest).limit(limit)
            ).all()
            return load_records(session, papers)

    @staticmethod
    def _newest_of_authors(session: Session, author_ids: list[int], limit: int) -> list[int]:
        """The newest `limit` papers of these `author` rows (one person's spellings): each
        one's newest `limit` read backwards on `ix_paper_author_newest`, one statement a
        spelling (an `IN` of several would have the database sort all their links), merged."""
        found: list[tuple[datetime, int]] = []
        for author_id in author_ids:
            found += session.exec(
                select(PaperAuthor.published, PaperAuthor.paper_id)
                .where(col(PaperAuthor.author_id) == author_id)
                .order_by(col(PaperAuthor.published).desc(), col(PaperAuthor.paper_id).desc())
                .limit(limit)
            ).all()
        found.sort(reverse=True)
        return list(dict.fromkeys(paper_id for _, paper_id in found))[:limit]

    def announced_newest(self, chat_id: int, *, limit: int) -> list[records.Record]:
        """The newest `limit` papers announced (or queued) to `chat_id`, any of its topics,
        newest first by v1 date."""
        with Session(self.engine) as session:
            papers = session.exec(
                select(Paper)
                .join(AnnouncedPaper, col(AnnouncedPaper.paper_id) == col(Paper.id))
                .where(col(AnnouncedPaper.chat_id) == chat_id)
                .order_by(col(Paper.published).desc(), col(Paper.arxiv_id).desc())
                .limit(limit)
            ).all()
            unique = list({paper.id: paper for paper in papers}.values())
            return load_records(session, unique)
