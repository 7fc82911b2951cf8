"""mailing_seen: which source showed each arXiv mailing first, when, and the listing's probes

`authors`, /stats and `health` show the last mailing seen, where it came from (the listing,
OAI-PMH or the API) and its delay after the announcement; and how many probes the listing spent
on the last announcement (a late day spends more). Kept here so a restart does not forget it.

Revision ID: 0020
Revises: 0019
Create Date: 2026-12-01
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0020"
down_revision: str | None = "0019"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "mailing_seen",
        sa.Column("mailing", sa.Date(), nullable=False),
        sa.Column("source", sa.String(length=16), nullable=True),
        sa.Column("seen_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("listing_probes", sa.Integer(), nullable=False, server_default="0"),
        sa.PrimaryKeyConstraint("mailing"),
    )


def downgrade() -> None:
    op.drop_table("mailing_seen")
