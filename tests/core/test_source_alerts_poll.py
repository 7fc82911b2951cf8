"""The poll step tells `watcher.polling.source_alerts` of each source's unparsable answers and good
reads (issue 28, item 4): the real `Poller` against the fake arXiv over real HTTP, a real database.
A truncated API feed opens the API's spell with one admin notice, a 503 is no parse failure, the
next good poll closes it with one more; a truncated OAI-PMH page is OAI's."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.fakes.arxiv_api import FakeArxiv
from tests.fakes.corpus import dezun_dong_records
from watcher.arxiv.fetch import ArxivClient
from watcher.polling.poll import Poller
from watcher.store import Store

ADMIN = 4242


@pytest.fixture
def fake() -> Iterator[FakeArxiv]:
    with FakeArxiv(dezun_dong_records()) as server:
        yield server


def broken(store: Store) -> set[str]:
    return {h.source for h in store.source_health() if h.broken_since is not None}


def owed(store: Store) -> list[str]:
    notices = store.pending_admin_notices(limit=100)
    assert {n.chat_id for n in notices} <= {ADMIN}
    return [n.text.splitlines()[0] for n in notices]


async def test_a_truncated_api_feed_is_told_once_and_its_recovery_once(
    store: Store, client: ArxivClient, fake: FakeArxiv
) -> None:
    store.follow(["Dezun Dong"])
    poller = Poller(store=store, client=client, poll_interval=3600, admin_chats=[ADMIN])
    await poller.poll(force=True)  # the history, silently
    fake.inject("503")
    await poller.poll(force=True)
    assert broken(store) == set() and owed(store) == []  # arXiv failing is not a parse failure

    fake.inject("truncated", times=2)
    await poller.poll(force=True)
    await poller.poll(force=True)
    assert broken(store) == {"api"}
    assert owed(store) == ["⚠️ arXiv's API (its Atom answers) stopped parsing."]

    await poller.poll(force=True)
    assert broken(store) == set()
    stopped, mended = owed(store)
    assert stopped == "⚠️ arXiv's API (its Atom answers) stopped parsing."
    assert mended.startswith("✅ arXiv's API (its Atom answers) read again (broken since ")
    assert "2 failed read(s)" in owed(store)[1]


async def test_a_truncated_oai_page_is_the_harvests(
    store: Store, client: ArxivClient, fake: FakeArxiv
) -> None:
    store.follow(["Dezun Dong"])
    poller = Poller(
        store=store, client=client, poll_interval=3600, source="harvest",
        oai_url=fake.oai_url, admin_chats=[ADMIN],
    )  # fmt: skip
    await poller.poll(force=True)  # the history, from the API
    fake.oai_faults.append("truncated")
    await poller.poll(force=True)
    assert broken(store) == {"oai"}
    assert owed(store) == ["⚠️ arXiv's OAI-PMH feed stopped parsing."]
    await poller.poll(force=True)
    assert broken(store) == set()
    assert owed(store)[1].startswith("✅ arXiv's OAI-PMH feed read again")
