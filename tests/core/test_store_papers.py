"""The store's papers on a real database (SQLite file, or PostgreSQL): records round-trip, a
version is new, a revision or ignored, queries order, filter, count and page, follows are
idempotent across name forms, poll state is recorded, and one batch saves like one by one.
"""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy import Engine
from sqlalchemy.exc import IntegrityError
from sqlmodel import Session, select

from tests.fakes.corpus import dezun_dong_records, make_record
from tests.harness.matched import matched
from watcher.arxiv.records import Author
from watcher.store import Store, saving
from watcher.store.chats import Chats
from watcher.store.saving import key_digest, name_digest
from watcher.store.tables import Author as AuthorRow
from watcher.store.tables import Delivery


def test_a_record_round_trips_with_every_field(store: Store) -> None:
    followed, _ = store.follow(["Dezun Dong"])
    record = make_record(
        arxiv_id="astro-ph/0601001",
        authors=[Author("Dézun Dong", ("NUDT", "KTH")), Author("Ann O'Neil")],
        categories=("cs.DC", "cs.LG", "cs.NI"),
        comment="12 pages",
        journal_ref="J. Par. Dist. 1 (2026)",
        doi="10.1/abc",
        title="Latency < 200 µs & more",
    )
    store.save_records([matched(record, followed.id)], announce_for=frozenset())

    assert store.paper("astro-ph/0601001") == record


def test_same_version_twice_changes_nothing(store: Store) -> None:
    followed, _ = store.follow(["Dezun Dong"])
    record = make_record()
    first = store.save_records(
        [matched(record, followed.id)], announce_for=frozenset({followed.id})
    )
    second = store.save_records(
        [matched(record, followed.id)], announce_for=frozenset({followed.id})
    )

    assert [r.arxiv_id for r in first.new] == [record.arxiv_id]
    assert second.new == []
    assert second.revisions == []
    assert second.silent == 0
    assert store.count() == 1


def test_newer_version_is_a_revision_and_an_older_one_is_ignored(store: Store) -> None:
    followed, _ = store.follow(["Dezun Dong"])
    v1 = make_record()
    v2 = replace(
        v1,
        version=2,
        title="Better title",
        abstract="Better abstract",
        updated=v1.updated + timedelta(days=3),
    )
    ids = frozenset({followed.id})
    store.save_records([matched(v1, followed.id)], announce_for=ids)

    revised = store.save_records([matched(v2, followed.id)], announce_for=ids)
    stale = store.save_records([matched(v1, followed.id)], announce_for=ids)

    assert revised.new == []
    assert [r.version for r in revised.revisions] == [2]
    assert stale.new == []
    assert stale.revisions == []
    stored = store.paper(v1.arxiv_id)
    assert stored is not None
    assert (stored.version, stored.title) == (2, "Better title")


def test_queries_order_filter_and_count(store: Store) -> None:
    dong, _ = store.follow(["Dezun Dong"])
    other, _ = store.follow(["Someone Else"])
    records = dezun_dong_records()
    store.save_records([matched(r, dong.id) for r in records], announce_for=frozenset())
    extra = make_record(
        arxiv_id="2611.00001",
        authors=["Someone Else"],
        primary_category="math.CO",
        categories=("math.CO", "cs.DC"),
        published=datetime(2027, 1, 1, tzinfo=UTC),
    )
    store.save_records([matched(extra, other.id)], announce_for=frozenset())

    newest = store.recent(limit=3)
    assert newest[0].arxiv_id == "2611.00001"
    assert [r.published for r in newest] == sorted((r.published for r in newest), reverse=True)
    assert store.count() == len(records) + 1
    assert store.count(followed_ids=[dong.id]) == len(records)
    assert all(r.arxiv_id != "2611.00001" for r in store.recent(limit=50, followed_ids=[dong.id]))

    in_dc = store.by_category("cs.DC", limit=100)
    assert "2611.00001" in {r.arxiv_id for r in in_dc}  # as a cross-list
    assert all("cs.DC" in r.categories for r in in_dc)
    assert store.count_category("cs.DC") == len(in_dc)
    assert store.by_category("cs.DC", limit=2, offset=2) == in_dc[2:4]
    counts = dict(store.category_counts())
    assert counts["math.CO"] == 1
    assert counts["cs.DC"] == len(in_dc)


