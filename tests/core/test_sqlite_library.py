"""A Python whose SQLite cannot hold the store is told so at start, in words."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from watcher.errors import ConfigError
from watcher.runtime.db import create_db_engine


def test_this_machines_sqlite_is_accepted(tmp_path: Path) -> None:
    engine = create_db_engine(f"sqlite:///{tmp_path}/ok.db")
    engine.dispose()


def test_an_sqlite_older_than_3_35_is_refused_with_what_to_do(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setattr(sqlite3, "sqlite_version_info", (3, 31, 1))
    monkeypatch.setattr(sqlite3, "sqlite_version", "3.31.1")

    with pytest.raises(ConfigError) as error:
        create_db_engine(f"sqlite:///{tmp_path}/old.db")

    assert str(error.value) == (
        "arxiv-watcher needs SQLite 3.35.0 or newer; this Python uses SQLite 3.31.1. "
        "Use a newer Python build, or PostgreSQL (DATABASE_URL=postgresql://...)"
    )
    assert not (tmp_path / "old.db").exists()
