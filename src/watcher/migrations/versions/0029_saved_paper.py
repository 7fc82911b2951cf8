"""saved_paper: each chat's reading list (🔖 Save, /saved)

A row a paper a chat saved: the chat, the paper's arXiv id without its version (not a row of
`paper`, so that a saved paper outlives its rows and an imported list may name papers not stored
here), its title when saved, and when. The rows go with their chat (ON DELETE CASCADE). Nothing is
filled in: no chat has saved anything before this revision.

Revision ID: 0029
Revises: 0028
Create Date: 2026-12-04
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0029"
down_revision: str | None = "0028"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "saved_paper",
        sa.Column("chat_id", sa.BigInteger(), nullable=False),
        sa.Column("arxiv_id", sa.String(length=64), nullable=False),
        sa.Column("title", sa.String(), nullable=False, server_default=""),
        sa.Column("saved_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["chat_id"], ["chat.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("chat_id", "arxiv_id"),
    )
    op.create_index("ix_saved_paper_newest", "saved_paper", ["chat_id", "saved_at"], unique=False)


def downgrade() -> None:
    op.drop_index("ix_saved_paper_newest", table_name="saved_paper")
    op.drop_table("saved_paper")