def test_follow_is_idempotent_across_name_forms(store: Store) -> None:
    first, created = store.follow(["Dezun Dong"])
    again, created_again = store.follow(["Dong, Dézun"])

    assert created
    assert not created_again
    assert first.id == again.id
    assert store.find_followed("dong dezun") == again
    assert store.find_followed("Daoyi Dong") is None


def test_other_aliases_are_another_follow_never_the_shared_one_widened(store: Store) -> None:
    """Issue 29.1: a follow other chats share is never widened by one chat's aliases."""
    plain, _ = store.follow(["Dezun Dong"])
    aliased, created = store.follow(["Dong, Dézun", "D.-Z. Dong", "dezun DONG"])
    same, created_again = store.follow(["Dezun Dong", "Dong, D.-Z."])

    assert created and aliased.id != plain.id
    assert aliased.aliases == ("D.-Z. Dong",)  # the display name's other forms dropped
    assert not created_again and same.id == aliased.id  # the same names, written otherwise
    assert store.followed([plain.id])[0].aliases == ()
    assert store.find_followed("D.-Z. Dong") == store.followed([aliased.id])[0]
    assert store.find_followed("Dezun Dong") == store.followed([plain.id])[0]
    assert store.find_followed("Dezun Dong", among=[aliased.id]) == store.followed([aliased.id])[0]


def test_follows_asked_for_by_many_ids_are_read_in_parts(store: Store) -> None:
    """25,000 ids bound three times would pass both databases' limits on bound values."""
    dong, _ = store.follow(["Dezun Dong"])
    ann, _ = store.follow(["Ann Other"])
    many = [*range(10_000, 35_000), ann.id, dong.id]
    assert [f.id for f in store.followed(many)] == [ann.id, dong.id]  # by name, as ever


def test_a_follow_is_found_by_name_or_alias_in_exactly_its_categories(store: Store) -> None:
    in_dc, _ = store.follow(["Wei Wang", "W. Wang"], categories=["cs.NI", "cs.DC"])
    anywhere, _ = store.follow(["Wang, Wei"])

    assert store.find_followed("wei WANG") == anywhere
    assert store.find_followed("Wei Wang", categories=["cs.DC", "cs.NI"]) == in_dc
    assert store.find_followed("W. Wang", categories=["cs.DC", "cs.NI"]) == in_dc  # its alias
    assert store.find_followed("W. Wang") is None  # the alias is the other rule's
    assert store.find_followed("Wei Wang", categories=["cs.DC"]) is None
    assert store.find_followed("W. Wang", categories=["cs.NI"]) is None


def test_unfollow_keeps_papers_and_drops_the_link(store: Store) -> None:
    followed, _ = store.follow(["Dezun Dong"])
    store.save_records([matched(make_record(), followed.id)], announce_for=frozenset())
    store.unfollow(followed.id)

    assert store.followed() == []
    assert store.count() == 1


def test_poll_state_records_failures_and_success(store: Store) -> None:
    followed, _ = store.follow(["Dezun Dong"])
    now = datetime.now(UTC)
    store.record_poll_failure(
        [followed.id],
        error="arXiv answered HTTP 503",
        now=now,
        next_poll=now + timedelta(minutes=1),
    )
    store.record_poll_failure(
        [followed.id], error="timed out", now=now, next_poll=now + timedelta(minutes=2)
    )
    (state,) = store.followed()
    assert (state.consecutive_failures, state.last_error) == (2, "timed out")
    assert state.next_poll == now + timedelta(minutes=2)  # the latest failure's

    store.record_poll_success([followed.id], now=now, next_poll=now + timedelta(hours=1))
    (state,) = store.followed()
    assert (state.consecutive_failures, state.last_error, state.last_success) == (0, None, now)


