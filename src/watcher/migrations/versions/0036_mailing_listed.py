"""mailing_seen.listed: how many new papers the listing read of each mailing

/why said it only from the listing's last read in the process that asked: a restart, or
another process on the database, could not. Empty on upgrade (not known for the mailings seen
before). SQLite adds and drops the column in batch mode.

Revision ID: 0036
Revises: 0035
Create Date: 2026-12-05
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0036"
down_revision: str | None = "0035"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("mailing_seen") as batch:
        batch.add_column(sa.Column("listed", sa.Integer(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("mailing_seen") as batch:
        batch.drop_column("listed")
