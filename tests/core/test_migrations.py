"""Alembic owns the schema: the migrations and the SQLModel tables must agree, on both databases."""

from __future__ import annotations

import hashlib
import logging
from pathlib import Path

import pytest
from alembic import command
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from sqlalchemy import Connection, Engine, inspect, text
from sqlalchemy.exc import IntegrityError
from sqlmodel import SQLModel

import watcher.store.tables  # noqa: F401  (registers the tables)
from watcher.follows.search_words import parse_search
from watcher.runtime.db import (
    alembic_config,
    compared_by_autogenerate,
    create_db_engine,
    open_database,
    pending_migrations,
    script_head,
    upgrade,
)
from watcher.store import Store
from watcher.store.dialects import with_postgresql_options


def differences(engine: Engine) -> list[object]:
    with_postgresql_options()  # the schema as the migrations' environment sees it
    with engine.connect() as connection:
        context = MigrationContext.configure(
            connection,
            opts={"compare_type": True, "include_name": compared_by_autogenerate},
        )
        return list(compare_metadata(context, SQLModel.metadata))


def test_autogenerate_finds_no_difference_after_upgrade(engine: Engine) -> None:
    assert pending_migrations(engine) == []
    assert differences(engine) == []


def test_an_empty_database_has_every_migration_pending(database_url: str) -> None:
    engine = create_db_engine(database_url)
    try:
        assert pending_migrations(engine) == [
            "0001",
            "0002",
            "0004",
            "0003",
            "0006",
            "0007",
            "0008",
            "0009",
            "0010",
            "0011",
            "0012",
            "0013",
            "0014",
            "0015",
            "0017",
            "0019",
            "0020",
            "0021",
            "0022",
            "0023",
            "0024",
            "0025",
            "0026",
            "0027",
            "0028",
            "0029",  # issue 30's reading list
            "0030",
            "0031",  # issue 32's excluded words
            "0032",  # issue 33: link preview
            "0033",  # issue 31: languages
            "0034",  # issue 32: suggestions
            "0035",  # issue 33: a name's spellings and newest papers by index
            "0036",  # issue 33: the listing's count of a mailing, for /why
        ]
        assert differences(engine) != []  # the comparison can see a missing schema
        upgrade(engine)
        assert pending_migrations(engine) == []
    finally:
        engine.dispose()