def test_pages_of_a_list_are_the_plain_order_with_ties_and_shared_papers(store: Store) -> None:
    """Every page of /recent and /subject (all papers, one author, two authors sharing papers)
    is that slice of the papers sorted newest first, (published, arXiv id) descending: the
    two-step read by date cutoff neither loses, doubles nor misorders a paper at a tie."""
    dong, _ = store.follow(["Dezun Dong"])
    other, _ = store.follow(["Ann Other"])
    start = datetime(2020, 1, 1, tzinfo=UTC)
    papers = []
    for n in range(40):
        record = make_record(
            arxiv_id=f"2001.{(n * 7) % 40:05d}",
            published=start + timedelta(days=n // 3),  # three papers a day: ties
            primary_category="cs.DC" if n % 4 else "cs.NI",
            categories=("cs.DC", "cs.NI") if n % 5 == 0 else (),
        )
        owners = {dong.id, other.id} if n % 3 == 0 else {dong.id} if n % 3 == 1 else {other.id}
        papers.append(matched(record, *owners))
    store.save_records(papers, announce_for=frozenset())

    def expected(ids: set[int] | None, category: str | None) -> list[str]:
        chosen = [
            p.record
            for p in papers
            if (ids is None or p.followed_ids & ids)
            and (category is None or category in {p.record.primary_category, *p.record.categories})
        ]
        chosen.sort(key=lambda r: (r.published, r.arxiv_id), reverse=True)
        return [r.arxiv_id for r in chosen]

    for ids in (None, {dong.id}, {dong.id, other.id}):
        for category in (None, "cs.DC", "cs.NI"):
            want = expected(ids, category)
            for per_page in (1, 4, 7):
                got: list[str] = []
                for page in range(len(want) // per_page + 2):
                    if category is None:
                        found = store.recent(
                            limit=per_page, offset=page * per_page, followed_ids=ids
                        )
                    else:
                        found = store.by_category(
                            category, limit=per_page, offset=page * per_page, followed_ids=ids
                        )
                    got += [r.arxiv_id for r in found]
                assert got == want, (ids, category, per_page)
            if category is None:
                assert store.count(followed_ids=ids) == len(want)
            else:
                assert store.count_category(category, followed_ids=ids) == len(want)


def test_one_batch_is_the_same_as_saving_its_records_one_by_one(store: Store) -> None:
    """The save is set-based: a paper twice in one batch (v1, then v2, then v1 again), shared by
    two authors, and a revised author list must come out as sequential saves would leave them."""
    dong, _ = store.follow(["Dezun Dong"])
    other, _ = store.follow(["Ann Other"])
    old = make_record(arxiv_id="2601.00009", authors=["Ann Other"], categories=("cs.DC",))
    store.save_records([matched(old, other.id)], announce_for=frozenset({dong.id, other.id}))
    a1 = make_record(arxiv_id="2601.00001", authors=["Dezun Dong", "Ann Other"])
    a2 = replace(
        make_record(arxiv_id="2601.00001", version=2, authors=["Dezun Dong", "New Person"]),
        title="Second version",
        categories=("cs.DC", "cs.NI"),
    )
    old2 = replace(old, version=2, authors=(Author("Ann Other"), Author("Dezun Dong")))
    batch = [
        matched(a1, dong.id),
        matched(a2, dong.id, other.id),
        matched(a1, other.id),
        matched(old2, other.id, dong.id),
    ]
    result = store.save_records(batch, announce_for=frozenset({dong.id, other.id}))
    assert [(r.arxiv_id, r.version) for r in result.new] == [
        ("2601.00001", 1),
        ("2601.00001", 2),
        ("2601.00009", 2),
    ]
    assert [(r.arxiv_id, r.version) for r in result.revisions] == [
        ("2601.00001", 2),
        ("2601.00009", 2),
    ]
    stored = store.paper("2601.00001")
    assert stored is not None
    assert (stored.version, stored.title, stored.author_names) == (
        2,
        "Second version",
        ["Dezun Dong", "New Person"],
    )
    assert stored.categories == ("cs.DC", "cs.NI")
    assert store.paper_followed_ids("2601.00001") == {dong.id, other.id}
    again = store.save_records(batch, announce_for=frozenset({dong.id, other.id}))
    assert (again.new, again.revisions, again.silent) == ([], [], 0)
    # Same v1 date: newest first falls back to the arXiv id.
    assert [r.arxiv_id for r in store.recent(limit=5, followed_ids=[dong.id])] == [
        "2601.00009",
        "2601.00001",
    ]


def test_one_batch_queues_the_deliveries_that_saving_one_by_one_would(
    engine: Engine, store: Store
) -> None:
    """A save queues its announcements a run of papers at a time. The same paper twice in a
    batch, new to each of two authors in turn, still reaches a chat that follows both once;
    a revision still moves what a chat waits for to the newest version."""
    dong, _ = store.follow(["Dezun Dong"])
    other, _ = store.follow(["Ann Other"])
    chats = Chats(engine)
    for chat_id, authors in ((1, [dong]), (2, [other]), (3, [dong, other])):
        chats.seen(chat_id, kind="private")
        for author in authors:
            chats.subscribe(chat_id, author.id)
    chats.set_notify_revisions(3, True)
    both = frozenset({dong.id, other.id})
    old = make_record(arxiv_id="2601.00009", authors=["Ann Other"])
    store.save_records([matched(old, other.id)], announce_for=both)
    a1 = make_record(arxiv_id="2601.00001", authors=["Dezun Dong", "Ann Other"])
    a2 = replace(a1, version=2, title="Second version")
    old2 = replace(old, version=2, authors=(Author("Ann Other"), Author("Dezun Dong")))

    store.save_records(
        [
            matched(a1, dong.id),  # new to Dong: chats 1 and 3
            matched(a2, other.id, dong.id),  # new to Other (chat 2 only), a revision to Dong
            matched(old2, dong.id, other.id),  # new to Dong, a revision to Other
        ],
        announce_for=both,
    )

    with Session(engine) as session:
        queued = session.exec(select(Delivery)).all()
    assert sorted((d.chat_id, d.paper_id, d.version, d.kind) for d in queued) == sorted(
        [
            (2, 1, 2, "new"),  # Other's old paper, moved to v2 while chat 2 still waits
            (3, 1, 2, "new"),
            (1, 1, 2, "new"),
            (1, 2, 2, "new"),  # a1 moved to v2 by Dong's revision
            (3, 2, 2, "new"),  # once, although it follows both authors
            (2, 2, 2, "new"),
        ]
    )


def test_a_bulk_insert_that_breaks_a_constraint_raises_sqlalchemys_error(engine: Engine) -> None:
    """The save's bulk inserts (PostgreSQL's COPY, SQLite's INSERT) fail as SQLAlchemy's error,
    which the poll records as a store failure and retries, and write nothing."""
    key = key_digest("Ann Other")
    rows = [{"name": "Ann Other", "name_digest": name_digest("Ann Other"), "key_digest": key}]
    with Session(engine) as session:
        saving._insert(session, AuthorRow, rows)
        session.commit()
    with Session(engine) as session, pytest.raises(IntegrityError):
        saving._insert(
            session, AuthorRow, [{"name": "Bob", "name_digest": "b", "key_digest": key}, *rows]
        )
    with Session(engine) as session:
        assert session.exec(select(AuthorRow.name)).all() == ["Ann Other"]
