"""lookup_allowance: each chat's budget of new follows and arXiv look-ups; homonym_offer: the
homonym questions not answered yet

Both were kept in the bot's memory, so a restart gave every chat a fresh budget and made every
homonym question's buttons stale. Kept here, they survive a restart and are shared by every
process on the database. Both are small and pruned: a budget row goes once its chat has been
idle for a week, an offer some days after it expired.

Revision ID: 0015
Revises: 0014
Create Date: 2026-12-01
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0015"
down_revision: str | None = "0014"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "lookup_allowance",
        sa.Column("chat_id", sa.BigInteger(), autoincrement=False, nullable=False),
        sa.Column("follows", sa.Float(), nullable=False),
        sa.Column("lookups", sa.Float(), nullable=False),
        sa.Column("updated", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("chat_id"),
    )
    op.create_index("ix_lookup_allowance_updated", "lookup_allowance", ["updated"])
    op.create_table(
        "homonym_offer",
        sa.Column("token", sa.String(length=32), nullable=False),
        sa.Column("chat_id", sa.BigInteger(), nullable=False),
        sa.Column(
            "thread_id", sa.BigInteger(), nullable=False, server_default="0", autoincrement=False
        ),
        sa.Column("names", sa.Text(), nullable=False),
        sa.Column("categories", sa.Text(), nullable=False),
        sa.Column("anyway", sa.Boolean(), nullable=False),
        sa.Column("total", sa.Integer(), nullable=False),
        sa.Column("made", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("token"),
    )
    op.create_index("ix_homonym_offer_made", "homonym_offer", ["made"])


def downgrade() -> None:
    op.drop_index("ix_homonym_offer_made", table_name="homonym_offer")
    op.drop_table("homonym_offer")
    op.drop_index("ix_lookup_allowance_updated", table_name="lookup_allowance")
    op.drop_table("lookup_allowance")
