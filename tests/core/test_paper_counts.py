"""`paper_count` (all papers, and each category's) stays equal to counting the rows themselves:
through new papers, revisions that change categories, metadata updates, repeats in a batch,
two writers at once, and the migration that fills it from a database in use."""

from __future__ import annotations

import threading
from datetime import UTC, datetime, timedelta

from alembic import command
from sqlalchemy import Engine, text

from tests.fakes.corpus import make_record
from watcher.arxiv.records import Record
from watcher.runtime.db import alembic_config, create_db_engine
from watcher.store import MatchedRecord, Store
from watcher.store.tables import ALL_PAPERS

START = datetime(2024, 1, 1, tzinfo=UTC)


def kept(engine: Engine) -> dict[str, int]:
    with engine.connect() as connection:
        rows = connection.execute(text("SELECT scope, papers FROM paper_count WHERE papers <> 0"))
        return {scope: int(n) for scope, n in rows}


def counted(engine: Engine) -> dict[str, int]:
    """The same counts from the rows they count."""
    with engine.connect() as connection:
        papers = connection.execute(text("SELECT count(*) FROM paper")).scalar_one()
        rows = connection.execute(
            text("SELECT category, count(*) FROM paper_category GROUP BY category")
        )
        return {
            **({ALL_PAPERS: papers} if papers else {}),
            **{category: int(n) for category, n in rows},
        }


def paper(n: int, version: int = 1, *, categories: tuple[str, ...] = ("cs.DC",)) -> Record:
    return make_record(
        arxiv_id=f"2401.{n:05d}",
        version=version,
        published=START + timedelta(hours=n),
        updated=START + timedelta(hours=n, days=version),
        authors=["Dezun Dong"],
        primary_category=categories[0],
        categories=categories,
    )


def save(store: Store, followed_id: int, *records: Record) -> None:
    store.save_records(
        [MatchedRecord(r, frozenset({followed_id})) for r in records], announce_for=frozenset()
    )


def test_counts_follow_new_papers_and_revisions_that_change_categories(engine: Engine) -> None:
    store = Store(engine)
    dong, _ = store.follow(["Dezun Dong"])
    assert kept(engine) == counted(engine) == {}
    save(store, dong.id, paper(1), paper(2, categories=("cs.NI", "cs.DC")), paper(3))
    assert kept(engine) == counted(engine) == {ALL_PAPERS: 3, "cs.DC": 3, "cs.NI": 1}
    # A revision moving a paper to other categories; one adding a cross-list; one dropping one.
    save(
        store,
        dong.id,
        paper(1, 2, categories=("math.CO",)),
        paper(3, 2, categories=("cs.DC", "cs.AR")),
        paper(2, 2, categories=("cs.NI",)),
    )
    assert kept(engine) == counted(engine) == {ALL_PAPERS: 3, "cs.DC": 1, "cs.NI": 1,
                                               "math.CO": 1, "cs.AR": 1}  # fmt: skip
    # An old version again changes nothing; a metadata update at the same version (here its
    # primary category) rewrites its categories; of v1, v2, v1 in one batch v2 is stored.
    save(store, dong.id, paper(1, 1))
    save(store, dong.id, paper(2, 2, categories=("cs.LG", "cs.NI")))
    save(
        store,
        dong.id,
        paper(4, 1),
        paper(4, 2, categories=("cs.LG",)),
        paper(4, 1),
        paper(5, 3, categories=("cs.LG", "cs.DC")),
    )
    assert kept(engine) == counted(engine)
    assert store.count() == 5
    assert store.count_category("cs.LG") == 3
    assert store.count_category("math.CO") == 1
    assert store.count_category("hep-th") == 0
    assert store.category_counts() == [
        ("cs.LG", 3), ("cs.DC", 2), ("cs.AR", 1), ("cs.NI", 1), ("math.CO", 1)
    ]  # fmt: skip


def test_two_writers_at_once_add_up(engine: Engine, database_url: str) -> None:
    """Each writer has its own engine (its own connections), as two processes would; both add
    new papers and revise their own older ones in the same categories, many small batches."""
    store = Store(engine)
    dong, _ = store.follow(["Dezun Dong"])
    save(store, dong.id, *(paper(n) for n in range(200)))
    failures: list[BaseException] = []

    def write(first: int) -> None:
        other = create_db_engine(database_url)
        try:
            writer = Store(other)
            for step in range(25):
                n = first + 2 * step
                save(
                    writer,
                    dong.id,
                    paper(1000 + n, categories=("cs.NI", "cs.DC")),
                    paper(n, 2, categories=("cs.LG",)),
                )
        except BaseException as error:
            failures.append(error)
        finally:
            other.dispose()

    threads = [threading.Thread(target=write, args=(first,)) for first in (0, 1)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert failures == []
    assert kept(engine) == counted(engine) == {ALL_PAPERS: 250, "cs.DC": 200, "cs.NI": 50,
                                               "cs.LG": 50}  # fmt: skip


def test_the_migration_counts_what_is_stored(engine: Engine) -> None:
    store = Store(engine)
    dong, _ = store.follow(["Dezun Dong"])
    save(store, dong.id, paper(1), paper(2, categories=("cs.NI", "cs.DC")))
    config = alembic_config(engine)
    command.downgrade(config, "0011")  # before paper_count
    command.upgrade(config, "head")
    assert kept(engine) == counted(engine) == {ALL_PAPERS: 2, "cs.DC": 2, "cs.NI": 1}
