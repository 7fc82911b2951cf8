"""Forum topics on subscriptions and deliveries; chats and topics parked for a chat-level 400

Revision ID: 0006
Revises: 0003
Create Date: 2026-11-30

`thread_id` 0 means "no topic" (General, or a chat without topics): it is part of a primary key
and a unique constraint, where NULL cannot serve. Existing rows get 0, which is where they went.
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0006"
down_revision: str | None = "0003"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def _thread_column() -> sa.Column[int]:
    return sa.Column(
        "thread_id", sa.BigInteger(), nullable=False, server_default="0", autoincrement=False
    )


# SQLite keeps these constraints unnamed; batch mode names them on reflection this way, and on
# PostgreSQL the names are the server's defaults, which these reproduce.
_NAMES = {"pk": "%(table_name)s_pkey", "uq": "%(table_name)s_%(column_0_N_name)s_key"}


def upgrade() -> None:
    with op.batch_alter_table("subscription", naming_convention=_NAMES) as batch_op:
        batch_op.add_column(_thread_column())
        batch_op.drop_constraint("subscription_pkey", type_="primary")
        batch_op.create_primary_key(
            "subscription_pkey", ["chat_id", "thread_id", "followed_author_id"]
        )
    with op.batch_alter_table("delivery", naming_convention=_NAMES) as batch_op:
        batch_op.add_column(_thread_column())
        batch_op.drop_constraint("delivery_chat_id_paper_id_version_key", type_="unique")
        batch_op.create_unique_constraint(
            "delivery_chat_id_thread_id_paper_id_version_key",
            ["chat_id", "thread_id", "paper_id", "version"],
        )
    op.create_table(
        "parked_destination",
        sa.Column("chat_id", sa.BigInteger(), nullable=False),
        _thread_column(),
        sa.Column("reason", sa.Text(), nullable=False),
        sa.Column("since", sa.DateTime(timezone=True), nullable=False),
        sa.Column("failures", sa.Integer(), nullable=False),
        sa.Column("retry_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["chat_id"], ["chat.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("chat_id", "thread_id"),
    )


def downgrade() -> None:
    op.drop_table("parked_destination")
    # Without topics, a chat holds one subscription per author and one delivery per version:
    # keep the General topic's (or, lacking it, any one topic's) row.
    op.execute(
        "DELETE FROM subscription WHERE thread_id <> 0 AND EXISTS (SELECT 1 FROM subscription s "
        "WHERE s.chat_id = subscription.chat_id AND s.followed_author_id = "
        "subscription.followed_author_id AND s.thread_id < subscription.thread_id)"
    )
    op.execute(
        "DELETE FROM delivery WHERE EXISTS (SELECT 1 FROM delivery d WHERE d.chat_id = "
        "delivery.chat_id AND d.paper_id = delivery.paper_id AND d.version = delivery.version "
        "AND d.thread_id < delivery.thread_id)"
    )
    with op.batch_alter_table("delivery", naming_convention=_NAMES) as batch_op:
        batch_op.drop_constraint("delivery_chat_id_thread_id_paper_id_version_key", type_="unique")
        batch_op.create_unique_constraint(
            "delivery_chat_id_paper_id_version_key", ["chat_id", "paper_id", "version"]
        )
        batch_op.drop_column("thread_id")
    with op.batch_alter_table("subscription", naming_convention=_NAMES) as batch_op:
        batch_op.drop_constraint("subscription_pkey", type_="primary")
        batch_op.create_primary_key("subscription_pkey", ["chat_id", "followed_author_id"])
        batch_op.drop_column("thread_id")
