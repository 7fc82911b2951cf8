"""paper_match_category: each followed author's papers by category, kept on save

A chat's questions within a category (`/subject C` of a chat, its count, `/subjects` of a chat)
read each of the chat's links and probed the paper's categories: some 1,400 scattered probes at
a million papers. This table holds a row per (link, category of the paper), indexed
(followed_author_id, category, published, paper_id), so each becomes one index range per
author, as `/recent` of a chat already is. Filled here from what is stored; from then on `watcher.store.saving`
keeps it in the transaction that stores the papers; a link's rows go with it (cascade).

Revision ID: 0013
Revises: 0012
Create Date: 2026-11-30
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0013"
down_revision: str | None = "0012"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "paper_match_category",
        sa.Column("paper_id", sa.Integer(), nullable=False),
        sa.Column("followed_author_id", sa.Integer(), nullable=False),
        sa.Column("category", sa.Text(), nullable=False),
        sa.Column("published", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["paper_id", "followed_author_id"],
            ["paper_match.paper_id", "paper_match.followed_author_id"],
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("paper_id", "followed_author_id", "category"),
    )
    op.create_index(
        "ix_paper_match_category_newest",
        "paper_match_category",
        ["followed_author_id", "category", "published", "paper_id"],
        unique=False,
    )
    op.execute(
        "INSERT INTO paper_match_category (followed_author_id, category, published, paper_id) "
        "SELECT m.followed_author_id, c.category, c.published, c.paper_id "
        "FROM paper_match m JOIN paper_category c ON c.paper_id = m.paper_id"
    )


def downgrade() -> None:
    op.drop_index("ix_paper_match_category_newest", table_name="paper_match_category")
    op.drop_table("paper_match_category")