def test_the_start_log_names_the_migrations_by_count_and_ends(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """Listed one by one, the chain read "0002, 0004, 0003", which an operator took for a bug."""
    caplog.set_level(logging.INFO, logger="watcher.runtime.db")
    engine = open_database(f"sqlite:///{tmp_path / 'fresh.db'}")
    engine.dispose()
    lines = [r.getMessage() for r in caplog.records if "migration(s)" in r.getMessage()]
    empty = create_db_engine(f"sqlite:///{tmp_path / 'empty.db'}")
    count = len(pending_migrations(empty))
    empty.dispose()
    assert lines == [f"applying {count} database migration(s), 0001 to {script_head()}"]


def test_downgrade_to_base_and_up_again(engine: Engine) -> None:
    config = alembic_config(engine)
    command.downgrade(config, "base")
    assert set(inspect(engine).get_table_names()) <= {"alembic_version"}
    command.upgrade(config, "head")
    assert differences(engine) == []


def test_0003_keeps_the_rows_of_a_database_in_use(database_url: str) -> None:
    """Widening columns rebuilds tables on SQLite: no row (nor any row referring to one) is lost,
    and every stored author gets the digest that keeps names unique. (0009 runs on these rows
    too, and must fill the dates it copies.)"""
    engine = create_db_engine(database_url)
    try:
        config = alembic_config(engine)
        command.upgrade(config, "0002")
        stamp = "2026-01-02 03:04:05+00:00"
        with engine.begin() as connection:
            for statement in (
                "INSERT INTO author (id, name) VALUES (1, 'Dezun Dong'), (2, 'Ann Other')",
                "INSERT INTO paper (id, arxiv_id, version, title, abstract, primary_category, "
                "published, updated, abs_url, pdf_url, first_seen) VALUES (1, '2601.00001', 1, "
                f"'T', 'A', 'cs.DC', '{stamp}', '{stamp}', 'https://a', 'https://p', '{stamp}')",
                # SQLite never enforced VARCHAR(32): ACM and MSC terms were stored as categories.
                "INSERT INTO paper_category (paper_id, category, position) VALUES (1, 'cs.DC', 0), "
                "(1, 'H.5.4; H.3.5', 1), (1, 'math.CO', 2), (1, '05C50', 3)",
                "INSERT INTO paper_author (paper_id, position, author_id) VALUES (1, 0, 2), "
                "(1, 1, 1)",
                "INSERT INTO followed_author (id, name, name_key, aliases, created) VALUES "
                f"(1, 'Dezun Dong', 'dezun dong', '', '{stamp}')",
                "INSERT INTO paper_match (paper_id, followed_author_id, version) VALUES (1, 1, 1)",
                "INSERT INTO chat (id, kind, active, notify_revisions, created) VALUES "
                f"(5, 'private', true, false, '{stamp}')",
                "INSERT INTO delivery (chat_id, paper_id, version, kind, status, attempts, "
                f"next_attempt, created) VALUES (5, 1, 1, 'new', 'pending', 0, '{stamp}', "
                f"'{stamp}')",
            ):
                connection.execute(text(statement))
        upgrade(engine)
        assert differences(engine) == []
        with engine.connect() as connection:
            for table in ("paper", "paper_category", "paper_author", "paper_match", "delivery"):
                count = connection.execute(text(f"SELECT count(*) FROM {table}")).scalar_one()
                assert count >= 1, table
            digests = dict(connection.execute(text("SELECT name, name_digest FROM author")).all())
        assert digests == {
            name: hashlib.sha256(name.encode()).hexdigest() for name in ("Dezun Dong", "Ann Other")
        }
        record = Store(engine).paper("2601.00001")
        assert record is not None
        assert record.author_names == ["Ann Other", "Dezun Dong"]
        assert record.categories == ("cs.DC", "math.CO")
        assert (record.acm_class, record.msc_class) == ("H.5.4; H.3.5", "05C50")
        # 0009 copied the v1 date into the link tables the lists are read from.
        store = Store(engine)
        assert [r.arxiv_id for r in store.recent(limit=5, followed_ids=[1])] == ["2601.00001"]
        assert [r.arxiv_id for r in store.by_category("math.CO", limit=5)] == ["2601.00001"]
    finally:
        engine.dispose()


def test_0006_keeps_existing_subscriptions_and_deliveries_in_no_topic(database_url: str) -> None:
    engine = create_db_engine(database_url)
    config = alembic_config(engine)
    try:
        command.upgrade(config, "0002")
        now = "2026-11-30 12:00:00"
        with engine.begin() as connection:
            for statement in (
                "INSERT INTO chat (id, kind, active, notify_revisions, created) "
                f"VALUES (-1001, 'supergroup', true, false, '{now}')",
                "INSERT INTO followed_author (id, name, name_key, aliases, created) "
                f"VALUES (1, 'Dezun Dong', 'dezun dong', '', '{now}')",
                "INSERT INTO subscription (chat_id, followed_author_id, created) "
                f"VALUES (-1001, 1, '{now}')",
                "INSERT INTO paper (id, arxiv_id, version, title, abstract, primary_category, "
                "published, updated, abs_url, pdf_url, first_seen) VALUES (1, '2611.00001', 1, "
                f"'T', 'A', 'cs.DC', '{now}', '{now}', 'https://a', 'https://p', '{now}')",
                "INSERT INTO delivery (chat_id, paper_id, version, kind, status, attempts, "
                f"next_attempt, created) VALUES (-1001, 1, 1, 'new', 'pending', 0, '{now}', "
                f"'{now}')",
            ):
                connection.execute(text(statement))
        command.upgrade(config, "head")
        with engine.begin() as connection:
            # On SQLite, rebuilding a referenced table (batch mode) must not cascade deletes.
            assert connection.execute(text("SELECT thread_id FROM subscription")).all() == [(0,)]
            if engine.dialect.name == "sqlite":  # and foreign keys are on again afterwards
                assert connection.execute(text("PRAGMA foreign_keys")).scalar() == 1
            assert connection.execute(text("SELECT thread_id FROM delivery")).all() == [(0,)]
            # A topic of the same chat may now follow the same author, and be owed the paper.
            connection.execute(
                text(
                    "INSERT INTO subscription (chat_id, thread_id, followed_author_id, created) "
                    f"VALUES (-1001, 7, 1, '{now}')"
                )
            )
            connection.execute(
                text(
                    "INSERT INTO delivery (chat_id, thread_id, paper_id, version, kind, status, "
                    f"attempts, next_attempt, created) VALUES (-1001, 7, 1, 1, 'new', 'pending', "
                    f"0, '{now}', '{now}')"
                )
            )
        with pytest.raises(IntegrityError), engine.begin() as connection:
            connection.execute(
                text(
                    "INSERT INTO delivery (chat_id, thread_id, paper_id, version, kind, status, "
                    f"attempts, next_attempt, created) VALUES (-1001, 7, 1, 1, 'new', 'pending', "
                    f"0, '{now}', '{now}')"
                )
            )
        command.downgrade(config, "0002")  # one row per chat and paper again: General's
        with engine.begin() as connection:
            assert connection.execute(text("SELECT chat_id FROM delivery")).all() == [(-1001,)]
            assert connection.execute(text("SELECT chat_id FROM subscription")).all() == [(-1001,)]
    finally:
        engine.dispose()


def test_0019_keeps_each_chats_digest_days_and_its_subscriptions(database_url: str) -> None:
    engine = create_db_engine(database_url)
    config = alembic_config(engine)
    try:
        command.upgrade(config, "0014")
        now = "2026-11-30 12:00:00"
        with engine.begin() as connection:
            for chat_id, minute, weekday in ((1, 480, None), (2, 480, 2), (3, None, None)):
                connection.execute(
                    text(
                        "INSERT INTO chat (id, kind, active, notify_revisions, created, "
                        "digest_minute, digest_weekday) VALUES (:id, 'private', true, false, "
                        ":now, :minute, :weekday)"
                    ),
                    {"id": chat_id, "now": now, "minute": minute, "weekday": weekday},
                )
            connection.execute(
                text(
                    "INSERT INTO followed_author (id, name, rule_key, aliases, watched, "
                    f"created) VALUES (1, 'Dezun Dong', 'dezun dong', '', true, '{now}')"
                )
            )
            connection.execute(
                text(
                    "INSERT INTO subscription (chat_id, thread_id, followed_author_id, created) "
                    f"VALUES (2, 0, 1, '{now}')"
                )
            )
        command.upgrade(config, "0027")  # 0028 moves the digest to the destinations
        with engine.begin() as connection:
            days = connection.execute(text("SELECT id, digest_days FROM chat ORDER BY id")).all()
            # Every day; Wednesday alone; no digest.
            assert [tuple(row) for row in days] == [(1, 127), (2, 4), (3, None)]
            # Dropping the column must not rebuild the chat table and cascade to subscriptions.
            assert connection.execute(text("SELECT chat_id FROM subscription")).all() == [(2,)]
        command.downgrade(config, "0014")
        with engine.begin() as connection:
            weekdays = connection.execute(
                text("SELECT id, digest_weekday FROM chat ORDER BY id")
            ).all()
            assert [tuple(row) for row in weekdays] == [(1, None), (2, 2), (3, None)]
    finally:
        engine.dispose()


def test_0024_gives_each_started_follow_the_newest_id_the_store_had_seen_by_its_start(
    database_url: str,
) -> None:
    """The horizon of a follow already started is what the poll would have set then: the newest
    new-style id (in arXiv's order, not the text's) among the papers first seen by its start."""
    engine = create_db_engine(database_url)
    config = alembic_config(engine)
    try:
        command.upgrade(config, "0023")
        seen = [
            ("hep-th/9901001", "2026-11-01 09:00:00+00:00"),
            ("2611.00500", "2026-11-05 09:00:00+00:00"),
            ("2611.09000", "2026-11-20 09:00:00+00:00"),
            ("2610.99999", "2026-11-21 09:00:00+00:00"),  # seen later, announced earlier
            ("2611.20000", "2026-11-28 09:00:00+00:00"),
        ]
        starts = [
            (1, "2026-10-30 00:00:00+00:00"),  # before any paper: none
            (2, "2026-11-10 00:00:00+00:00"),
            (3, "2026-11-25 00:00:00+00:00"),
            (4, None),  # never polled
        ]
        with engine.begin() as connection:
            for n, (arxiv_id, first_seen) in enumerate(seen, start=1):
                connection.execute(
                    text(
                        "INSERT INTO paper (id, arxiv_id, version, title, abstract, "
                        "primary_category, published, updated, abs_url, pdf_url, first_seen) "
                        "VALUES (:id, :arxiv_id, 1, 'T', 'A', 'cs.DC', :at, :at, 'https://a', "
                        "'https://p', :at)"
                    ),
                    {"id": n, "arxiv_id": arxiv_id, "at": first_seen},
                )
            for followed_id, started in starts:
                connection.execute(
                    text(
                        "INSERT INTO followed_author (id, name, rule_key, aliases, watched, "
                        "created) VALUES (:id, :name, :key, '', true, '2026-10-01 00:00:00')"
                    ),
                    {"id": followed_id, "name": f"Person {followed_id}", "key": f"p{followed_id}"},
                )
                connection.execute(
                    text(
                        "INSERT INTO poll_state (followed_author_id, started, "
                        "consecutive_failures) VALUES (:id, :started, 0)"
                    ),
                    {"id": followed_id, "started": started},
                )
        command.upgrade(config, "head")
        with engine.begin() as connection:
            horizons = connection.execute(
                text("SELECT followed_author_id, horizon FROM poll_state ORDER BY 1")
            ).all()
        assert [tuple(row) for row in horizons] == [
            (1, None),
            (2, "2611.00500"),
            (3, "2611.09000"),
            (4, None),
        ]
        command.downgrade(config, "0023")
    finally:
        engine.dispose()


def test_0026_keys_a_person_with_aliases_by_them_and_back(database_url: str) -> None:
    """A follow widened by a chat's aliases is keyed by them: the name alone is free again for
    another chat's follow of it (issue 29.1); down again, the name's key comes back."""
    engine = create_db_engine(database_url)
    config = alembic_config(engine)
    try:
        command.upgrade(config, "0023")
        now = "2026-12-03 12:00:00"
        with engine.begin() as connection:
            for row_id, name, key, aliases in (
                (1, "Dezun Dong", "dezun dong", "Wei Wang|D. Dong"),
                (2, "Ann Other", "ann other", ""),
            ):
                connection.execute(
                    text(
                        "INSERT INTO followed_author (id, name, rule_key, aliases, watched, "
                        "kind, categories, created) VALUES (:id, :name, :key, :aliases, true, "
                        "'person', '', :now)"
                    ),
                    {"id": row_id, "name": name, "key": key, "aliases": aliases, "now": now},
                )
        command.upgrade(config, "head")
        with engine.begin() as connection:
            keys = connection.execute(text("SELECT id, rule_key FROM followed_author ORDER BY id"))
            assert [tuple(row) for row in keys] == [
                (1, "dezun dong|d dong|wang wei"),
                (2, "ann other"),
            ]
        command.downgrade(config, "0023")
        with engine.begin() as connection:
            keys = connection.execute(text("SELECT id, rule_key FROM followed_author ORDER BY id"))
            assert [tuple(row) for row in keys] == [(1, "dezun dong"), (2, "ann other")]
    finally:
        engine.dispose()


def insert_paper(connection: Connection, paper_id: int, title: str, abstract: str) -> None:
    connection.execute(
        text(
            "INSERT INTO paper (id, arxiv_id, version, title, abstract, primary_category, "
            "published, updated, abs_url, pdf_url, first_seen) VALUES (:id, :arxiv_id, 1, "
            ":title, :abstract, 'cs.DC', :now, :now, 'https://arxiv.org/abs/x', "
            "'https://arxiv.org/pdf/x', :now)"
        ),
        {
            "id": paper_id,
            "arxiv_id": f"2611.{paper_id:05d}",
            "title": title,
            "abstract": abstract,
            "now": f"2026-11-0{paper_id} 12:00:00",
        },
    )


def _found(engine: Engine, words: str) -> list[str]:
    return [r.arxiv_id for r in Store(engine).search(parse_search(words), limit=5).records]


def test_0027_indexes_the_stored_papers_and_keeps_step_with_saves_and_back(
    database_url: str,
) -> None:
    """The papers stored before 0027 are found by a word of their abstract (as a stem: the
    index's words are "networks", the search's "network"); afterwards the database itself keeps
    the index in step with inserts, changed titles and deletes; down again, no trace is left."""
    engine = create_db_engine(database_url)
    config = alembic_config(engine)
    try:
        command.upgrade(config, "0026")
        with engine.begin() as connection:
            insert_paper(
                connection, 1, "Ring collectives", "Allreduce over interconnection networks."
            )
            insert_paper(connection, 2, "Graph colouring", "Colourings of planar graphs.")
        command.upgrade(config, "head")
        assert _found(engine, "interconnection network") == ["2611.00001"]
        with engine.begin() as connection:
            insert_paper(connection, 3, "Faster Allreduce", "Collectives on GPUs.")
        assert _found(engine, "allreduce") == ["2611.00003", "2611.00001"]
        with engine.begin() as connection:
            connection.execute(text("UPDATE paper SET title = 'Faster Broadcast' WHERE id = 3"))
            connection.execute(text("DELETE FROM paper WHERE id = 1"))
        assert _found(engine, "allreduce") == []
        assert _found(engine, "broadcast") == ["2611.00003"]
        command.downgrade(config, "0026")
        names = set(inspect(engine).get_table_names())
        assert not {name for name in names if name.startswith("paper_search")}
        columns = {column["name"] for column in inspect(engine).get_columns("paper")}
        assert "search_words" not in columns
        command.upgrade(config, "head")
        assert _found(engine, "colourings planar") == ["2611.00002"]
    finally:
        engine.dispose()


def _in_category(connection: Connection, paper_id: int, category: str, position: int) -> None:
    connection.execute(
        text(
            "INSERT INTO paper_category (paper_id, category, position, published) "
            "SELECT id, :category, :position, published FROM paper WHERE id = :id"
        ),
        {"id": paper_id, "category": category, "position": position},
    )


def _found_by_0027(engine: Engine, word: str) -> list[int]:
    """The ids 0027's index finds for one word, read as 0027's store read it."""
    if engine.dialect.name == "sqlite":
        statement = "SELECT rowid FROM paper_search WHERE paper_search MATCH :word ORDER BY 1"
    else:
        statement = (
            "SELECT id FROM paper WHERE search_words @@ plainto_tsquery('english', :word) "
            "ORDER BY 1"
        )
    with engine.connect() as connection:
        return [row[0] for row in connection.execute(text(statement), {"word": word})]


def test_0030_indexes_the_stored_papers_with_their_categories_and_back(
    database_url: str,
) -> None:
    """The papers and categories stored before 0030 are found by word and by category after it
    (the index is filled from them), the triggers keep step with categories added and removed
    afterwards, and down again 0027's index is back, filled."""
    engine = create_db_engine(database_url)
    config = alembic_config(engine)
    try:
        command.upgrade(config, "0027")
        with engine.begin() as connection:
            insert_paper(connection, 1, "Ring collectives", "Allreduce over networks.")
            insert_paper(connection, 2, "Tree collectives", "Allreduce over trees.")
            _in_category(connection, 1, "cs.DC", 0)
            _in_category(connection, 1, "cs.NI", 1)
            _in_category(connection, 2, "cs.DC", 0)
        command.upgrade(config, "0030")
        assert _found(engine, "allreduce") == ["2611.00002", "2611.00001"]
        assert _found(engine, "allreduce in cs.NI") == ["2611.00001"]
        assert _found(engine, "allreduce in cs.DC") == ["2611.00002", "2611.00001"]
        with engine.begin() as connection:
            connection.execute(text("DELETE FROM paper_category WHERE category = 'cs.NI'"))
            _in_category(connection, 2, "cs.NI", 1)
        assert _found(engine, "allreduce in cs.NI") == ["2611.00002"]
        command.downgrade(config, "0027")
        assert _found_by_0027(engine, "allreduce") == [1, 2]
        command.upgrade(config, "head")
        assert _found(engine, "trees in cs.NI") == ["2611.00002"]
    finally:
        engine.dispose()
