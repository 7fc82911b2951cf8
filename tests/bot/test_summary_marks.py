"""A "While you were away" summary says why each paper came (issue 30, item 6): ★ and the
followed person, 🔎 and the topic, as announcements mark them, grouped by follow when several
found the papers. The real sender on the real outbox, through the fake Bot API."""

from __future__ import annotations

from tests.fakes.corpus import make_record
from tests.harness.delivery import World, eventually, sending, sent_count
from watcher.follows.topics import parse_topic
from watcher.store import MatchedRecord
from watcher.store.tables import NO_THREAD

FOLLOWER = 11


async def test_a_summary_groups_its_papers_by_the_follow_that_found_them(world: World) -> None:
    topic, _ = world.context.store.watch_topic(parse_topic("allreduce in cs.DC"))
    world.subscribe(FOLLOWER)
    world.chats.subscribe(FOLLOWER, topic.id)
    world.chats.speaking.pause(FOLLOWER, NO_THREAD)
    found = frozenset({topic.id})
    for n in range(4):
        world.publish(f"2611.0000{n}", title=f"Person paper {n}")
    by_topic = [
        make_record(arxiv_id=f"2611.0010{n}", title=f"Allreduce paper {n}", authors=["Ann Other"])
        for n in range(3)
    ]
    saved = world.context.store.save_records(
        [MatchedRecord(record, found) for record in by_topic], announce_for=found
    )
    assert saved.new == by_topic
    world.publish("2611.00004", title="Person paper 4")  # the groups keep their own order

    async with sending(world) as sender:
        world.chats.speaking.resume(FOLLOWER, NO_THREAD)
        sender.speaking_changed()
        await eventually(sent_count(world, 8))

    (summary,) = world.fake.sent(FOLLOWER)
    assert summary.text.splitlines() == [
        "📬 While you were away: 8 new papers",
        "★ Dezun Dong",
        *[f"• Person paper {n}" for n in range(5)],
        f"🔎 {topic.label}",
        *[f"• Allreduce paper {n}" for n in range(3)],
    ]
    assert "★ <b><u>Dezun Dong</u></b>" in summary.html  # as a followed author is written
