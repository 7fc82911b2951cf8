"""/search's index numbers its entries newest first and holds the papers' categories

SQLite: `paper_search` (0027's FTS5 table) is made again, contentless (`content=''`: it holds
the index only) with `detail=column` (no word positions: /search asks for single words, never
phrases), and with a third column, `categories`: one term per category of the paper (primary
and cross-lists), `category_term` below. Its rowid is no longer the paper's id but the paper's
search key, `(seconds of published since 2000) * 2^31 + id`, so that the index's own order is
(nearly) newest first: a search reads its matches from the newest down and stops after the
page, and "in CATEGORY" is one more term of the same index, never a join. Ties within a second
are put in order by the store (`watcher.store.search`); the key's low 31 bits are the paper's id.

Triggers keep it in step: on `paper` (insert, change of title, abstract or published, delete:
before the delete, while the categories are still there) and on `paper_category` (insert,
change, delete, when the paper is still there: a paper's delete cascades to its categories).
A contentless FTS5 table forgets a row only when told its old values, so each trigger gives
them, computed as the insert computed them.

PostgreSQL: 0027's generated `paper.search_words` gives way to a table, `paper_search`: each
paper's id, `published` and `arxiv_id` (the order's columns) and `terms`, a `tsvector` of its
words (`to_tsvector('english', title || ' ' || abstract)`, as 0027) and of terms no word can be
(the English configuration lowercases every word): `Y2026` and `M202611` (the year and month of
`published`, UTC) and `Ccs.DC` for each category, under a GIN index. A row trigger on `paper`,
deferred to the commit (so that a new paper's row is written once, with the categories saved
after it: no dead row, no second GIN entry), writes a paper's row on insert and on a change of
its title, abstract, date or id; statement triggers on `paper_category` (with their transition
tables) put the category terms of the papers already indexed in again. A paper's delete takes its row with it (the foreign key cascades). The store
reads a page of many matches from a window of the newest months by ORing their terms
(`watcher.store.search`).

Revision ID: 0030
Revises: 0029
Create Date: 2026-12-04
"""

from collections.abc import Sequence

from alembic import op

revision: str = "0030"
down_revision: str | None = "0029"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

# 2000-01-01 in Unix seconds; a key's seconds must fit 32 bits (1932 to 2068) and the id 31.
_EPOCH = 946684800
_ID_BITS = 31


def sqlite_key(row: str) -> str:
    """The search key of the paper `row` (a table alias, `new` or `old`)."""
    return (
        f"((CAST(strftime('%s', {row}.published) AS INTEGER) - {_EPOCH}) "
        f"* {1 << _ID_BITS} + {row}.id)"
    )


# A category as one term of letters and digits, that the tokenizer keeps whole and the stemmer
# leaves alone (it ends in a digit): "cs.DC" -> "cs0dc9", "cond-mat.stat-mech" ->
# "cond1mat0stat1mech9". The store makes the same term (`watcher.store.search.category_term`).
_TERM = "replace(replace(lower({c}), '.', '0'), '-', '1') || '9'"


def sqlite_categories(paper_id: str, *, without: str | None = None, also: str | None = None) -> str:
    """The `categories` text of the paper `paper_id`: its categories' terms, space-joined (NULL
    for none); `without` one of them (as before it was added), `also` one more (as before it
    was removed)."""
    # Every piece of SQL built here is made of this module's constants (S608: none is input).
    rows = f"SELECT category FROM paper_category WHERE paper_id = {paper_id}"  # noqa: S608
    if without is not None:
        rows += f" AND category <> {without}"
    if also is not None:
        rows += f" UNION ALL SELECT {also}"
    return f"(SELECT group_concat({_TERM.format(c='category')}, ' ') FROM ({rows}))"  # noqa: S608


_SQLITE_TABLE = (
    "CREATE VIRTUAL TABLE paper_search USING fts5(title, abstract, categories, content='', "
    "detail='column', columnsize=0, tokenize='porter unicode61 remove_diacritics 2')"
)


def _add(row: str, categories: str) -> str:
    return (
        "INSERT INTO paper_search (rowid, title, abstract, categories) "  # noqa: S608
        f"VALUES ({sqlite_key(row)}, {row}.title, {row}.abstract, {categories});"
    )


def _forget(row: str, categories: str) -> str:
    return (
        "INSERT INTO paper_search (paper_search, rowid, title, abstract, categories) "  # noqa: S608
        f"VALUES ('delete', {sqlite_key(row)}, {row}.title, {row}.abstract, {categories});"
    )


