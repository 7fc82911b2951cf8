"""The store, chats and outbox on a real database (SQLite file, or PostgreSQL)."""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy import Engine
from sqlalchemy.exc import IntegrityError
from sqlmodel import Session, select

from tests.fakes.corpus import dezun_dong_records, make_record
from watcher.followed import Followed
from watcher.records import Author, Record
from watcher.store import MatchedRecord, SaveResult, Store, saving
from watcher.store.chats import MAX_SUBSCRIPTIONS, Chats, SubscriptionLimit
from watcher.store.outbox import Outbox
from watcher.store.saving import name_digest
from watcher.store.tables import Author as AuthorRow
from watcher.store.tables import Delivery


@pytest.fixture
def store(engine: Engine) -> Store:
    return Store(engine)


def matched(record, *ids: int) -> MatchedRecord:  # type: ignore[no-untyped-def]
    return MatchedRecord(record, frozenset(ids))


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
    again, created_again = store.follow(["Dong, Dézun", "D.-Z. Dong"])

    assert created
    assert not created_again
    assert first.id == again.id
    assert again.aliases == ("D.-Z. Dong",)
    assert store.find_followed("dong dezun") == again
    assert store.find_followed("D.-Z. Dong") == again
    assert store.find_followed("Daoyi Dong") is None


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


# -- chats and the outbox ----------------------------------------------------------------------


@pytest.fixture
def subscribed(engine: Engine, store: Store) -> tuple[Chats, Outbox, int]:
    chats = Chats(engine)
    followed, _ = store.follow(["Dezun Dong"])
    for chat_id in (10, 20):
        chats.seen(chat_id, kind="private")
        chats.subscribe(chat_id, followed.id)
    return chats, Outbox(engine), followed.id


def test_new_paper_queues_one_delivery_per_chat_and_only_once(
    store: Store, subscribed: tuple[Chats, Outbox, int]
) -> None:
    _chats, outbox, followed_id = subscribed
    ids = frozenset({followed_id})
    store.save_records([matched(make_record(), followed_id)], announce_for=ids)
    store.save_records([matched(make_record(), followed_id)], announce_for=ids)

    assert sorted(d.chat_id for d in outbox.due(limit=10)) == [10, 20]


def test_revisions_only_reach_chats_that_asked(
    store: Store, subscribed: tuple[Chats, Outbox, int]
) -> None:
    chats, outbox, followed_id = subscribed
    ids = frozenset({followed_id})
    v1 = make_record()
    store.save_records([matched(v1, followed_id)], announce_for=ids)
    for delivery in outbox.due(limit=10):
        outbox.mark_sent(delivery.id, message_id=1)
    chats.set_notify_revisions(20, True)

    store.save_records([matched(replace(v1, version=2), followed_id)], announce_for=ids)

    (due,) = outbox.due(limit=10)
    assert (due.chat_id, due.kind, due.record.version) == (20, "revision", 2)


def test_sent_failed_and_retry_states(store: Store, subscribed: tuple[Chats, Outbox, int]) -> None:
    _chats, outbox, followed_id = subscribed
    store.save_records([matched(make_record(), followed_id)], announce_for=frozenset({followed_id}))
    first, second = sorted(outbox.due(limit=10), key=lambda d: d.chat_id)

    outbox.mark_sent(first.id, message_id=7)
    outbox.retry_later(second.id, error="timed out", at=datetime.now(UTC) + timedelta(hours=1))
    assert outbox.due(limit=10) == []
    later = outbox.due(limit=10, now=datetime.now(UTC) + timedelta(hours=2))
    assert [(d.chat_id, d.attempts) for d in later] == [(20, 1)]

    outbox.mark_failed(second.id, error="Bad Request: chat not found")
    outbox.mark_sent(second.id, message_id=8)  # a failed delivery is never flipped back
    stats = outbox.stats()
    assert (stats.pending, stats.sent, stats.failed) == (0, 1, 1)
    assert outbox.failures() == [(20, "2604.00001", "Bad Request: chat not found")]


def test_inactive_chat_parks_deliveries_until_it_comes_back(
    store: Store, subscribed: tuple[Chats, Outbox, int]
) -> None:
    chats, outbox, followed_id = subscribed
    chats.deactivate(10, reason="Forbidden: bot was blocked by the user")
    store.save_records([matched(make_record(), followed_id)], announce_for=frozenset({followed_id}))

    assert [d.chat_id for d in outbox.due(limit=10)] == [20]
    assert outbox.stats().parked == 1

    assert chats.seen(10, kind="private") is True
    assert sorted(d.chat_id for d in outbox.due(limit=10)) == [10, 20]


