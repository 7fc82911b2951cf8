"""The time zone, the digest and revisions move from `chat` to each destination (a chat, or one
forum topic of it) in `destination_setting`

A forum topic's /digest, /timezone and /revisions changed the whole chat; now each destination
has its own. So that nothing changes for anyone on upgrade, every existing destination of a chat
whose values are not the defaults gets the chat's current ones: General (or the chat without
topics), each topic with a settings row, each topic it has subscriptions in, and each topic with
papers held for a digest. Then the chat's columns are dropped (they would only be read wrongly).
SQLite alters `chat` in batch mode; the migrations run with its foreign keys off, so rebuilding
it cascades nothing.

Down again, a chat takes its General's values (or, with none, its lowest topic's), and a
topic's held papers whose chat has no digest are pending again: nothing held is stranded.

Revision ID: 0028
Revises: 0027
Create Date: 2026-12-04
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0028"
down_revision: str | None = "0027"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

_COLUMNS = ("timezone", "digest_minute", "digest_days", "next_digest_at", "digest_since",
            "notify_revisions")  # fmt: skip

# The destinations of the chats whose zone, digest or revisions are not the defaults.
_MISSING_DESTINATIONS = """
INSERT INTO destination_setting (chat_id, thread_id)
SELECT DISTINCT place.chat_id, place.thread_id FROM (
    SELECT id AS chat_id, 0 AS thread_id FROM chat
    UNION SELECT chat_id, thread_id FROM subscription
    UNION SELECT chat_id, thread_id FROM delivery WHERE status = 'held'
) AS place
JOIN chat ON chat.id = place.chat_id
WHERE (chat.timezone <> 'UTC' OR chat.digest_minute IS NOT NULL OR chat.notify_revisions)
AND NOT EXISTS (
    SELECT 1 FROM destination_setting AS known
    WHERE known.chat_id = place.chat_id AND known.thread_id = place.thread_id
)
"""

# Each destination takes its chat's values (a row-value assignment: PostgreSQL, SQLite 3.15+).
_COPY_TO_DESTINATIONS = """
UPDATE destination_setting SET
(timezone, digest_minute, digest_days, next_digest_at, digest_since, notify_revisions) = (
    SELECT chat.timezone, chat.digest_minute, chat.digest_days, chat.next_digest_at,
    chat.digest_since, chat.notify_revisions
    FROM chat WHERE chat.id = destination_setting.chat_id
)
"""

# Down: each chat takes its General's values, or its lowest topic's.
_COPY_TO_CHATS = """
UPDATE chat SET
(timezone, digest_minute, digest_days, next_digest_at, digest_since, notify_revisions) = (
    SELECT d.timezone, d.digest_minute, d.digest_days, d.next_digest_at, d.digest_since,
    d.notify_revisions
    FROM destination_setting AS d WHERE d.chat_id = chat.id ORDER BY d.thread_id LIMIT 1
)
WHERE EXISTS (SELECT 1 FROM destination_setting AS d WHERE d.chat_id = chat.id)
"""


def upgrade() -> None:
    with op.batch_alter_table("destination_setting", schema=None) as batch_op:
        batch_op.add_column(
            sa.Column("timezone", sa.String(length=64), nullable=False, server_default="UTC")
        )
        batch_op.add_column(sa.Column("digest_minute", sa.Integer(), nullable=True))
        batch_op.add_column(sa.Column("digest_days", sa.Integer(), nullable=True))
        batch_op.add_column(sa.Column("next_digest_at", sa.DateTime(timezone=True), nullable=True))
        batch_op.add_column(sa.Column("digest_since", sa.DateTime(timezone=True), nullable=True))
        batch_op.add_column(
            sa.Column("notify_revisions", sa.Boolean(), nullable=False, server_default=sa.false())
        )
        batch_op.create_index(
            "ix_destination_setting_next_digest_at", ["next_digest_at"], unique=False
        )
    op.execute(_MISSING_DESTINATIONS)
    op.execute(_COPY_TO_DESTINATIONS)
    with op.batch_alter_table("chat", schema=None) as batch_op:
        batch_op.drop_index("ix_chat_next_digest_at")
        for name in reversed(_COLUMNS):
            batch_op.drop_column(name)


def downgrade() -> None:
    with op.batch_alter_table("chat", schema=None) as batch_op:
        batch_op.add_column(
            sa.Column("notify_revisions", sa.Boolean(), nullable=False, server_default=sa.false())
        )
        batch_op.add_column(
            sa.Column("timezone", sa.String(length=64), nullable=False, server_default="UTC")
        )
        batch_op.add_column(sa.Column("digest_minute", sa.Integer(), nullable=True))
        batch_op.add_column(sa.Column("digest_days", sa.Integer(), nullable=True))
        batch_op.add_column(sa.Column("next_digest_at", sa.DateTime(timezone=True), nullable=True))
        batch_op.add_column(sa.Column("digest_since", sa.DateTime(timezone=True), nullable=True))
        batch_op.create_index("ix_chat_next_digest_at", ["next_digest_at"], unique=False)
    op.execute(_COPY_TO_CHATS)
    op.execute(
        "UPDATE delivery SET status = 'pending' WHERE status = 'held' AND NOT EXISTS "
        "(SELECT 1 FROM chat WHERE chat.id = delivery.chat_id AND chat.next_digest_at IS NOT NULL)"
    )
    with op.batch_alter_table("destination_setting", schema=None) as batch_op:
        batch_op.drop_index("ix_destination_setting_next_digest_at")
        for name in reversed(_COLUMNS):
            batch_op.drop_column(name)
