"""Topics through the poll step, against the fake arXiv over HTTP and a real database: in api
mode a topic is one query re-checked locally, its first poll silent and bounded to the window;
in harvest mode it is matched locally, and never announces a record from before it existed."""

from __future__ import annotations

import json
from datetime import timedelta
from pathlib import Path
from typing import Any

from sqlmodel import Session, col, select

from tests.fakes.arxiv_api import FakeArxiv
from tests.fakes.corpus import make_record
from tests.harness.cli_helpers import run_cli_here as run_cli
from tests.harness.harvest_day import NOW, TODAY, client, fake, store
from watcher.arxiv.fetch import ArxivClient
from watcher.arxiv.records import Record
from watcher.follows.topics import parse_topic
from watcher.polling.poll import Poller
from watcher.store import Store
from watcher.store.chats import Chats
from watcher.store.tables import Delivery, Paper

__all__ = ["client", "fake", "store"]  # fixtures from the harness

RDMA = parse_topic('"remote direct memory access" RDMA -ethernet in cs.DC,cs.NI')
ABSTRACT = "We build remote direct memory access (RDMA) transports for clusters."


def hit(arxiv_id: str, title: str, *, days_ago: float = 0, **changes: object) -> Record:
    published = NOW - timedelta(days=days_ago)
    fields: dict[str, object] = {
        "arxiv_id": arxiv_id,
        "title": title,
        "abstract": ABSTRACT,
        "authors": ["Ada Topicwriter"],
        "published": published,
        **changes,
    }
    return make_record(**fields)


RECENT = hit("2611.40001", "Fast Transports", days_ago=3)  # before the topic: silent
ANCIENT = hit("2311.40002", "Old Transports", days_ago=400)  # outside the window: not fetched
NEW = hit("2611.40003", "Faster Transports", primary_category="cs.NI")
OVER_ETHERNET = hit("2611.40004", "RDMA over Ethernet")  # an excluded word
ELSEWHERE = hit("2611.40005", "Transports for Learning", primary_category="cs.LG")
LOOKALIKE = hit("2611.40006", "RDMAX", abstract="remote direct memory access RDMAX")


def poller(store: Store, client: ArxivClient, fake: FakeArxiv, source: str) -> Poller:
    return Poller(
        store=store,
        client=client,
        poll_interval=3600,
        source=source,  # type: ignore[arg-type]
        oai_url=fake.oai_url,
    )


async def test_in_api_mode_a_topic_is_one_query_its_first_poll_silent_then_new_papers_announced(
    fake: FakeArxiv, client: ArxivClient, store: Store
) -> None:
    for record in (RECENT, ANCIENT):
        fake.add(record)
    topic, created = store.watch_topic(RDMA)
    assert created and topic.kind == "topic"
    chat = 77
    store_chats(store).subscribe(chat, topic.id)
    polls = poller(store, client, fake, "api")

    first = await polls.poll(force=True)

    assert first.new == [] and first.failures == {}
    (watched,) = [f for f in store.followed() if f.id == topic.id]
    assert watched.backfilled and watched.record_count == 1  # RECENT; ANCIENT was not read
    queries = [r.params["search_query"] for r in fake.api_requests() if "search_query" in r.params]
    assert RDMA.query in queries

    for record in (NEW, OVER_ETHERNET, ELSEWHERE, LOOKALIKE):
        fake.add(record)
    second = await polls.poll(force=True)

    assert [r.arxiv_id for r in second.new] == [NEW.arxiv_id]
    assert pending_for(store, chat) == [NEW.arxiv_id]
    third = await polls.poll(force=True)
    assert third.new == []


async def test_in_harvest_mode_a_topic_never_announces_a_record_from_before_it_existed(
    fake: FakeArxiv, client: ArxivClient, store: Store
) -> None:
    """The topic's first poll (by the API) is done, but missed a record the harvest matches
    (arXiv's search and the local matcher may disagree): stamped the day the topic was created,
    the record is stored for the topic and announced to nobody; a record of the next day is."""
    topic, _ = store.watch_topic(RDMA)
    chat = 78
    store_chats(store).subscribe(chat, topic.id)
    store.record_poll_success([topic.id], now=NOW, next_poll=NOW)
    before = hit("2611.40011", "Transports Known Before", days_ago=1)
    after = hit("2611.40012", "Transports Announced After")
    fake.add(before, datestamp=TODAY)
    fake.add(after, datestamp=TODAY + timedelta(days=1))

    report = await poller(store, client, fake, "harvest").poll(force=True)

    assert report.failures == {}
    assert fake.oai_requests()
    assert [r.arxiv_id for r in report.new] == [after.arxiv_id]
    assert pending_for(store, chat) == [after.arxiv_id]
    (watched,) = [f for f in store.followed() if f.id == topic.id]
    assert watched.record_count == 2  # both stored for the topic; one announced


