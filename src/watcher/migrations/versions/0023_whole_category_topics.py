"""ix_followed_author_whole_topic: the whole-category topics (`/watch in cs.DC`, no words)

/watch in CATEGORY says how many papers a day the category brings, which the store knows only
while a whole-category topic of it is polled (`Store.category_week`). This partial index holds
those topics alone (their `topic` is empty), so the question reads a handful of rows however
many follows there are. No data changes: such topics did not exist before.

Revision ID: 0023
Revises: 0022
Create Date: 2026-12-03
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0023"
down_revision: str | None = "0022"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

_WHOLE = sa.text("topic = ''")


def upgrade() -> None:
    op.create_index(
        "ix_followed_author_whole_topic",
        "followed_author",
        ["id", "categories"],
        sqlite_where=_WHOLE,
        postgresql_where=_WHOLE,
    )


def downgrade() -> None:
    op.drop_index("ix_followed_author_whole_topic", table_name="followed_author")
