"""A revision found while the sender has v1 on its way (issue 18, item 5): the confirmation
records the version that went out, so the chat that asked for revisions still gets v2, once, and
the others are told of the paper once. The real outbox on the real database, a real PTB bot and
the fake Bot API (`tests.harness.delivery`)."""

from __future__ import annotations

from sqlmodel import Session, col, select

from tests.fakes.corpus import make_record
from tests.fakes.telegram import Fault
from tests.harness.delivery import World, eventually, sending
from watcher.aio import in_db_thread
from watcher.kinds import NewsKind
from watcher.store import MatchedRecord
from watcher.store.tables import Delivery

WANTS_REVISIONS, NEW_ONLY = 11, 12


def told(world: World, chat_id: int) -> list[tuple[int, str, str]]:
    """(version, kind, status) of the chat's deliveries, by version."""
    with Session(world.engine) as session:
        return [
            (d.version, d.kind, d.status)
            for d in session.exec(
                select(Delivery)
                .where(col(Delivery.chat_id) == chat_id)
                .order_by(col(Delivery.version))
            )
        ]


async def test_a_revision_found_while_v1_is_on_its_way_is_sent_after_it(world: World) -> None:
    world.subscribe(WANTS_REVISIONS, NEW_ONLY)
    world.chats.set_notify_revisions(WANTS_REVISIONS, True)
    first = world.publish()
    world.fake.inject(Fault.slow(1.5), Fault.slow(1.5))  # delivered at once, answered later
    followed = frozenset({world.followed_id})
    second = make_record(
        arxiv_id=first.arxiv_id,
        version=2,
        published=first.published,
        authors=list(first.authors),
        title="Routing, revised",
    )

    async with sending(world) as sender:
        await world.fake.wait_for(
            lambda: world.fake.sent(WANTS_REVISIONS) and world.fake.sent(NEW_ONLY), timeout=10
        )
        # v1 is in both chats, unconfirmed, when v2 is found.
        saved = await in_db_thread(
            world.context.store.save_records,
            [MatchedRecord(second, followed)],
            announce_for=followed,
        )
        assert saved.revisions == [second]
        await eventually(lambda: len(world.fake.sent(WANTS_REVISIONS)) == 2)
        sender.wake()
        await eventually(lambda: world.outbox.stats().pending == 0)

    assert [m.text.splitlines()[1] for m in world.fake.sent(WANTS_REVISIONS)] == [
        first.title,
        second.title,
    ]
    assert len(world.fake.sent(NEW_ONLY)) == 1
    assert told(world, WANTS_REVISIONS) == [
        (1, NewsKind.NEW, "sent"),
        (2, NewsKind.REVISION, "sent"),
    ]
    assert told(world, NEW_ONLY) == [(1, NewsKind.NEW, "sent")]
