"""The tables of "Suggested for you" (issue 32; migration 0034), as `watcher.suggestions` designs
them; the statements on them are in `paper_terms`, `profiles` and `suggesting`.

- `paper_terms`: a paper's term counts (`watcher.suggestions.terms`, its title's and abstract's
  stems), by arXiv id: written once when the paper is first saved or first read in a batch,
  replaced when a revision changes its title or abstract. A row here means the paper was counted
  in `term_frequency`, once, whoever met it first (the save, or the batch of a mailing, whose
  papers are mostly never stored). Rows of papers never stored go some days after the batch.
- `term_frequency`: in how many counted papers each term occurs; the row of term "" is the
  number of papers counted. Changed only by `papers = papers + delta`: two writers add up.
- `suggestion_profile`: a chat's profile (`watcher.suggestions.profile.Profile`: weights and
  example ids as JSON). A chat has one from the first time its suggestions are on (or it asks
  for its top papers, or presses 👍/👎); from then on every paper announced to it is added in
  the transaction that queues the delivery.
- `profile_paper`: what goes into a profile, and when: (chat, paper, reading) and its instant,
  `folded` once added to the profile's weights (`watcher.store.profiles.current`); the daily
  prune takes it out again 365 days later.
- `suggestion_batch`: a mailing whose batch was read whole and ranked (exactly once:
  its row is the claim), with `suggestion_candidate` (its papers as read, for /suggest's top
  now and for a ranking resumed after a crash; kept for the newest few mailings).
- `suggestion`: one message of suggestions owed to a destination for a mailing, unique on
  (chat, thread, mailing): the sender drains it like the outbox, and it is sent once.
"""

from __future__ import annotations

from datetime import date, datetime
from enum import StrEnum

from sqlalchemy import (
    BigInteger,
    Column,
    Date,
    ForeignKey,
    Index,
    Integer,
    String,
    Text,
    UniqueConstraint,
    false,
)
from sqlmodel import Field, SQLModel

from watcher.store.tables import NO_THREAD, UTCDateTime

ALL_TERMS = ""  # the `term_frequency` row that counts the papers


class PaperTerms(SQLModel, table=True):
    """A paper's term counts (JSON {stem: count}), by arXiv id, and when it was counted."""

    __tablename__ = "paper_terms"
    arxiv_id: str = Field(sa_column=Column(String(64), primary_key=True, nullable=False))
    counts: str = Field(sa_column=Column(Text, nullable=False))
    counted_at: datetime = Field(sa_column=Column(UTCDateTime(), nullable=False, index=True))


class TermFrequency(SQLModel, table=True):
    """In how many counted papers `term` occurs (`ALL_TERMS`: how many papers were counted)."""

    __tablename__ = "term_frequency"
    term: str = Field(sa_column=Column(String(200), primary_key=True, nullable=False))
    papers: int = Field(sa_column=Column(BigInteger, nullable=False))


class SuggestionProfile(SQLModel, table=True):
    """A chat's profile: term weights and example paper ids (JSON), as of `updated`."""

    __tablename__ = "suggestion_profile"
    chat_id: int = Field(
        sa_column=Column(
            BigInteger, ForeignKey("chat.id", ondelete="CASCADE"), primary_key=True, nullable=False
        )
    )
    weights: str = Field(sa_column=Column(Text, nullable=False))
    examples: str = Field(sa_column=Column(Text, nullable=False))
    updated: datetime = Field(sa_column=Column(UTCDateTime(), nullable=False))