def test_migrated_chat_keeps_subscriptions_and_deliveries(
    store: Store, subscribed: tuple[Chats, Outbox, int]
) -> None:
    chats, outbox, followed_id = subscribed
    store.save_records([matched(make_record(), followed_id)], announce_for=frozenset({followed_id}))

    chats.migrate(20, -1001234)

    assert chats.get(20) is None
    assert chats.subscribed_ids(-1001234) == [followed_id]
    assert sorted(d.chat_id for d in outbox.due(limit=10)) == [-1001234, 10]


def test_unsubscribing_drops_pending_deliveries_no_longer_wanted(
    store: Store, subscribed: tuple[Chats, Outbox, int]
) -> None:
    chats, outbox, followed_id = subscribed
    store.save_records([matched(make_record(), followed_id)], announce_for=frozenset({followed_id}))

    assert chats.unsubscribe(10) == 1
    assert chats.unsubscribe(10) == 0

    assert [d.chat_id for d in outbox.due(limit=10)] == [20]


def test_migration_into_a_chat_we_already_know_merges_the_two(
    store: Store, subscribed: tuple[Chats, Outbox, int]
) -> None:
    chats, outbox, followed_id = subscribed
    other, _ = store.follow(["Daoyi Dong"])
    chats.seen(-1001234, kind="supergroup")
    chats.subscribe(-1001234, followed_id)
    chats.subscribe(20, other.id)
    store.save_records([matched(make_record(), followed_id)], announce_for=frozenset({followed_id}))
    chats.seen(20, kind="group")

    chats.migrate(20, -1001234)

    assert chats.get(20) is None
    assert sorted(chats.subscribed_ids(-1001234)) == sorted([followed_id, other.id])
    assert sorted(d.chat_id for d in outbox.due(limit=10)) == [-1001234, 10]


def test_many_confirmations_are_marked_sent_in_one_call(
    engine: Engine, store: Store, subscribed: tuple[Chats, Outbox, int]
) -> None:
    chats, outbox, followed_id = subscribed
    for chat_id in (30, 40):
        chats.seen(chat_id, kind="private")
        chats.subscribe(chat_id, followed_id)
    store.save_records([matched(make_record(), followed_id)], announce_for=frozenset({followed_id}))
    by_chat = {d.chat_id: d for d in outbox.due(limit=10)}
    outbox.mark_failed(by_chat[40].id, error="Bad Request: chat not found")

    outbox.mark_sent_many([(by_chat[10].id, 101), (by_chat[20].id, None), (by_chat[40].id, 104)])
    outbox.mark_sent_many([])

    assert [d.chat_id for d in outbox.due(limit=10)] == [30]
    stats = outbox.stats()
    assert (stats.pending, stats.sent, stats.failed) == (1, 2, 1)
    with Session(engine) as session:
        rows = {d.chat_id: d for d in session.exec(select(Delivery))}
    assert (rows[10].status, rows[10].message_id) == ("sent", 101)
    assert (rows[20].status, rows[20].message_id) == ("sent", None)
    assert rows[10].sent is not None
    assert rows[20].sent is not None
    assert (rows[30].status, rows[30].sent) == ("pending", None)
    # A failed delivery is never flipped back, even inside a batch.
    assert (rows[40].status, rows[40].message_id, rows[40].sent) == ("failed", None, None)


@dataclass
class Coauthors:
    """Two followed authors who write a paper together, and chats following them."""

    store: Store
    chats: Chats
    outbox: Outbox
    dong: Followed
    wang: Followed
    joint: Record

    @property
    def both(self) -> frozenset[int]:
        return frozenset({self.dong.id, self.wang.id})

    def subscribe(self, chat_id: int, *authors: Followed) -> None:
        self.chats.seen(chat_id, kind="private")
        for author in authors:
            self.chats.subscribe(chat_id, author.id)

    def save(self, record: Record, *authors: Followed, announce_for: frozenset[int]) -> SaveResult:
        return self.store.save_records(
            [matched(record, *(a.id for a in authors))], announce_for=announce_for
        )


@pytest.fixture
def coauthors(engine: Engine, store: Store) -> Coauthors:
    return Coauthors(
        store=store,
        chats=Chats(engine),
        outbox=Outbox(engine),
        dong=store.follow(["Dezun Dong"])[0],
        wang=store.follow(["Ziyu Wang"])[0],
        joint=make_record(authors=["Ziyu Wang", "Dezun Dong"]),
    )


