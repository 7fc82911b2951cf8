"""Alembic environment: runs migrations on the engine that `watcher.runtime.db` hands over."""

from __future__ import annotations

from alembic import context
from sqlmodel import SQLModel

import watcher.store.destinations  # registers destination_setting on SQLModel.metadata
import watcher.store.dialects
import watcher.store.exclusions  # registers excluded_word and held_back_paper
import watcher.store.reading_list  # registers saved_paper
import watcher.store.source_health  # registers source_state and admin_notice
import watcher.store.suggestion_tables  # registers issue 32's suggestion tables
import watcher.store.tables
from watcher.runtime.db import compared_by_autogenerate

watcher.store.dialects.with_postgresql_options()  # the whole schema, as migrations see it
target_metadata = SQLModel.metadata
engine = context.config.attributes["engine"]

with engine.connect() as connection:
    sqlite = connection.dialect.name == "sqlite"
    if sqlite:
        # SQLite's batch mode copies a table, drops the old one and renames the copy; with
        # foreign keys enforced that DROP would cascade into every table referring to it
        # (a paper's categories, authors, matches and deliveries). The pragma is ignored inside
        # a transaction, so it is switched off before the migrations' transaction begins.
        connection.exec_driver_sql("PRAGMA foreign_keys=OFF")
        connection.commit()
    try:
        context.configure(
            connection=connection,
            target_metadata=target_metadata,
            render_as_batch=sqlite,
            compare_type=True,
            include_name=compared_by_autogenerate,
        )
        with context.begin_transaction():
            context.run_migrations()
        connection.commit()
    finally:
        if sqlite:
            connection.rollback()
            connection.exec_driver_sql("PRAGMA foreign_keys=ON")
            connection.commit()
