"""destination_setting: how each chat or forum topic wants to be spoken to

/pause and /resume (`paused`, `paused_since`), /quiet HH:MM-HH:MM (`quiet_start`, `quiet_end` in
local minutes; `quiet_from`, `quiet_until`: the window's current or next occurrence in UTC),
/silent (`silent`) and /format (`format`: full or compact). A destination without a row speaks as
before this revision, so nothing is filled in.

Revision ID: 0021
Revises: 0020
Create Date: 2026-12-03
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0021"
down_revision: str | None = "0020"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "destination_setting",
        sa.Column("chat_id", sa.BigInteger(), nullable=False),
        sa.Column(
            "thread_id", sa.BigInteger(), nullable=False, server_default="0", autoincrement=False
        ),
        sa.Column("paused", sa.Boolean(), nullable=False, server_default=sa.false()),
        sa.Column("paused_since", sa.DateTime(timezone=True), nullable=True),
        sa.Column("quiet_start", sa.Integer(), nullable=True),
        sa.Column("quiet_end", sa.Integer(), nullable=True),
        sa.Column("quiet_from", sa.DateTime(timezone=True), nullable=True),
        sa.Column("quiet_until", sa.DateTime(timezone=True), nullable=True),
        sa.Column("silent", sa.Boolean(), nullable=False, server_default=sa.false()),
        sa.Column("format", sa.String(length=16), nullable=False, server_default="full"),
        sa.ForeignKeyConstraint(["chat_id"], ["chat.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("chat_id", "thread_id"),
    )
    op.create_index(
        "ix_destination_setting_quiet_until", "destination_setting", ["quiet_until"], unique=False
    )


def downgrade() -> None:
    op.drop_index("ix_destination_setting_quiet_until", table_name="destination_setting")
    op.drop_table("destination_setting")
