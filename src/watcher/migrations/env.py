"""Alembic environment: runs migrations on the engine that `watcher.db` hands over."""

from __future__ import annotations

from alembic import context
from sqlmodel import SQLModel

import watcher.models  # noqa: F401  (registers the tables on SQLModel.metadata)

target_metadata = SQLModel.metadata
engine = context.config.attributes["engine"]

with engine.begin() as connection:
    context.configure(
        connection=connection,
        target_metadata=target_metadata,
        render_as_batch=connection.dialect.name == "sqlite",
        compare_type=True,
    )
    with context.begin_transaction():
        context.run_migrations()
