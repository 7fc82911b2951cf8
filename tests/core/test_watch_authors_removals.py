"""WATCH_AUTHORS is the truth at each start: a name taken out of it is no longer watched.

Issue 18, item 7: a name removed from WATCH_AUTHORS stayed `watched`, so it was polled forever.
Now a start unwatches it; it is polled only while a chat follows it, and the start log says which.
"""

from __future__ import annotations

import logging

import pytest
from sqlalchemy import Engine

from watcher.follows.topics import parse_topic
from watcher.runtime.service import arxiv_client, build_context
from watcher.settings import load_settings
from watcher.store import Store
from watcher.store.chats import Chats

BEFORE = ["Dezun Dong", "Ann Gone", "Bob Kept", "arxiv:gone_a_1"]
AFTER = ["Dezun Dong"]
CHAT = 10


def _start(database_url: str, engine: Engine, watch_authors: list[str]) -> None:
    settings = load_settings(database_url=database_url, watch_authors=watch_authors)
    build_context(settings, engine, arxiv_client(settings))


def test_names_taken_out_of_watch_authors_stop_being_polled_at_the_next_start(
    database_url: str, engine: Engine, caplog: pytest.LogCaptureFixture
) -> None:
    _start(database_url, engine, BEFORE)
    store = Store(engine)
    by_label = {f.label: f for f in store.followed()}
    chats = Chats(engine)
    chats.seen(CHAT, kind="private")
    chats.subscribe(CHAT, by_label["Bob Kept"].id)
    topic, _ = store.watch_topic(
        parse_topic("RDMA in cs.DC")
    )  # the `watch` command's, not the list's

    with caplog.at_level(logging.INFO, logger="watcher.runtime.service"):
        _start(database_url, engine, AFTER)

    now = {f.id: f for f in store.followed()}
    assert now[by_label["Dezun Dong"].id].watched
    assert not now[by_label["Ann Gone"].id].watched and not now[by_label["Ann Gone"].id].polled
    gone_id = next(f for f in by_label.values() if f.identity is not None)
    assert not now[gone_id.id].polled
    assert not now[by_label["Bob Kept"].id].watched and now[by_label["Bob Kept"].id].polled
    assert now[topic.id].watched
    assert "Ann Gone is no longer in WATCH_AUTHORS: no longer polled" in caplog.text
    assert "Bob Kept is no longer in WATCH_AUTHORS: still polled for the 1 chat(s)" in caplog.text
    assert "Dezun Dong is no longer" not in caplog.text

    caplog.clear()
    with caplog.at_level(logging.INFO, logger="watcher.runtime.service"):
        _start(database_url, engine, AFTER)  # said once: the next start has nothing to say
    assert "no longer in WATCH_AUTHORS" not in caplog.text
