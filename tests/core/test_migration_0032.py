"""Migration 0032 (issue 33, item 3): `destination_setting.link_preview`, off for every
destination already there, its other settings kept; and gone again on downgrade."""

from __future__ import annotations

from alembic import command
from sqlalchemy import inspect, text

from watcher.runtime.db import alembic_config, create_db_engine

_ROWS = "SELECT chat_id, thread_id, silent, format, link_preview FROM destination_setting"


def test_0032_adds_link_preview_off_and_keeps_each_destination(database_url: str) -> None:
    engine = create_db_engine(database_url)
    config = alembic_config(engine)
    since = "2026-12-04 07:00:00+00:00"
    try:
        command.upgrade(config, "0030")
        with engine.begin() as connection:
            connection.execute(
                text(
                    "INSERT INTO chat (id, kind, active, created) "
                    f"VALUES (42, 'private', true, '{since}')"
                )
            )
            connection.execute(
                text(
                    "INSERT INTO destination_setting (chat_id, thread_id, silent, format) "
                    "VALUES (42, 0, true, 'compact')"
                )
            )
        command.upgrade(config, "0032")
        with engine.begin() as connection:
            rows = [tuple(row) for row in connection.execute(text(_ROWS)).all()]
        assert rows == [(42, 0, True, "compact", False)]

        command.downgrade(config, "0030")
        columns = {c["name"] for c in inspect(engine).get_columns("destination_setting")}
        assert "link_preview" not in columns and "silent" in columns
        with engine.begin() as connection:
            kept = connection.execute(text("SELECT silent, format FROM destination_setting"))
            assert [tuple(row) for row in kept.all()] == [(True, "compact")]
    finally:
        engine.dispose()
