"""excluded_word, held_back_paper: words a chat never wants to see (/exclude)

`excluded_word`: a row a word or phrase a chat excludes (its folded text, when added).
`held_back_paper`: a row a paper those words kept from a chat, when first (the 🔇 count of
/subscriptions) and last (the save whose queue statement leaves it out). Both go with their chat (ON DELETE CASCADE), the second with its paper too.
Nothing is filled in: no chat excluded anything before this revision.

Revision ID: 0031
Revises: 0030
Create Date: 2026-12-04
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0031"
down_revision: str | None = "0030"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "excluded_word",
        sa.Column("chat_id", sa.BigInteger(), nullable=False),
        sa.Column("text", sa.String(length=200), nullable=False),
        sa.Column("added_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["chat_id"], ["chat.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("chat_id", "text"),
    )
    op.create_table(
        "held_back_paper",
        sa.Column("chat_id", sa.BigInteger(), nullable=False),
        sa.Column("paper_id", sa.Integer(), nullable=False),
        sa.Column("held_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("last_held", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["chat_id"], ["chat.id"], ondelete="CASCADE"),
        sa.ForeignKeyConstraint(["paper_id"], ["paper.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("chat_id", "paper_id"),
    )


def downgrade() -> None:
    op.drop_table("held_back_paper")
    op.drop_table("excluded_word")
