"""Every question the bot and the CLI ask is served by an index, on both databases.

No timings here (speed is measured by `bench/queries.py`): the test reads each statement the
store sends, asks the database for its plan (`EXPLAIN QUERY PLAN` on SQLite, `EXPLAIN` on
PostgreSQL with sequential scans priced out, since a test database is too small for the
planner to want an index) and fails if a big table is read whole or the expected index is not
used. Dropping `ix_paper_category_newest` fails it; see the last test.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy import Engine, text

from tests.fakes.corpus import make_record
from tests.harness.query_plans import Question, plans
from watcher.follows.topics import parse_topic
from watcher.store import MatchedRecord, Store

BIG_TABLES = ("paper", "paper_category", "paper_match", "paper_author", "paper_match_category")


@pytest.fixture
def store(engine: Engine) -> Store:
    store = Store(engine)
    dong, _ = store.follow(["Dezun Dong"])
    other, _ = store.follow(["Ann Other"])
    start = datetime(2020, 1, 1, tzinfo=UTC)
    papers = [
        MatchedRecord(
            make_record(
                arxiv_id=f"2001.{n:05d}",
                published=start + timedelta(days=n),
                authors=["Dezun Dong", "Ann Other"],
                primary_category="cs.DC" if n % 2 else "cs.NI",
            ),
            frozenset({dong.id, other.id} if n % 3 else {dong.id}),
        )
        for n in range(30)
    ]
    store.save_records(papers, announce_for=frozenset())
    return store


def whole_table_reads(plan: str) -> list[str]:
    """The lines of `plan` that read a big table from end to end."""
    reads = []
    for line in plan.splitlines():
        for table in BIG_TABLES:
            if f"Seq Scan on {table} " in line + " " or line.strip() == f"SCAN {table}":
                reads.append(line.strip())
    return reads


QUESTIONS: dict[str, tuple[Question, str]] = {
    "/recent, all": (lambda s, ids: s.recent(limit=5), "ix_paper_newest"),
    "/recent page 50, all": (lambda s, ids: s.recent(limit=5, offset=250), "ix_paper_newest"),
    "/recent, a chat": (
        lambda s, ids: s.recent(limit=5, followed_ids=ids),
        "ix_paper_match_newest",
    ),
    "/recent page 50, a chat": (
        lambda s, ids: s.recent(limit=5, offset=250, followed_ids=ids),
        "ix_paper_match_newest",
    ),
    "count, a chat": (lambda s, ids: s.count(followed_ids=ids), "ix_paper_match_newest"),
    "/subject, all": (lambda s, ids: s.by_category("cs.DC", limit=5), "ix_paper_category_newest"),
    "/subject page 50, all": (
        lambda s, ids: s.by_category("cs.DC", limit=5, offset=250),
        "ix_paper_category_newest",
    ),
    "/subject page 50, a chat": (
        lambda s, ids: s.by_category("cs.DC", limit=5, offset=250, followed_ids=ids),
        "ix_paper_match_category_newest",
    ),
    "/subject, a chat": (
        lambda s, ids: s.by_category("cs.DC", limit=5, followed_ids=ids),
        "ix_paper_match_category_newest",
    ),
    # The counts over all papers read one row of `paper_count` by its primary key
    # (sqlite_autoindex_paper_count_1, paper_count_pkey); `subjects` reads that small table.
    "count of /subject, all": (lambda s, ids: s.count_category("cs.DC"), "paper_count_"),
    "count, all (/stats)": (lambda s, ids: s.count(), "paper_count_"),
    "subjects, all (CLI)": (lambda s, ids: s.category_counts(), "paper_count"),
    "count of /subject, a chat": (
        lambda s, ids: s.count_category("cs.DC", followed_ids=ids),
        "ix_paper_match_category_newest",
    ),
    "/subjects, a chat": (
        lambda s, ids: s.category_counts(followed_ids=ids),
        "ix_paper_match_category_newest",
    ),
    "/paper": (lambda s, ids: s.paper("2001.00007"), ""),
}


@pytest.mark.parametrize("name", list(QUESTIONS))
def test_question_is_served_by_its_index(store: Store, name: str) -> None:
    question, index = QUESTIONS[name]
    found = plans(store, question)
    assert [whole_table_reads(plan) for plan in found] == [[] for _ in found], found
    assert index in "\n".join(found), found


def test_the_check_fails_without_the_index(store: Store) -> None:
    """The test above can fail: the plan it reads is the database's, and changes with it."""
    with store.engine.begin() as connection:
        connection.execute(text("DROP INDEX ix_paper_category_newest"))
    found = plans(store, lambda s, ids: s.by_category("cs.DC", limit=5))
    assert "ix_paper_category_newest" not in "\n".join(found)
    if store.engine.dialect.name == "sqlite":
        assert any(whole_table_reads(plan) for plan in found), found


CHAT_IN_A_CATEGORY = ["/subject, a chat", "count of /subject, a chat", "/subjects, a chat"]


