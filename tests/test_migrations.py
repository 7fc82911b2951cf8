"""Alembic owns the schema: the migrations and the SQLModel tables must agree, on both databases."""

from __future__ import annotations

from alembic import command
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from sqlalchemy import Engine, inspect
from sqlmodel import SQLModel

import watcher.models  # noqa: F401  (registers the tables)
from watcher.db import alembic_config, create_db_engine, pending_migrations, upgrade


def differences(engine: Engine) -> list[object]:
    with engine.connect() as connection:
        context = MigrationContext.configure(connection, opts={"compare_type": True})
        return list(compare_metadata(context, SQLModel.metadata))


def test_autogenerate_finds_no_difference_after_upgrade(engine: Engine) -> None:
    assert pending_migrations(engine) == []
    assert differences(engine) == []


def test_an_empty_database_has_every_migration_pending(database_url: str) -> None:
    engine = create_db_engine(database_url)
    try:
        assert pending_migrations(engine) == ["0001", "0002", "0004"]
        assert differences(engine) != []  # the comparison can see a missing schema
        upgrade(engine)
        assert pending_migrations(engine) == []
    finally:
        engine.dispose()


def test_downgrade_to_base_and_up_again(engine: Engine) -> None:
    config = alembic_config(engine)
    command.downgrade(config, "base")
    assert set(inspect(engine).get_table_names()) <= {"alembic_version"}
    command.upgrade(config, "head")
    assert differences(engine) == []
