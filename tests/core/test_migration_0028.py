"""Migration 0028 (issue 30, item 3): a chat's time zone, digest and revisions move from the chat
to each of its destinations (General, forum topics), and back on downgrade."""

from __future__ import annotations

from datetime import UTC, datetime

from alembic import command
from sqlalchemy import inspect, text

from tests.core.test_migrations import differences, insert_paper
from watcher.runtime.db import alembic_config, create_db_engine
from watcher.store.digests import Digests

_0028_VALUES = (
    "SELECT chat_id, thread_id, timezone, digest_minute, digest_days, next_digest_at, "
    "digest_since, notify_revisions, paused FROM destination_setting ORDER BY chat_id, thread_id"
)


def test_0028_gives_every_destination_of_a_chat_its_zone_digest_and_revisions_and_back(
    database_url: str,
) -> None:
    """Each destination a chat has (General, a topic with settings, with subscriptions, with
    papers held for the digest) takes the chat's zone, digest and revisions, so nothing changes
    for anyone on upgrade; a chat with the defaults gets no rows; the chat's columns go. Down
    again, the chat has its values back."""
    engine = create_db_engine(database_url)
    config = alembic_config(engine)
    forum, plain = -1001, 42
    at, since = "2026-12-05 07:00:00+00:00", "2026-12-04 07:00:00+00:00"
    try:
        command.upgrade(config, "0027")
        with engine.begin() as connection:
            for statement in (
                "INSERT INTO chat (id, kind, active, notify_revisions, created, timezone, "
                "digest_minute, digest_days, next_digest_at, digest_since) VALUES "
                f"({forum}, 'supergroup', true, true, '{since}', 'Europe/Berlin', 480, 127, "
                f"'{at}', '{since}'), "
                f"({plain}, 'private', true, false, '{since}', 'UTC', NULL, NULL, NULL, NULL)",
                "INSERT INTO followed_author (id, name, rule_key, aliases, watched, kind, "
                f"categories, created) VALUES (1, 'Dezun Dong', 'dezun dong', '', true, "
                f"'person', '', '{since}')",
                "INSERT INTO subscription (chat_id, thread_id, followed_author_id, created) "
                f"VALUES ({forum}, 5, 1, '{since}'), ({plain}, 0, 1, '{since}')",
                "INSERT INTO destination_setting (chat_id, thread_id, paused) "
                f"VALUES ({forum}, 3, true)",
            ):
                connection.execute(text(statement))
            insert_paper(connection, 1, "Ring collectives", "Allreduce.")
            connection.execute(
                text(
                    "INSERT INTO delivery (chat_id, thread_id, paper_id, version, kind, status, "
                    "attempts, next_attempt, created) VALUES "
                    f"({forum}, 9, 1, 1, 'new', 'held', 0, '{since}', '{since}')"
                )
            )
        command.upgrade(config, "0028")
        with engine.begin() as connection:
            rows = [tuple(row) for row in connection.execute(text(_0028_VALUES)).all()]
            columns = {column["name"] for column in inspect(engine).get_columns("chat")}
            # Rebuilding `chat` (SQLite's batch mode) cascaded into nothing.
            follows = connection.execute(
                text("SELECT chat_id, thread_id FROM subscription ORDER BY chat_id")
            ).all()
        assert [tuple(row) for row in follows] == [(forum, 5), (plain, 0)]
        assert [row[:2] for row in rows] == [(forum, 0), (forum, 3), (forum, 5), (forum, 9)]
        assert [row[2:5] + row[7:8] for row in rows] == [("Europe/Berlin", 480, 127, True)] * 4
        assert [row[8] for row in rows] == [False, True, False, False]  # its own, kept
        assert columns.isdisjoint({"timezone", "digest_minute", "next_digest_at"})
        command.upgrade(config, "head")  # the store reads the models' schema: the later columns
        assert differences(engine) == []
        digests = Digests(engine)
        for thread_id in (0, 3, 5, 9):
            settings = digests.settings(forum, thread_id)
            assert settings.zone_name == "Europe/Berlin"
            assert settings.next_at == datetime(2026, 12, 5, 7, 0, tzinfo=UTC)
        assert digests.settings(forum, 9).held == 1
        assert digests.settings(plain).zone_name == "UTC"
        command.downgrade(config, "0027")
        with engine.begin() as connection:
            chats = connection.execute(
                text(
                    "SELECT id, timezone, digest_minute, digest_days, notify_revisions "
                    "FROM chat ORDER BY id"
                )
            ).all()
        assert [tuple(row) for row in chats] == [
            (forum, "Europe/Berlin", 480, 127, True),
            (plain, "UTC", None, None, False),
        ]
    finally:
        engine.dispose()
