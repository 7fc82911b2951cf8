"""Full-text search of the papers' titles and abstracts (/search), kept by the database

SQLite: `paper_search`, an FTS5 table over `paper` (external content: it holds the index, not a
copy of the text), tokenised by `porter unicode61 remove_diacritics 2` (words of letters and
digits, case and accents folded, Porter stems), with three triggers that keep it in step with
every insert, update of a title or abstract, and delete of a paper. PostgreSQL: `paper.search_words`,
a stored generated `tsvector` of `to_tsvector('english', title || ' ' || abstract)` (Snowball
English stems, English stop words dropped) under a GIN index. Both are filled for the papers
already stored, here; afterwards no Python code writes them.

A later migration that rebuilds `paper` in SQLite's batch mode drops the triggers with the old
table: it must create them again (`create_sqlite_triggers`; since 0030, that migration's own).

Revision ID: 0027
Revises: 0026
Create Date: 2026-12-03
"""

from collections.abc import Sequence

from alembic import op

revision: str = "0027"
down_revision: str | None = "0026"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

_SQLITE_TABLE = (
    "CREATE VIRTUAL TABLE paper_search USING fts5(title, abstract, content='paper', "
    "content_rowid='id', tokenize='porter unicode61 remove_diacritics 2')"
)
_SQLITE_TRIGGERS = (
    "CREATE TRIGGER paper_search_insert AFTER INSERT ON paper BEGIN "
    "INSERT INTO paper_search (rowid, title, abstract) VALUES (new.id, new.title, new.abstract); "
    "END",
    "CREATE TRIGGER paper_search_delete AFTER DELETE ON paper BEGIN "
    "INSERT INTO paper_search (paper_search, rowid, title, abstract) "
    "VALUES ('delete', old.id, old.title, old.abstract); END",
    "CREATE TRIGGER paper_search_update AFTER UPDATE OF title, abstract ON paper BEGIN "
    "INSERT INTO paper_search (paper_search, rowid, title, abstract) "
    "VALUES ('delete', old.id, old.title, old.abstract); "
    "INSERT INTO paper_search (rowid, title, abstract) VALUES (new.id, new.title, new.abstract); "
    "END",
)


def create_sqlite_triggers() -> None:
    for statement in _SQLITE_TRIGGERS:
        op.execute(statement)


def upgrade() -> None:
    if op.get_bind().dialect.name == "sqlite":
        op.execute(_SQLITE_TABLE)
        create_sqlite_triggers()
        op.execute("INSERT INTO paper_search (paper_search) VALUES ('rebuild')")
        return
    op.execute(
        "ALTER TABLE paper ADD COLUMN search_words tsvector GENERATED ALWAYS AS "
        "(to_tsvector('english'::regconfig, title || ' ' || abstract)) STORED"
    )
    op.execute("CREATE INDEX ix_paper_search_words ON paper USING gin (search_words)")


def downgrade() -> None:
    if op.get_bind().dialect.name == "sqlite":
        for name in ("paper_search_update", "paper_search_delete", "paper_search_insert"):
            op.execute(f"DROP TRIGGER {name}")
        op.execute("DROP TABLE paper_search")
        return
    op.execute("DROP INDEX ix_paper_search_words")
    op.execute("ALTER TABLE paper DROP COLUMN search_words")
