"""Migration 0034 (issue 32): suggestions off (and 3 a batch) for every destination already
there, its other settings kept; the suggestion tables made; and all gone again on downgrade."""

from __future__ import annotations

from alembic import command
from sqlalchemy import inspect, text

from watcher.runtime.db import alembic_config, create_db_engine

_ROWS = "SELECT chat_id, thread_id, silent, suggest, suggest_count FROM destination_setting"
TABLES = {
    "paper_terms", "term_frequency", "suggestion_profile", "profile_paper", "suggestion_batch",
    "suggestion_candidate", "suggestion",
}  # fmt: skip


def test_0034_adds_suggestions_off_and_their_tables_and_takes_them_away(
    database_url: str,
) -> None:
    engine = create_db_engine(database_url)
    config = alembic_config(engine)
    since = "2026-12-04 07:00:00+00:00"
    try:
        command.upgrade(config, "0033")
        with engine.begin() as connection:
            connection.execute(
                text(
                    "INSERT INTO chat (id, kind, active, created) "
                    f"VALUES (42, 'private', true, '{since}')"
                )
            )
            connection.execute(
                text(
                    "INSERT INTO destination_setting (chat_id, thread_id, silent) "
                    "VALUES (42, 0, true)"
                )
            )
        command.upgrade(config, "0034")
        with engine.begin() as connection:
            rows = [tuple(row) for row in connection.execute(text(_ROWS)).all()]
            connection.execute(
                text(
                    "INSERT INTO suggestion (chat_id, thread_id, mailing, status, papers, "
                    "attempts, next_attempt, created) VALUES (42, 0, '2026-12-04', 'pending', "
                    f"'[]', 0, '{since}', '{since}')"
                )
            )
        assert rows == [(42, 0, True, False, 3)]
        assert set(inspect(engine).get_table_names()) >= TABLES

        command.downgrade(config, "0033")
        columns = {c["name"] for c in inspect(engine).get_columns("destination_setting")}
        assert not {"suggest", "suggest_count"} & columns and "silent" in columns
        assert not TABLES & set(inspect(engine).get_table_names())
        with engine.begin() as connection:
            kept = connection.execute(text("SELECT silent FROM destination_setting"))
            assert [tuple(row) for row in kept.all()] == [(True,)]
    finally:
        engine.dispose()
