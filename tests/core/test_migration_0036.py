"""Migration 0036 (issue 33, item 4): `mailing_seen.listed`, empty for every mailing already
there, its source, time and probes kept; and gone again on downgrade."""

from __future__ import annotations

from alembic import command
from sqlalchemy import inspect, text

from watcher.runtime.db import alembic_config, create_db_engine

_ROWS = "SELECT mailing, source, listing_probes, listed FROM mailing_seen"


def test_0036_adds_listed_empty_and_keeps_each_mailing(database_url: str) -> None:
    engine = create_db_engine(database_url)
    config = alembic_config(engine)
    try:
        command.upgrade(config, "0035")
        with engine.begin() as connection:
            connection.execute(
                text(
                    "INSERT INTO mailing_seen (mailing, source, seen_at, listing_probes) "
                    "VALUES ('2026-12-02', 'listing', '2026-12-02 01:01:00+00:00', 3)"
                )
            )
        command.upgrade(config, "0036")
        with engine.begin() as connection:
            rows = [tuple(map(str, row)) for row in connection.execute(text(_ROWS)).all()]
            connection.execute(text("UPDATE mailing_seen SET listed = 1204"))
            listed = connection.execute(text("SELECT listed FROM mailing_seen")).scalar_one()
        assert rows == [("2026-12-02", "listing", "3", "None")]
        assert listed == 1204

        command.downgrade(config, "0035")
        columns = {c["name"] for c in inspect(engine).get_columns("mailing_seen")}
        assert "listed" not in columns and "listing_probes" in columns
        with engine.begin() as connection:
            kept = connection.execute(text("SELECT source, listing_probes FROM mailing_seen"))
            assert [tuple(row) for row in kept.all()] == [("listing", 3)]
    finally:
        engine.dispose()
