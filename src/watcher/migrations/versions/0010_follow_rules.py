"""followed_author holds follow rules: a person (maybe in some categories), an identity, a topic

Revision ID: 0010
Revises: 0009
Create Date: 2026-11-30
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0010"
down_revision: str | None = "0009"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    # Every existing row is a person followed by name, in any category: its key stays the same.
    with op.batch_alter_table("followed_author", schema=None) as batch_op:
        batch_op.alter_column(
            "name_key",
            new_column_name="rule_key",
            existing_type=sa.String(length=255),
            existing_nullable=False,
        )
        batch_op.add_column(
            sa.Column("kind", sa.String(length=16), nullable=False, server_default="person")
        )
        batch_op.add_column(
            sa.Column("categories", sa.String(length=255), nullable=False, server_default="")
        )
        batch_op.add_column(sa.Column("identity", sa.String(length=255), nullable=True))
        batch_op.add_column(sa.Column("topic", sa.Text(), nullable=True))


def downgrade() -> None:
    # Rules other than a plain person cannot be kept by the older schema.
    op.execute("DELETE FROM followed_author WHERE kind <> 'person' OR categories <> ''")
    with op.batch_alter_table("followed_author", schema=None) as batch_op:
        batch_op.drop_column("topic")
        batch_op.drop_column("identity")
        batch_op.drop_column("categories")
        batch_op.drop_column("kind")
        batch_op.alter_column(
            "rule_key",
            new_column_name="name_key",
            existing_type=sa.String(length=255),
            existing_nullable=False,
        )
