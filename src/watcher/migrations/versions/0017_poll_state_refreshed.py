"""poll_state.refreshed: when a follow's whole list was last read from the API;
ix_delivery_paper: a paper's deliveries

In API mode a known follow pages back only to a window before its last success, by the date of
a paper's current version. A metadata change (a journal reference, a DOI, a title fixed) keeps
that date, so it was never seen for a paper older than the window. Now the API source reads a
follow's whole list again once a week (`watcher.polling.sources.api`), and this column says when it
last did. A follow already polled read its whole list at its first poll: that stands in.

A save that stores a newer version of a paper moves the paper's waiting deliveries to it,
whichever follow's save it is (`watcher.store.announce.move_waiting`): it reads them by paper,
which no index served (the unique key leads with the chat).

Revision ID: 0017
Revises: 0015
Create Date: 2026-12-01
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0017"
down_revision: str | None = "0015"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("poll_state") as batch_op:
        batch_op.add_column(sa.Column("refreshed", sa.DateTime(timezone=True), nullable=True))
    op.execute("UPDATE poll_state SET refreshed = COALESCE(started, last_success)")
    op.create_index("ix_delivery_paper", "delivery", ["paper_id"])


def downgrade() -> None:
    op.drop_index("ix_delivery_paper", table_name="delivery")
    with op.batch_alter_table("poll_state") as batch_op:
        batch_op.drop_column("refreshed")
