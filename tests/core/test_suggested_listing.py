"""The listing's read is the batch "Suggested for you" ranks (issue 32): through the poll step,
the fake listing and the fake arXiv over HTTP, a real store. A chat following Dezun Dong, its
suggestions on, is told of his new paper and suggested the batch's paper like it by someone it
does not follow; the listing read again (a crash, a restart) suggests nothing twice.

The document frequencies are seeded as the sample's (tests/data/suggestions), as a store that
has counted a few months of batches holds them."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy import Engine
from sqlmodel import Session, select

from tests.fakes.arxiv_api import FakeArxiv
from tests.fakes.corpus import dezun_dong_records, make_record
from tests.fakes.listing import FakeListing
from tests.harness.frequencies import seed_sample_frequencies
from tests.harness.patience import LOOPBACK_TIMEOUT
from watcher.arxiv.fetch import ArxivClient
from watcher.calendars.announcements import Announcement
from watcher.polling.poll import Poller
from watcher.store import Store
from watcher.store.chats import Chats
from watcher.store.suggesting import SuggestionStore
from watcher.store.suggestion_outbox import SuggestionOutbox
from watcher.store.suggestion_tables import Suggestion

NOW = datetime.now(UTC)
MAILING = NOW.date() + timedelta(days=1)
MONTH = f"{NOW:%y%m}"
CHAT = 10
OWN = make_record(
    arxiv_id=f"{MONTH}.50001",
    title="Adaptive Routing on Dragonfly Networks",
    authors=["Ke Wu", "Dezun Dong"],
    primary_category="cs.NI",
    categories=("cs.NI", "cs.DC"),
    abstract="Dragonfly interconnection networks need adaptive routing to avoid congestion.",
)
ALIKE = make_record(
    arxiv_id=f"{MONTH}.50002",
    title="Congestion-Aware Adaptive Routing for Dragonfly Interconnection Networks",
    authors=["Ada Lovelace"],
    primary_category="cs.NI",
    categories=("cs.NI",),
    abstract="We route around congestion in dragonfly interconnection networks adaptively.",
)
FAR = make_record(
    arxiv_id=f"{MONTH}.50003",
    title="Diffusion Models for Indoor Scene Synthesis",
    authors=["Grace Hopper"],
    primary_category="cs.CV",
    categories=("cs.CV",),
    abstract="We synthesise indoor scenes with a cascaded diffusion model.",
)


@pytest.fixture
def arxiv() -> Iterator[FakeArxiv]:
    with FakeArxiv(dezun_dong_records()) as fake:
        yield fake


@pytest.fixture
def listing() -> Iterator[FakeListing]:
    with FakeListing(NOW.date()) as fake:
        yield fake


@pytest.fixture
async def poller(engine: Engine, arxiv: FakeArxiv, listing: FakeListing) -> AsyncIterator[Poller]:
    """Dezun Dong followed by `CHAT`, with suggestions on; his history fetched (silently)."""
    async with ArxivClient(
        arxiv.url, min_interval=0, timeout=LOOPBACK_TIMEOUT, max_retries=1, listing_interval=0
    ) as client:
        store = Store(engine)
        followed, _ = store.follow(["Dezun Dong"])
        Chats(engine).seen(CHAT, kind="private")
        Chats(engine).subscribe(CHAT, followed.id)
        seed_sample_frequencies(engine)
        polls = Poller(
            store=store,
            client=client,
            poll_interval=3600,
            listing_url=listing.url,
            listing_probe_interval=0.05,
            listing_probe_hours=0.01,
            harvest_sets=["cs"],
        )
        assert not (await polls.poll(force=True)).failures
        SuggestionStore(engine).turn(CHAT, 0, on=True, now=datetime.now(UTC))
        yield polls


async def test_a_listing_read_suggests_the_paper_like_the_chats_once(
    poller: Poller, listing: FakeListing, engine: Engine
) -> None:
    listing.announce(MAILING, new=[OWN, ALIKE, FAR])
    announcement = Announcement(at=datetime.now(UTC), mailing=MAILING)
    report = await poller.read_listing(announcement)
    assert [r.arxiv_id for r in report.new] == [OWN.arxiv_id]  # told of his paper
    await poller.suggestions_settled()  # ranked beside the read's news, not before it
    due = SuggestionOutbox(engine).due(limit=10, now=datetime.now(UTC) + timedelta(seconds=1))
    assert [(one.chat_id, one.mailing) for one in due] == [(CHAT, MAILING)]
    shown = [p.record.arxiv_id for p in due[0].papers]
    assert shown == [ALIKE.arxiv_id]  # not his own (told), not the far one
    assert due[0].papers[0].reason.like == OWN.title or due[0].papers[0].reason.shared

    await poller.read_listing(announcement)  # read again: nothing more
    await poller.suggestions_settled()
    with Session(engine) as session:
        assert len(session.exec(select(Suggestion)).all()) == 1
