"""Harvest mode through the real service: `arxiv-watcher run` with WATCH_SOURCE=harvest, the fake
arXiv serving a realistic day of 2,500 records over OAI-PMH (and the API for versions and new
follows' histories), and the fake Bot API.

The day is generated once for the module, from a seed. It holds look-alikes of the followed
author; the test adds his two new papers, a look-alike's, another followed person's, and a
metadata-only update of one of his old papers. Exactly the right papers reach exactly the right
chats, once. `test_harvest_crash.py` kills the service in the middle of a harvest.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.fakes.arxiv_api import FakeArxiv
from tests.fakes.telegram import FakeTelegram
from tests.harvest_world import (
    DAOYI,
    FIRST,
    LOOKALIKE,
    SECOND,
    TODAY,
    TOKEN,
    UPDATED,
    fakes,
    harvests,
    service_for,
    texts,
)
from watcher.db import open_database
from watcher.store import Store

pytestmark = pytest.mark.slow
__all__ = ["fakes"]  # the fixture


def test_a_days_harvest_brings_each_chat_exactly_its_papers_once(
    fakes: tuple[FakeArxiv, FakeTelegram], database_url: str, tmp_path: Path
) -> None:
    arxiv, telegram = fakes
    service = service_for(arxiv, telegram, database_url, tmp_path)
    try:
        service.wait_for(lambda: "stored silently" in service.output)  # the API backfill
        service.wait_for(lambda: harvests(service) >= 1, timeout=60)
        for person in (11, 12):
            telegram.user_sends(person, "/subscribe")
        telegram.user_sends(13, "/subscribe Daoyi Dong")  # a new follow: its history by API
        telegram.wait_sync(lambda: all(len(texts(telegram, c)) == 1 for c in (11, 12, 13)), 30)
        service.wait_for(lambda: "polled Daoyi Dong" in service.output, timeout=30)

        for record in (FIRST, SECOND, LOOKALIKE, DAOYI):
            arxiv.add(record, datestamp=TODAY)
        arxiv.touch(UPDATED.arxiv_id, TODAY, journal_ref="J. Parallel Distrib. Comput. 190 (2026)")
        telegram.wait_sync(
            lambda: (
                all(len(texts(telegram, c)) == 3 for c in (11, 12))
                and len(texts(telegram, 13)) == 2
            ),
            timeout=60,
        )
        seen = harvests(service)
        service.wait_for(lambda: harvests(service) >= seen + 1, timeout=60)  # later: silence
    finally:
        code = service.stop()
    assert code == 0, service.output
    assert "Traceback" not in service.output and TOKEN not in service.output

    for chat in (11, 12):
        news = texts(telegram, chat)[1:]
        assert sorted(sum(r.title in t for t in news) for r in (FIRST, SECOND)) == [1, 1]
        assert len(news) == 2
    (daoyi_news,) = texts(telegram, 13)[1:]
    assert DAOYI.title in daoyi_news
    everything = " ".join(m.text for m in telegram.sent())
    assert LOOKALIKE.title not in everything
    assert UPDATED.title not in everything  # a metadata update is stored, not announced
    engine = open_database(database_url, migrate=False)
    try:
        stored = Store(engine).paper(UPDATED.arxiv_id)
        assert (
            stored is not None and stored.journal_ref == "J. Parallel Distrib. Comput. 190 (2026)"
        )
        assert Store(engine).paper(LOOKALIKE.arxiv_id) is None
    finally:
        engine.dispose()
    # The day cost its pages and a few API look-ups, not a query per name.
    assert all(
        r.params.get("id_list") or "au:" in r.params.get("search_query", "")
        for r in arxiv.api_requests()
    )
