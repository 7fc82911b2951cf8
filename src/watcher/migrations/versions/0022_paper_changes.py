"""paper.changes: what a paper's stored version changed from the one stored before it

A revision's message says what changed (title, authors, abstract, categories, comments, journal
reference, DOI) and shows the abstract again only when it changed. The save path writes the
"," joined names when it stores a newer version (`watcher.store.saving`); papers stored before
this migration have none, and their revisions' messages say nothing of changes until the next.

Revision ID: 0022
Revises: 0021
Create Date: 2026-12-03
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0022"
down_revision: str | None = "0021"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.add_column("paper", sa.Column("changes", sa.Text(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("paper") as batch:
        batch.drop_column("changes")