async def test_in_harvest_mode_a_topic_with_or_announces_a_paper_with_either_word(
    fake: FakeArxiv, client: ArxivClient, store: Store
) -> None:
    """Issue 32: `rdma OR infiniband in cs.DC`, matched locally on the harvested records."""
    topic, _ = store.watch_topic(parse_topic("rdma OR infiniband in cs.DC"))
    chat = 78
    store_chats(store).subscribe(chat, topic.id)
    store.record_poll_success([topic.id], now=NOW, next_poll=NOW)
    rdma = hit("2611.40031", "RDMA Transports", abstract="Fast messages.")
    infiniband = hit("2611.40032", "Congestion", abstract="InfiniBand fabrics.")
    neither = hit("2611.40033", "Congestion Again", abstract="RoCE fabrics.")
    for record in (rdma, infiniband, neither):
        fake.add(record, datestamp=TODAY + timedelta(days=1))

    report = await poller(store, client, fake, "harvest").poll(force=True)

    assert report.failures == {} and fake.oai_requests()
    assert sorted(r.arxiv_id for r in report.new) == [rdma.arxiv_id, infiniband.arxiv_id]
    assert pending_for(store, chat) == [rdma.arxiv_id, infiniband.arxiv_id]
    assert store.paper(neither.arxiv_id) is None


async def test_in_harvest_mode_a_whole_category_brings_every_new_paper_of_it_and_no_older(
    fake: FakeArxiv, client: ArxivClient, store: Store
) -> None:
    """`in cs.DC`, no words: every record of the day in cs.DC matches, and as for any topic
    only what arXiv stamped after the day it was created is announced."""
    topic, _ = store.watch_topic(parse_topic("in cs.DC"))
    chat = 78
    store_chats(store).subscribe(chat, topic.id)
    store.record_poll_success([topic.id], now=NOW, next_poll=NOW)
    before = hit("2611.40021", "Known Before", days_ago=1, abstract="No words in common.")
    after = hit("2611.40022", "Announced After", abstract="Nothing in common either.",
                primary_category="cs.OS", categories=("cs.OS", "cs.DC"))  # fmt: skip
    elsewhere = hit("2611.40023", "Elsewhere", primary_category="cs.OS")
    fake.add(before, datestamp=TODAY)
    for record in (after, elsewhere):
        fake.add(record, datestamp=TODAY + timedelta(days=1))

    report = await poller(store, client, fake, "harvest").poll(force=True)

    assert report.failures == {}
    assert [r.arxiv_id for r in report.new] == [after.arxiv_id]
    assert pending_for(store, chat) == [after.arxiv_id]
    assert store.paper_followed_ids(before.arxiv_id) == {topic.id}  # stored for it, silently
    assert store.paper(elsewhere.arxiv_id) is None


def test_the_cli_watches_lists_polls_and_unwatches_a_topic(
    fake: FakeArxiv, store: Store, database_url: str, tmp_path: Path
) -> None:
    env: dict[str, Any] = {
        "DATABASE_URL": database_url,
        "ARXIV_API_URL": fake.url,
        "ARXIV_MIN_INTERVAL": "0",
        "WATCH_SOURCE": "api",
    }
    refused = run_cli("watch", "RDMA", cwd=tmp_path, **env)
    assert refused.returncode == 2
    assert "at least one category is required (in cs.DC, for example)" in refused.stderr
    assert [f for f in store.followed() if f.kind == "topic"] == []

    fake.add(RECENT)
    watched = run_cli(
        "watch", '"Remote Direct Memory Access" rdma in cs.ni,cs.DC', cwd=tmp_path, **env
    )
    assert watched.returncode == 0, watched.stderr
    assert "Now watching" in watched.stdout
    # The hits' author is followed too: in api mode the person and the topic are two queries.
    assert run_cli("follow", "Ada Topicwriter", cwd=tmp_path, **env).returncode == 0
    first = run_cli("poll", "--json", cwd=tmp_path, **env)
    assert first.returncode == 0, first.stderr
    assert json.loads(first.stdout) == []  # the first polls: silent
    fake.add(NEW)
    second = run_cli("poll", "--json", cwd=tmp_path, **env)
    assert [(p["arxiv_id"], p["kind"]) for p in json.loads(second.stdout)] == [
        (NEW.arxiv_id, "new")  # once, though both found it
    ]
    listed = run_cli("authors", cwd=tmp_path, **env)
    assert '"remote direct memory access" rdma in cs.DC,cs.NI (topic): 2 records' in listed.stdout
    assert "Ada Topicwriter: 2 records" in listed.stdout

    for wrong, says in [
        ("rdma in cs.DC", "'rdma in cs.DC' is not watched; see: arxiv-watcher authors"),
        ("rdma in cs.XX", "'cs.XX' is not an arXiv category"),
        ("-rdma in cs.DC", "a topic of excluded words only"),
    ]:
        refused = run_cli("unwatch", wrong, cwd=tmp_path, **env)
        assert refused.returncode == 2
        assert says in refused.stderr and len(refused.stderr.strip().splitlines()) == 1
    assert len([f for f in store.followed() if f.kind == "topic"]) == 1

    stopped = run_cli(
        "unwatch", 'rdma "remote direct memory access" in cs.DC,cs.NI', cwd=tmp_path, **env
    )
    assert stopped.returncode == 0, stopped.stderr
    assert [f for f in store.followed() if f.kind == "topic"] == []


def store_chats(store: Store) -> Chats:
    chats = Chats(store.engine)
    for chat in (77, 78):
        chats.seen(chat, kind="private")
    return chats


def pending_for(store: Store, chat_id: int) -> list[str]:
    """The arXiv ids queued for `chat_id` in the outbox."""
    with Session(store.engine) as session:
        rows = session.exec(
            select(Paper.arxiv_id)
            .join(Delivery, col(Delivery.paper_id) == col(Paper.id))
            .where(col(Delivery.chat_id) == chat_id)
        ).all()
    return sorted(rows)
