"""chat.digest_days: the days of the week a digest goes out, as a bit mask (bit 0 is Monday)

A digest went out every day or on one weekday (`digest_weekday`, NULL for every day). People
asked for Monday to Friday, which one weekday cannot say. `digest_days` holds any set of days:
127 every day, 31 Monday to Friday, 1 << N weekday N. It is set exactly when `digest_minute` is.
SQLite drops the old column in place (3.35 and newer, which the store requires).

Revision ID: 0019
Revises: 0017
Create Date: 2026-12-01
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0019"
down_revision: str | None = "0017"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.add_column("chat", sa.Column("digest_days", sa.Integer(), nullable=True))
    op.execute(
        "UPDATE chat SET digest_days = CASE WHEN digest_weekday IS NULL THEN 127 "
        "ELSE 1 << digest_weekday END WHERE digest_minute IS NOT NULL"
    )
    op.drop_column("chat", "digest_weekday")


def downgrade() -> None:
    # One weekday, or every day: a digest on several days (Monday to Friday) becomes daily.
    op.add_column("chat", sa.Column("digest_weekday", sa.Integer(), nullable=True))
    for weekday in range(7):
        op.execute(
            sa.text("UPDATE chat SET digest_weekday = :day WHERE digest_days = :mask").bindparams(
                day=weekday, mask=1 << weekday
            )
        )
    op.drop_column("chat", "digest_days")
