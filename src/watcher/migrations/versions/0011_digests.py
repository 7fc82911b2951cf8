"""Digests: a chat's time zone and digest schedule, held deliveries and the digest's messages

`chat` gets its zone (default UTC), its digest time (minute of the local day, and a weekday for
a weekly one) and the UTC instant its next digest is due, indexed, so that "which digests are
due" reads a handful of index entries. A delivery that waits for its chat's digest has the
status "held" (outside `ix_delivery_due`), and names the `digest_part` it is sent with.

Revision ID: 0011
Revises: 0010
Create Date: 2026-12-01
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0011"
down_revision: str | None = "0010"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("chat", schema=None) as batch_op:
        batch_op.add_column(
            sa.Column("timezone", sa.String(length=64), nullable=False, server_default="UTC")
        )
        batch_op.add_column(sa.Column("digest_minute", sa.Integer(), nullable=True))
        batch_op.add_column(sa.Column("digest_weekday", sa.Integer(), nullable=True))
        batch_op.add_column(sa.Column("next_digest_at", sa.DateTime(timezone=True), nullable=True))
        batch_op.add_column(sa.Column("digest_since", sa.DateTime(timezone=True), nullable=True))
        batch_op.create_index("ix_chat_next_digest_at", ["next_digest_at"], unique=False)
    op.create_table(
        "digest_part",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("position", sa.Integer(), nullable=False),
        sa.Column("parts", sa.Integer(), nullable=False),
        sa.Column("html", sa.Text(), nullable=False),
        sa.Column("plain", sa.Text(), nullable=False),
        sa.Column("created", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id"),
        sqlite_autoincrement=True,
    )
    op.create_index("ix_digest_part_created", "digest_part", ["created"], unique=False)
    # Only a column and an index: SQLite alters the table in place, keeping its AUTOINCREMENT.
    with op.batch_alter_table(
        "delivery", schema=None, table_kwargs={"sqlite_autoincrement": True}
    ) as batch_op:
        batch_op.add_column(sa.Column("digest_part_id", sa.Integer(), nullable=True))
        batch_op.create_index("ix_delivery_digest_part_id", ["digest_part_id"], unique=False)


def downgrade() -> None:
    # Waiting papers go back to one message each: nothing held is lost.
    op.execute("UPDATE delivery SET status = 'pending' WHERE status = 'held'")
    with op.batch_alter_table(
        "delivery", schema=None, table_kwargs={"sqlite_autoincrement": True}
    ) as batch_op:
        batch_op.drop_index("ix_delivery_digest_part_id")
        batch_op.drop_column("digest_part_id")
    op.drop_index("ix_digest_part_created", table_name="digest_part")
    op.drop_table("digest_part")
    with op.batch_alter_table("chat", schema=None) as batch_op:
        batch_op.drop_index("ix_chat_next_digest_at")
        batch_op.drop_column("digest_since")
        batch_op.drop_column("next_digest_at")
        batch_op.drop_column("digest_weekday")
        batch_op.drop_column("digest_minute")
        batch_op.drop_column("timezone")
