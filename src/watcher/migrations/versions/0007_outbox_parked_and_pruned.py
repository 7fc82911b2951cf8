"""delivery.parked and delivery.summarize, chat.inactive_since; indexes for the idle check and pruning

Revision ID: 0007
Revises: 0006
Create Date: 2026-11-30
"""

from collections.abc import Sequence
from datetime import UTC, datetime

import sqlalchemy as sa
from alembic import op

revision: str = "0007"
down_revision: str | None = "0006"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("chat", schema=None) as batch_op:
        batch_op.add_column(sa.Column("inactive_since", sa.DateTime(timezone=True), nullable=True))
    # SQLite: the table is rebuilt with AUTOINCREMENT, so that a deleted row's id never comes
    # back (a late confirmation of the old row would mark the new one sent).
    sqlite = op.get_bind().dialect.name == "sqlite"
    with op.batch_alter_table(
        "delivery",
        schema=None,
        recreate="always" if sqlite else "auto",
        table_kwargs={"sqlite_autoincrement": True},
    ) as batch_op:
        batch_op.add_column(
            sa.Column("parked", sa.Boolean(), nullable=False, server_default=sa.false())
        )
        batch_op.add_column(
            sa.Column("summarize", sa.Boolean(), nullable=False, server_default=sa.false())
        )
        batch_op.drop_index("ix_delivery_due")
        batch_op.create_index("ix_delivery_due", ["status", "parked", "next_attempt"])
        batch_op.create_index("ix_delivery_settled", ["status", "created"])
    # Chats already inactive: gone since now (their real date is unknown), their queue parked.
    chat = sa.table(
        "chat",
        sa.column("active", sa.Boolean()),
        sa.column("inactive_since", sa.DateTime(timezone=True)),
    )
    op.execute(chat.update().where(sa.not_(chat.c.active)).values(inactive_since=datetime.now(UTC)))
    op.execute(
        "UPDATE delivery SET parked = "
        "(SELECT NOT chat.active FROM chat WHERE chat.id = delivery.chat_id)"
        " WHERE status = 'pending'"
    )


def downgrade() -> None:
    with op.batch_alter_table("delivery", schema=None) as batch_op:
        batch_op.drop_index("ix_delivery_settled")
        batch_op.drop_index("ix_delivery_due")
        batch_op.create_index("ix_delivery_due", ["status", "next_attempt"])
        batch_op.drop_column("summarize")
        batch_op.drop_column("parked")
    with op.batch_alter_table("chat", schema=None) as batch_op:
        batch_op.drop_column("inactive_since")
