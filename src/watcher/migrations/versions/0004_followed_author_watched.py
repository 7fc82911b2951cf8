"""followed_author.watched: the operator's authors, polled whether or not a chat subscribes

Revision ID: 0004
Revises: 0002
Create Date: 2026-11-30
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0004"
down_revision: str | None = "0002"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    # Which existing rows a chat brought cannot be told apart, so every one stays polled as
    # before: nothing is dropped by the upgrade. Authors chats follow from now on are not watched.
    with op.batch_alter_table("followed_author", schema=None) as batch_op:
        batch_op.add_column(
            sa.Column("watched", sa.Boolean(), nullable=False, server_default=sa.true())
        )
    with op.batch_alter_table("followed_author", schema=None) as batch_op:
        batch_op.alter_column("watched", server_default=None)


def downgrade() -> None:
    with op.batch_alter_table("followed_author", schema=None) as batch_op:
        batch_op.drop_column("watched")
