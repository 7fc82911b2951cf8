"""The store's half of "Suggested for you" (issue 32): each destination's setting, the batch of a
mailing claimed and ranked in pages, the messages queued, /suggest's top papers, and 👍/👎. Each
`SuggestionStore` method is one transaction; the ranking itself is pure
(`watcher.suggestions.scoring`) and runs between them (`watcher.polling.suggested_batch`).

A batch: `begin_batch` claims the mailing (`suggestion_batch`, its primary key: of two readers,
one claims it) and keeps its papers (`suggestion_candidate`) and their terms, counting those
not counted yet (`watcher.store.paper_terms`), in one transaction. Then `page`, one
transaction a page, queues the last page's messages (`watcher.store.suggestion_queue`: the
papers shown that the store lacked stored, without a follow; one message a destination, unique
on (chat, thread, mailing)) and reads the next page of destinations with suggestions on
that have no message for the mailing yet, with their chats' profiles (folded), excluded words
and the batch's papers they were told of: a page done twice (a crash, a second process) queues
nothing twice. `finish_batch` marks the mailing done. A batch cut short by a
crash is resumed by the next reader of that mailing (the listing read again, or the harvest),
from its kept papers, and only for the destinations still without a message.

Which papers are candidates is the reader's (`watcher.polling.suggested_batch`); they are kept
as read (JSON of the `Record`) for the newest mailings only (`prune`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import date, datetime
from enum import StrEnum

from sqlalchemy import Engine, func, text, update
from sqlmodel import Session, col, select

from watcher.arxiv.records import Record
from watcher.follows.excluded_words import ExcludedWord
from watcher.store import paper_terms, profiles
from watcher.store.destinations import DestinationSetting, destination
from watcher.store.dialects import upsert_into
from watcher.store.exclusions import ExcludedEntry
from watcher.store.kept_records import record_json, record_of
from watcher.store.suggestion_queue import Queued, queue_in, store_papers, stored_ids
from watcher.store.suggestion_tables import (
    Suggestion,
    SuggestionBatch,
    SuggestionCandidate,
    SuggestionStatus,
)
from watcher.store.tables import AnnouncedPaper, Chat, Paper
from watcher.suggestions.frequencies import DocumentFrequencies
from watcher.suggestions.profile import Profile

DEFAULT_COUNT = 3
_PER_READ = 500


class Claim(StrEnum):
    """What `begin_batch` found."""

    NEW = "new"  # this call claimed the mailing: rank it
    UNFINISHED = "unfinished"  # claimed before, never finished (a crash): resume it
    FINISHED = "finished"  # done: nothing to do


@dataclass(frozen=True, slots=True)
class SuggestionSetting:
    on: bool
    count: int
    digest: bool  # the destination takes digests


@dataclass(frozen=True, slots=True)
class ToRank:
    """A destination to rank the batch for: its chat's profile (shared by its topics), its
    chat's excluded words, and the batch's papers (arXiv ids) it was told of."""

    chat_id: int
    thread_id: int
    count: int
    digest: bool
    profile: Profile
    excluded: tuple[ExcludedWord, ...]
    told: frozenset[str]


def setting_in(session: Session, chat_id: int, thread_id: int) -> SuggestionSetting:
    row = session.get(DestinationSetting, (chat_id, thread_id))
    if row is None:
        return SuggestionSetting(on=False, count=DEFAULT_COUNT, digest=False)
    return SuggestionSetting(row.suggest, row.suggest_count, row.next_digest_at is not None)


def _relaxed(session: Session) -> None:
    """On PostgreSQL, this transaction's commit does not wait for its WAL to reach the disk
    (`synchronous_commit` off, for it alone). A batch writes a few hundred transactions, and
    each waiting for the disk was most of its time there; one lost in a crash loses nothing
    that is not redone: commits reach the disk in order, each page's writes are one
    transaction, and a batch whose end was lost is resumed and queues nothing twice."""
    if session.get_bind().dialect.name == "postgresql":
        session.execute(text("SET LOCAL synchronous_commit TO OFF"))


class SuggestionStore:
    """Reads and writes of the suggestions; each method is one transaction."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine

    # -- a destination's setting ----------------------------------------------------------

    def setting(self, chat_id: int, thread_id: int) -> SuggestionSetting:
        with Session(self.engine) as session:
            return setting_in(session, chat_id, thread_id)

    def turn(self, chat_id: int, thread_id: int, *, on: bool, now: datetime) -> SuggestionSetting:
        """On: the chat's profile is built if it has none. Off: a message not sent yet is
        dropped."""
        with Session(self.engine) as session:
            row = destination(session, chat_id, thread_id)
            row.suggest = on
            session.add(row)
            if on:
                profiles.ensure(session, chat_id, now=now)
            else:
                session.execute(
                    update(Suggestion)
                    .where(
                        col(Suggestion.chat_id) == chat_id,
                        col(Suggestion.thread_id) == thread_id,
                        col(Suggestion.status).in_(
                            [SuggestionStatus.PENDING, SuggestionStatus.HELD]
                        ),
                    )
                    .values(status=SuggestionStatus.DROPPED)
                )
            session.commit()
            return setting_in(session, chat_id, thread_id)

    def set_count(self, chat_id: int, thread_id: int, count: int) -> SuggestionSetting:
        with Session(self.engine) as session:
            row = destination(session, chat_id, thread_id)
            row.suggest_count = count
            session.add(row)
            session.commit()
            return setting_in(session, chat_id, thread_id)

    # -- a batch ---------------------------------------------------------------------------

    def begin_batch(
        self,
        mailing: date,
        *,
        source: str,
        candidates: Sequence[tuple[Record, str]],
        now: datetime,
    ) -> Claim:
        """Claim the batch of `mailing`, keeping its papers and counting their terms (each
        paper's term counts as `paper_terms.counts_json` writes them); or say how an earlier
        claim stands."""
        with Session(self.engine) as session:
            dialect = session.get_bind().dialect.name
            table = SuggestionBatch.__table__  # type: ignore[attr-defined]
            claimed = session.execute(
                upsert_into(dialect, table)
                .values(mailing=mailing, source=source, read_at=now, candidates=len(candidates))
                .on_conflict_do_nothing(index_elements=["mailing"])
                .returning(table.c.mailing)
            ).first()
            if claimed is None:
                batch = session.get(SuggestionBatch, mailing)
                assert batch is not None
                return Claim.UNFINISHED if batch.finished_at is None else Claim.FINISHED
            candidate_table = SuggestionCandidate.__table__  # type: ignore[attr-defined]
            for start in range(0, len(candidates), _PER_READ):
                # Each part's rows built as it is written: a batch's JSON is never all there.
                session.execute(
                    candidate_table.insert(),
                    [
                        {
                            "mailing": mailing,
                            "position": start + offset,
                            "arxiv_id": record.arxiv_id,
                            "record": record_json(record),
                        }
                        for offset, (record, _) in enumerate(candidates[start : start + _PER_READ])
                    ],
                )
            paper_terms.count_papers(
                session, [(record.arxiv_id, counts) for record, counts in candidates], now=now
            )
            session.commit()
            return Claim.NEW

    def finish_batch(self, mailing: date, *, now: datetime) -> None:
        with Session(self.engine) as session:
            session.execute(
                update(SuggestionBatch)
                .where(col(SuggestionBatch.mailing) == mailing)
                .values(finished_at=now)
            )
            session.commit()

    def newest_mailing(self) -> date | None:
        """The newest mailing whose batch was read whole."""
        with Session(self.engine) as session:
            return session.exec(select(func.max(SuggestionBatch.mailing))).one()

    def candidates(self, mailing: date) -> list[Record]:
        """The papers of the batch of `mailing`, as read, in order."""
        with Session(self.engine) as session:
            return [
                record_of(stored)
                for stored in session.exec(
                    select(SuggestionCandidate.record)
                    .where(col(SuggestionCandidate.mailing) == mailing)
                    .order_by(col(SuggestionCandidate.position))
                )
            ]

    def frequencies(self, terms: Iterable[str] | None = None) -> DocumentFrequencies:
        with Session(self.engine) as session:
            return paper_terms.frequencies(session, terms)

    def candidate_counts(self, arxiv_ids: Sequence[str]) -> dict[str, str]:
        """The kept term counts of these papers (JSON, as `paper_terms.counts_json` writes)."""
        with Session(self.engine) as session:
            return paper_terms.counts_by_arxiv_id(session, arxiv_ids)

    def page(
        self,
        mailing: date,
        queued: Sequence[Queued],
        *,
        positions: Mapping[str, int],
        after: tuple[int, int] | None,
        limit: int,
        stored: Mapping[str, int],
        now: datetime,
    ) -> tuple[int, list[ToRank]]:
        """Queue the last page's messages (`queued`, none for the first page) and read the next
        `limit` destinations (by chat, thread, after `after`) of active chats with suggestions
        on and no message for `mailing` yet, with what ranking them needs, their profiles
        folded; in one transaction, so that a page costs one (on PostgreSQL a few round trips
        each). Both commit or neither does: a page whose messages were lost is read again.
        Returns how many messages were new (`queue_in`) and the page. `positions`: each of
        the batch's papers' position in it; `stored`: those the store holds (arXiv id → paper
        id)."""
        with Session(self.engine) as session:
            _relaxed(session)
            count = queue_in(session, mailing, queued, positions=positions, now=now)
            ranked = self._destinations_in(
                session, mailing, after=after, limit=limit, stored=stored, now=now
            )
            session.commit()  # with the profiles built and folded on the way
            return count, ranked

    def _destinations_in(
        self,
        session: Session,
        mailing: date,
        *,
        after: tuple[int, int] | None,
        limit: int,
        stored: Mapping[str, int],
        now: datetime,
    ) -> list[ToRank]:
        query = (
            select(
                DestinationSetting.chat_id,
                DestinationSetting.thread_id,
                DestinationSetting.suggest_count,
                DestinationSetting.next_digest_at,
            )
            .join(Chat, col(Chat.id) == col(DestinationSetting.chat_id))
            .where(col(DestinationSetting.suggest), col(Chat.active))
            .where(
                ~select(Suggestion.id)
                .where(
                    col(Suggestion.chat_id) == col(DestinationSetting.chat_id),
                    col(Suggestion.thread_id) == col(DestinationSetting.thread_id),
                    col(Suggestion.mailing) == mailing,
                )
                .exists()
            )
            .order_by(col(DestinationSetting.chat_id), col(DestinationSetting.thread_id))
            .limit(limit)
        )
        if after is not None:
            chat, thread = after
            query = query.where(
                (col(DestinationSetting.chat_id) > chat)
                | (
                    (col(DestinationSetting.chat_id) == chat)
                    & (col(DestinationSetting.thread_id) > thread)
                )
            )
        rows = session.exec(query).all()
        return self._to_rank(session, rows, stored, now=now)

    def destination(
        self, chat_id: int, thread_id: int, *, stored: Mapping[str, int], now: datetime
    ) -> ToRank:
        """One destination's `ToRank`, whatever its setting (/suggest's top now)."""
        with Session(self.engine) as session:
            setting = setting_in(session, chat_id, thread_id)
            digest_at = now if setting.digest else None
            row = (chat_id, thread_id, setting.count, digest_at)
            ranked = self._to_rank(session, [row], stored, now=now)
            session.commit()
            return ranked[0]

    @staticmethod
    def _to_rank(
        session: Session,
        rows: Sequence[tuple[int, int, int, datetime | None]],
        stored: Mapping[str, int],
        *,
        now: datetime,
    ) -> list[ToRank]:
        if not rows:
            return []
        chats = sorted({chat_id for chat_id, *_ in rows})
        found = profiles.current(session, chats, now=now)
        for chat_id in chats:
            if chat_id not in found:
                found[chat_id] = profiles.ensure(session, chat_id, now=now)
        words: dict[int, list[str]] = {}
        for chat_id, entry in session.exec(
            select(ExcludedEntry.chat_id, ExcludedEntry.text)
            .where(col(ExcludedEntry.chat_id).in_(chats))
            .order_by(col(ExcludedEntry.chat_id), col(ExcludedEntry.text))
        ):
            words.setdefault(chat_id, []).append(entry)
        by_paper = {paper_id: arxiv_id for arxiv_id, paper_id in stored.items()}
        told: dict[tuple[int, int], set[str]] = {}
        paper_ids = sorted(by_paper)
        for start in range(0, len(paper_ids), _PER_READ):
            for chat_id, thread_id, paper_id in session.exec(
                select(AnnouncedPaper.chat_id, AnnouncedPaper.thread_id, AnnouncedPaper.paper_id)
                .where(col(AnnouncedPaper.chat_id).in_(chats))
                .where(col(AnnouncedPaper.paper_id).in_(paper_ids[start : start + _PER_READ]))
            ):
                told.setdefault((chat_id, thread_id), set()).add(by_paper[paper_id])
        return [
            ToRank(
                chat_id=chat_id,
                thread_id=thread_id,
                count=count,
                digest=digest_at is not None,
                profile=found[chat_id],
                excluded=tuple(ExcludedWord.stored(t) for t in words.get(chat_id, ())),
                told=frozenset(told.get((chat_id, thread_id), ())),
            )
            for chat_id, thread_id, count, digest_at in rows
        ]

    def stored_ids(self, arxiv_ids: Sequence[str]) -> dict[str, int]:
        """The paper id of each of these papers the store holds."""
        with Session(self.engine) as session:
            return stored_ids(session, arxiv_ids)

    def examples(
        self, paper_ids: Iterable[int], *, now: datetime
    ) -> dict[int, tuple[str, dict[str, float]]]:
        """Stored papers' titles and term weights (a profile's examples, to explain with)."""
        with Session(self.engine) as session:
            _relaxed(session)
            found = paper_terms.weights_of(session, paper_ids, now=now)
            session.commit()
            return found

    def store_papers(self, records: Sequence[Record]) -> dict[str, int]:
        """Store these papers of a batch the store lacks, without a follow (never announced);
        returns each one's paper id."""
        with Session(self.engine) as session:
            ids = store_papers(session, records)
            session.commit()
            return ids

    # -- 👍 and 👎 ---------------------------------------------------------------------------

    def react(self, chat_id: int, arxiv_id: str, *, liked: bool, now: datetime) -> bool | None:
        """Apply 👍 or 👎 (`profiles.react`); None when no paper has this id."""
        with Session(self.engine) as session:
            paper_id = session.exec(select(Paper.id).where(col(Paper.arxiv_id) == arxiv_id)).first()
            if paper_id is None:
                return None
            if session.get(Chat, chat_id) is None:
                session.add(Chat(id=chat_id))
                session.flush()
            changed = profiles.react(session, chat_id, paper_id, liked=liked, now=now)
            session.commit()
            return changed
