"""The document frequencies a store that has counted months of batches holds, seeded into a
test database from the real sample's counts (tests/data/suggestions, its SOURCES entry)."""

from __future__ import annotations

import json

from sqlalchemy import Engine
from sqlmodel import Session

from tests.harness.paths import DATA
from watcher.store import paper_terms


def seed_sample_frequencies(engine: Engine, name: str = "frequencies.json") -> None:
    """Add the counts of `tests/data/suggestions/<name>` (papers counted, and each term's) to
    the database's frequencies."""
    stored = json.loads((DATA / "suggestions" / name).read_text("utf-8"))
    with Session(engine) as session:
        paper_terms.add_frequencies(session, {**stored["counts"], "": stored["papers"]})
        session.commit()
