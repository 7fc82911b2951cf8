"""Harvest mode through the real service: `arxiv-watcher run` with WATCH_SOURCE=harvest, the fake
arXiv serving a realistic day of 2,500 records over OAI-PMH (and the API for versions and new
follows' histories), and the fake Bot API.

The day is generated once for the module, from a seed. It holds look-alikes of the followed
author; the test adds his two new papers, a look-alike's, another followed person's, a
metadata-only update of one of his old papers, and papers on a topic one chat watches: one from
before the topic existed, one stamped the day it was created, and the hit of the next day with
two near misses. Exactly the right papers reach exactly the right chats, once.
`test_harvest_crash.py` kills the service in the middle of a harvest.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.fakes.arxiv_api import FakeArxiv
from tests.fakes.telegram import FakeTelegram
from tests.harness.harvest_world import (
    DAOYI,
    FIRST,
    LOOKALIKE,
    SECOND,
    TODAY,
    TOKEN,
    TOMORROW,
    TOPIC,
    TOPIC_BEFORE,
    TOPIC_ELSEWHERE,
    TOPIC_HIT,
    TOPIC_LOOKALIKE,
    TOPIC_SAME_DAY,
    TOPIC_TEXT,
    UPDATED,
    fakes,
    harvests,
    service_for,
    texts,
)
from tests.harness.patience import PATIENCE
from watcher.follows.topics import parse_topic
from watcher.runtime.db import open_database
from watcher.store import Store

pytestmark = pytest.mark.slow
__all__ = ["fakes"]  # the fixture


def test_a_days_harvest_brings_each_chat_exactly_its_papers_once(
    fakes: tuple[FakeArxiv, FakeTelegram], database_url: str, tmp_path: Path
) -> None:
    arxiv, telegram = fakes
    arxiv.add(TOPIC_BEFORE, datestamp=TODAY)  # in the day before anyone watches the topic
    service = service_for(arxiv, telegram, database_url, tmp_path)
    try:
        service.wait_for(lambda: "stored silently" in service.output)  # the API backfill
        service.wait_for(lambda: harvests(service) >= 1, timeout=PATIENCE)
        for person in (11, 12):
            telegram.user_sends(person, "/subscribe")
        telegram.user_sends(13, "/subscribe Daoyi Dong")  # a new follow: its history by API
        telegram.user_sends(14, f"/watch {TOPIC}")  # a new topic: its window by API, silently
        telegram.wait_sync(
            lambda: all(len(texts(telegram, c)) == 1 for c in (11, 12, 13, 14)), PATIENCE
        )
        # The day's look-alikes write in cs, math and physics: the homonym guard asks first.
        (question,) = telegram.sent(13)
        assert "looks like several people" in question.text, question.text
        assert question.reply_markup is not None
        (anyway,) = question.reply_markup["inline_keyboard"][-1]
        assert anyway["text"].startswith("Daoyi Dong in any category · ")
        telegram.press_button(13, question.message_id, anyway["callback_data"])
        telegram.wait_sync(lambda: any(e.chat_id == 13 for e in telegram.edits), PATIENCE)
        (followed,) = [e for e in telegram.edits if e.chat_id == 13]
        assert followed.text is not None and "now follows Daoyi Dong" in followed.text
        service.wait_for(lambda: "polled Daoyi Dong" in service.output, timeout=PATIENCE)
        service.wait_for(lambda: f"polled {TOPIC_TEXT}:" in service.output)

        for record in (FIRST, SECOND, LOOKALIKE, DAOYI, TOPIC_SAME_DAY):
            arxiv.add(record, datestamp=TODAY)
        arxiv.touch(UPDATED.arxiv_id, TODAY, journal_ref="J. Parallel Distrib. Comput. 190 (2026)")
        for record in (TOPIC_HIT, TOPIC_ELSEWHERE, TOPIC_LOOKALIKE):
            arxiv.add(record, datestamp=TOMORROW)
        telegram.wait_sync(
            lambda: (  # at least: what more came is counted below
                all(len(texts(telegram, c)) >= 3 for c in (11, 12))
                and len(texts(telegram, 13)) >= 2
                and len(texts(telegram, 14)) >= 2
            ),
            timeout=PATIENCE,
        )
        seen = harvests(service)
        service.wait_for(lambda: harvests(service) >= seen + 2, timeout=PATIENCE)  # later: silence
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
    watching, topic_news = texts(telegram, 14)
    assert watching.startswith(f"✅ This chat now watches {TOPIC_TEXT}")
    assert TOPIC_HIT.title in topic_news
    everything = " ".join(m.text for m in telegram.sent())
    assert everything.count(TOPIC_HIT.title) == 1  # that chat, once; nobody else
    for unannounced in (LOOKALIKE, UPDATED, TOPIC_BEFORE, TOPIC_SAME_DAY):
        assert unannounced.title not in everything  # a metadata update is stored, not announced
    for near_miss in (TOPIC_ELSEWHERE, TOPIC_LOOKALIKE):
        assert near_miss.title not in everything
    engine = open_database(database_url, migrate=False)
    try:
        store = Store(engine)
        stored = store.paper(UPDATED.arxiv_id)
        assert (
            stored is not None and stored.journal_ref == "J. Parallel Distrib. Comput. 190 (2026)"
        )
        for absent in (LOOKALIKE, TOPIC_ELSEWHERE, TOPIC_LOOKALIKE):
            assert store.paper(absent.arxiv_id) is None
        topic = store.find_topic(parse_topic(TOPIC))
        assert topic is not None and topic.record_count == 3  # before, the same day, the hit
    finally:
        engine.dispose()
    # The day cost its pages and a few API look-ups, not a query per name; the topic's one
    # search was its first poll.
    searches = [r.params.get("search_query", "") for r in arxiv.api_requests()]
    topic_searches = [q for q in searches if q == parse_topic(TOPIC).query]
    assert len(topic_searches) == 1
    assert all(
        r.params.get("id_list") or "au:" in r.params.get("search_query", "")
        for r in arxiv.api_requests()
        if r.params.get("search_query") != parse_topic(TOPIC).query
    )
