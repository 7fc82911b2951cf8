"""API mode stores a metadata change without a new version (issue 18, item 7), silently: the
weekly refresh of a follow's whole list, against the fake arXiv over HTTP and a real database.

A poll reads back only to a window before its last success, by the date of a paper's current
version, which a journal reference, a DOI or a title fixed leaves as it was; harvest mode sees
such a change by its datestamp. Here the API source reads a known follow's whole list once a
week (`REFRESH_EVERY`), and the store keeps what changed without announcing anything.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime, timedelta

import pytest
from sqlalchemy import update
from sqlmodel import Session, col, select

from tests.fakes.arxiv_api import FakeArxiv
from tests.fakes.corpus import make_record
from watcher.arxiv.fetch import ArxivClient
from watcher.arxiv.records import Record
from watcher.follows.topics import parse_topic
from watcher.polling.poll import Poller
from watcher.polling.sources.api import REFRESH_EVERY
from watcher.store import Store
from watcher.store.chats import Chats
from watcher.store.tables import Delivery, FollowedAuthor, Paper, utcnow

CHAT = 707
RDMA = parse_topic('"remote direct memory access" RDMA in cs.DC,cs.NI')


class Clock:
    """The poller's time, moved on by the test (papers are dated from the real now)."""

    def __init__(self) -> None:
        self.now = utcnow()

    def __call__(self) -> datetime:
        return self.now


@pytest.fixture
def fake() -> Iterator[FakeArxiv]:
    with FakeArxiv([]) as server:
        yield server


def api_poller(store: Store, client: ArxivClient, clock: Clock) -> Poller:
    """API mode, two results a page: a window's pages end before an old paper's."""
    return Poller(
        store=store, client=client, poll_interval=3600, source="api", page_size=2, clock=clock
    )


def subscribed_with_revisions(store: Store, followed_id: int) -> None:
    """A chat that follows `followed_id` and asked for revisions: it would hear of any."""
    chats = Chats(store.engine)
    chats.seen(CHAT, kind="private")
    chats.set_notify_revisions(CHAT, True)
    chats.subscribe(CHAT, followed_id)


def deliveries(store: Store) -> list[tuple[str, int, str]]:
    with Session(store.engine) as session:
        rows = session.exec(
            select(Paper.arxiv_id, Delivery.version, Delivery.kind).join(
                Paper, col(Paper.id) == col(Delivery.paper_id)
            )
        ).all()
    return sorted((arxiv_id, version, str(kind)) for arxiv_id, version, kind in rows)


def stored(store: Store, arxiv_id: str) -> Record:
    record = store.paper(arxiv_id)
    assert record is not None
    return record


CHANGES: dict[str, object] = {
    "journal_ref": "J. Interconnects 7 (2026) 1-19",
    "doi": "10.1000/jint.2026.7",
    "title": "Routing on HyperX, Fixed",
    "categories": ("cs.DC", "cs.NI"),
}


async def test_a_metadata_change_of_an_old_paper_is_stored_silently_by_the_weekly_refresh(
    fake: FakeArxiv, client: ArxivClient, store: Store
) -> None:
    """Dezun Dong followed by name, history fetched. A paper of 60 days ago gets a journal
    reference, a DOI, a fixed title and a second category, still at v1. The daily polls do not
    page back to it (one request each); the first poll a week after the history was read does,
    and stores the change: no delivery, no revision, though the chat asked for revisions."""
    clock = Clock()
    old = make_record(
        arxiv_id="2610.00001", title="Routing on HyperX", published=clock.now - timedelta(days=60)
    )
    # Newest first, two a page: the window (14 days before the last poll) ends on the second.
    others = [
        make_record(arxiv_id=f"2611.0001{n}", published=clock.now - timedelta(days=days))
        for n, days in enumerate((1, 2, 3, 30))
    ]
    for record in (old, *others):
        fake.add(record)
    follow, _ = store.follow(["Dezun Dong"])
    subscribed_with_revisions(store, follow.id)
    polls = api_poller(store, client, clock)
    first = await polls.poll(force=True)
    assert first.failures == {} and first.backfilled == 5 and deliveries(store) == []

    fake.touch(old.arxiv_id, clock.now.date(), **CHANGES)
    clock.now += timedelta(days=1)
    before = len(fake.api_requests())
    daily = await polls.poll(force=True)
    assert daily.failures == {}
    assert len(fake.api_requests()) - before == 2  # the window's pages
    assert stored(store, old.arxiv_id).journal_ref is None  # out of the window: not seen

    clock.now += REFRESH_EVERY
    weekly = await polls.poll(force=True)

    assert weekly.failures == {}
    assert (weekly.new, weekly.revisions, weekly.backfilled) == ([], [], 0)
    now_stored = stored(store, old.arxiv_id)
    assert now_stored.version == 1
    for field, value in CHANGES.items():
        assert getattr(now_stored, field) == value, field
    assert deliveries(store) == []
    assert [r.arxiv_id for r in store.by_category("cs.NI", limit=5)] == [old.arxiv_id]

    # The refresh is weekly: the next day's poll reads the window again.
    clock.now += timedelta(days=1)
    before = len(fake.api_requests())
    assert (await polls.poll(force=True)).failures == {}
    assert len(fake.api_requests()) - before == 2


async def test_a_topic_refresh_reads_back_to_its_creation_and_announces_nothing_old(
    fake: FakeArxiv, client: ArxivClient, store: Store
) -> None:
    """A topic followed 60 days ago (by the poller's clock); a paper on it, announced then, gets
    a DOI 20 days ago, after a refresh. The next day's poll does not reach back to it; the
    weekly refresh, back to the topic's creation, stores it, silently. A paper of years before
    the topic, met on the way, is neither stored for it nor announced."""
    clock = Clock()
    abstract = "We build remote direct memory access (RDMA) transports."
    topic, _ = store.watch_topic(RDMA)
    clock.now -= timedelta(days=60)
    with Session(store.engine) as session:  # test data: the row as a topic of then leaves it
        session.exec(
            update(FollowedAuthor)
            .where(col(FollowedAuthor.id) == topic.id)
            .values(created=clock.now)
        )
        session.commit()
    subscribed_with_revisions(store, topic.id)
    polls = api_poller(store, client, clock)
    assert (await polls.poll(force=True)).failures == {}  # its first poll: nothing yet
    found = make_record(
        arxiv_id="2610.00003", abstract=abstract, published=clock.now + timedelta(days=2)
    )
    ancient = make_record(
        arxiv_id="1901.00004", abstract=abstract, published=clock.now - timedelta(days=700)
    )
    fake.add(found)
    fake.add(ancient)
    clock.now += timedelta(days=3)
    told = await polls.poll(force=True)
    assert [r.arxiv_id for r in told.new] == [found.arxiv_id]
    assert deliveries(store) == [(found.arxiv_id, 1, "new")]
    clock.now += timedelta(days=37)
    assert (await polls.poll(force=True)).failures == {}  # a refresh: a week had passed

    fake.touch(found.arxiv_id, clock.now.date(), doi="10.1000/rdma.2026.3")
    clock.now += timedelta(days=1)
    assert (await polls.poll(force=True)).failures == {}
    assert stored(store, found.arxiv_id).doi is None  # out of the window: not seen
    clock.now += REFRESH_EVERY
    weekly = await polls.poll(force=True)

    assert weekly.failures == {}
    assert (weekly.new, weekly.revisions) == ([], [])
    assert stored(store, found.arxiv_id).doi == "10.1000/rdma.2026.3"
    assert store.paper(ancient.arxiv_id) is None
    assert deliveries(store) == [(found.arxiv_id, 1, "new")]
