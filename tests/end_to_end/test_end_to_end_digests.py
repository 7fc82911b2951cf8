"""Digests end to end: the real service in its own process, the fake Bot API, the fake arXiv.

Papers found for a digest chat give no message until the digest time (a minute ahead), then
exactly one digest lists them all; a service SIGKILLed around that time, and down at it, still
sends exactly one. In a group only administrators change the digest; bad input is answered in
one line; `/digest off` sends what waited at once, 60 papers in at most 3 messages.

The digest times are whole minutes: the tests that wait for one run the service on a clock they
turn (`tests.harness.clocks`), so the minute comes in a moment, and one test (marked
`real_clock`) waits for it on the wall clock, as `arxiv-watcher run` itself does.
"""

from __future__ import annotations

import signal
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from tests.fakes.arxiv_api import FakeArxiv
from tests.fakes.corpus import dezun_dong_records, make_record
from tests.fakes.telegram import FakeTelegram, Fault
from tests.fakes.zones import write_zone
from tests.harness.cli_helpers import ServiceProcess, service_on_fakes
from tests.harness.clocks import TurnedClock
from tests.harness.databases import BACKEND
from tests.harness.patience import PATIENCE

pytestmark = pytest.mark.slow

TOKEN = "123456:TEST-end-to-end-digests-token"
PERSON, GROUP, ADMIN, MEMBER, OTHER = 41, -4242, 7, 8, 42


def start(
    tmp_path: Path,
    database_url: str,
    arxiv: FakeArxiv,
    telegram: FakeTelegram,
    clock: TurnedClock | None = None,
    **extra: str,
) -> ServiceProcess:
    return service_on_fakes(
        arxiv, telegram, cwd=tmp_path, database_url=database_url, clock=clock, **extra
    )


@contextmanager
def fakes() -> Iterator[tuple[FakeArxiv, FakeTelegram]]:
    with FakeArxiv(dezun_dong_records()) as arxiv, FakeTelegram(TOKEN) as telegram:
        yield arxiv, telegram
        assert telegram.internal_errors == []


def stopped(process: ServiceProcess) -> None:
    assert process.stop() == 0, process.output
    assert TOKEN not in process.output
    assert "Traceback" not in process.output


def texts(telegram: FakeTelegram, chat_id: int) -> list[str]:
    return [m.text for m in telegram.sent(chat_id)]


def ask(telegram: FakeTelegram, chat_id: int, command: str, needle: str, **sender: object) -> str:
    """Send a command; the first answer after it containing `needle`."""
    before = len(telegram.sent(chat_id))
    telegram.user_sends(chat_id, command, **sender)  # type: ignore[arg-type]
    try:
        telegram.wait_sync(
            lambda: any(needle in t for t in texts(telegram, chat_id)[before:]), PATIENCE
        )
    except TimeoutError:
        raise AssertionError(f"no answer with {needle!r}: {texts(telegram, chat_id)}") from None
    return next(t for t in texts(telegram, chat_id)[before:] if needle in t)


def papers(start: int, count: int) -> list:
    return [
        make_record(
            arxiv_id=f"2612.{number:05d}",
            title=f"Digest Routing Paper {number}",
            abstract=f"We study digest routing case {number}. It works.",
            authors=["Dezun Dong", "Ann Other"],
        )
        for number in range(start, start + count)
    ]


def digest_minute(clock: Callable[[], datetime], *, lead: float = 25.0) -> datetime:
    """The first whole minute at least `lead` seconds from now on `clock` (UTC)."""
    soon = clock() + timedelta(seconds=lead)
    return soon.replace(second=0, microsecond=0) + timedelta(minutes=1)


def wall_clock() -> datetime:
    return datetime.now(UTC)


# How far ahead of the wall clock a turned-clock test puts its digest time: the set-up is done
# long before it, and the wall clock never gets there within the test, so what happens there
# happens because the test turned the clock (each such test checks it).
TURNED_LEAD = 600.0


def digest_complete(telegram: FakeTelegram, papers: int) -> bool:
    """Whether the private chat's digest messages have listed or counted `papers` papers."""
    sent = digests(telegram, PERSON)
    listed = sum(text.count("Digest Routing Paper") for text in sent)
    return listed == papers or any(text.endswith(" more: /recent 20") for text in sent)


