"""Suggested for you (issue 32): paper terms, document frequencies, profiles, batches, messages

- `destination_setting.suggest` (off) and `suggest_count` (3) for every destination;
- `paper_terms`, `term_frequency`: each counted paper's term counts and how many papers hold each
  term (empty on upgrade: papers stored before are counted when a profile first needs them);
- `suggestion_profile`, `profile_paper`: each chat's profile and what went into it;
- `suggestion_batch`, `suggestion_candidate`: the mailings read whole and ranked, and their papers;
- `suggestion`: the messages of suggestions owed, unique on (chat, thread, mailing).
Nothing is filled in; SQLite adds and drops the columns in batch mode.

Revision ID: 0034
Revises: 0033
Create Date: 2026-12-04
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0034"
down_revision: str | None = "0033"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def _chat_id(*, primary_key: bool = False) -> sa.Column[int]:
    return sa.Column("chat_id", sa.BigInteger(), nullable=False, primary_key=primary_key)


def upgrade() -> None:
    with op.batch_alter_table("destination_setting") as batch:
        batch.add_column(
            sa.Column("suggest", sa.Boolean(), nullable=False, server_default=sa.false())
        )
        batch.add_column(
            sa.Column("suggest_count", sa.Integer(), nullable=False, server_default="3")
        )
    op.create_table(
        "paper_terms",
        sa.Column("arxiv_id", sa.String(length=64), nullable=False),
        sa.Column("counts", sa.Text(), nullable=False),
        sa.Column("counted_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("arxiv_id"),
    )
    op.create_index("ix_paper_terms_counted_at", "paper_terms", ["counted_at"])
    op.create_table(
        "term_frequency",
        sa.Column("term", sa.String(length=200), nullable=False),
        sa.Column("papers", sa.BigInteger(), nullable=False),
        sa.PrimaryKeyConstraint("term"),
    )
    op.create_table(
        "suggestion_profile",
        _chat_id(),
        sa.Column("weights", sa.Text(), nullable=False),
        sa.Column("examples", sa.Text(), nullable=False),
        sa.Column("updated", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["chat_id"], ["chat.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("chat_id"),
    )
    op.create_table(
        "profile_paper",
        _chat_id(),
        sa.Column("paper_id", sa.Integer(), nullable=False),
        sa.Column("reading", sa.String(length=16), nullable=False),
        sa.Column("at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("folded", sa.Boolean(), nullable=False, server_default=sa.false()),
        sa.ForeignKeyConstraint(["chat_id"], ["chat.id"], ondelete="CASCADE"),
        sa.ForeignKeyConstraint(["paper_id"], ["paper.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("chat_id", "paper_id", "reading"),
    )
    op.create_index("ix_profile_paper_at", "profile_paper", ["at"])
    op.create_index("ix_profile_paper_unfolded", "profile_paper", ["folded", "chat_id"])
    op.create_table(
        "suggestion_batch",
        sa.Column("mailing", sa.Date(), nullable=False),
        sa.Column("source", sa.String(length=16), nullable=False),
        sa.Column("read_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("candidates", sa.Integer(), nullable=False),
        sa.Column("finished_at", sa.DateTime(timezone=True), nullable=True),
        sa.PrimaryKeyConstraint("mailing"),
    )
    op.create_table(
        "suggestion_candidate",
        sa.Column("mailing", sa.Date(), nullable=False),
        sa.Column("position", sa.Integer(), nullable=False),
        sa.Column("arxiv_id", sa.String(length=64), nullable=False),
        sa.Column("record", sa.Text(), nullable=False),
        sa.ForeignKeyConstraint(["mailing"], ["suggestion_batch.mailing"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("mailing", "position"),
    )
    op.create_table(
        "suggestion",
        sa.Column("id", sa.Integer(), nullable=False),
        _chat_id(),
        sa.Column("thread_id", sa.BigInteger(), nullable=False, server_default="0"),
        sa.Column("mailing", sa.Date(), nullable=False),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("papers", sa.Text(), nullable=False),
        sa.Column("attempts", sa.Integer(), nullable=False),
        sa.Column("next_attempt", sa.DateTime(timezone=True), nullable=False),
        sa.Column("created", sa.DateTime(timezone=True), nullable=False),
        sa.Column("sent", sa.DateTime(timezone=True), nullable=True),
        sa.Column("message_id", sa.BigInteger(), nullable=True),
        sa.Column("last_error", sa.Text(), nullable=True),
        sa.ForeignKeyConstraint(["chat_id"], ["chat.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("chat_id", "thread_id", "mailing"),
        sqlite_autoincrement=True,
    )
    op.create_index("ix_suggestion_due", "suggestion", ["status", "next_attempt"])
    op.create_index("ix_suggestion_settled", "suggestion", ["status", "created"])


def downgrade() -> None:
    op.drop_table("suggestion")
    op.drop_table("suggestion_candidate")
    op.drop_table("suggestion_batch")
    op.drop_table("profile_paper")
    op.drop_table("suggestion_profile")
    op.drop_table("term_frequency")
    op.drop_table("paper_terms")
    with op.batch_alter_table("destination_setting") as batch:
        batch.drop_column("suggest_count")
        batch.drop_column("suggest")