def _again(paper_id: str, before: str) -> str:
    """Forget the paper `paper_id` with `before` as its old categories, and add it as it is."""
    found = f"FROM paper p WHERE p.id = {paper_id};"
    return (
        "INSERT INTO paper_search (paper_search, rowid, title, abstract, categories) "
        f"SELECT 'delete', {sqlite_key('p')}, p.title, p.abstract, {before} {found} "
        "INSERT INTO paper_search (rowid, title, abstract, categories) "
        f"SELECT {sqlite_key('p')}, p.title, p.abstract, {sqlite_categories('p.id')} {found}"
    )


_SQLITE_TRIGGERS = (
    "CREATE TRIGGER paper_search_insert AFTER INSERT ON paper BEGIN "
    f"{_add('new', sqlite_categories('new.id'))} END",
    "CREATE TRIGGER paper_search_delete BEFORE DELETE ON paper BEGIN "
    f"{_forget('old', sqlite_categories('old.id'))} END",
    "CREATE TRIGGER paper_search_update AFTER UPDATE OF title, abstract, published ON paper "
    f"BEGIN {_forget('old', sqlite_categories('old.id'))} "
    f"{_add('new', sqlite_categories('new.id'))} END",
    "CREATE TRIGGER paper_search_category_insert AFTER INSERT ON paper_category "
    f"BEGIN {_again('new.paper_id', sqlite_categories('p.id', without='new.category'))} END",
    "CREATE TRIGGER paper_search_category_delete AFTER DELETE ON paper_category "
    f"BEGIN {_again('old.paper_id', sqlite_categories('p.id', also='old.category'))} END",
    "CREATE TRIGGER paper_search_category_update AFTER UPDATE OF category ON paper_category "
    f"BEGIN {_again('new.paper_id', sqlite_categories('p.id', without='new.category', also='old.category'))} END",
)
_SQLITE_TRIGGER_NAMES = (
    "paper_search_insert",
    "paper_search_delete",
    "paper_search_update",
    "paper_search_category_insert",
    "paper_search_category_delete",
    "paper_search_category_update",
)

