"""The delivery sender while deliveries wait, on the real outbox and the fake Bot API
(`tests.harness.delivery`): a chat that comes back to many papers gets one summary of them,
/unsubscribe stops deliveries already fetched, and a revision of a fetched delivery goes out as
one message with the new version.
"""

from __future__ import annotations

from dataclasses import replace

from tests.fakes.telegram import Fault
from tests.harness.delivery import World, eventually, sending, sent_count
from watcher.store import MatchedRecord

# -- a chat that comes back, /unsubscribe and revisions while deliveries wait ----------------


async def test_a_chat_back_to_many_waiting_papers_gets_one_summary_of_them(world: World) -> None:
    world.subscribe(11, 12)
    world.chats.deactivate(12, reason="Forbidden: bot was blocked by the user")
    records = [world.publish(f"2611.0000{n}", title=f"Paper number {n}") for n in range(8)]

    async with sending(world) as sender:
        await eventually(sent_count(world, 8))  # the chat that stayed: one message each
        assert world.chats.seen(12, kind="private") is True  # /start, or unblocked
        sender.wake()
        await eventually(sent_count(world, 16))
    async with sending(world):  # a restart finds nothing more to send
        await eventually(lambda: world.outbox.stats().pending == 0)

    (summary,) = world.fake.sent(12)
    assert summary.text.splitlines() == ["📬 While you were away: 8 new papers"] + [
        f"• {record.title} — ★ Dezun Dong" for record in records
    ]
    assert summary.parse_mode == "HTML"
    assert {d.message_id for d in world.deliveries() if d.chat_id == 12} == {summary.message_id}
    assert len(world.fake.sent(11)) == 8


async def test_a_summary_whose_answer_is_lost_is_sent_again_once_whole(world: World) -> None:
    world.subscribe(12)
    world.chats.deactivate(12, reason="Forbidden: bot was blocked by the user")
    for n in range(7):
        world.publish(f"2611.0000{n}", title=f"Paper number {n}")
    world.chats.seen(12, kind="private")
    world.fake.inject(Fault.disconnect(delivered=True))

    async with sending(world):
        await eventually(sent_count(world, 7))

    texts = [message.text.splitlines()[0] for message in world.fake.sent(12)]
    assert texts == ["📬 While you were away: 7 new papers"] * 2


async def test_unsubscribing_stops_deliveries_the_sender_already_fetched(world: World) -> None:
    world.subscribe(11)
    for n in range(5):
        world.publish(f"2611.0000{n}", title=f"Paper number {n}")
    world.fake.inject(Fault.slow(1.0))  # the first message hangs: the other four wait fetched

    async with sending(world, concurrency=1) as sender:
        await eventually(lambda: len(world.fake.sent(11)) == 1)
        world.chats.unsubscribe(11)  # what /unsubscribe does, then the front end tells us
        sender.forget(11)
        world.subscribe(12)
        world.publish("2611.00009", title="After the unsubscribe")
        sender.wake()
        # One send at a time, in order: anything still owed to 11 would come first.
        await eventually(lambda: len(world.fake.sent(12)) == 1)

    assert [m.text.splitlines()[1] for m in world.fake.sent(11)] == ["Paper number 0"]
    assert world.outbox.stats().pending == 0


async def test_a_revision_of_a_fetched_delivery_goes_out_as_one_message_with_the_new_version(
    world: World,
) -> None:
    world.subscribe(11)
    world.chats.set_notify_revisions(11, True)
    world.publish("2611.00001", title="The first paper")
    draft = world.publish("2611.00002", title="Draft title")
    world.fake.inject(Fault.slow(1.0))  # the first paper hangs; the second waits fetched

    async with sending(world, concurrency=1) as sender:
        await eventually(lambda: len(world.fake.sent(11)) == 1)
        followed = frozenset({world.followed_id})
        revised = replace(draft, version=2, title="Final title")
        saved = world.context.store.save_records(
            [MatchedRecord(revised, followed)], announce_for=followed
        )
        assert saved.revisions == [revised]
        sender.refresh()  # what the front end does after a poll that found revisions
        await eventually(lambda: world.outbox.stats().pending == 0)

    texts = [m.text.splitlines()[:2] for m in world.fake.sent(11)]
    assert texts == [
        ["🆕 New paper · arXiv:2611.00001v1", "The first paper"],
        ["🆕 New paper · arXiv:2611.00002v2", "Final title"],
    ]
