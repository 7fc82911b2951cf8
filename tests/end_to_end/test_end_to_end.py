"""People use the bot: the real `arxiv-watcher run` process, the fake Bot API, the fake arXiv.

Everything crosses real HTTP: users subscribe by sending commands, arXiv publishes papers, and
what reaches each chat is read off the fake Bot API.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.fakes.arxiv_api import FakeArxiv
from tests.fakes.corpus import dezun_dong_records, make_record
from tests.fakes.telegram import FakeTelegram
from tests.harness.cli_helpers import ServiceProcess, service_on_fakes
from tests.harness.patience import PATIENCE

pytestmark = pytest.mark.slow

TOKEN = "123456:TEST-end-to-end-token"
PEOPLE = (11, 12, 13)
GROUP, GROUP_ADMIN, GROUP_MEMBER = -500, 7, 8
GENUINE = make_record(
    arxiv_id="2611.04242",
    title="Congestion Control for Multi-Plane HyperX Networks",
    authors=["Ziyu Wang", "Dezun Dong"],
    categories=("cs.NI", "cs.DC"),
    primary_category="cs.NI",
)
LOOKALIKE = make_record(
    arxiv_id="2611.04243",
    title="Quantum Feedback with Delayed Measurements",
    authors=["Daoyi Dong", "Dezun Li"],  # arXiv's loose au:"Dezun Dong" does not even need this
    abstract="We cite the work of Dezun Dong on networks, but he is not an author here.",
)


@pytest.fixture
def world(
    tmp_path: Path, database_url: str
) -> Iterator[tuple[FakeArxiv, FakeTelegram, ServiceProcess]]:
    with FakeArxiv(dezun_dong_records()) as arxiv, FakeTelegram(TOKEN) as telegram:
        service = service_on_fakes(arxiv, telegram, cwd=tmp_path, database_url=database_url)
        try:
            service.wait_for(lambda: "stored silently" in service.output)
            service.wait_for(lambda: bool(telegram.commands))
            yield arxiv, telegram, service
        finally:
            code = service.stop()
            assert code == 0, service.output
            assert TOKEN not in service.output
            assert "Traceback" not in service.output


def texts(telegram: FakeTelegram, chat_id: int) -> list[str]:
    return [message.text for message in telegram.sent(chat_id)]


def send_attempts(telegram: FakeTelegram, chat_id: int, needle: str) -> int:
    return sum(
        1
        for request in telegram.requests
        if request.method == "sendMessage"
        and request.params.get("chat_id") == str(chat_id)
        and needle in request.params.get("text", "")
    )


def test_each_subscriber_gets_each_new_paper_once_and_nobody_gets_a_lookalike(
    world: tuple[FakeArxiv, FakeTelegram, ServiceProcess],
) -> None:
    arxiv, telegram, service = world
    for person in PEOPLE:
        telegram.user_sends(person, "/start")
        telegram.user_sends(person, "/subscribe")
    telegram.set_admins(GROUP, [GROUP_ADMIN])
    telegram.user_sends(GROUP, "/subscribe", user_id=GROUP_MEMBER, chat_type="group", title="Lab")
    telegram.user_sends(GROUP, "/subscribe", user_id=GROUP_ADMIN, chat_type="group", title="Lab")
    telegram.wait_sync(lambda: all(len(texts(telegram, p)) == 2 for p in PEOPLE), timeout=PATIENCE)
    telegram.wait_sync(lambda: len(texts(telegram, GROUP)) == 2, timeout=PATIENCE)
    refused, accepted = texts(telegram, GROUP)
    assert "administrators" in refused
    assert "Dezun Dong" in accepted
    telegram.block(13)

    arxiv.add(LOOKALIKE)
    arxiv.add(GENUINE)
    receivers = (11, 12, GROUP)
    telegram.wait_sync(
        lambda: all(any(GENUINE.title in t for t in texts(telegram, c)) for c in receivers),
        timeout=PATIENCE,
    )
    polls = len(arxiv.api_requests())
    service.wait_for(lambda: len(arxiv.api_requests()) >= polls + 3)  # later polls send nothing

    for chat in receivers:
        assert sum(GENUINE.title in t for t in texts(telegram, chat)) == 1
    everything = [m.text for m in telegram.sent()]
    assert not any(LOOKALIKE.title in text for text in everything)
    # The blocked person: one refused attempt, then the chat is parked, not retried in a loop.
    assert send_attempts(telegram, 13, "Congestion Control") == 1
    assert all(GENUINE.title not in t for t in texts(telegram, 13))


def test_recent_and_subject_answer_from_the_store(
    world: tuple[FakeArxiv, FakeTelegram, ServiceProcess],
) -> None:
    _, telegram, _ = world
    telegram.user_sends(21, "/recent 3")
    telegram.user_sends(21, "/subject cs.dc")
    telegram.user_sends(21, "/subject cs.xyz")
    telegram.wait_sync(lambda: len(texts(telegram, 21)) == 3, timeout=PATIENCE)
    recent, subject, unknown = texts(telegram, 21)
    newest = sorted(dezun_dong_records(), key=lambda r: r.published, reverse=True)[:3]
    for record in newest:
        assert record.arxiv_id in recent
    in_dc = [r for r in dezun_dong_records() if "cs.DC" in r.categories]
    assert max(in_dc, key=lambda r: r.published).arxiv_id in subject
    assert unknown == (
        "'cs.xyz' is not an arXiv category; did you mean cs.SY or cs.CY?\n"
        "For example: /subject cs.DC,cs.NI 5"
    )


def test_a_new_names_history_is_fetched_at_once_not_at_the_next_round(
    tmp_path: Path, database_url: str
) -> None:
    with FakeArxiv(dezun_dong_records()) as arxiv, FakeTelegram(TOKEN) as telegram:
        service = service_on_fakes(
            arxiv,
            telegram,
            cwd=tmp_path,
            database_url=database_url,
            POLL_INTERVAL="3600",  # the scheduler's next round is a minute away
        )
        try:
            service.wait_for(lambda: "stored silently" in service.output)
            service.wait_for(lambda: bool(telegram.commands))
            telegram.user_sends(31, "/subscribe Yemao Xu")
            telegram.wait_sync(lambda: len(texts(telegram, 31)) == 1, timeout=PATIENCE)
            assert texts(telegram, 31)[0].startswith("✅ This chat now follows Yemao Xu: arXiv")

            service.wait_for(lambda: "polled Yemao Xu" in service.output, timeout=PATIENCE)
            telegram.user_sends(31, "/recent")
            telegram.wait_sync(lambda: len(texts(telegram, 31)) == 2, timeout=PATIENCE)
            assert "OD-SGD" in texts(telegram, 31)[1]
        finally:
            code = service.stop()
        assert code == 0, service.output
        assert "Traceback" not in service.output


@pytest.mark.parametrize("comes_back_with", ["/start", "unblock"])
def test_a_user_back_after_forty_papers_gets_one_summary_of_them(
    world: tuple[FakeArxiv, FakeTelegram, ServiceProcess], comes_back_with: str
) -> None:
    arxiv, telegram, service = world
    person = 31
    telegram.user_sends(person, "/start")
    telegram.user_sends(person, "/subscribe")
    telegram.wait_sync(lambda: len(texts(telegram, person)) == 2, timeout=PATIENCE)
    telegram.my_chat_member(person, "kicked")  # the user blocks the bot
    service.wait_for(lambda: f"chat {person} is gone" in service.output)

    missed = [
        make_record(
            arxiv_id=f"2611.{10_000 + n}",
            title=f"Missed paper number {n} on adaptive routing",
            authors=["Dezun Dong"],
        )
        for n in range(40)
    ]
    for record in missed:
        arxiv.add(record)
    service.wait_for(lambda: "polled Dezun Dong: 40 new" in service.output)

    before = len(texts(telegram, person))
    if comes_back_with == "/start":
        telegram.unblock(person)  # "Restart" in the app: unblocked, and /start sent
        telegram.user_sends(person, "/start")
    else:
        telegram.my_chat_member(person, "member")
    telegram.wait_sync(
        lambda: any("While you were away" in t for t in texts(telegram, person)), timeout=PATIENCE
    )
    polls = len(arxiv.api_requests())
    service.wait_for(lambda: len(arxiv.api_requests()) >= polls + 3)  # later polls send nothing

    after = texts(telegram, person)[before:]
    if comes_back_with == "/start":  # its answer and the summary, in either order
        (welcome,) = [text for text in after if text.startswith("👋 I watch arXiv")]
        after.remove(welcome)
    (summary,) = after
    lines = summary.splitlines()
    assert lines[0] == "📬 While you were away: 40 new papers"
    assert lines[1:] == [f"• {record.title} — ★ Dezun Dong" for record in missed]
    assert send_attempts(telegram, person, "Missed paper") == 1


def test_a_quick_person_is_never_refused(
    world: tuple[FakeArxiv, FakeTelegram, ServiceProcess],
) -> None:
    """(A script that floods is slowed down: see test_handlers, where it runs without waiting
    for Telegram's one message a second per chat.)"""
    _, telegram, _ = world
    person = 41
    telegram.user_sends(person, "/recent 2")
    telegram.wait_sync(lambda: len(texts(telegram, person)) == 1, timeout=PATIENCE)
    (listing,) = telegram.sent(person)
    assert listing.reply_markup is not None
    (older,) = [b["callback_data"] for row in listing.reply_markup["inline_keyboard"] for b in row]
    prefix = older.rsplit(":", 1)[0]
    # Ten more, a second apart: commands and paging buttons, as someone exploring the menu.
    actions = [
        "/help",
        f"{prefix}:1",
        f"{prefix}:2",
        "/subjects",
        f"{prefix}:1",
        "/subject cs.DC",
        "/subscriptions",
        f"{prefix}:0",
        "/paper 2611.04242",
        "/start",
    ]
    for action in actions:
        time.sleep(1)
        if action.startswith("/"):
            telegram.user_sends(person, action)
        else:
            telegram.press_button(person, listing.message_id, action)
    commands = sum(action.startswith("/") for action in actions)
    presses = len(actions) - commands
    telegram.wait_sync(lambda: len(texts(telegram, person)) == 1 + commands, timeout=PATIENCE)
    telegram.wait_sync(
        lambda: len([a for a in telegram.callback_answers if a.chat_id == person]) == presses,
        timeout=PATIENCE,
    )
    assert not any("Slow down" in text for text in texts(telegram, person))
    assert not any(
        a.text and "Slow down" in a.text for a in telegram.callback_answers if a.chat_id == person
    )