def digests(telegram: FakeTelegram, chat_id: int) -> list[str]:
    return [t for t in texts(telegram, chat_id) if t.startswith("📚")]


# It starts the service three times: on a loaded machine the starts overran the suite's old
# 120 s; it gets the bound of its sibling.
@pytest.mark.timeout(360)
def test_papers_wait_for_the_digest_and_come_once_despite_a_kill_and_downtime(
    tmp_path: Path, database_url: str
) -> None:
    clock = TurnedClock(tmp_path / "clock")  # the services' clock, across the kills
    with fakes() as (arxiv, telegram):
        process = start(tmp_path, database_url, arxiv, telegram, clock)
        process.wait_for(lambda: "stored silently" in process.output)
        ask(telegram, PERSON, "/subscribe", "now follows")
        at = digest_minute(clock, lead=TURNED_LEAD)
        # Asia/Kolkata is UTC+05:30: the local digest time is the UTC one moved by 5 h 30.
        ask(telegram, PERSON, "/timezone asia/kolkata", "Asia/Kolkata")
        kolkata = at + timedelta(hours=5, minutes=30)
        answer = ask(telegram, PERSON, f"/digest daily {kolkata:%H:%M}", "Digest: daily")
        assert f"daily at {kolkata:%H:%M}" in answer
        assert f"Next: {kolkata.day} {kolkata:%b %Y, %H:%M} IST" in answer  # Babel's, en_GB
        assert "Times are in Asia/Kolkata" in answer and "/timezone" in answer
        before = len(telegram.sent(PERSON))
        found = papers(1, 3)
        for record in found:
            arxiv.add(record)
        # The papers are stored, held: a few more polls, and still no message.
        polls = len(arxiv.api_requests())
        process.wait_for(lambda: len(arxiv.api_requests()) >= polls + 3)
        assert len(telegram.sent(PERSON)) == before
        # Down at the digest time: stopped (SIGKILL) before it, started after it.
        assert process.stop(signal.SIGKILL) == -signal.SIGKILL
        late = clock() - at
        assert late < timedelta(0), f"killed {late} after the digest time: raise the lead"
        clock.turn_to(at + timedelta(seconds=2))  # the service is down at the digest time
        # Back, the digest is claimed at once; its first send fails (a 502), and the service
        # is killed again before the retry, the digest claimed but not sent.
        telegram.inject(Fault.server_error(502))
        process = start(tmp_path, database_url, arxiv, telegram, clock)
        process.wait_for(lambda: "digest of chat" in process.output and "502" in process.output)
        assert process.stop(signal.SIGKILL) == -signal.SIGKILL
        assert digests(telegram, PERSON) == []
        process = start(tmp_path, database_url, arxiv, telegram, clock)
        telegram.wait_sync(lambda: digests(telegram, PERSON), PATIENCE)
        assert wall_clock() < at  # the turned clock's digest time, not the wall's
        polls = len(arxiv.api_requests())
        process.wait_for(lambda: len(arxiv.api_requests()) >= polls + 3)
        stopped(process)

    (digest,) = digests(telegram, PERSON)
    assert digest.startswith("📚 3 new papers since")
    for record in found:
        assert digest.count(record.title) == 1
    assert "★ Dezun Dong" in digest
    assert len(telegram.sent(PERSON)) == before + 1  # the digest, and nothing per paper


