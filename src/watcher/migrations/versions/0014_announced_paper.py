"""announced_paper: which chat (and forum topic) was told of which paper, never pruned;
poll_state.started: when a follow's polling started


"A chat hears of a paper once" was checked against the delivery rows alone, and
`Outbox.prune` deletes the sent ones after the retention: a paper announced 40 days ago, then
found through another of the chat's follows, was announced again. This table keeps a narrow
row per (chat, thread, paper) that had a delivery queued, with the newest version queued; the
queue statement reads it, and pruning leaves it. Filled here from the deliveries still held;
from then on `watcher.store.announce` writes it in the transaction that queues a delivery.

A paper is new to a follow only if it is not older than the follow's start, its first
successful poll (`poll_state.started`, set by the poll from now on). For a follow already
polled, the day it was created stands in: it came before its first poll.

Revision ID: 0014
Revises: 0013
Create Date: 2026-12-01
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0014"
down_revision: str | None = "0013"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "announced_paper",
        sa.Column("chat_id", sa.BigInteger(), nullable=False),
        sa.Column(
            "thread_id", sa.BigInteger(), nullable=False, server_default="0", autoincrement=False
        ),
        sa.Column("paper_id", sa.Integer(), nullable=False),
        sa.Column("version", sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(["chat_id"], ["chat.id"]),
        sa.ForeignKeyConstraint(["paper_id"], ["paper.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("chat_id", "thread_id", "paper_id"),
    )
    op.execute(
        "INSERT INTO announced_paper (chat_id, thread_id, paper_id, version) "
        "SELECT chat_id, thread_id, paper_id, MAX(version) FROM delivery "
        "GROUP BY chat_id, thread_id, paper_id"
    )

    with op.batch_alter_table("poll_state") as batch_op:
        batch_op.add_column(sa.Column("started", sa.DateTime(timezone=True), nullable=True))
    op.execute(
        "UPDATE poll_state SET started = (SELECT created FROM followed_author "
        "WHERE followed_author.id = poll_state.followed_author_id) "
        "WHERE last_success IS NOT NULL"
    )


def downgrade() -> None:
    with op.batch_alter_table("poll_state") as batch_op:
        batch_op.drop_column("started")
    op.drop_table("announced_paper")
