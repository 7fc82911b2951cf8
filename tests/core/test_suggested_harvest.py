"""The OAI-PMH harvest's new day is the batch "Suggested for you" ranks (issue 32), when no
listing read it first: through the poll step in harvest mode, the fake arXiv over HTTP (its
OAI-PMH records carry each paper's submission date as `created`), a real store. The day's new
papers (first submitted within a week of their datestamp) are the candidates.

The document frequencies are seeded as the sample's (tests/data/suggestions)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from sqlalchemy import Engine
from sqlmodel import Session, select

from tests.fakes.arxiv_api import FakeArxiv
from tests.harness.frequencies import seed_sample_frequencies
from tests.harness.harvest_day import NOW, TODAY, client, fake, paper, store
from watcher.arxiv.fetch import ArxivClient
from watcher.polling.poll import Poller
from watcher.store import Store
from watcher.store.chats import Chats
from watcher.store.suggesting import SuggestionStore
from watcher.store.suggestion_outbox import SuggestionOutbox
from watcher.store.suggestion_tables import Suggestion

__all__ = ["client", "fake", "store"]  # fixtures from the harness

CHAT = 10
NEXT = TODAY + timedelta(days=1)
OWN = paper(f"{TODAY:%y%m}.30011", "Adaptive Routing on Dragonfly Interconnection Networks")
ALIKE = paper(
    f"{TODAY:%y%m}.30012",
    "Congestion-Aware Adaptive Routing for Dragonfly Interconnection Networks",
    authors=("Ada Lovelace",),
)


async def test_a_harvests_new_day_brings_the_suggestions_once(
    fake: FakeArxiv, client: ArxivClient, store: Store, engine: Engine
) -> None:
    followed = store.followed(None)[0]
    Chats(engine).seen(CHAT, kind="private")
    Chats(engine).subscribe(CHAT, followed.id)
    seed_sample_frequencies(engine)
    SuggestionStore(engine).turn(CHAT, 0, on=True, now=NOW)
    poller = Poller(
        store=store, client=client, poll_interval=3600, source="harvest", oai_url=fake.oai_url
    )
    await poller.poll(force=True)  # the first harvest: its window is no one day's batch
    await poller.suggestions_settled()
    with Session(engine) as session:
        assert session.exec(select(Suggestion)).all() == []

    fake.add(OWN, datestamp=NEXT)
    fake.add(ALIKE, datestamp=NEXT)
    report = await poller.poll(force=True)
    assert [r.arxiv_id for r in report.new] == [OWN.arxiv_id]
    await poller.suggestions_settled()
    due = SuggestionOutbox(engine).due(limit=10, now=datetime.now(UTC) + timedelta(seconds=1))
    assert [(one.chat_id, one.mailing) for one in due] == [(CHAT, NEXT)]
    assert [p.record.arxiv_id for p in due[0].papers] == [ALIKE.arxiv_id]

    await poller.poll(force=True)  # harvested again: the same day, nothing more
    await poller.suggestions_settled()
    with Session(engine) as session:
        assert len(session.exec(select(Suggestion)).all()) == 1