def test_a_group_digest_only_admins_change_it_and_off_sends_sixty_papers_in_three_messages(
    tmp_path: Path, database_url: str
) -> None:
    with fakes() as (arxiv, telegram):
        telegram.add_chat(GROUP, chat_type="group", title="Reading group")
        telegram.set_admins(GROUP, [ADMIN])
        process = start(tmp_path, database_url, arxiv, telegram)
        process.wait_for(lambda: "stored silently" in process.output)
        admin, member = {"user_id": ADMIN}, {"user_id": MEMBER}
        ask(telegram, GROUP, "/subscribe", "now follows", **admin)

        refused = ask(telegram, GROUP, "/digest daily 08:00", "administrators", **member)
        assert refused == (
            "Only this group's administrators can change its digest.\nAnyone can ask: /digest"
        )
        refused = ask(telegram, GROUP, "/timezone Europe/Berlin", "administrators", **member)
        assert refused == (
            "Only this group's administrators can change its time zone.\nAnyone can ask: /timezone"
        )
        shown = ask(telegram, GROUP, "/digest", "Digest:", **member)  # anyone may ask
        assert shown.startswith("Digest: off") and "Times are in UTC" in shown
        ask(telegram, GROUP, "/digest weekly mon 08:00", "weekly on Monday at 08:00", **admin)

        # The rest in a private chat: a group's replies are spaced 3 s apart.
        ask(telegram, PERSON, "/subscribe", "now follows")
        for command, answer in [
            (
                "/digest daily 25:00",
                "'25:00' is not a time of day; use HH:MM from 00:00 to 23:59, or 8am.",
            ),
            ("/digest weekly funday 08:00", "'funday' is not a day of the week; use one of mon,"),
            ("/timezone Mars/Olympus", "'Mars/Olympus' is not a time zone I know; use an IANA"),
            ("/timezone UTC+15", "UTC+15 is not an offset in use; offsets go from UTC-12:00"),
        ]:
            reply = ask(telegram, PERSON, command, answer[:12])
            assert reply.startswith(answer) and reply.count("\n") == 1  # and an example
        assert ask(telegram, PERSON, "/timezone", "Time zone:").startswith("Time zone: UTC;")
        assert ask(telegram, PERSON, "/digest", "Digest:").startswith("Digest: off")

        ask(telegram, PERSON, "/timezone Europe/Berlin", "Time zone: Europe/Berlin")
        ask(telegram, PERSON, "/digest weekly mon 08:00", "weekly on Monday at 08:00")
        before = {chat: len(telegram.sent(chat)) for chat in (PERSON, GROUP)}
        found = papers(100, 60)
        for record in found:
            arxiv.add(record)
        polls = len(arxiv.api_requests())
        process.wait_for(lambda: len(arxiv.api_requests()) >= polls + 3)
        assert {chat: len(telegram.sent(chat)) for chat in (PERSON, GROUP)} == before  # held
        waiting = ask(telegram, PERSON, "/digest", "waiting")
        assert "(60 papers waiting)" in waiting

        answer = ask(telegram, PERSON, "/digest off", "Digest off")
        assert "The 60 papers waiting go out now, as one digest." in answer
        telegram.wait_sync(lambda: digest_complete(telegram, 60), PATIENCE)
        later = make_record(arxiv_id="2612.09999", title="After The Digest", authors=["Dezun Dong"])
        arxiv.add(later)  # from now on one message per paper
        telegram.wait_sync(
            lambda: any("After The Digest" in t for t in texts(telegram, PERSON)), PATIENCE
        )
        polls = len(arxiv.api_requests())
        process.wait_for(lambda: len(arxiv.api_requests()) >= polls + 3)
        stopped(process)

    assert digests(telegram, GROUP) == []  # the group's digest is weeks away
    sent = digests(telegram, PERSON)
    assert 1 <= len(sent) <= 3
    assert sent[0].startswith("📚 60 new papers since")
    listed = [r for r in found if any(r.title + "\n" in t for t in sent)]
    assert sum(t.count("Digest Routing Paper") for t in sent) == len(listed)
    if len(listed) < 60:
        assert sent[-1].endswith(f"… and {60 - len(listed)} more: /recent 20")
    assert all(len(t) <= 4096 for t in sent)


