"""Indexes that serve "newest first" questions at a million papers; `published` in link tables

`paper_category` and `paper_match` get a copy of the paper's v1 date (which never changes), so
that "newest first within a category" and "newest first of these authors" each read a handful
of index entries instead of every paper. The single-column indexes these composite ones begin
with are dropped, as they are now redundant. `paper` gets (published, arxiv_id), the full
sort key of /recent.

Revision ID: 0009
Revises: 0008
Create Date: 2026-11-30
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0009"
down_revision: str | None = "0008"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

_LINKS = (
    ("paper_category", "ix_paper_category_category", "category", "ix_paper_category_newest"),
    ("paper_match", "ix_paper_match_followed_author_id", "followed_author_id",
     "ix_paper_match_newest"),
)  # fmt: skip


def upgrade() -> None:
    for table, old_index, column, new_index in _LINKS:
        with op.batch_alter_table(table, schema=None) as batch_op:
            batch_op.add_column(sa.Column("published", sa.DateTime(timezone=True), nullable=True))
        # Rows already stored get their paper's date before the column may refuse a NULL.
        link = sa.table(table, sa.column("paper_id"), sa.column("published"))
        paper = sa.table("paper", sa.column("id"), sa.column("published"))
        op.execute(
            link.update().values(
                published=sa.select(paper.c.published)
                .where(paper.c.id == link.c.paper_id)
                .scalar_subquery()
            )
        )
        with op.batch_alter_table(table, schema=None) as batch_op:
            batch_op.alter_column(
                "published", existing_type=sa.DateTime(timezone=True), nullable=False
            )
            batch_op.drop_index(old_index)
            batch_op.create_index(new_index, [column, "published", "paper_id"], unique=False)
    with op.batch_alter_table("paper", schema=None) as batch_op:
        batch_op.drop_index("ix_paper_published")
        batch_op.create_index("ix_paper_newest", ["published", "arxiv_id"], unique=False)


def downgrade() -> None:
    with op.batch_alter_table("paper", schema=None) as batch_op:
        batch_op.drop_index("ix_paper_newest")
        batch_op.create_index("ix_paper_published", ["published"], unique=False)
    for table, old_index, column, new_index in _LINKS:
        with op.batch_alter_table(table, schema=None) as batch_op:
            batch_op.drop_index(new_index)
            batch_op.create_index(old_index, [column], unique=False)
            batch_op.drop_column("published")
