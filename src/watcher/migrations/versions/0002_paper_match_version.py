"""paper_match.version: the version each followed author's polls have seen

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-29
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0002"
down_revision: str | None = "0001"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("paper_match", schema=None) as batch_op:
        batch_op.add_column(sa.Column("version", sa.Integer(), nullable=False, server_default="0"))
    # Until now a link meant "seen at the paper's stored version".
    op.execute(
        "UPDATE paper_match SET version = "
        "(SELECT paper.version FROM paper WHERE paper.id = paper_match.paper_id)"
    )
    with op.batch_alter_table("paper_match", schema=None) as batch_op:
        batch_op.alter_column("version", server_default=None)


def downgrade() -> None:
    with op.batch_alter_table("paper_match", schema=None) as batch_op:
        batch_op.drop_column("version")