@pytest.mark.parametrize("name", CHAT_IN_A_CATEGORY)
def test_a_chats_questions_in_a_category_fail_without_their_index(store: Store, name: str) -> None:
    """Without `ix_paper_match_category_newest` the check above fails on either database: the
    questions then read `paper_match_category` whole or by its primary key (by paper)."""
    with store.engine.begin() as connection:
        connection.execute(text("DROP INDEX ix_paper_match_category_newest"))
    question, index = QUESTIONS[name]
    found = plans(store, question)
    assert index not in "\n".join(found)
    if store.engine.dialect.name == "sqlite":  # every row, through the primary key or not
        lines = [line.strip() for plan in found for line in plan.splitlines()]
        assert any(line.startswith("SCAN paper_match_category") for line in lines), found
    else:
        assert "paper_match_category_pkey" in "\n".join(found), found


FOLLOW_TABLES = ("paper_match", "subscription", "followed_author", "poll_state")


@pytest.mark.parametrize(
    "question",
    [
        pytest.param(lambda s, ids: s.followed(ids[:1]), id="a chat's follows (every command)"),
        pytest.param(lambda s, ids: s.find_followed("Dezun Dong"), id="a follow by name"),
    ],
)
def test_the_follows_a_command_asks_about_are_read_alone(store: Store, question: Question) -> None:
    """A command reads its own follows, their counts and subscribers by index: not every
    follow, link or subscription there is (a name was once found among all follows)."""
    found = plans(store, question)
    lines = [line.strip() for plan in found for line in plan.splitlines()]
    for table in FOLLOW_TABLES:
        assert not [line for line in lines if line.startswith(f"SCAN {table}")], found
        assert not [line for line in lines if f"Seq Scan on {table} " in line + " "], found


def test_a_categorys_week_reads_the_whole_topics_and_the_category_by_index(store: Store) -> None:
    """/watch in CATEGORY: the whole-category topics through their partial index, then the
    week's papers of the categories through `ix_paper_category_newest`; nothing read whole."""
    whole, _ = store.watch_topic(parse_topic("in cs.DC,cs.NI"))
    when = datetime(2020, 1, 20, tzinfo=UTC)
    assert store.category_week(["cs.DC"], now=when) is None  # its first poll not done yet
    store.record_poll_success([whole.id], now=when, next_poll=when)
    assert store.category_week(["cs.DC"], now=when) == 4  # 2020-01-14, 16, 18 and 20
    assert store.category_week(["cs.NI", "cs.DC"], now=when) == 8
    assert store.category_week(["cs.DC", "cs.OS"], now=when) is None

    found = plans(store, lambda s, ids: s.category_week(["cs.DC", "cs.NI"], now=when))

    assert [whole_table_reads(plan) for plan in found] == [[] for _ in found], found
    lines = [line.strip() for plan in found for line in plan.splitlines()]
    scans = [line for line in lines if line.startswith("SCAN followed_author")]
    assert all("ix_followed_author_whole_topic" in line for line in scans), found  # it alone
    assert not [line for line in lines if "Seq Scan on followed_author " in line + " "], found
    assert "ix_followed_author_whole_topic" in found[0], found
    assert "ix_paper_category_newest" in found[1], found


def a_name_nobody_follows(store: Store) -> Question:
    """Inline mode's `@bot NAME` for a name nobody follows, stored as "Zoë Müller"."""
    records = [make_record(arxiv_id=f"2002.{n:05d}", authors=["Zoë Müller"]) for n in range(3)]
    store.save_records([MatchedRecord(r, frozenset()) for r in records], announce_for=frozenset())
    return lambda s, ids: s.papers_by_name("zoe muller", limit=10)


def test_a_name_nobody_follows_is_found_by_its_key_and_its_newest_links(store: Store) -> None:
    """Its spellings by `ix_author_key_digest`, each one's newest papers by
    `ix_paper_author_newest`; neither the authors nor the links read whole."""
    found = plans(store, a_name_nobody_follows(store))
    lines = [line.strip() for plan in found for line in plan.splitlines()]
    assert [whole_table_reads(plan) for plan in found] == [[] for _ in found], found
    assert not [line for line in lines if line == "SCAN author"], found
    assert not [line for line in lines if "Seq Scan on author " in line + " "], found
    assert "ix_author_key_digest" in "\n".join(found), found
    assert "ix_paper_author_newest" in "\n".join(found), found


def test_a_name_nobody_follows_reads_every_link_without_its_index(store: Store) -> None:
    """The check above can fail: without `ix_paper_author_newest` the plan no longer names it
    (and SQLite reads `paper_author` whole)."""
    question = a_name_nobody_follows(store)
    with store.engine.begin() as connection:
        connection.execute(text("DROP INDEX ix_paper_author_newest"))
    found = plans(store, question)
    assert "ix_paper_author_newest" not in "\n".join(found), found
    if store.engine.dialect.name == "sqlite":
        assert any(whole_table_reads(plan) for plan in found), found
