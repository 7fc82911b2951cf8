"""Inline mode's reads (`@bot NAME`, `@bot` alone): a person's newest stored papers by their
exact name, and the newest papers announced to one chat. Never a scan of the author names.

A name is found by one of two indexed paths, and only the same person (`watcher.follows.names`:
equal `name_key`, the homonym guard of every follow) is ever answered:
- when the name alone is followed (its `rule_key`, unique), that follow's `paper_match` rows,
  newest first on their own index: every paper its polls found, each with an author of exactly
  that key (whatever accents or hyphens arXiv wrote), the person's whole history;
- else (or while that follow has found nothing yet) the `author` rows whose exact spelling is
  one of the name's plain variants (`spellings`: the words as typed or capitalised, in any
  order, "Family, Given" too), found by `name_digest` (unique), and their papers through
  `paper_author`'s index on `author_id` (`_newest_of_authors` says how, for the prolific).
A name nobody follows, written with accents the asker left out, is not found: a miss, never a
look-alike. `bench/queries.py` times both ("inline name"; bench/README.md has the figures).
"""

from __future__ import annotations

from itertools import islice, permutations

from sqlalchemy import Engine, func
from sqlmodel import Session, col, select

from watcher.arxiv import records
from watcher.follows.names import name_key
from watcher.follows.rules import rule_key
from watcher.kinds import FollowKind
from watcher.store.rows import load_records
from watcher.store.saving import name_digest
from watcher.store.tables import (
    AnnouncedPaper,
    Author,
    FollowedAuthor,
    Paper,
    PaperAuthor,
    PaperMatch,
)

MAX_WORDS = 5  # a longer name is looked up as typed only: 5! orders would be too many digests
_ORDERS = 24  # word orders tried at most (4 words: all of them)
WALK_FROM = 2000  # a person with more papers than this is found walking the newest papers
WINDOW = 20_000  # newest papers walked at most before all of a prolific person's are read


def spellings(name: str) -> list[str]:
    """The plain ways arXiv may write `name`: its words in each order (at most `_ORDERS`), as
    typed, with each word capitalised ("dezun" → "Dezun", "de-zun" → "De-Zun") or
    title-cased, joined by spaces or as "Family, Given"."""
    words = name.replace(",", " ").split()
    if not words:
        return []
    orders = islice(permutations(words), _ORDERS) if len(words) <= MAX_WORDS else [tuple(words)]
    found: dict[str, None] = {" ".join(name.split()): None}
    for order in orders:
        for shaped in (order, tuple(map(_capitalised, order)), tuple(w.title() for w in order)):
            found[" ".join(shaped)] = None
            found[f"{shaped[-1]}, {' '.join(shaped[:-1])}" if len(shaped) > 1 else shaped[0]] = None
    return list(found)


def _capitalised(word: str) -> str:
    return "-".join(part[:1].upper() + part[1:] for part in word.split("-"))


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
                digests = [name_digest(spelling) for spelling in spellings(name)]
                authors = session.exec(
                    select(Author.id, Author.name).where(col(Author.name_digest).in_(digests))
                ).all()
                same = [a for a, written in authors if a is not None and name_key(written) == key]
                ids.update(self._newest_of_authors(session, same, limit) if same else ())
            if not ids:
                return []
            papers = session.exec(
                select(Paper).where(col(Paper.id).in_(ids)).order_by(*newest).limit(limit)
            ).all()
            return load_records(session, papers)

    @staticmethod
    def _newest_of_authors(session: Session, author_ids: list[int], limit: int) -> list[int]:
        """The newest `limit` papers of these `author` rows. Most people have a few papers: all
        their links are read (`paper_author`'s index on `author_id`) and ordered. A prolific
        one (more than `WALK_FROM` links, counted that far in that index) is found walking
        `ix_paper_newest` from the newest paper down, each probed for the link by its primary
        key, stopping at `limit` found or at the `WINDOW`-th newest paper's date; a person that
        prolific has a page long before, unless their papers are all old: then (and only then)
        all their links are read after all."""
        linked = col(PaperAuthor.author_id).in_(author_ids)
        newest = (col(Paper.published).desc(), col(Paper.arxiv_id).desc())
        # Counted up to WALK_FROM + 1 only: PostgreSQL reads each link's row to count it.
        capped = select(PaperAuthor.paper_id).where(linked).limit(WALK_FROM + 1).subquery()
        links = session.exec(select(func.count()).select_from(capped)).one()
        if links > WALK_FROM:
            # `author_id + 0`: the probe must take the paper's links by the primary key
            # (paper_id, position), never the author's 2,000+ through their index.
            probe = (
                select(PaperAuthor.paper_id)
                .where(
                    col(PaperAuthor.paper_id) == col(Paper.id),
                    (col(PaperAuthor.author_id) + 0).in_(author_ids),
                )
                .exists()
            )
            walk = select(Paper.id).where(probe).order_by(*newest).limit(limit)
            floor = session.exec(
                select(Paper.published).order_by(*newest).offset(WINDOW).limit(1)
            ).first()
            if floor is not None:  # the walk stops at the WINDOW-th newest paper's date
                walk = walk.where(col(Paper.published) >= floor)
            found = session.exec(walk).all()
            if len(found) == limit or floor is None:
                return [paper_id for paper_id in found if paper_id is not None]
        return list(
            session.exec(
                select(PaperAuthor.paper_id)
                .join(Paper, col(Paper.id) == col(PaperAuthor.paper_id))
                .where(linked)
                .order_by(*newest)
                .limit(limit)
            )
        )

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
