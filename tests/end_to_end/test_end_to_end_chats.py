"""Real Telegram chats, end to end through the real `arxiv-watcher run` process: a channel that
loses the right to post for a while, a forum whose topics follow different authors, one of them
closed for a while. Telegram is the fake Bot API (with rights and topics), arXiv the fake arXiv API.

Every paper must reach every chat (and topic) that follows its author exactly once: a chat that
may not be written to for a while gets it when it can, never twice and never in the wrong topic.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from tests.fakes.arxiv_api import FakeArxiv
from tests.fakes.corpus import dezun_dong_records, lookalike_records, make_record
from tests.fakes.telegram import FakeTelegram, SentMessage
from tests.harness.cli_helpers import ServiceProcess, service_on_fakes
from tests.harness.patience import PATIENCE

pytestmark = pytest.mark.slow

TOKEN = "123456:TEST-end-to-end-chats-token"
CHANNEL, FORUM, PERSON = -1009876543210, -1005555555555, 31
ADMIN = 7


@contextmanager
def service(
    tmp_path: Path, database_url: str, **settings: str
) -> Iterator[tuple[FakeArxiv, FakeTelegram, ServiceProcess]]:
    """The service on the fakes, after its first poll and with its command menu set."""
    records = [*dezun_dong_records(), *lookalike_records()]
    with FakeArxiv(records) as arxiv, FakeTelegram(TOKEN) as telegram:
        process = service_on_fakes(
            arxiv,
            telegram,
            cwd=tmp_path,
            database_url=database_url,
            # A group's 20 messages a minute would space these few by 3 s each; the fake Bot API
            # still holds the bot to Telegram's limits.
            TELEGRAM_RATE_GROUP="600",
            **settings,
        )
        try:
            process.wait_for(lambda: "stored silently" in process.output)
            process.wait_for(lambda: bool(telegram.commands))
            yield arxiv, telegram, process
        finally:
            code = process.stop()
            assert code == 0, process.output
            assert TOKEN not in process.output
            assert "Traceback" not in process.output
            assert telegram.internal_errors == []


def in_place(telegram: FakeTelegram, chat_id: int, thread_id: int | None = None) -> list[str]:
    return [m.text for m in telegram.sent(chat_id) if m.message_thread_id == thread_id]


def times_received(telegram: FakeTelegram, chat_id: int, title: str) -> dict[int | None, int]:
    """How many messages with `title` each topic of the chat got (None: General, no topics)."""
    counts: dict[int | None, int] = {}
    for message in telegram.sent(chat_id):
        if title in message.text:
            counts[message.message_thread_id] = counts.get(message.message_thread_id, 0) + 1
    return counts


def send_statuses(telegram: FakeTelegram, chat_id: int, title: str) -> list[int]:
    """The HTTP status of every sendMessage of `title` to the chat, in order."""
    return [
        request.status
        for request in telegram.requests
        if request.method == "sendMessage"
        and request.params.get("chat_id") == str(chat_id)
        and title in request.params.get("text", "")
    ]


def topic_statuses(telegram: FakeTelegram, chat_id: int, thread_id: int) -> list[int]:
    """The HTTP status of every paper (or summary) sent to one forum topic, in order."""
    return [
        request.status
        for request in telegram.requests
        if request.method == "sendMessage"
        and request.params.get("chat_id") == str(chat_id)
        and request.params.get("message_thread_id") == str(thread_id)
        and "arXiv:" in request.params.get("text", "")
    ]


def answer_to(telegram: FakeTelegram, chat_id: int, needle: str) -> SentMessage:
    return next(m for m in telegram.sent(chat_id) if needle in m.text)


def test_a_channel_that_loses_the_right_to_post_gets_each_paper_once_it_is_back(
    tmp_path: Path, database_url: str
) -> None:
    # The first retry of a parked chat is a minute away (the default): within this test's waits
    # only the my_chat_member update that shows the rights back can send the paper.
    with service(tmp_path, database_url) as (arxiv, telegram, process):
        telegram.add_channel(CHANNEL, title="Feed")
        telegram.channel_post(CHANNEL, "/subscribe", title="Feed")
        telegram.user_sends(PERSON, "/subscribe")
        telegram.wait_sync(
            lambda: in_place(telegram, CHANNEL) and in_place(telegram, PERSON), PATIENCE
        )

        telegram.my_chat_member(
            CHANNEL, "administrator", old_status="administrator", can_send=False
        )
        muted = make_record(
            arxiv_id="2611.05001", title="Routing While Muted", authors=["Dezun Dong"]
        )
        arxiv.add(muted)
        telegram.wait_sync(lambda: times_received(telegram, PERSON, muted.title), PATIENCE)
        telegram.wait_sync(lambda: send_statuses(telegram, CHANNEL, muted.title) == [400], PATIENCE)
        process.wait_for(lambda: "its deliveries are parked" in process.output)

        telegram.my_chat_member(CHANNEL, "administrator", old_status="administrator")
        telegram.wait_sync(lambda: times_received(telegram, CHANNEL, muted.title), PATIENCE)
        after = make_record(
            arxiv_id="2611.05002", title="Routing After Unmuting", authors=["Dezun Dong"]
        )
        arxiv.add(after)
        telegram.wait_sync(
            lambda: all(times_received(telegram, c, after.title) for c in (CHANNEL, PERSON)),
            PATIENCE,
        )
        polls = len(arxiv.api_requests())
        process.wait_for(lambda: len(arxiv.api_requests()) >= polls + 2)  # later polls: nothing

    for title in (muted.title, after.title):
        assert times_received(telegram, CHANNEL, title) == {None: 1}
        assert times_received(telegram, PERSON, title) == {None: 1}
    assert send_statuses(telegram, CHANNEL, muted.title) == [400, 200]


def test_forum_topics_follow_their_own_authors_and_a_closed_one_gets_its_papers_once_reopened(
    tmp_path: Path, database_url: str
) -> None:
    with service(tmp_path, database_url, PARKED_RETRY_FIRST="0.3") as (arxiv, telegram, process):
        networks = telegram.create_topic(FORUM, "Networks", title="Reading group")
        quantum = telegram.create_topic(FORUM, "Quantum")
        telegram.set_admins(FORUM, [ADMIN])
        telegram.user_sends(FORUM, "/subscribe Dezun Dong", user_id=ADMIN, thread_id=networks)
        telegram.user_sends(FORUM, "/subscribe Daoyi Dong", user_id=ADMIN, thread_id=quantum)
        telegram.wait_sync(
            lambda: any("now follows Daoyi Dong" in t for t in in_place(telegram, FORUM, quantum)),
            PATIENCE,
        )
        telegram.wait_sync(
            lambda: any("now follows Dezun Dong" in t for t in in_place(telegram, FORUM, networks)),
            PATIENCE,
        )
        # Each answer is in its command's topic, quoting the command.
        for needle in ("now follows Dezun Dong", "now follows Daoyi Dong"):
            assert answer_to(telegram, FORUM, needle).reply_to_message_id is not None

        # The answer comes before the new author's first poll, which stores what arXiv has
        # silently: a paper added before that poll would never be announced.
        process.wait_for(lambda: "polled Daoyi Dong" in process.output)
        telegram.close_topic(FORUM, quantum)
        dezun = make_record(arxiv_id="2611.06001", title="Torus Routing", authors=["Dezun Dong"])
        daoyi = make_record(
            arxiv_id="2611.06002", title="Quantum Filtering", authors=["Daoyi Dong"]
        )
        both = make_record(
            arxiv_id="2611.06003",
            title="Quantum Networks on a Torus",
            authors=["Daoyi Dong", "Dezun Dong"],
        )
        for record in (dezun, daoyi, both):
            arxiv.add(record)
        # The open topic is not held back by the closed one.
        telegram.wait_sync(
            lambda: times_received(telegram, FORUM, both.title) == {networks: 1}, PATIENCE
        )
        telegram.wait_sync(lambda: times_received(telegram, FORUM, dezun.title), PATIENCE)
        # The closed topic: refused, parked, tried again after a wait, refused again. The probe
        # is the topic's earliest waiting paper, which of its two depends on which author's
        # poll stored "both" first: count the topic's refusals, whatever paper probed.
        telegram.wait_sync(
            lambda: topic_statuses(telegram, FORUM, quantum).count(400) >= 2, PATIENCE
        )
        assert set(topic_statuses(telegram, FORUM, quantum)) <= {400, 429}
        process.wait_for(lambda: "Topic_closed" in process.output)

        telegram.reopen_topic(FORUM, quantum, announce=False)  # the backoff alone finds it open
        telegram.wait_sync(
            lambda: times_received(telegram, FORUM, both.title) == {networks: 1, quantum: 1},
            PATIENCE,
        )
        polls = len(arxiv.api_requests())
        process.wait_for(lambda: len(arxiv.api_requests()) >= polls + 2)  # later polls: nothing

    assert times_received(telegram, FORUM, dezun.title) == {networks: 1}
    assert times_received(telegram, FORUM, daoyi.title) == {quantum: 1}
    assert times_received(telegram, FORUM, both.title) == {networks: 1, quantum: 1}
    assert in_place(telegram, FORUM, None) == []  # General got nothing
    # ★ marks the authors the receiving topic follows, not those of another topic.
    ((to_networks,), (to_quantum,)) = (
        [t for t in in_place(telegram, FORUM, topic) if both.title in t]
        for topic in (networks, quantum)
    )
    assert "👥 Daoyi Dong, ★ Dezun Dong" in to_networks
    assert "👥 ★ Daoyi Dong, Dezun Dong" in to_quantum
    *refused, delivered = send_statuses(telegram, FORUM, daoyi.title)
    # Refused while closed (400), maybe slowed by flood control (429) when the sends bunched up
    # behind a loaded machine, as above; then delivered once.
    assert (set(refused) <= {400, 429}, delivered) == (True, 200)
    answered = [s for s in topic_statuses(telegram, FORUM, quantum) if s != 429]  # flood control
    assert (answered.count(400) >= 2, answered[-2:]) == (True, [200, 200])