def test_a_paper_stored_through_one_author_is_still_new_to_the_others_subscribers(
    coauthors: Coauthors,
) -> None:
    c = coauthors
    c.subscribe(1, c.dong)
    c.subscribe(2, c.wang)
    c.subscribe(3, c.dong, c.wang)

    # Their polls run in different cycles: Wang's finds the paper first, Dong's later.
    first = c.save(c.joint, c.wang, announce_for=c.both)
    second = c.save(c.joint, c.dong, announce_for=c.both)
    again = c.save(c.joint, c.dong, c.wang, announce_for=c.both)

    assert [r.arxiv_id for r in first.new] == [c.joint.arxiv_id]
    assert [r.arxiv_id for r in second.new] == [c.joint.arxiv_id]
    assert again.new == [] and again.revisions == []
    assert sorted(d.chat_id for d in c.outbox.due(limit=10)) == [1, 2, 3]


def test_a_backfill_of_one_author_does_not_silence_the_paper_for_another(
    coauthors: Coauthors,
) -> None:
    c = coauthors
    c.subscribe(1, c.dong)
    only_dong = frozenset({c.dong.id})

    silent = c.save(c.joint, c.wang, announce_for=only_dong)
    found = c.save(c.joint, c.dong, announce_for=only_dong)

    assert silent.new == [] and silent.silent == 1
    assert [r.arxiv_id for r in found.new] == [c.joint.arxiv_id]
    assert [d.chat_id for d in c.outbox.due(limit=10)] == [1]


def test_a_version_one_author_has_not_seen_is_a_revision_for_them(coauthors: Coauthors) -> None:
    c = coauthors
    c.subscribe(1, c.dong)
    c.chats.set_notify_revisions(1, True)
    v2 = replace(c.joint, version=2, abstract="Revised.")
    c.save(c.joint, c.dong, c.wang, announce_for=c.both)
    (delivery,) = c.outbox.due(limit=10)
    c.outbox.mark_sent(delivery.id, message_id=1)

    by_wang = c.save(v2, c.wang, announce_for=c.both)
    by_dong = c.save(v2, c.dong, announce_for=c.both)

    assert [r.version for r in by_wang.revisions] == [2]
    assert [r.version for r in by_dong.revisions] == [2]
    (revision,) = c.outbox.due(limit=10)
    assert (revision.chat_id, revision.kind, revision.record.version) == (1, "revision", 2)
    assert c.store.linked_versions([v2.arxiv_id], c.both) == {
        (v2.arxiv_id, c.dong.id): 2,
        (v2.arxiv_id, c.wang.id): 2,
    }


def test_a_chat_hears_of_a_paper_as_new_once_whatever_version_it_comes_at(
    coauthors: Coauthors,
) -> None:
    c = coauthors
    c.subscribe(1, c.dong, c.wang)

    c.save(c.joint, c.wang, announce_for=c.both)
    c.save(replace(c.joint, version=2), c.dong, announce_for=c.both)

    assert [(d.kind, d.chat_id) for d in c.outbox.due(limit=10)] == [("new", 1)]


def test_a_chat_follows_at_most_fifty_authors(engine: Engine, store: Store) -> None:
    chats = Chats(engine)
    chats.seen(1, kind="private")
    ids = [
        store.follow([f"Author Number{chr(65 + i // 26)}{chr(65 + i % 26)}"])[0].id
        for i in range(MAX_SUBSCRIPTIONS + 1)
    ]
    for followed_id in ids[:MAX_SUBSCRIPTIONS]:
        assert chats.subscribe(1, followed_id)

    with pytest.raises(SubscriptionLimit):
        chats.subscribe(1, ids[-1])
    assert chats.subscribe(1, ids[0]) is False  # already followed: no limit in the way
    assert len(chats.subscribed_ids(1)) == MAX_SUBSCRIPTIONS


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
    rows = [{"name": "Ann Other", "name_digest": name_digest("Ann Other")}]
    with Session(engine) as session:
        saving._insert(session, AuthorRow, rows)
        session.commit()
    with Session(engine) as session, pytest.raises(IntegrityError):
        saving._insert(session, AuthorRow, [{"name": "Bob", "name_digest": "b"}, *rows])
    with Session(engine) as session:
        assert session.exec(select(AuthorRow.name)).all() == ["Ann Other"]
