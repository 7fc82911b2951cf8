"""chat.language and destination_setting.language: the language the bot speaks in each place

`chat.language` is what the first person who wrote in the chat (or added the bot to it) asked
for in their Telegram client; `destination_setting.language` is what /language set there. Both
empty on upgrade: every chat goes on in English until someone writes or sets it. SQLite adds
and drops the columns in batch mode.

Revision ID: 0033
Revises: 0032
Create Date: 2026-12-04
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0033"
down_revision: str | None = "0032"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("chat") as batch:
        batch.add_column(sa.Column("language", sa.String(length=16), nullable=True))
    with op.batch_alter_table("destination_setting") as batch:
        batch.add_column(sa.Column("language", sa.String(length=16), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("destination_setting") as batch:
        batch.drop_column("language")
    with op.batch_alter_table("chat") as batch:
        batch.drop_column("language")
