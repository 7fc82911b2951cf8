"""A group that takes a digest migrating into a supergroup the bot already knows: the merged
chat keeps the digest, time zone and revisions, and no paper is left held with nothing to
claim it (issue 18, item 4). On the real database."""

from __future__ import annotations

from datetime import UTC, datetime, time, timedelta

from sqlalchemy import Engine
from sqlmodel import Session, col, select

from bot.digest import render_digest_parts
from tests.fakes.corpus import make_record
from watcher.calendars.schedule import DigestSchedule
from watcher.store import MatchedRecord, Store
from watcher.store.chats import Chats
from watcher.store.outbox import Outbox
from watcher.store.tables import Delivery, DeliveryStatus

GROUP, SUPERGROUP = -1001, -1009001
SUNDAY_6 = datetime(2026, 3, 29, 6, 0, tzinfo=UTC)


def statuses(engine: Engine, chat_id: int) -> list[str]:
    with Session(engine) as session:
        return list(session.exec(select(Delivery.status).where(col(Delivery.chat_id) == chat_id)))


def test_a_digest_group_merging_into_a_known_supergroup_keeps_its_digest_and_held_paper(
    engine: Engine, store: Store
) -> None:
    followed, _ = store.follow(["Dezun Dong"])
    chats = Chats(engine)
    chats.seen(GROUP, kind="group")
    chats.subscribe(GROUP, followed.id)
    chats.set_notify_revisions(GROUP, True)
    chats.digests.set_zone(GROUP, "Europe/Berlin", now=SUNDAY_6)
    chats.digests.set_schedule(
        GROUP, DigestSchedule(time(8, 0)), render=render_digest_parts, now=SUNDAY_6
    )
    chats.seen(SUPERGROUP, kind="supergroup")  # the supergroup speaks first
    ids = frozenset({followed.id})
    store.save_records([MatchedRecord(make_record(authors=["Dezun Dong"]), ids)], announce_for=ids)
    assert statuses(engine, GROUP) == [DeliveryStatus.HELD]

    chats.migrate(GROUP, SUPERGROUP)

    settings = chats.digests.settings(SUPERGROUP)
    assert settings.zone_name == "Europe/Berlin"
    assert settings.held == 1
    assert chats.wants_revisions(SUPERGROUP)
    # The carried digest claims the paper at its next time: nothing stays held.
    due = SUNDAY_6 + timedelta(days=1)
    (report,) = chats.digests.claim_due(render=render_digest_parts, now=due)
    assert (report.chat_id, report.papers) == (SUPERGROUP, 1)
    assert statuses(engine, SUPERGROUP) == [DeliveryStatus.PENDING]
    assert [d.chat_id for d in Outbox(engine).due(limit=10, now=due)] == [SUPERGROUP]
