"""No length limit on text arXiv sends; ACM and MSC classes apart from categories

Paper links, DOI and primary category, paper_category.category and author.name become TEXT.
Author names stay unique through a SHA-256 digest (PostgreSQL cannot index long text), and
papers get two free-text fields, `acm_class` and `msc_class`. ACM and MSC terms stored as
categories until now (SQLite never enforced the old length) move into them.

Revision ID: 0003
Revises: 0004
Create Date: 2026-11-30
"""

import hashlib
import re
from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0003"
down_revision: str | None = "0004"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

# SQLite's unique constraints from 0001 have no name; this convention gives them one to drop.
_SQLITE_NAMES = {"uq": "uq_%(table_name)s_%(column_0_name)s"}
_PAPER_COLUMNS = (("primary_category", 32, False), ("abs_url", 255, False),
                  ("pdf_url", 255, False), ("doi", 255, True))  # fmt: skip


# Frozen copies of the rules in watcher.arxiv.taxonomy and watcher.arxiv.parse as of this migration.
_CATEGORY_ID = re.compile(r"[a-z]+(?:-[a-z]+)*(?:\.[A-Za-z]+(?:-[A-Za-z]+)*)?")
_MSC_CODE = re.compile(r"(?<![0-9A-Za-z])\d\d(?:[A-Z]\d\d|[A-Z]xx|-XX|-xx|-\d\d)(?![0-9A-Za-z])")


def _move_classes_out_of_categories() -> None:
    """Terms that are not category ids become the paper's ACM or MSC class."""
    bind = op.get_bind()
    rows = bind.execute(
        sa.text("SELECT paper_id, category FROM paper_category ORDER BY paper_id, position")
    ).all()
    classes: dict[int, tuple[list[str], list[str]]] = {}
    for paper_id, term in rows:
        if len(term) <= 40 and _CATEGORY_ID.fullmatch(term):
            continue
        acm, msc = classes.setdefault(paper_id, ([], []))
        (msc if _MSC_CODE.search(term) else acm).append(term)
        bind.execute(
            sa.text("DELETE FROM paper_category WHERE paper_id = :paper AND category = :term"),
            {"paper": paper_id, "term": term},
        )
    for paper_id, (acm, msc) in classes.items():
        bind.execute(
            sa.text("UPDATE paper SET acm_class = :acm, msc_class = :msc WHERE id = :paper"),
            {"paper": paper_id, "acm": "; ".join(acm) or None, "msc": "; ".join(msc) or None},
        )


def _digest(name: str) -> str:
    return hashlib.sha256(name.encode("utf-8")).hexdigest()


def _old_author_unique() -> str:
    return "uq_author_name" if op.get_bind().dialect.name == "sqlite" else "author_name_key"


def upgrade() -> None:
    with op.batch_alter_table("paper", schema=None) as batch_op:
        for column, length, nullable in _PAPER_COLUMNS:
            batch_op.alter_column(
                column,
                existing_type=sa.String(length=length),
                type_=sa.Text(),
                existing_nullable=nullable,
            )
        batch_op.add_column(sa.Column("acm_class", sa.Text(), nullable=True))
        batch_op.add_column(sa.Column("msc_class", sa.Text(), nullable=True))
    with op.batch_alter_table("paper_category", schema=None) as batch_op:
        batch_op.alter_column(
            "category", existing_type=sa.String(length=32), type_=sa.Text(), existing_nullable=False
        )
    _move_classes_out_of_categories()

    with op.batch_alter_table("author", schema=None) as batch_op:
        batch_op.add_column(sa.Column("name_digest", sa.String(length=64), nullable=True))
    bind = op.get_bind()
    authors = bind.execute(sa.text("SELECT id, name FROM author")).all()
    if authors:
        bind.execute(
            sa.text("UPDATE author SET name_digest = :digest WHERE id = :id"),
            [{"id": author_id, "digest": _digest(name)} for author_id, name in authors],
        )
    with op.batch_alter_table("author", schema=None, naming_convention=_SQLITE_NAMES) as batch_op:
        batch_op.drop_constraint(_old_author_unique(), type_="unique")
        batch_op.alter_column(
            "name", existing_type=sa.String(length=512), type_=sa.Text(), existing_nullable=False
        )
        batch_op.alter_column("name_digest", existing_type=sa.String(length=64), nullable=False)
        batch_op.create_unique_constraint("author_name_digest_key", ["name_digest"])


def downgrade() -> None:
    # Text longer than the old limits cannot go back into them: PostgreSQL refuses the downgrade
    # then, rather than cutting what arXiv sent.
    with op.batch_alter_table("author", schema=None, naming_convention=_SQLITE_NAMES) as batch_op:
        batch_op.drop_constraint("author_name_digest_key", type_="unique")
        batch_op.drop_column("name_digest")
        batch_op.alter_column(
            "name", existing_type=sa.Text(), type_=sa.String(length=512), existing_nullable=False
        )
        batch_op.create_unique_constraint(_old_author_unique(), ["name"])
    with op.batch_alter_table("paper_category", schema=None) as batch_op:
        batch_op.alter_column(
            "category", existing_type=sa.Text(), type_=sa.String(length=32), existing_nullable=False
        )
    with op.batch_alter_table("paper", schema=None) as batch_op:
        batch_op.drop_column("msc_class")
        batch_op.drop_column("acm_class")
        for column, length, nullable in _PAPER_COLUMNS:
            batch_op.alter_column(
                column,
                existing_type=sa.Text(),
                type_=sa.String(length=length),
                existing_nullable=nullable,
            )
