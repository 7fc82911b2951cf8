"""Digests on a real database: papers held until the digest is due, claimed once into at most
three messages, never one paper in two digests; turning the digest off sends what was held;
a day without papers sends nothing. The renderer is the bot's own (`bot.digest`)."""

from __future__ import annotations

from datetime import UTC, datetime, time, timedelta

import pytest
from sqlalchemy import Engine
from sqlmodel import Session, col, select

from bot.digest import render_digest_parts
from tests.fakes.corpus import make_record
from watcher.arxiv.records import Record
from watcher.calendars.schedule import DigestSchedule
from watcher.store import MatchedRecord, Store
from watcher.store.chats import Chats
from watcher.store.destinations import DestinationSetting
from watcher.store.digests import DigestContent, Digests, RenderedPart
from watcher.store.outbox import Outbox
from watcher.store.tables import NO_THREAD, Delivery, DeliveryStatus

DIGEST_CHAT, INSTANT_CHAT = 10, 20
EIGHT = DigestSchedule(time(8, 0))
MONDAY_6 = datetime(2026, 3, 30, 6, 0, tzinfo=UTC)  # 08:00 in Berlin is 06:00 UTC


@pytest.fixture
def chats(engine: Engine, followed_id: int) -> Chats:
    chats = Chats(engine)
    for chat_id in (DIGEST_CHAT, INSTANT_CHAT):
        chats.seen(chat_id, kind="private")
        chats.subscribe(chat_id, followed_id)
    return chats


@pytest.fixture
def digests(chats: Chats) -> Digests:
    digests = chats.digests
    digests.set_zone(DIGEST_CHAT, "Europe/Berlin", now=MONDAY_6 - timedelta(days=1))
    digests.set_schedule(
        DIGEST_CHAT, EIGHT, render=render_digest_parts, now=MONDAY_6 - timedelta(days=1)
    )
    return digests


def publish(store: Store, followed_id: int, *records: Record) -> None:
    ids = frozenset({followed_id})
    store.save_records([MatchedRecord(r, ids) for r in records], announce_for=ids)


def paper(number: int, **fields: object) -> Record:
    defaults: dict[str, object] = {
        "arxiv_id": f"2603.{number:05d}",
        "title": f"Routing Study Number {number}",
        "abstract": f"We route packets in study {number}. Then we measure more things.",
        "authors": ["Ann Other", "Dezun Dong"],
    }
    return make_record(**(defaults | fields))


def rows(engine: Engine, chat_id: int) -> list[Delivery]:
    with Session(engine) as session:
        return list(
            session.exec(
                select(Delivery).where(col(Delivery.chat_id) == chat_id).order_by(col(Delivery.id))
            )
        )


def send_parts(outbox: Outbox, chat_id: int) -> list[str]:
    """Send the chat's digest messages as the sender does, part by part; their HTML."""
    sent = []
    while (part := outbox.digest_part_for(chat_id)) is not None:
        outbox.mark_sent_many([(delivery_id, 1) for delivery_id in part.delivery_ids])
        sent.append(part.html)
    return sent


def test_papers_of_a_digest_chat_are_held_until_the_digest_is_due(
    engine: Engine, store: Store, digests: Digests, followed_id: int, outbox: Outbox
) -> None:
    publish(store, followed_id, paper(1), paper(2))

    assert {d.chat_id for d in outbox.due(limit=100)} == {INSTANT_CHAT}
    assert [d.status for d in rows(engine, DIGEST_CHAT)] == [
        DeliveryStatus.HELD,
        DeliveryStatus.HELD,
    ]
    assert outbox.stats().held == 2
    assert digests.settings(DIGEST_CHAT).next_at == MONDAY_6
    assert digests.claim_due(render=render_digest_parts, now=MONDAY_6 - timedelta(seconds=1)) == []
    assert outbox.digest_part_for(DIGEST_CHAT) is None

    (report,) = digests.claim_due(render=render_digest_parts, now=MONDAY_6 + timedelta(seconds=3))

    assert (report.chat_id, report.papers, report.parts) == (DIGEST_CHAT, 2, 1)
    assert [d.status for d in rows(engine, DIGEST_CHAT)] == [
        DeliveryStatus.PENDING,
        DeliveryStatus.PENDING,
    ]
    assert digests.settings(DIGEST_CHAT).next_at == MONDAY_6 + timedelta(days=1)
    (html,) = send_parts(outbox, DIGEST_CHAT)
    assert html.startswith("📚 <b>2 new papers since Sun 29 Mar</b>")
    assert "Routing Study Number 1" in html and "Routing Study Number 2" in html
    assert "★ <b><u>Dezun Dong</u></b>" in html  # the followed author is marked
    assert "<i>We route packets in study 1.</i>" in html  # the first sentence only
    assert "Then we measure" not in html
    assert [d.status for d in rows(engine, DIGEST_CHAT)] == ["sent", "sent"]


