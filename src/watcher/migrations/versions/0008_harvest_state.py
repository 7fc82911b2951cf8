"""harvest_state and harvested_paper: the OAI-PMH harvest's high-water mark and datestamps

Revision ID: 0008
Revises: 0007
Create Date: 2026-11-30
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0008"
down_revision: str | None = "0007"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "harvest_state",
        sa.Column("scope", sa.String(length=255), nullable=False),
        sa.Column("harvested_through", sa.Date(), nullable=True),
        sa.Column("last_attempt", sa.DateTime(timezone=True), nullable=True),
        sa.Column("last_success", sa.DateTime(timezone=True), nullable=True),
        sa.Column("last_error", sa.Text(), nullable=True),
        sa.Column("consecutive_failures", sa.Integer(), nullable=False),
        sa.Column("next_attempt", sa.DateTime(timezone=True), nullable=True),
        sa.PrimaryKeyConstraint("scope"),
    )
    op.create_table(
        "harvested_paper",
        sa.Column("arxiv_id", sa.String(length=64), nullable=False),
        sa.Column("datestamp", sa.Date(), nullable=False),
        sa.PrimaryKeyConstraint("arxiv_id"),
    )


def downgrade() -> None:
    op.drop_table("harvested_paper")
    op.drop_table("harvest_state")
