"""Following a person by arXiv identity: the author feed source against the fake arXiv over
HTTP (the fake's `/a/<id>.atom`), the real polite client and a real database."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from dataclasses import replace
from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy import Engine

from tests.fakes.arxiv_api import FakeArxiv, Fault
from tests.fakes.corpus import dezun_dong_records, lookalike_records, make_record
from tests.harness.patience import LOOPBACK_TIMEOUT
from watcher.arxiv.fetch import USER_AGENT, ArxivClient
from watcher.arxiv.parse import parse_feed
from watcher.arxiv.records import Record
from watcher.errors import UnknownAuthorId
from watcher.follows.followed import Followed
from watcher.follows.identity import Identity
from watcher.follows.names import likely_name
from watcher.polling.poll import Poller, WatchSource
from watcher.store import MatchedRecord, Store

DONG = Identity("arxiv", "dong_d_1")
ORCID = Identity("orcid", "0000-0002-1825-0097")


@pytest.fixture
def fake() -> Iterator[FakeArxiv]:
    with FakeArxiv([*dezun_dong_records(), *lookalike_records()]) as server:
        server.claim(DONG.feed_id, [r.arxiv_id for r in dezun_dong_records()])
        yield server


@pytest.fixture
async def client(fake: FakeArxiv) -> AsyncIterator[ArxivClient]:
    async with ArxivClient(
        fake.url,
        min_interval=0,
        timeout=LOOPBACK_TIMEOUT,
        max_retries=1,
        backoff_base=0.01,
        backoff_max=0.05,
    ) as arxiv:
        yield arxiv


def poller(
    store: Store, client: ArxivClient, fake: FakeArxiv, *, source: WatchSource = "api"
) -> Poller:
    return Poller(
        store=store,
        client=client,
        poll_interval=3600,
        source=source,
        oai_url=fake.oai_url,
        author_feed_url=fake.author_feed_url,
    )


def followed(store: Store, identity: Identity = DONG) -> Followed:
    (found,) = [f for f in store.followed() if f.identity == identity.key]
    return found


def claimed_paper(fake: FakeArxiv, arxiv_id: str = "2611.99999") -> Record:
    record = make_record(
        arxiv_id=arxiv_id,
        title="Fresh Results on HyperX Routing",
        authors=["Ziyu Wang", "Dezun Dong"],
        published=datetime.now(UTC) - timedelta(days=1),  # out after the follow's first poll
    )
    fake.add(record)
    fake.claim(DONG.feed_id, [arxiv_id])
    return record


async def test_the_fake_author_feed_parses_as_arxiv_atom(fake: FakeArxiv) -> None:
    async with ArxivClient(fake.url, min_interval=0) as client:
        body = await client.get(fake.author_feed_url + "dong_d_1.atom", {})
    page = parse_feed(body)
    assert sorted(r.arxiv_id for r in page.records) == sorted(
        r.arxiv_id for r in dezun_dong_records()
    )
    assert page.total_results is None  # the whole list, no OpenSearch paging
    assert likely_name(page.records) == "Dezun Dong"
    (seen,) = fake.author_requests()
    assert seen.path == "/a/dong_d_1.atom"
    assert seen.headers["User-Agent"] == USER_AGENT


@pytest.mark.parametrize("status", [400, 404])
async def test_an_unknown_id_is_unknown_author_id(
    engine: Engine, client: ArxivClient, fake: FakeArxiv, status: int
) -> None:
    fake.unknown_author_status = status
    with pytest.raises(UnknownAuthorId, match="arXiv knows no author id dong_d_9"):
        await poller(Store(engine), client, fake).identity_papers(Identity("arxiv", "dong_d_9"))
    assert len(fake.author_requests()) == 1  # a 400 or 404 is an answer: not retried


async def test_an_orcid_feed_is_read_at_the_same_address(
    engine: Engine, client: ArxivClient, fake: FakeArxiv
) -> None:
    fake.claim(ORCID.feed_id, [dezun_dong_records()[0].arxiv_id])
    papers = await poller(Store(engine), client, fake).identity_papers(ORCID)
    assert len(papers) == 1
    assert fake.author_requests()[-1].path == "/a/0000-0002-1825-0097.atom"


@pytest.mark.parametrize("mode", ["api", "harvest", "auto"])
async def test_first_poll_is_silent_and_a_new_paper_is_announced_once(
    engine: Engine, client: ArxivClient, fake: FakeArxiv, mode: WatchSource
) -> None:
    store = Store(engine)
    store.follow_identity(DONG, name="Dezun Dong")
    watcher = poller(store, client, fake, source=mode)

    first = await watcher.poll(force=True)

    assert first.new == [] and first.backfilled == len(dezun_dong_records())
    assert followed(store).backfilled
    assert followed(store).record_count == len(dezun_dong_records())
    assert fake.api_requests() == [] and fake.oai_requests() == []  # the feed alone
    paper = claimed_paper(fake)

    second = await watcher.poll(force=True)
    third = await watcher.poll(force=True)

    assert [r.arxiv_id for r in second.new] == [paper.arxiv_id]
    assert third.new == []
    assert len(fake.author_requests()) == 3
    assert fake.api_requests() == [] and fake.oai_requests() == []


async def test_every_record_of_the_feed_is_the_persons_without_name_matching(
    engine: Engine, client: ArxivClient, fake: FakeArxiv
) -> None:
    # A paper the person claimed under another spelling of their name is theirs all the same.
    other_spelling = make_record(arxiv_id="2612.00001", authors=["D. Dong", "Ziyu Wang"])
    fake.add(other_spelling)
    fake.claim(DONG.feed_id, [other_spelling.arxiv_id])
    store = Store(engine)
    store.follow_identity(DONG, name="Dezun Dong")

    await poller(store, client, fake).poll(force=True)

    assert followed(store).record_count == len(dezun_dong_records()) + 1


async def test_a_503_with_retry_after_is_a_recorded_failure_retried_later(
    engine: Engine, fake: FakeArxiv
) -> None:
    store = Store(engine)
    store.follow_identity(DONG, name="Dezun Dong")
    now = datetime(2026, 5, 1, 12, 0, tzinfo=UTC)
    fake.author_faults.append(Fault("503", retry_after="7200"))
    async with ArxivClient(fake.url, min_interval=0, max_retries=2, backoff_max=1) as client:
        watcher = Poller(
            store=store,
            client=client,
            poll_interval=3600,
            author_feed_url=fake.author_feed_url,
            clock=lambda: now,
        )
        report = await watcher.poll()

        state = followed(store)
        assert "503" in report.failures[state.label]
        assert state.consecutive_failures == 1 and not state.backfilled
        assert state.next_poll == now + timedelta(seconds=7200)  # arXiv's word, honoured
        assert len(fake.author_requests()) == 1  # not retried inside the poll

        later = await watcher.poll()  # not due yet: nothing asked
        assert later.polled == [] and len(fake.author_requests()) == 1

        healed = await watcher.poll(force=True)
        assert healed.failures == {} and healed.new == []
        assert followed(store).backfilled and followed(store).consecutive_failures == 0


async def test_an_id_arxiv_stops_knowing_is_a_recorded_poll_failure(
    engine: Engine, client: ArxivClient, fake: FakeArxiv
) -> None:
    store = Store(engine)
    store.follow_identity(DONG, name="Dezun Dong")
    watcher = poller(store, client, fake)
    await watcher.poll(force=True)
    del fake.author_claims[DONG.feed_id]

    report = await watcher.poll(force=True)

    state = followed(store)
    assert report.failures == {state.label: "arXiv knows no author id dong_d_1"}
    assert state.label == "Dezun Dong (arxiv:dong_d_1)" and state.names == ("Dezun Dong",)
    assert state.last_error == "arXiv knows no author id dong_d_1"
    assert state.record_count == len(dezun_dong_records())  # nothing lost


async def test_an_empty_feed_where_papers_are_stored_is_a_failure_not_news(
    engine: Engine, client: ArxivClient, fake: FakeArxiv
) -> None:
    store = Store(engine)
    store.follow_identity(DONG, name="Dezun Dong")
    watcher = poller(store, client, fake)
    await watcher.poll(force=True)
    claimed = fake.author_claims[DONG.feed_id]
    fake.author_claims[DONG.feed_id] = []

    report = await watcher.poll(force=True)
    assert followed(store).consecutive_failures == 1 and report.new == []
    fake.author_claims[DONG.feed_id] = claimed
    again = await watcher.poll(force=True)
    assert again.new == [] and again.failures == {}


def test_likely_name_is_the_author_on_most_papers() -> None:
    records = [
        make_record(arxiv_id="2601.00001", authors=["Ziyu Wang", "Dezun Dong"]),
        make_record(arxiv_id="2601.00002", authors=["Dong, Dezun"]),
        make_record(arxiv_id="2601.00003", authors=["Dezun Dong", "Ziyu Wang"]),
    ]
    assert likely_name(records) == "Dezun Dong"
    assert likely_name([]) is None


async def test_a_reread_from_the_feed_keeps_the_classes_only_the_api_gives(
    engine: Engine, client: ArxivClient, fake: FakeArxiv
) -> None:
    # arXiv's author feed lists no ACM or MSC classes (tests/fakes/README.md); the API does.
    first = dezun_dong_records()[0]
    classified = replace(first, acm_class="C.2.1", msc_class="68M10")
    store = Store(engine)
    store.save_records([MatchedRecord(classified, frozenset())], announce_for=frozenset())
    store.follow_identity(DONG, name="Dezun Dong")

    await poller(store, client, fake).poll(force=True)
    await poller(store, client, fake).poll(force=True)

    kept = store.paper(first.arxiv_id)
    assert kept is not None
    assert (kept.acm_class, kept.msc_class) == ("C.2.1", "68M10")
