"""paper_count: the number of stored papers, and of papers in each category, kept on save

`/stats`' count of all papers, the count behind `/subject C` and `subjects` over all papers read
one row each instead of counting up to a million. The rows are filled here from what is stored;
from then on `watcher.store.saving` adds to them in the transaction that stores the papers.

Revision ID: 0012
Revises: 0011
Create Date: 2026-11-30
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0012"
down_revision: str | None = "0011"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "paper_count",
        sa.Column("scope", sa.Text(), nullable=False),
        sa.Column("papers", sa.BigInteger(), nullable=False),
        sa.PrimaryKeyConstraint("scope"),
    )
    op.execute("INSERT INTO paper_count (scope, papers) SELECT '', count(*) FROM paper")
    op.execute(
        "INSERT INTO paper_count (scope, papers) "
        "SELECT category, count(*) FROM paper_category GROUP BY category"
    )


def downgrade() -> None:
    op.drop_table("paper_count")
