"""Many digests claimed in one transaction (`Digests.claim_due`), on a real database: each
destination's papers in exactly one of its parts, whatever else the batch holds; one whose
renderer fails stays due with its papers held while the others go; two claimers racing over
the same due digests (two engines, as two processes) claim each digest once between them.
The renderer is the bot's own (`bot.digest`)."""

from __future__ import annotations

from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime, time, timedelta

import pytest
from sqlalchemy import Engine
from sqlmodel import Session, col, select

from bot.digest import render_digest_parts
from tests.fakes.corpus import make_record
from watcher.calendars.schedule import DigestSchedule
from watcher.runtime.db import open_database
from watcher.store import MatchedRecord, Store
from watcher.store.chats import Chats
from watcher.store.digests import ClaimReport, DigestContent, Digests, RenderedPart
from watcher.store.tables import NO_THREAD, Delivery, DeliveryStatus, DigestPart

EIGHT = DigestSchedule(time(8, 0))
MONDAY_8 = datetime(2026, 3, 30, 8, 0, tzinfo=UTC)  # the schedule's zone is UTC
DUE = MONDAY_8 + timedelta(minutes=1)


def digest_chats(chats: Chats, followed_id: int, chat_ids: range) -> None:
    """Each chat follows `followed_id` and takes a daily digest at 08:00 UTC, from Sunday."""
    for chat_id in chat_ids:
        chats.seen(chat_id, kind="private")
        chats.subscribe(chat_id, followed_id)
        chats.digests.set_schedule(
            chat_id, EIGHT, render=render_digest_parts, now=MONDAY_8 - timedelta(days=1)
        )


def publish(store: Store, followed_id: int, number: int) -> None:
    record = make_record(
        arxiv_id=f"2603.{number:05d}",
        title=f"Routing Study Number {number}",
        authors=["Ann Other", "Dezun Dong"],
    )
    ids = frozenset({followed_id})
    store.save_records([MatchedRecord(record, ids)], announce_for=ids)


def deliveries(engine: Engine) -> list[Delivery]:
    with Session(engine) as session:
        return list(session.exec(select(Delivery).order_by(col(Delivery.id))))


def parts_by_chat(engine: Engine) -> dict[int, set[int]]:
    """The digest parts each chat's deliveries name."""
    named: dict[int, set[int]] = {}
    for delivery in deliveries(engine):
        assert delivery.digest_part_id is not None, f"delivery {delivery.id} is in no digest"
        named.setdefault(delivery.chat_id, set()).add(delivery.digest_part_id)
    return named


def test_a_batch_claims_each_destination_its_own_papers_and_parks_an_inactive_chat(
    engine: Engine, store: Store, followed_id: int
) -> None:
    chats = Chats(engine)
    digest_chats(chats, followed_id, range(1, 6))
    chats.subscribe(3, followed_id, thread_id=9)  # a topic with a digest of its own, at 20:00
    chats.digests.set_schedule(
        3,
        DigestSchedule(time(20, 0)),
        render=render_digest_parts,
        thread_id=9,
        now=MONDAY_8 - timedelta(minutes=1),  # next at 20:00 today: not due with the others
    )
    publish(store, followed_id, 1)
    chats.unsubscribe(2, followed_id)  # drops chat 2's held paper
    publish(store, followed_id, 2)
    chats.deactivate(4, reason="Forbidden: bot was blocked by the user")

    reports = chats.digests.claim_due(render=render_digest_parts, now=DUE, limit=10)

    assert sorted((r.chat_id, r.thread_id, r.papers, r.parts) for r in reports) == [
        (1, 0, 2, 1),
        (2, 0, 0, 0),
        (3, 0, 2, 1),
        (4, 0, 2, 1),
        (5, 0, 2, 1),
    ]
    topic = [d for d in deliveries(engine) if d.thread_id == 9]
    assert [(d.status, d.digest_part_id) for d in topic] == [(DeliveryStatus.HELD, None)] * 2
    general = [d for d in deliveries(engine) if d.thread_id == 0]
    assert {d.status for d in general} == {DeliveryStatus.PENDING}
    assert {d.chat_id for d in general if d.parked} == {4}  # gone for now: parked, not due
    by_chat: dict[int, set[int | None]] = {}
    for delivery in general:
        by_chat.setdefault(delivery.chat_id, set()).add(delivery.digest_part_id)
    assert sorted(by_chat) == [1, 3, 4, 5]
    assert all(len(parts) == 1 and None not in parts for parts in by_chat.values())
    assert len(set().union(*by_chat.values())) == 4  # no part shared by two chats


def test_a_failing_renderer_leaves_that_digest_due_and_held_while_the_batch_goes(
    engine: Engine, store: Store, followed_id: int
) -> None:
    chats = Chats(engine)
    digest_chats(chats, followed_id, range(1, 4))
    publish(store, followed_id, 1)

    def fails_for_chat_two(content: DigestContent) -> list[RenderedPart]:
        if content.language == "broken":
            raise RuntimeError("renderer bug")
        return render_digest_parts(content)

    chats.speaking.set_language(2, NO_THREAD, "broken")
    first = chats.digests.claim_due(render=fails_for_chat_two, now=DUE)

    assert sorted(r.chat_id for r in first) == [1, 3]
    held = {d.chat_id: d.status for d in deliveries(engine)}
    assert held == {1: "pending", 2: "held", 3: "pending"}
    assert chats.digests.settings(2).next_at == MONDAY_8  # still due
    assert chats.digests.settings(1).next_at == MONDAY_8 + timedelta(days=1)

    chats.speaking.set_language(2, NO_THREAD, "en")
    (second,) = chats.digests.claim_due(render=fails_for_chat_two, now=DUE)
    assert (second.chat_id, second.papers) == (2, 1)
    assert chats.digests.claim_due(render=fails_for_chat_two, now=DUE) == []
    assert {chat: len(parts) for chat, parts in parts_by_chat(engine).items()} == {
        1: 1,
        2: 1,
        3: 1,
    }


@pytest.fixture
def second_engine(database_url: str, engine: Engine) -> Iterator[Engine]:
    """Another engine on the same database: what a second service process would open."""
    other = open_database(database_url)
    yield other
    other.dispose()


def test_two_claimers_racing_claim_each_digest_once(
    engine: Engine, second_engine: Engine, store: Store, followed_id: int
) -> None:
    chats = Chats(engine)
    digest_chats(chats, followed_id, range(1, 41))
    publish(store, followed_id, 1)
    publish(store, followed_id, 2)

    def claim_all(digests: Digests) -> list[ClaimReport]:
        claimed: list[ClaimReport] = []
        while reports := digests.claim_due(render=render_digest_parts, now=DUE, limit=7):
            claimed += reports
        return claimed

    with ThreadPoolExecutor(max_workers=2) as pool:
        runs = [pool.submit(claim_all, Digests(e)) for e in (engine, second_engine)]
        claimed = [report for run in runs for report in run.result()]

    assert sorted(r.chat_id for r in claimed) == list(range(1, 41))  # each once, none lost
    assert all((r.papers, r.parts) == (2, 1) for r in claimed)
    assert all(len(parts) == 1 for parts in parts_by_chat(engine).values())
    with Session(engine) as session:
        assert len(session.exec(select(DigestPart)).all()) == 40
    assert {d.status for d in deliveries(engine)} == {DeliveryStatus.PENDING}
