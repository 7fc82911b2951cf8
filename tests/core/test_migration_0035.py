"""Migration 0035 (issue 33, inline names): every stored author gets the `key_digest` of its
name (one for every spelling of a person, accents aside; another for a look-alike), every
stored link its paper's v1 date and the (author_id, published, paper_id) index; and both are
gone again on downgrade, the rows kept."""

from __future__ import annotations

from alembic import command
from sqlalchemy import inspect, text

from watcher.runtime.db import alembic_config, create_db_engine
from watcher.store.saving import key_digest

_STAMP = "2026-01-02 03:04:05+00:00"


def test_0035_keys_every_author_and_dates_every_link(database_url: str) -> None:
    engine = create_db_engine(database_url)
    config = alembic_config(engine)
    try:
        command.upgrade(config, "0034")
        with engine.begin() as connection:
            connection.execute(
                text(
                    "INSERT INTO author (id, name, name_digest) VALUES (1, 'Zoë Müller', 'a'), "
                    "(2, 'MÜLLER, Zoe', 'b'), (3, 'Zoey Muller', 'c')"
                )
            )
            for paper_id, day in ((1, "2026-01-02"), (2, "2025-07-08")):
                when = f"{day} 03:04:05+00:00"
                connection.execute(
                    text(
                        "INSERT INTO paper (id, arxiv_id, version, title, abstract, "
                        "primary_category, published, updated, abs_url, pdf_url, first_seen) "
                        f"VALUES ({paper_id}, '2601.0000{paper_id}', 1, 'T', 'A', 'cs.DC', "
                        f"'{when}', '{_STAMP}', 'https://a', 'https://p', '{_STAMP}')"
                    )
                )
            connection.execute(
                text(
                    "INSERT INTO paper_author (paper_id, position, author_id) VALUES "
                    "(1, 0, 1), (1, 1, 3), (2, 0, 2)"
                )
            )

        command.upgrade(config, "0035")
        with engine.begin() as connection:
            keys = dict(connection.execute(text("SELECT id, key_digest FROM author")).all())
            links = connection.execute(
                text(
                    "SELECT l.paper_id, l.author_id, l.published = p.published FROM paper_author l "
                    "JOIN paper p ON p.id = l.paper_id ORDER BY l.paper_id, l.position"
                )
            ).all()
        assert keys[1] == keys[2] == key_digest("zoe muller") != keys[3]
        assert keys[3] == key_digest("Zoey Muller")
        assert [tuple(row) for row in links] == [(1, 1, True), (1, 3, True), (2, 2, True)]
        indexes = {
            i["name"]: i["column_names"] for i in inspect(engine).get_indexes("paper_author")
        }
        assert indexes.get("ix_paper_author_newest") == ["author_id", "published", "paper_id"]
        assert "ix_paper_author_author_id" not in indexes

        command.downgrade(config, "0034")
        assert "key_digest" not in {c["name"] for c in inspect(engine).get_columns("author")}
        assert "published" not in {c["name"] for c in inspect(engine).get_columns("paper_author")}
        indexes = {
            i["name"]: i["column_names"] for i in inspect(engine).get_indexes("paper_author")
        }
        assert indexes == {"ix_paper_author_author_id": ["author_id"]}
        with engine.begin() as connection:
            kept = connection.execute(text("SELECT count(*) FROM paper_author")).scalar()
            named = connection.execute(text("SELECT name FROM author ORDER BY id")).scalars()
            assert (kept, list(named)) == (3, ["Zoë Müller", "MÜLLER, Zoe", "Zoey Muller"])
    finally:
        engine.dispose()
