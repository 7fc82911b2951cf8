"""An import is stored whole or not at all (issue 21, item 5: "nothing half-imported"): when what
it was planned on changed before the press (the chat filled up, its allowance went, a setting
cannot be set any more), `ImportStore.apply` raises `ImportStale` and leaves every table as it
was; otherwise every follow and setting lands together, and a destination the import lets go
(`paused: no`, a new zone moving a quiet window) has what it held flagged as /resume flags it.
On both databases."""

from __future__ import annotations

import math
from datetime import UTC, datetime

import pytest
from sqlalchemy import Engine
from sqlmodel import Session, col, select

from tests.fakes.corpus import make_record
from watcher.calendars.quiet_hours import QuietHours
from watcher.core.takeout import Target, apply_import, plan_import
from watcher.follows.follow_list import read_text
from watcher.follows.rules import PersonRule
from watcher.store import MatchedRecord, Store
from watcher.store.applied_imports import ImportStale, ImportStore
from watcher.store.budgets import LookupBudgets
from watcher.store.chats import MAX_SUBSCRIPTIONS, Chats
from watcher.store.destinations import DestinationSetting
from watcher.store.tables import NO_THREAD, Delivery

CHAT = 42
NOW = datetime(2026, 12, 3, 9, 0, tzinfo=UTC)
FILE = (
    "# timezone: Asia/Tokyo\n# digest: daily 07:30\n"
    "subscribe Yemao Xu\nwatch rdma in cs.DC\nsubscribe arxiv:dong_d_1\n"
)


def state(engine: Engine) -> tuple[int, list[int], str, int]:
    """What an import may change: the follows stored, the chat's, its zone and allowance (whole
    follows: it refills by the second)."""
    chats = Chats(engine)
    budgets = LookupBudgets(engine, per_hour=5)
    return (
        len(Store(engine).followed()),
        sorted(chats.subscribed_ids(CHAT)),
        chats.digests.settings(CHAT).zone_name,
        math.floor(budgets.standing(CHAT).follows),
    )


@pytest.fixture
def parts(engine: Engine) -> tuple[Store, Chats, ImportStore]:
    chats = Chats(engine)
    chats.seen(CHAT, kind="private")
    return Store(engine), chats, ImportStore(engine, budgets=LookupBudgets(engine, per_hour=5))


def test_a_plan_imported_lands_whole(
    parts: tuple[Store, Chats, ImportStore], engine: Engine
) -> None:
    store, chats, imports = parts
    plan = plan_import(store, chats, imports, read_text(FILE), Target(CHAT), now=NOW)
    assert (len(plan.adds), plan.new_follows) == (3, 3)
    assert dict(plan.settings) == {"timezone": "Asia/Tokyo", "digest": "daily 07:30"}

    apply_import(imports, plan, Target(CHAT), now=NOW)

    follows, subscribed, zone, allowance = state(engine)
    assert (follows, len(subscribed), zone) == (3, 3, "Asia/Tokyo")
    assert allowance == 10 - 3
    assert chats.digests.settings(CHAT).next_at == datetime(2026, 12, 3, 22, 30, tzinfo=UTC)


def test_a_chat_filled_meanwhile_gets_nothing(
    parts: tuple[Store, Chats, ImportStore], engine: Engine
) -> None:
    store, chats, imports = parts
    plan = plan_import(store, chats, imports, read_text(FILE), Target(CHAT), now=NOW)
    for number in range(MAX_SUBSCRIPTIONS - 2):  # another administrator, between plan and press
        name = f"Other Person{chr(97 + number // 26)}{chr(97 + number % 26)}"
        chats.subscribe(CHAT, store.follow_person(PersonRule((name,)))[0].id)
    before = state(engine)

    with pytest.raises(ImportStale):
        apply_import(imports, plan, Target(CHAT), now=NOW)

    assert state(engine) == before


