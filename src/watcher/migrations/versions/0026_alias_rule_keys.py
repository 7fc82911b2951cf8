"""followed_author.rule_key of a person with aliases holds its aliases' keys too

A person rule used to be keyed by its display name (and categories) alone, and a chat asking for
the same name with more aliases widened the stored rule, so that every chat sharing it received
the alias's papers. The aliases are now part of the rule (`watcher.follows.rules.rule_key`): another
alias set is another follow. The key of each stored person with aliases is recomputed; rows
without aliases keep theirs (the same as before). What a row matches does not change.

Revision ID: 0026
Revises: 0025
Create Date: 2026-12-03
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

from watcher.follows.rules import rule_key

revision: str = "0026"
down_revision: str | None = "0025"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

_ROWS = sa.text(
    "SELECT id, name, aliases, categories FROM followed_author "
    "WHERE kind = 'person' AND aliases <> ''"
)
_SET_KEY = sa.text("UPDATE followed_author SET rule_key = :key WHERE id = :id")


def _categories(stored: str) -> list[str]:
    return [category for category in stored.split(",") if category]


def upgrade() -> None:
    # The old keys (name and categories) were unique, and each new key begins with its row's
    # old name key and holds a "|" no old key has: the new keys are unique too.
    bind = op.get_bind()
    for row_id, name, aliases, categories in bind.execute(_ROWS).fetchall():
        key = rule_key(name, _categories(categories), aliases.split("|"))
        bind.execute(_SET_KEY, {"key": key, "id": row_id})


def downgrade() -> None:
    # Back to the name's key, where no other row holds it (a follow of the name alone): such a
    # row keeps its new key, which the older code never looks up but still polls.
    bind = op.get_bind()
    taken = {key for (key,) in bind.execute(sa.text("SELECT rule_key FROM followed_author"))}
    for row_id, name, _aliases, categories in bind.execute(_ROWS).fetchall():
        key = rule_key(name, _categories(categories))
        if key not in taken:
            taken.add(key)
            bind.execute(_SET_KEY, {"key": key, "id": row_id})