def test_a_clock_change_neither_skips_nor_doubles_a_digest(
    tmp_path: Path, database_url: str
) -> None:
    """Two zones change their clocks a minute or two from now, by a minute (a real zone moves an
    hour on the last Sunday in March; the rule is the same). In "Test/Spring" the digest's wall
    time never happens that day; in "Test/Autumn" it happens twice. Each digest goes out once."""
    zones = tmp_path / "zoneinfo"
    zones.mkdir()
    clock = TurnedClock(tmp_path / "clock")
    with fakes() as (arxiv, telegram):
        process = start(tmp_path, database_url, arxiv, telegram, clock, PYTHONTZPATH=str(zones))
        process.wait_for(lambda: "stored silently" in process.output)
        for chat in (PERSON, OTHER):
            ask(telegram, chat, "/subscribe", "now follows")
        # The zones are written now, before any /timezone reads the zone database.
        change = digest_minute(clock, lead=TURNED_LEAD)
        write_zone(zones, "Test/Spring", change_at=change, before=3600, after=3600 + 60)
        write_zone(zones, "Test/Autumn", change_at=change, before=3600 + 60, after=3600)
        # Spring: local clocks jump from (change + 1 h) to (change + 1 h 1 min): that minute is
        # skipped, and read with the old offset it falls at the change itself.
        # Autumn: local clocks go back from (change + 1 h 1 min) to (change + 1 h): that minute
        # comes first at change - 1 min, and again at the change.
        wall = change + timedelta(hours=1)
        for chat, zone in ((PERSON, "Test/Spring"), (OTHER, "Test/Autumn")):
            ask(telegram, chat, f"/timezone {zone.lower()}", f"Time zone: {zone}")
            ask(telegram, chat, f"/digest daily {wall:%H:%M}", f"daily at {wall:%H:%M}")
        for record in papers(300, 2):
            arxiv.add(record)
        polls = len(arxiv.api_requests())
        process.wait_for(lambda: len(arxiv.api_requests()) >= polls + 3)
        assert clock() < change - timedelta(minutes=1), "set-up too slow"
        assert digests(telegram, PERSON) == digests(telegram, OTHER) == []

        clock.turn_to(change - timedelta(seconds=59))  # the repeated minute's first time
        telegram.wait_sync(lambda: digests(telegram, OTHER), PATIENCE)
        assert wall_clock() < change - timedelta(minutes=1)  # on the turned clock
        assert digests(telegram, PERSON) == []  # its minute is not yet
        clock.turn_to(change + timedelta(seconds=1))  # the skipped minute, read before the change
        telegram.wait_sync(lambda: digests(telegram, PERSON), PATIENCE)
        clock.turn_to(change + timedelta(seconds=20))  # past the repeated minute's second time
        polls = len(arxiv.api_requests())
        process.wait_for(lambda: len(arxiv.api_requests()) >= polls + 3)  # the sender looks again
        tomorrow = wall + timedelta(days=1)  # a local wall time, as the answer shows it
        for chat in (PERSON, OTHER):
            next_at = f"Next: {tomorrow.day} {tomorrow:%b %Y, %H:%M}"  # Babel's, en_GB
            assert next_at in ask(telegram, chat, "/digest", "Next:")
        stopped(process)

    for chat in (PERSON, OTHER):
        (digest,) = digests(telegram, chat)
        assert digest.startswith("📚 2 new papers since")


@pytest.mark.real_clock
@pytest.mark.skipif(
    BACKEND != "sqlite",
    reason="a minute of the wall clock, the same on every database; the tests above check the "
    "digest's claims on each, on a clock they turn",
)
def test_on_the_wall_clock_a_digest_comes_at_its_minute_and_not_before(
    tmp_path: Path, database_url: str
) -> None:
    """The smoke test of the real clock: `arxiv-watcher run` itself, a digest at the next whole
    minute of the wall clock, the papers held until then and listed in it once."""
    with fakes() as (arxiv, telegram):
        process = start(tmp_path, database_url, arxiv, telegram)
        process.wait_for(lambda: "stored silently" in process.output)
        ask(telegram, PERSON, "/subscribe", "now follows")
        at = digest_minute(wall_clock, lead=15)
        ask(telegram, PERSON, f"/digest daily {at:%H:%M}", f"daily at {at:%H:%M}")
        before = len(telegram.sent(PERSON))
        found = papers(200, 2)
        for record in found:
            arxiv.add(record)
        polls = len(arxiv.api_requests())
        process.wait_for(lambda: len(arxiv.api_requests()) >= polls + 3)
        assert wall_clock() < at, "set-up too slow: raise the lead"
        assert len(telegram.sent(PERSON)) == before  # held
        telegram.wait_sync(
            lambda: digests(telegram, PERSON), (at - wall_clock()).total_seconds() + PATIENCE
        )
        assert wall_clock() >= at
        stopped(process)

    (digest,) = digests(telegram, PERSON)
    assert digest.startswith("📚 2 new papers since")
    for record in found:
        assert digest.count(record.title) == 1
    assert len(telegram.sent(PERSON)) == before + 1
