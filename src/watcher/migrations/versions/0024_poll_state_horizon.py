"""poll_state.horizon: the newest arXiv id the store held when a follow started

A paper was new to a follow when its v1 (submission) date was no earlier than the follow's
start less four days; a submission held in moderation for a week and announced after the
follow began was stored silently. arXiv gives the id at announcement, so "new" is now "its id
is newer than the follow's horizon" (`watcher.store.papers`), set by the poll with `started`.

For a follow already started, the horizon is the newest new-style id among the papers the
store had first seen by its start (`paper.first_seen`): what it held then, as the poll would
have set it. Nothing announced before is new after the upgrade, and nothing announced after the
start is taken for old. A follow whose start found no paper stored keeps none: the first id of
January of the year before its start stands in (`watcher.store.papers`). Ids are ordered in
Python (arXiv's order), not by the database's collation.

Revision ID: 0024
Revises: 0023
Create Date: 2026-12-03
"""

import re
from bisect import bisect_right
from collections.abc import Sequence
from datetime import UTC, datetime

import sqlalchemy as sa
from alembic import op

# A new-style id, YYMM.NNNN(N); its (YYMM, number) is arXiv's order of announcement (as
# `watcher.arxiv.records.announcement_order`, kept here as it was: a migration does not change).
_NEW_STYLE = re.compile(r"(\d{2})(0[1-9]|1[0-2])\.(\d{4,5})")

revision: str = "0024"
down_revision: str | None = "0023"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def _order(arxiv_id: str) -> tuple[int, int] | None:
    match = _NEW_STYLE.fullmatch(arxiv_id)
    if match is None:
        return None
    year, month, number = match.groups()
    return int(year) * 100 + int(month), int(number)


def _utc(when: datetime | str) -> datetime:
    """A timestamp as either database hands it to raw SQL (SQLite: text), in UTC."""
    if isinstance(when, str):
        when = datetime.fromisoformat(when)
    return when.replace(tzinfo=UTC) if when.tzinfo is None else when.astimezone(UTC)


def upgrade() -> None:
    with op.batch_alter_table("poll_state") as batch_op:
        batch_op.add_column(sa.Column("horizon", sa.String(length=64), nullable=True))
    connection = op.get_bind()
    starts = connection.execute(
        sa.text("SELECT followed_author_id, started FROM poll_state WHERE started IS NOT NULL")
    ).all()
    if not starts:
        return
    papers = connection.execute(
        sa.text("SELECT first_seen, arxiv_id FROM paper WHERE arxiv_id LIKE '____.%'")
    ).all()
    # The newest id seen by each instant, in the order of first sight.
    seen = sorted((_utc(first_seen), arxiv_id) for first_seen, arxiv_id in papers)
    instants: list[datetime] = []
    newest: list[str] = []
    best: tuple[tuple[int, int], str] | None = None
    for first_seen, arxiv_id in seen:
        order = _order(arxiv_id)
        if order is None:
            continue
        if best is None or order > best[0]:
            best = (order, arxiv_id)
        instants.append(first_seen)
        newest.append(best[1])
    rows = []
    for followed_id, started in starts:
        at = bisect_right(instants, _utc(started))
        if at:
            rows.append({"id": followed_id, "horizon": newest[at - 1]})
    if rows:
        connection.execute(
            sa.text("UPDATE poll_state SET horizon = :horizon WHERE followed_author_id = :id"),
            rows,
        )


def downgrade() -> None:
    with op.batch_alter_table("poll_state") as batch_op:
        batch_op.drop_column("horizon")
