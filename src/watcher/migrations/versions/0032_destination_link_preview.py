"""destination_setting.link_preview: /preview on shows the abstract page's preview above news

Off for every destination on upgrade (no preview, as before). SQLite adds and drops the column
in batch mode.

Revision ID: 0032
Revises: 0031
Create Date: 2026-12-04
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0032"
down_revision: str | None = "0031"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("destination_setting") as batch:
        batch.add_column(
            sa.Column("link_preview", sa.Boolean(), nullable=False, server_default=sa.false())
        )


def downgrade() -> None:
    with op.batch_alter_table("destination_setting") as batch:
        batch.drop_column("link_preview")
