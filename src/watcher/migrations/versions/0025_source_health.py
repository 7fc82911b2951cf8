"""source_state and admin_notice: a source that stops parsing is told to the admin chats

Each of arXiv's interfaces (listing, oai, api, author_feed) gets a row once an answer of it
fails to parse: since when, the URL, the problem, and whether the admins were told. The notices
owed to the admin chats are rows of `admin_notice`, queued with the change of state and marked
sent only once Telegram confirmed them, so a restart neither re-sends nor forgets one. New
tables, no data changes.

Revision ID: 0025
Revises: 0024
Create Date: 2026-12-03
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0025"
down_revision: str | None = "0024"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "source_state",
        sa.Column("source", sa.String(length=16), nullable=False),
        sa.Column("broken_since", sa.DateTime(timezone=True), nullable=True),
        sa.Column("url", sa.Text(), nullable=True),
        sa.Column("problem", sa.Text(), nullable=True),
        sa.Column("failures", sa.Integer(), nullable=False),
        sa.Column("last_failure", sa.DateTime(timezone=True), nullable=True),
        sa.Column("alerted_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("spell_alerted", sa.Boolean(), nullable=False, server_default=sa.false()),
        sa.Column("recovered_at", sa.DateTime(timezone=True), nullable=True),
        sa.PrimaryKeyConstraint("source"),
    )
    op.create_table(
        "admin_notice",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("chat_id", sa.BigInteger(), nullable=False),
        sa.Column("text", sa.Text(), nullable=False),
        sa.Column("created", sa.DateTime(timezone=True), nullable=False),
        sa.Column("sent_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("refused", sa.Text(), nullable=True),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_index("ix_admin_notice_pending", "admin_notice", ["sent_at", "refused", "id"])


def downgrade() -> None:
    op.drop_index("ix_admin_notice_pending", table_name="admin_notice")
    op.drop_table("admin_notice")
    op.drop_table("source_state")
