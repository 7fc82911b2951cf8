"""author.key_digest and paper_author.published: a person's newest papers by one index each

Inline mode's `@bot NAME` (`watcher.store.by_name`) finds a person nobody follows through the
`author` rows of every spelling of their name. `author.key_digest` is the SHA-256 of the name's
`name_key` (`watcher.store.saving.key_digest`: case, accents, punctuation and word order
aside), indexed, so "Zoe Muller" finds the "Zoë Müller" arXiv wrote, and "Zoey Muller" does not;
it is computed here, in Python, for every stored author. `paper_author` gets a copy of the
paper's v1 date (which never changes), and (author_id, published, paper_id) replaces the index
on author_id alone, which it begins with: an author's newest papers are a few index entries,
however many papers they wrote.

If `name_key` ever changes, the stored digests must be recomputed by a migration like this one.

Revision ID: 0035
Revises: 0034
Create Date: 2026-12-04
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

from watcher.store.saving import key_digest

revision: str = "0035"
down_revision: str | None = "0034"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

_BATCH = 5_000  # authors read and updated at a time


def upgrade() -> None:
    with op.batch_alter_table("author") as batch:
        batch.add_column(sa.Column("key_digest", sa.String(length=64), nullable=True))
    _fill_key_digests()
    with op.batch_alter_table("author") as batch:
        batch.alter_column("key_digest", existing_type=sa.String(length=64), nullable=False)
        batch.create_index("ix_author_key_digest", ["key_digest"], unique=False)

    with op.batch_alter_table("paper_author") as batch:
        batch.add_column(sa.Column("published", sa.DateTime(timezone=True), nullable=True))
    # Rows already stored get their paper's date before the column may refuse a NULL (UPDATE
    # ... FROM: PostgreSQL and SQLite 3.33+ alike, and a join rather than a probe a row).
    op.execute(
        "UPDATE paper_author SET published = paper.published FROM paper "
        "WHERE paper.id = paper_author.paper_id"
    )
    with op.batch_alter_table("paper_author") as batch:
        batch.alter_column("published", existing_type=sa.DateTime(timezone=True), nullable=False)
        batch.drop_index("ix_paper_author_author_id")
        batch.create_index(
            "ix_paper_author_newest", ["author_id", "published", "paper_id"], unique=False
        )


def _fill_key_digests() -> None:
    """Every stored author's `key_digest`, in batches of `_BATCH` by id."""
    bind = op.get_bind()
    after = 0
    while True:
        rows = bind.execute(
            sa.text("SELECT id, name FROM author WHERE id > :after ORDER BY id LIMIT :batch"),
            {"after": after, "batch": _BATCH},
        ).all()
        if not rows:
            return
        bind.execute(
            sa.text("UPDATE author SET key_digest = :digest WHERE id = :id"),
            [{"id": author_id, "digest": key_digest(name)} for author_id, name in rows],
        )
        after = rows[-1][0]


def downgrade() -> None:
    with op.batch_alter_table("paper_author") as batch:
        batch.drop_index("ix_paper_author_newest")
        batch.create_index("ix_paper_author_author_id", ["author_id"], unique=False)
        batch.drop_column("published")
    with op.batch_alter_table("author") as batch:
        batch.drop_index("ix_author_key_digest")
        batch.drop_column("key_digest")