def test_a_setting_refused_at_the_press_undoes_the_follows_and_the_allowance(
    parts: tuple[Store, Chats, ImportStore], engine: Engine
) -> None:
    store, chats, imports = parts
    plan = plan_import(store, chats, imports, read_text(FILE), Target(CHAT), now=NOW)
    plan = type(plan)(plan.adds, plan.skipped, {"digest": "hourly"}, (), plan.new_follows)
    before = state(engine)

    with pytest.raises(ImportStale, match="digest"):
        apply_import(imports, plan, Target(CHAT), now=NOW)

    assert state(engine) == before  # no follow, no subscription, no allowance spent


def test_an_allowance_spent_meanwhile_gets_nothing(
    parts: tuple[Store, Chats, ImportStore], engine: Engine
) -> None:
    store, chats, imports = parts
    plan = plan_import(store, chats, imports, read_text(FILE), Target(CHAT), now=NOW)
    budgets = LookupBudgets(engine, per_hour=5)
    for _ in range(8):  # /subscribe elsewhere took 8 of the 10 meanwhile
        assert budgets.take(CHAT, lookup=False) is None
    before = state(engine)

    with pytest.raises(ImportStale, match="allowance"):
        apply_import(imports, plan, Target(CHAT), now=NOW)

    assert state(engine) == before


def test_an_import_that_lets_destinations_go_flags_what_waited_as_resume_does(
    engine: Engine, store: Store, followed_id: int
) -> None:
    quiet_topic, paused_topic = 5, 6
    chats = Chats(engine, summary_threshold=3)
    chats.seen(CHAT, kind="private")
    for thread in (NO_THREAD, quiet_topic, paused_topic):
        chats.subscribe(CHAT, followed_id, thread_id=thread)
    chats.speaking.pause(CHAT, NO_THREAD, now=NOW)
    chats.speaking.pause(CHAT, paused_topic, now=NOW)
    chats.speaking.set_quiet(CHAT, quiet_topic, QuietHours(8 * 60, 10 * 60), now=NOW)  # UTC
    ids = frozenset({followed_id})
    for n in range(4):  # more than the threshold of 3 wait in each destination
        record = make_record(arxiv_id=f"2612.0000{n}")
        store.save_records([MatchedRecord(record, ids)], announce_for=ids)
    imports = ImportStore(engine, summary_threshold=3)
    read = read_text("# timezone: Asia/Tokyo\n# paused: no\n# quiet: off\n")

    plan = plan_import(store, chats, imports, read, Target(CHAT), now=NOW)
    assert dict(plan.settings) == {"timezone": "Asia/Tokyo", "paused": "no"}  # quiet is off here
    apply_import(imports, plan, Target(CHAT), now=NOW)
    # General resumed and let go; its zone is its own: the quiet topic is still in UTC, quiet.
    assert flags(engine) == (
        [(NO_THREAD, True)] * 4 + [(quiet_topic, False)] * 4 + [(paused_topic, False)] * 4
    )
    in_topic = Target(CHAT, quiet_topic)
    read = read_text("# timezone: Asia/Tokyo\n")
    apply_import(
        imports, plan_import(store, chats, imports, read, in_topic, now=NOW), in_topic, now=NOW
    )

    with Session(engine) as session:
        window = session.get(DestinationSetting, (CHAT, quiet_topic))
        assert window is not None
    # 09:00 UTC is 18:00 in Tokyo, after the topic's 08:00-10:00: it lets go too. The other
    # paused topic still holds: its rows wait unflagged, for its own /resume.
    assert flags(engine) == (
        [(NO_THREAD, True)] * 4 + [(quiet_topic, True)] * 4 + [(paused_topic, False)] * 4
    )
    assert (window.quiet_from, window.quiet_until) == (
        datetime(2026, 12, 3, 23, 0, tzinfo=UTC),  # 08:00 in Tokyo tomorrow
        datetime(2026, 12, 4, 1, 0, tzinfo=UTC),
    )
    assert chats.speaking.settings(CHAT, NO_THREAD).paused is False


def flags(engine: Engine) -> list[tuple[int, bool]]:
    with Session(engine) as session:
        return sorted(
            (d.thread_id, d.summarize)
            for d in session.exec(select(Delivery).where(col(Delivery.chat_id) == CHAT))
        )