class ProfilePaper(SQLModel, table=True):
    """A paper added to a chat's profile as `reading` (a `profile.Reading` value) at `at`."""

    __tablename__ = "profile_paper"
    __table_args__ = (
        Index("ix_profile_paper_at", "at"),  # the prune's oldest first
        # A fold's way to a chat's papers not folded yet, not through all it ever read.
        Index("ix_profile_paper_unfolded", "folded", "chat_id"),
    )
    chat_id: int = Field(
        sa_column=Column(
            BigInteger, ForeignKey("chat.id", ondelete="CASCADE"), primary_key=True, nullable=False
        )
    )
    paper_id: int = Field(
        sa_column=Column(
            Integer, ForeignKey("paper.id", ondelete="CASCADE"), primary_key=True, nullable=False
        )
    )
    reading: str = Field(sa_column=Column(String(16), primary_key=True, nullable=False))
    at: datetime = Field(sa_column=Column(UTCDateTime(), nullable=False))
    # Added to the profile's weights yet: the queue records, the next read folds it in.
    folded: bool = Field(default=False, sa_column_kwargs={"server_default": false()})


class SuggestionBatch(SQLModel, table=True):
    """A mailing read whole and ranked: which source read it first, when, how many papers it
    had, and when its ranking finished (None: under way, or cut short by a crash)."""

    __tablename__ = "suggestion_batch"
    mailing: date = Field(sa_column=Column(Date, primary_key=True, nullable=False))
    source: str = Field(sa_column=Column(String(16), nullable=False))
    read_at: datetime = Field(sa_column=Column(UTCDateTime(), nullable=False))
    candidates: int
    finished_at: datetime | None = Field(default=None, sa_column=Column(UTCDateTime()))


class SuggestionCandidate(SQLModel, table=True):
    """One paper of a batch as read (`record`: JSON, `watcher.store.suggesting`)."""

    __tablename__ = "suggestion_candidate"
    mailing: date = Field(
        sa_column=Column(
            Date,
            ForeignKey("suggestion_batch.mailing", ondelete="CASCADE"),
            primary_key=True,
            nullable=False,
        )
    )
    position: int = Field(sa_column=Column(Integer, primary_key=True, nullable=False))
    arxiv_id: str = Field(sa_column=Column(String(64), nullable=False))
    record: str = Field(sa_column=Column(Text, nullable=False))


class SuggestionStatus(StrEnum):
    """Where a suggestion message stands (`Suggestion.status`)."""

    PENDING = "pending"  # owed, due at `next_attempt`
    HELD = "held"  # its destination takes digests: goes in the next one
    SENT = "sent"  # Telegram confirmed it (or the digest that carried it was claimed)
    FAILED = "failed"  # refused for good
    DROPPED = "dropped"  # not sent: suggestions turned off, or a newer batch's replaced it


class Suggestion(SQLModel, table=True):
    """One message of suggestions owed to a destination for the batch of `mailing`. `papers`
    is JSON: [[paper id, score, "like" title or null, [shared words]], ...], best first."""

    __tablename__ = "suggestion"
    __table_args__ = (
        UniqueConstraint("chat_id", "thread_id", "mailing"),
        Index("ix_suggestion_due", "status", "next_attempt"),
        Index("ix_suggestion_settled", "status", "created"),
        {"sqlite_autoincrement": True},  # a confirmation names its row: ids never come back
    )
    id: int | None = Field(default=None, primary_key=True)
    chat_id: int = Field(
        sa_column=Column(BigInteger, ForeignKey("chat.id", ondelete="CASCADE"), nullable=False)
    )
    thread_id: int = Field(
        default=NO_THREAD,
        sa_column=Column(
            BigInteger, nullable=False, server_default=str(NO_THREAD), autoincrement=False
        ),
    )
    mailing: date = Field(sa_column=Column(Date, nullable=False))
    status: str = Field(sa_column=Column(String(16), nullable=False))
    papers: str = Field(sa_column=Column(Text, nullable=False))
    attempts: int = 0
    next_attempt: datetime = Field(sa_column=Column(UTCDateTime(), nullable=False))
    created: datetime = Field(sa_column=Column(UTCDateTime(), nullable=False))
    sent: datetime | None = Field(default=None, sa_column=Column(UTCDateTime()))
    message_id: int | None = Field(default=None, sa_column=Column(BigInteger, nullable=True))
    last_error: str | None = Field(default=None, sa_type=Text)