def test_a_digest_is_claimed_once_and_a_later_paper_waits_for_the_next(
    engine: Engine, store: Store, digests: Digests, followed_id: int, outbox: Outbox
) -> None:
    publish(store, followed_id, paper(1))
    due = MONDAY_6 + timedelta(minutes=1)
    assert len(digests.claim_due(render=render_digest_parts, now=due)) == 1
    # Asked again (a second round, a restarted service): nothing more to claim.
    assert digests.claim_due(render=render_digest_parts, now=due) == []
    assert digests.claim(DIGEST_CHAT, render=render_digest_parts, now=due) is None

    publish(store, followed_id, paper(2))  # found after the claim
    assert [d.status for d in rows(engine, DIGEST_CHAT)] == [
        DeliveryStatus.PENDING,
        DeliveryStatus.HELD,
    ]
    (first,) = send_parts(outbox, DIGEST_CHAT)
    (report,) = digests.claim_due(render=render_digest_parts, now=due + timedelta(days=1))
    (second,) = send_parts(outbox, DIGEST_CHAT)

    assert report.papers == 1
    assert "Number 1" in first and "Number 2" not in first
    assert "Number 2" in second and "Number 1" not in second
    assert second.startswith("📚 <b>1 new paper since Mon 30 Mar</b>")


@pytest.mark.parametrize("revisions", [True, False])
def test_a_revision_found_after_the_digest_was_claimed_does_not_pass_for_sent(
    engine: Engine,
    store: Store,
    chats: Chats,
    digests: Digests,
    followed_id: int,
    outbox: Outbox,
    revisions: bool,
) -> None:
    """A paper is claimed into today's digest, its message rendered at v1; v2 is found before
    the message goes out. The message is confirmed as what it carried, v1; a chat that asked
    for revisions gets v2 in its next digest, one that did not hears nothing more."""
    chats.set_notify_revisions(DIGEST_CHAT, revisions)
    publish(store, followed_id, paper(1))
    due = MONDAY_6 + timedelta(minutes=1)
    assert len(digests.claim_due(render=render_digest_parts, now=due)) == 1
    publish(store, followed_id, paper(1, version=2, title="Routing Study Number 1, Revised"))

    (today,) = send_parts(outbox, DIGEST_CHAT)

    assert "Revised" not in today
    told = [(d.version, d.kind, d.status) for d in rows(engine, DIGEST_CHAT)]
    assert told[0] == (1, "new", DeliveryStatus.SENT)
    if not revisions:
        assert told == [(1, "new", DeliveryStatus.SENT)]
        return
    assert told[1:] == [(2, "revision", DeliveryStatus.HELD)]
    digests.claim_due(render=render_digest_parts, now=due + timedelta(days=1))
    (tomorrow,) = send_parts(outbox, DIGEST_CHAT)
    assert "Routing Study Number 1, Revised" in tomorrow


def test_a_day_without_papers_sends_nothing_and_moves_on(digests: Digests, outbox: Outbox) -> None:
    (report,) = digests.claim_due(render=render_digest_parts, now=MONDAY_6)
    assert (report.papers, report.parts) == (0, 0)
    assert outbox.digest_part_for(DIGEST_CHAT) is None
    assert outbox.due(limit=10) == []
    assert digests.next_due() == MONDAY_6 + timedelta(days=1)


def test_a_service_down_for_days_sends_one_digest_when_back(
    store: Store, digests: Digests, followed_id: int, outbox: Outbox
) -> None:
    publish(store, followed_id, paper(1))
    back = MONDAY_6 + timedelta(days=3, hours=5)
    assert len(digests.claim_due(render=render_digest_parts, now=back)) == 1
    assert digests.claim_due(render=render_digest_parts, now=back) == []
    assert len(send_parts(outbox, DIGEST_CHAT)) == 1
    assert digests.next_due() == MONDAY_6 + timedelta(days=4)  # the next one on the schedule


