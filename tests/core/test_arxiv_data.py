"""What arXiv really sends is stored whole: ACM and MSC classes apart from the categories, text
of any length, and a revision's new authors and cross-lists. Through the fake arXiv over real
HTTP, the real parser, poller and store, on a real database (SQLite file, or PostgreSQL)."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace

import pytest
from sqlalchemy import Engine

from tests.fakes.arxiv_api import FakeArxiv
from tests.fakes.arxiv_api.atom import render_feed
from tests.fakes.corpus import dezun_dong_records, make_record
from watcher.arxiv.fetch import ArxivClient
from watcher.arxiv.parse import parse_feed
from watcher.arxiv.records import Author, Record
from watcher.polling.poll import Poller
from watcher.store import MatchedRecord, Store
from watcher.store.chats import Chats
from watcher.store.outbox import Outbox
from watcher.text import describe_record, summary_line

ACM = "H.5.4; H.3.5"
MSC = "Primary 05C50, 15A18; Secondary 05C85"
COLLABORATION = ("Teresa Maria Montaruli for the IceCube Collaboration " * 6)[:300]

WITH_CLASSES = make_record(
    arxiv_id="2611.10001",
    title="Spectral Bounds for Graph Partitioning in Hypertext Retrieval",
    authors=["Dezun Dong", "Ann Other"],
    primary_category="cs.IR",
    categories=("cs.IR", "math.CO", "cs.XX"),  # cs.XX: a category from arXiv's future
    acm_class=ACM,
    msc_class=MSC,
)
ONLY_CODES = make_record(
    arxiv_id="2611.10002",
    title="Routing in Dragonfly Networks",
    authors=["Dezun Dong"],
    primary_category="cs.NI",
    categories=("cs.NI",),
    acm_class="C.2.4",
    msc_class="68M14",
)
HUGE = make_record(
    arxiv_id="2611.10003",
    title=("A Very Long Title About Interconnection Networks " * 50)[:2000].strip(),
    authors=[
        Author(COLLABORATION.strip(), (("IceCube " * 200).strip(),)),
        Author("Dezun Dong"),
        Author("Dong " * 1000 + "Collaboration"),  # past what PostgreSQL can index
    ],
    comment="x" * 10_000,
    journal_ref=("J. " * 2000).strip(),
    doi="10.1000/" + "y" * 1000,
)


def test_the_parser_tells_categories_from_acm_and_msc_classes() -> None:
    """As the API sends it: every class as one more `category term=`."""
    feed = render_feed(
        [replace(WITH_CLASSES, categories=(*WITH_CLASSES.categories, ACM, MSC), acm_class=None,
                 msc_class=None), ONLY_CODES],
        search_query="au:x", id_list="", start=0, max_results=10, total_results=2,
        now=WITH_CLASSES.published,
    )  # fmt: skip

    parsed = parse_feed(feed).records

    assert parsed == [WITH_CLASSES, ONLY_CODES]
    assert (parsed[0].categories, parsed[0].acm_class, parsed[0].msc_class) == (
        ("cs.IR", "math.CO", "cs.XX"),
        ACM,
        MSC,
    )
    assert (parsed[1].acm_class, parsed[1].msc_class) == ("C.2.4", "68M14")


@pytest.fixture
def fake() -> Iterator[FakeArxiv]:
    with FakeArxiv(dezun_dong_records()) as server:
        yield server


async def test_classes_and_huge_fields_are_stored_whole_and_announced(
    engine: Engine, client: ArxivClient, fake: FakeArxiv
) -> None:
    store = Store(engine)
    followed, _ = store.follow(["Dezun Dong"])
    chats = Chats(engine)
    chats.seen(1, kind="private")
    chats.subscribe(1, followed.id)
    watcher = Poller(store=store, client=client, poll_interval=3600)
    await watcher.poll()
    for record in (WITH_CLASSES, ONLY_CODES, HUGE):
        fake.add(record)

    report = await watcher.poll(force=True)

    assert report.failures == {}
    assert sorted(r.arxiv_id for r in report.new) == ["2611.10001", "2611.10002", "2611.10003"]
    for record in (WITH_CLASSES, ONLY_CODES, HUGE):
        assert store.paper(record.arxiv_id) == record
    counted = dict(store.category_counts())
    assert counted["cs.XX"] == 1 and counted["math.CO"] == 1
    assert not any(";" in c or c[0].isdigit() or c[0].isupper() for c in counted)
    due = {d.record.arxiv_id for d in Outbox(engine).due(limit=100)}
    assert due == {"2611.10001", "2611.10002", "2611.10003"}
    shown = describe_record(WITH_CLASSES)
    assert f"ACM: {ACM}" in shown and f"MSC: {MSC}" in shown


async def test_a_revision_replaces_authors_categories_and_classes(
    engine: Engine, client: ArxivClient, fake: FakeArxiv
) -> None:
    store = Store(engine)
    dezun, _ = store.follow(["Dezun Dong"])
    jane, _ = store.follow(["Jane Newcomer"])
    chats = Chats(engine)
    for chat_id, followed in ((1, dezun), (2, jane)):
        chats.seen(chat_id, kind="private")
        chats.subscribe(chat_id, followed.id)
    chats.set_notify_revisions(1, True)
    v1 = make_record(arxiv_id="2611.20001", authors=["Ann Other", "Dezun Dong"])
    fake.add(v1)
    watcher = Poller(store=store, client=client, poll_interval=3600)
    await watcher.poll()  # both backfills
    v2 = replace(
        v1,
        version=2,
        title="A Test Paper on Interconnection Networks, Extended",
        authors=(Author("Ann Other"), Author("Dezun Dong"), Author("Jane Newcomer", ("MIT",))),
        categories=("cs.DC", "cs.GT"),
        msc_class="68M10",
        updated=v1.updated.replace(month=5),
        abs_url="https://arxiv.org/abs/2611.20001v2",
        pdf_url="https://arxiv.org/pdf/2611.20001v2",
    )
    fake.replace(v2)

    report = await watcher.poll(force=True)

    assert store.paper(v1.arxiv_id) == v2
    assert [r.arxiv_id for r in store.by_category("cs.GT", limit=10)] == [v1.arxiv_id]
    assert store.paper_followed_ids(v1.arxiv_id) == {dezun.id, jane.id}
    assert [r.versioned_id for r in report.revisions] == ["2611.20001v2"]
    # Jane's now, but arXiv announced it before her follow began: not new to her chat.
    assert report.new == []
    due = {(d.chat_id, d.kind): d.record for d in Outbox(engine).due(limit=100)}
    assert set(due) == {(1, "revision")}
    assert due[(1, "revision")].author_names[-1] == "Jane Newcomer"


def test_a_record_stays_a_record(engine: Engine) -> None:
    """The store keeps what it is given, minus NUL characters only (PostgreSQL holds none)."""
    store = Store(engine)
    record: Record = make_record(
        title="Nul\x00 in \x01 the \x7f title \u202eRTL\u202c 🚀",
        abstract="a\x00b",
        authors=[Author("Dezun\x00 Dong", ("Lab\x00 A",))],
    )
    followed, _ = store.follow(["Dezun Dong"])
    store.save_records([MatchedRecord(record, frozenset({followed.id}))], announce_for=frozenset())

    stored = store.paper(record.arxiv_id)
    assert stored is not None
    assert stored.title == "Nul in \x01 the \x7f title \u202eRTL\u202c 🚀"
    assert stored.abstract == "ab"
    assert stored.authors == (Author("Dezun Dong", ("Lab A",)),)


def test_the_console_shows_latex_as_the_bot_does() -> None:
    """Console mode printed "Mixtral-8$\\times$7B" where Telegram shows "Mixtral-8×7B"."""
    record = make_record(
        arxiv_id="2611.10009",
        title="Serving Mixtral-8$\\times$7B in 32~GB",
        abstract="We cut latency by 30% with $O(n^2)$ memory.",
    )
    shown = describe_record(record)
    assert "New paper: Serving Mixtral-8×7B in 32 GB" in shown
    assert "We cut latency by 30% with O(n²) memory." in shown
    assert "$" not in shown and "\\times" not in shown
    assert "Mixtral-8×7B in 32 GB" in summary_line(record)