# 0027's table and triggers, for the way down.
_OLD_TABLE = (
    "CREATE VIRTUAL TABLE paper_search USING fts5(title, abstract, content='paper', "
    "content_rowid='id', tokenize='porter unicode61 remove_diacritics 2')"
)
_OLD_TRIGGERS = (
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
    """The triggers that keep `paper_search` in step: a later migration that rebuilds `paper`
    or `paper_category` in SQLite's batch mode drops them with the old table, and must create
    them again."""
    for statement in _SQLITE_TRIGGERS:
        op.execute(statement)


def _sqlite_upgrade() -> None:
    for name in ("paper_search_update", "paper_search_delete", "paper_search_insert"):
        op.execute(f"DROP TRIGGER {name}")
    op.execute("DROP TABLE paper_search")
    op.execute(_SQLITE_TABLE)
    op.execute(
        "INSERT INTO paper_search (rowid, title, abstract, categories) "  # noqa: S608
        f"SELECT {sqlite_key('p')}, p.title, p.abstract, {sqlite_categories('p.id')} "
        "FROM paper p"
    )
    op.execute("INSERT INTO paper_search (paper_search) VALUES ('optimize')")
    create_sqlite_triggers()


def _sqlite_downgrade() -> None:
    for name in _SQLITE_TRIGGER_NAMES:
        op.execute(f"DROP TRIGGER {name}")
    op.execute("DROP TABLE paper_search")
    op.execute(_OLD_TABLE)
    for statement in _OLD_TRIGGERS:
        op.execute(statement)
    op.execute("INSERT INTO paper_search (paper_search) VALUES ('rebuild')")


# PostgreSQL: the search terms of a paper (its words, stemmed as 0027 stemmed them, and its
# month, year and categories as terms no word can be: they begin with a capital letter), in a
# table of their own with the order's columns, under a GIN index.
_POSTGRES_TABLE = (
    "CREATE TABLE paper_search (paper_id integer PRIMARY KEY REFERENCES paper (id) "
    "ON DELETE CASCADE, published timestamptz NOT NULL, arxiv_id varchar(64) NOT NULL, "
    "terms tsvector NOT NULL)"
)
_POSTGRES_INDEX = "CREATE INDEX ix_paper_search_terms ON paper_search USING gin (terms)"
_POSTGRES_FUNCTIONS = (
    # Terms of a paper row but its categories'.
    "CREATE FUNCTION paper_search_own_terms(title text, abstract text, published timestamptz) "
    "RETURNS tsvector LANGUAGE sql STABLE AS $$ "
    "SELECT to_tsvector('english'::regconfig, title || ' ' || abstract) || array_to_tsvector("
    "ARRAY['Y' || to_char(published AT TIME ZONE 'UTC', 'YYYY'), "
    "'M' || to_char(published AT TIME ZONE 'UTC', 'YYYYMM')]) $$",
    "CREATE FUNCTION paper_search_category_terms(paper integer) RETURNS tsvector "
    "LANGUAGE sql STABLE AS $$ SELECT array_to_tsvector(ARRAY("
    "SELECT 'C' || category FROM paper_category WHERE paper_id = paper)) $$",
    # At commit (a deferred trigger): the paper as it is then, with the categories saved after
    # it in the same transaction, written once; nothing if it was deleted meanwhile.
    "CREATE FUNCTION paper_search_write() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN "
    "INSERT INTO paper_search (paper_id, published, arxiv_id, terms) SELECT p.id, "
    "p.published, p.arxiv_id, paper_search_own_terms(p.title, p.abstract, p.published) "
    "|| paper_search_category_terms(p.id) FROM paper p WHERE p.id = NEW.id "
    "ON CONFLICT (paper_id) DO UPDATE SET published = EXCLUDED.published, "
    "arxiv_id = EXCLUDED.arxiv_id, terms = EXCLUDED.terms; RETURN NULL; END $$",
    # The categories of the papers a statement changed: their old C terms out, the new ones in.
    "CREATE FUNCTION paper_search_categories() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN "
    "UPDATE paper_search s SET terms = ts_delete(s.terms, ARRAY(SELECT t FROM "
    "unnest(tsvector_to_array(s.terms)) AS t WHERE t LIKE 'C%')) "
    "|| paper_search_category_terms(s.paper_id) "
    "WHERE s.paper_id IN (SELECT paper_id FROM changed); RETURN NULL; END $$",
)
_POSTGRES_TRIGGERS = (
    "CREATE CONSTRAINT TRIGGER paper_search_write AFTER INSERT OR UPDATE OF title, abstract, "
    "published, arxiv_id ON paper DEFERRABLE INITIALLY DEFERRED FOR EACH ROW "
    "EXECUTE FUNCTION paper_search_write()",
    "CREATE TRIGGER paper_search_category_insert AFTER INSERT ON paper_category "
    "REFERENCING NEW TABLE AS changed FOR EACH STATEMENT "
    "EXECUTE FUNCTION paper_search_categories()",
    "CREATE TRIGGER paper_search_category_delete AFTER DELETE ON paper_category "
    "REFERENCING OLD TABLE AS changed FOR EACH STATEMENT "
    "EXECUTE FUNCTION paper_search_categories()",
    "CREATE TRIGGER paper_search_category_update AFTER UPDATE ON paper_category "
    "REFERENCING NEW TABLE AS changed FOR EACH STATEMENT "
    "EXECUTE FUNCTION paper_search_categories()",
)


def _postgres_upgrade() -> None:
    op.execute("DROP INDEX ix_paper_search_words")
    op.execute("ALTER TABLE paper DROP COLUMN search_words")
    op.execute(_POSTGRES_TABLE)
    for statement in _POSTGRES_FUNCTIONS:
        op.execute(statement)
    op.execute(
        "INSERT INTO paper_search (paper_id, published, arxiv_id, terms) "
        "SELECT p.id, p.published, p.arxiv_id, paper_search_own_terms(p.title, p.abstract, "
        "p.published) || array_to_tsvector(ARRAY(SELECT 'C' || c.category "
        "FROM paper_category c WHERE c.paper_id = p.id)) FROM paper p"
    )
    op.execute(_POSTGRES_INDEX)
    for statement in _POSTGRES_TRIGGERS:
        op.execute(statement)


def _postgres_downgrade() -> None:
    op.execute("DROP TRIGGER paper_search_write ON paper")
    for change in ("insert", "delete", "update"):
        op.execute(f"DROP TRIGGER paper_search_category_{change} ON paper_category")
    op.execute("DROP TABLE paper_search")
    for function in ("categories", "write", "category_terms", "own_terms"):
        op.execute(f"DROP FUNCTION paper_search_{function}")
    op.execute(
        "ALTER TABLE paper ADD COLUMN search_words tsvector GENERATED ALWAYS AS "
        "(to_tsvector('english'::regconfig, title || ' ' || abstract)) STORED"
    )
    op.execute("CREATE INDEX ix_paper_search_words ON paper USING gin (search_words)")


def upgrade() -> None:
    if op.get_bind().dialect.name == "sqlite":
        _sqlite_upgrade()
    else:
        _postgres_upgrade()


def downgrade() -> None:
    if op.get_bind().dialect.name == "sqlite":
        _sqlite_downgrade()
    else:
        _postgres_downgrade()
