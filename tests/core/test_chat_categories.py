"""`paper_match_category` (each followed author's papers by category, for a chat's questions
within a category) stays equal to `paper_match` joined with `paper_category`: through new
papers, new links to stored papers, revisions that change categories, metadata updates, repeats
in a batch, unfollows, and the migration that fills it. The chat's answers are checked too."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from alembic import command
from sqlalchemy import Engine, text

from tests.fakes.corpus import make_record
from watcher.arxiv.records import Record
from watcher.runtime.db import alembic_config
from watcher.store import MatchedRecord, Store

START = datetime(2024, 1, 1, tzinfo=UTC)
Row = tuple[int, str, int]  # followed id, category, paper id


def kept(engine: Engine) -> set[Row]:
    with engine.connect() as connection:
        rows = connection.execute(
            text("SELECT followed_author_id, category, paper_id FROM paper_match_category")
        )
        return {(int(f), str(c), int(p)) for f, c, p in rows}


def joined(engine: Engine) -> set[Row]:
    """The same rows from the links and categories themselves."""
    with engine.connect() as connection:
        rows = connection.execute(
            text(
                "SELECT m.followed_author_id, c.category, m.paper_id FROM paper_match m "
                "JOIN paper_category c ON c.paper_id = m.paper_id "
                "JOIN paper p ON p.id = m.paper_id AND p.published = c.published"
            )
        )
        return {(int(f), str(c), int(p)) for f, c, p in rows}


def paper(
    n: int, version: int = 1, *, categories: tuple[str, ...] = ("cs.DC",), doi: str | None = None
) -> Record:
    return make_record(
        arxiv_id=f"2401.{n:05d}",
        version=version,
        published=START + timedelta(hours=n),
        updated=START + timedelta(hours=n, days=version),
        authors=["Dezun Dong", "Ann Other"],
        primary_category=categories[0],
        categories=categories,
        doi=doi,
    )


def save(store: Store, followed_ids: set[int], *records: Record) -> None:
    store.save_records(
        [MatchedRecord(r, frozenset(followed_ids)) for r in records], announce_for=frozenset()
    )


def test_the_links_by_category_follow_every_kind_of_save(engine: Engine) -> None:
    store = Store(engine)
    dong, _ = store.follow(["Dezun Dong"])
    other, _ = store.follow(["Ann Other"])
    chat = [dong.id, other.id]
    save(store, {dong.id}, paper(1), paper(2, categories=("cs.NI", "cs.DC")), paper(3))
    assert kept(engine) == joined(engine) and len(kept(engine)) == 4

    # A new link to stored papers (another follow found them), at the same version.
    save(store, {other.id}, paper(1), paper(2, categories=("cs.NI", "cs.DC")))
    assert kept(engine) == joined(engine) and len(kept(engine)) == 7
    assert store.count_category("cs.DC", followed_ids=chat) == 3  # paper 1 once, not twice
    assert store.category_counts(followed_ids=chat) == [("cs.DC", 3), ("cs.NI", 1)]

    # A revision that drops cs.DC and adds two categories; a metadata update; repeats.
    save(store, {dong.id}, paper(2, 2, categories=("cs.NI", "math.CO", "cs.LG")), paper(3, doi="x"))
    save(store, {dong.id}, paper(4), paper(4, 2, categories=("hep-th",)), paper(4))
    assert kept(engine) == joined(engine)
    assert store.count_category("cs.DC", followed_ids=chat) == 2
    assert store.count_category("cs.DC", followed_ids=[other.id]) == 1
    assert store.category_counts(followed_ids=chat) == [
        ("cs.DC", 2), ("cs.LG", 1), ("cs.NI", 1), ("hep-th", 1), ("math.CO", 1),
    ]  # fmt: skip
    assert [r.arxiv_id for r in store.by_category("cs.NI", limit=5, followed_ids=chat)] == [
        "2401.00002"
    ]
    newest = store.by_category("cs.DC", limit=1, offset=1, followed_ids=chat)
    assert [r.arxiv_id for r in newest] == ["2401.00001"]

    store.unfollow(other.id)  # its links go, and their rows with them
    assert kept(engine) == joined(engine)
    assert store.count_category("cs.DC", followed_ids=[other.id]) == 0


def test_the_migration_fills_the_table_from_what_is_stored(engine: Engine) -> None:
    store = Store(engine)
    dong, _ = store.follow(["Dezun Dong"])
    other, _ = store.follow(["Ann Other"])
    save(store, {dong.id, other.id}, paper(1), paper(2, categories=("cs.NI", "cs.DC")))
    config = alembic_config(engine)
    command.downgrade(config, "0012")
    command.upgrade(config, "head")
    assert kept(engine) == joined(engine) and len(kept(engine)) == 6
