"""A chat that blocked the bot stops keeping its follows polled, and counts again when it is back.

Issue 18, item 7: inactive chats still counted as subscribers (`Followed.subscribers`, `polled`,
`Store.any_follow_due`), so a follow whose every chat had blocked the bot was polled forever.
"""

from __future__ import annotations

from datetime import UTC, datetime

from sqlalchemy import Engine

from watcher.follows.followed import Followed
from watcher.store import Store
from watcher.store.chats import Chats

BLOCKER, OTHER = 10, 11


def _state(store: Store, followed: Followed) -> tuple[int, bool, bool]:
    (now_followed,) = store.followed([followed.id])
    due = store.any_follow_due(datetime.now(UTC))
    return now_followed.subscribers, now_followed.polled, due


def test_a_blocked_chat_stops_counting_and_counts_again_when_back(
    engine: Engine, store: Store
) -> None:
    chats = Chats(engine)
    followed, _ = store.follow(["Dezun Dong"], watched=False)
    chats.seen(BLOCKER, kind="private")
    chats.subscribe(BLOCKER, followed.id)
    assert _state(store, followed) == (1, True, True)

    chats.deactivate(BLOCKER, reason="blocked the bot")
    assert _state(store, followed) == (0, False, False)
    assert [f.id for f in store.followed() if f.polled] == []

    chats.seen(BLOCKER, kind="private")  # unblocked, and spoke again
    assert _state(store, followed) == (1, True, True)


def test_an_active_chat_keeps_a_follow_polled_beside_a_blocked_one(
    engine: Engine, store: Store
) -> None:
    chats = Chats(engine)
    followed, _ = store.follow(["Dezun Dong"], watched=False)
    for chat_id in (BLOCKER, OTHER):
        chats.seen(chat_id, kind="private")
        chats.subscribe(chat_id, followed.id)
    chats.deactivate(BLOCKER, reason="blocked the bot")
    assert _state(store, followed) == (1, True, True)


def test_a_watched_follow_is_polled_with_no_active_chat(engine: Engine, store: Store) -> None:
    chats = Chats(engine)
    followed, _ = store.follow(["Dezun Dong"])
    chats.seen(BLOCKER, kind="private")
    chats.subscribe(BLOCKER, followed.id)
    chats.deactivate(BLOCKER, reason="blocked the bot")
    assert _state(store, followed) == (0, True, True)