def test_turning_the_digest_off_sends_what_was_held_at_once_as_one_digest(
    engine: Engine, store: Store, digests: Digests, followed_id: int, outbox: Outbox
) -> None:
    publish(store, followed_id, paper(1), paper(2), paper(3))
    settings, flushed = digests.set_schedule(DIGEST_CHAT, None, render=render_digest_parts)

    assert flushed is not None and (flushed.papers, flushed.parts) == (3, 1)
    assert (settings.schedule, settings.next_at, settings.held) == (None, None, 0)
    assert digests.next_due() is None
    due = {d.id for d in outbox.due(limit=100) if d.chat_id == DIGEST_CHAT}
    assert len(due) == 3  # due now, all three carried by the one part
    (html,) = send_parts(outbox, DIGEST_CHAT)
    assert html.startswith("📚 <b>3 new papers since")
    publish(store, followed_id, paper(4))  # from now on one message each
    assert [d.digest_part_id is None for d in rows(engine, DIGEST_CHAT)] == [False] * 3 + [True]
    assert rows(engine, DIGEST_CHAT)[-1].status == DeliveryStatus.PENDING


def test_sixty_papers_fit_in_at_most_three_messages_and_none_is_left_unaccounted(
    engine: Engine, store: Store, digests: Digests, followed_id: int, outbox: Outbox
) -> None:
    long_abstract = "A sentence that goes on " + "and on " * 60 + "until it ends. More."
    publish(store, followed_id, *(paper(n, abstract=long_abstract) for n in range(1, 61)))
    (report,) = digests.claim_due(render=render_digest_parts, now=MONDAY_6)
    sent = send_parts(outbox, DIGEST_CHAT)

    assert report.papers == 60 and 1 < len(sent) == report.parts <= 3
    assert sent[0].startswith("📚 <b>60 new papers since")
    listed = [n for n in range(1, 61) if any(f"Number {n}<" in html for html in sent)]
    assert listed == list(range(1, len(listed) + 1))  # in order, each in one message
    assert sum(html.count("Routing Study Number") for html in sent) == len(listed)
    assert sent[-1].endswith(f"… and {60 - len(listed)} more: /recent 20")
    assert {d.status for d in rows(engine, DIGEST_CHAT)} == {"sent"}  # the cut ones too


def test_revisions_have_their_own_section(
    engine: Engine, store: Store, chats: Chats, digests: Digests, followed_id: int, outbox: Outbox
) -> None:
    chats.set_notify_revisions(DIGEST_CHAT, True)
    publish(store, followed_id, paper(1))
    digests.claim_due(render=render_digest_parts, now=MONDAY_6)
    send_parts(outbox, DIGEST_CHAT)
    publish(store, followed_id, paper(1, version=2), paper(2))
    digests.claim_due(render=render_digest_parts, now=MONDAY_6 + timedelta(days=1))
    (html,) = send_parts(outbox, DIGEST_CHAT)

    head, section = html.split("🔄 <b>New versions of 1 paper</b>")
    assert head.startswith("📚 <b>1 new paper since") and "Number 2" in head
    assert "Number 1</b></a> (v2)" in section


def test_unsubscribing_drops_the_held_papers_and_a_topic_gets_its_own_digest(
    engine: Engine, store: Store, chats: Chats, digests: Digests, followed_id: int, outbox: Outbox
) -> None:
    topic = 77
    chats.subscribe(DIGEST_CHAT, followed_id, thread_id=topic)
    before = MONDAY_6 - timedelta(days=1)
    digests.set_zone(DIGEST_CHAT, "Europe/Berlin", thread_id=topic, now=before)
    digests.set_schedule(
        DIGEST_CHAT, EIGHT, render=render_digest_parts, thread_id=topic, now=before
    )
    publish(store, followed_id, paper(1))
    assert sorted(d.thread_id for d in rows(engine, DIGEST_CHAT)) == [0, topic]
    chats.unsubscribe(DIGEST_CHAT, followed_id)  # General only

    reports = digests.claim_due(render=render_digest_parts, now=MONDAY_6)
    assert sorted((r.thread_id, r.papers) for r in reports) == [(0, 0), (topic, 1)]
    assert outbox.digest_part_for(DIGEST_CHAT) is None  # General has nothing
    part = outbox.digest_part_for(DIGEST_CHAT, topic)
    assert part is not None and "Number 1" in part.html


def test_a_claim_that_cannot_render_changes_nothing_and_stays_due(
    engine: Engine, store: Store, digests: Digests, followed_id: int
) -> None:
    publish(store, followed_id, paper(1))

    def broken(content: DigestContent) -> list[RenderedPart]:
        raise RuntimeError("renderer bug")

    assert digests.claim_due(render=broken, now=MONDAY_6) == []
    assert [d.status for d in rows(engine, DIGEST_CHAT)] == [DeliveryStatus.HELD]
    assert digests.next_due() == MONDAY_6
    with Session(engine) as session:
        setting = session.get(DestinationSetting, (DIGEST_CHAT, NO_THREAD))
        assert setting is not None and setting.digest_minute == 8 * 60


@pytest.fixture
def outbox(engine: Engine) -> Outbox:
    return Outbox(engine)
