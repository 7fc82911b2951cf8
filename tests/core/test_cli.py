"""The command line against the fake arXiv: its commands run by `watcher.cli.command_line.main` in
the test's process (`run_cli_here`), and through its real entry point (`python -m watcher`, the
`entry_point` fixture) where the process itself is the point: --version, --help, db upgrade."""

from __future__ import annotations

import json
import socket
import subprocess
from collections.abc import Iterator
from datetime import UTC, date, datetime
from functools import partial
from pathlib import Path

import pytest

from tests.fakes.arxiv_api import FakeArxiv
from tests.fakes.corpus import (
    LOOKALIKES_BY_THE_AUTHOR,
    dezun_dong_records,
    lookalike_records,
    make_record,
)
from tests.harness.cli_helpers import run_cli, run_cli_here
from watcher.runtime.db import MIGRATIONS, create_db_engine
from watcher.store import Store

JSON_KEYS = {
    "arxiv_id",
    "version",
    "title",
    "authors",
    "primary_category",
    "categories",
    "published",
    "updated",
    "abstract",
    "abs_url",
    "pdf_url",
    "doi",
    "comment",
    "journal_ref",
    "acm_class",
    "msc_class",
}


@pytest.fixture
def fake() -> Iterator[FakeArxiv]:
    with FakeArxiv([*dezun_dong_records(), *lookalike_records()]) as server:
        yield server


def _settings(database_url: str, fake: FakeArxiv) -> dict[str, str]:
    return dict(
        DATABASE_URL=database_url,
        ARXIV_API_URL=fake.url,
        ARXIV_AUTHOR_FEED_URL=fake.author_feed_url,
        ARXIV_MIN_INTERVAL="0",
        ARXIV_MAX_RETRIES="1",
    )


@pytest.fixture
def entry_point(tmp_path: Path, database_url: str, fake: FakeArxiv):  # type: ignore[no-untyped-def]
    return partial(run_cli, cwd=tmp_path, **_settings(database_url, fake))


@pytest.fixture
def cli(tmp_path: Path, database_url: str, fake: FakeArxiv):  # type: ignore[no-untyped-def]
    return partial(run_cli_here, cwd=tmp_path, **_settings(database_url, fake))


def test_poll_then_recent_and_subject_show_the_followed_author_only(cli, fake: FakeArxiv) -> None:  # type: ignore[no-untyped-def]
    polled = cli("poll")
    assert polled.returncode == 0, polled.stderr
    history = len(dezun_dong_records()) + len(LOOKALIKES_BY_THE_AUTHOR)
    assert f"Stored {history} earlier record(s) silently" in polled.stdout

    recent = cli("recent", "-n", "100", "--json")
    papers = json.loads(recent.stdout)
    assert len(papers) == history
    assert all(set(paper) == JSON_KEYS for paper in papers)
    assert all(any("Dong" in name for name in paper["authors"]) for paper in papers)
    strangers = {r.arxiv_id for r in lookalike_records()} - LOOKALIKES_BY_THE_AUTHOR
    assert strangers.isdisjoint(paper["arxiv_id"] for paper in papers)
    published = [paper["published"] for paper in papers]
    assert published == sorted(published, reverse=True)

    subject = cli("subject", "cs.dc", "-n", "100", "--json")
    in_dc = json.loads(subject.stdout)
    his = [
        *dezun_dong_records(),
        *(r for r in lookalike_records() if r.arxiv_id in LOOKALIKES_BY_THE_AUTHOR),
    ]
    expected = [r.arxiv_id for r in his if "cs.DC" in r.categories]
    assert sorted(p["arxiv_id"] for p in in_dc) == sorted(expected)

    text = cli("recent", "-n", "2")
    assert text.returncode == 0
    assert len(text.stdout.splitlines()) == 2


def test_poll_json_reports_new_papers_with_their_kind(cli, fake: FakeArxiv) -> None:  # type: ignore[no-untyped-def]
    assert cli("poll").returncode == 0
    fake.add(make_record(arxiv_id="2611.99999", authors=["Dezun Dong"]))

    polled = cli("poll", "--json")

    assert polled.returncode == 0, polled.stderr
    (paper,) = json.loads(polled.stdout)
    assert set(paper) == JSON_KEYS | {"kind"}
    assert (paper["arxiv_id"], paper["version"], paper["kind"]) == ("2611.99999", 1, "new")
    assert json.loads(cli("poll", "--json").stdout) == []


def test_unknown_category_is_a_usage_error_with_suggestions(cli) -> None:  # type: ignore[no-untyped-def]
    result = cli("subject", "cs.DCC")
    assert result.returncode == 2
    assert "Unknown arXiv category 'cs.DCC'" in result.stderr
    assert "cs.DC" in result.stderr
    assert "Traceback" not in result.stderr


def test_known_category_without_papers_names_those_with_some(cli) -> None:  # type: ignore[no-untyped-def]
    cli("poll")
    result = cli("subject", "math.CO")
    assert result.returncode == 0
    assert "No stored papers in math.CO" in result.stdout
    assert "cs.DC" in result.stdout


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["recent", "-n", "0"], "must be between 1 and 1000"),
        (["recent", "-n", "abc"], "expected a whole number"),
        (["recent", "--author", "Nobody Here"], "is not followed"),
        (["nonsense"], "invalid choice"),
        (["unfollow", "Nobody Here"], "is not followed"),
        (["follow", "x" * 101], "at most 100 characters"),
        (["follow", "!!!"], "cannot follow '!!!': an author name has only letters"),
        (["follow", "Li"], "cannot follow 'Li': a name needs a given name and a family name"),
        (["follow", "Daoyi Dong|D"], "cannot follow 'D': a name needs a given name"),
        (["follow", "|"], "give a name to follow"),
        (["follow", "0000-0002-1825-0098"], "is not a valid ORCID iD: its check digit"),
        (["follow", "arxiv:Dong D"], "is not an arXiv author id"),
        (["follow", "arxiv:nobody_n_1"], "arXiv knows no author id nobody_n_1"),
    ],
)
def test_usage_errors_exit_2_with_a_message(cli, args: list[str], message: str) -> None:  # type: ignore[no-untyped-def]
    result = cli(*args)
    assert result.returncode == 2
    assert message in result.stderr
    assert "Traceback" not in result.stderr


def test_follow_unfollow_and_authors(cli) -> None:  # type: ignore[no-untyped-def]
    assert cli("follow", "Daoyi Dong|D.-Y. Dong").stdout == (
        "Now following Daoyi Dong. Their history is fetched silently at the "
        "next poll; only later papers are announced.\n"
    )
    # A person, not "it"; and no history to fetch for a follow that already was.
    assert cli("follow", "dong daoyi|Dong, D.-Y.").stdout == "Already following Daoyi Dong.\n"
    authors = cli("authors").stdout.splitlines()
    assert authors == [
        "Daoyi Dong (also D.-Y. Dong): 0 records, last success never",
        "Dezun Dong: 0 records, last success never",
    ]
    assert "No longer following Daoyi Dong" in cli("unfollow", "Daoyi Dong").stdout
    assert cli("authors").stdout.startswith("Dezun Dong")


def test_an_identity_is_followed_and_authors_and_health_show_it_failing(
    cli, fake: FakeArxiv
) -> None:  # type: ignore[no-untyped-def]
    fake.claim("dong_d_1", [r.arxiv_id for r in dezun_dong_records()])
    total = len(dezun_dong_records())
    followed = cli("follow", "https://arxiv.org/a/dong_d_1")
    assert followed.returncode == 0, followed.stderr
    assert followed.stdout.startswith(
        f"Now following Dezun Dong (arxiv:dong_d_1): arXiv lists {total} paper(s) they claimed."
    )
    assert "Already following Dezun Dong (arxiv:dong_d_1)" in cli("follow", "arxiv:dong_d_1").stdout
    assert cli("poll").returncode == 0
    polled = f"Dezun Dong (arxiv:dong_d_1): {total} records, last success "
    assert any(line.startswith(polled) for line in cli("authors").stdout.splitlines())

    # arXiv stops knowing the id (404): each poll is a recorded failure; nothing stored is lost.
    fake.unknown_author_status = 404
    del fake.author_claims["dong_d_1"]
    for _ in range(3):
        failed = cli("poll")
        assert failed.returncode == 1
        assert (
            "polling Dezun Dong (arxiv:dong_d_1) failed: arXiv knows no author id dong_d_1"
            in failed.stderr
        )
    (line,) = [a for a in cli("authors").stdout.splitlines() if "arxiv:dong_d_1" in a]
    assert line.startswith(polled)
    assert line.endswith("3 failures in a row: arXiv knows no author id dong_d_1")
    # One follow's fault, not the service's (issue 29.3): healthy, the follow named.
    health = cli("health")
    assert health.returncode == 0, health.stdout
    assert health.stdout.startswith("ok: last successful poll ")
    assert "; failing: Dezun Dong (arxiv:dong_d_1)" in health.stdout
    gone = cli("unfollow", "https://arxiv.org/a/dong_d_1")
    assert gone.stdout.strip() == "No longer following Dezun Dong (arxiv:dong_d_1)."
    assert "arxiv:dong_d_1" not in cli("authors").stdout
    assert cli("health").returncode == 0


def test_authors_says_one_record_and_one_failure_in_the_singular(cli, fake: FakeArxiv) -> None:  # type: ignore[no-untyped-def]
    """Issue 30, item 10: "1 records"."""
    first = dezun_dong_records()[0].arxiv_id
    fake.claim("dong_d_1", [first])
    assert cli("follow", "arxiv:dong_d_1").returncode == 0
    assert cli("poll").returncode == 0
    (line,) = [a for a in cli("authors").stdout.splitlines() if "arxiv:dong_d_1" in a]
    assert line.startswith("Dezun Dong (arxiv:dong_d_1): 1 record, last success ")
    fake.unknown_author_status = 404
    del fake.author_claims["dong_d_1"]
    assert cli("poll").returncode == 1
    (line,) = [a for a in cli("authors").stdout.splitlines() if "arxiv:dong_d_1" in a]
    assert line.endswith(", 1 failure in a row: arXiv knows no author id dong_d_1")


def test_an_identity_in_watch_authors_is_followed_and_polled_by_its_feed(
    cli, fake: FakeArxiv
) -> None:  # type: ignore[no-untyped-def]
    fake.claim("dong_d_1", [r.arxiv_id for r in dezun_dong_records()])
    watching = {"WATCH_AUTHORS": "arxiv:dong_d_1"}
    assert cli("authors", **watching).stdout.splitlines() == [
        "arxiv:dong_d_1: 0 records, last success never"
    ]
    assert cli("poll", **watching).returncode == 0
    total = len(dezun_dong_records())
    (line,) = cli("authors", **watching).stdout.splitlines()
    assert line.startswith(f"arxiv:dong_d_1: {total} records, last success ")
    assert any(r.path == "/a/dong_d_1.atom" for r in fake.requests)
    # Followed by the command line too, the person's name from their feed is shown from then on.
    assert "Already following Dezun Dong (arxiv:dong_d_1)" in cli("follow", "arxiv:dong_d_1").stdout
    assert cli("authors", **watching).stdout.startswith("Dezun Dong (arxiv:dong_d_1): ")
    removed = cli("unfollow", "arxiv:dong_d_1", **watching)
    assert "it is in WATCH_AUTHORS, so the next start follows it again" in removed.stdout


def test_a_bad_setting_stops_at_start_naming_the_variable(cli) -> None:  # type: ignore[no-untyped-def]
    result = cli("recent", ARXIV_MIN_INTERVAL="soon")
    assert result.returncode == 2
    assert "ARXIV_MIN_INTERVAL" in result.stderr
    assert "Traceback" not in result.stderr


def test_unreachable_arxiv_is_one_line_and_exit_1(cli) -> None:  # type: ignore[no-untyped-def]
    with socket.socket() as closed:
        closed.bind(("127.0.0.1", 0))
        port = closed.getsockname()[1]
    result = cli("poll", ARXIV_API_URL=f"http://127.0.0.1:{port}/api/query")
    assert result.returncode == 1
    assert "polling Dezun Dong failed" in result.stderr
    assert "Traceback" not in result.stderr


def test_health_tells_the_truth(cli) -> None:  # type: ignore[no-untyped-def]
    empty = cli("health")
    assert empty.returncode == 1
    assert "migrations are pending" in empty.stdout
    cli("db", "upgrade")
    before = cli("health")
    assert before.returncode == 1
    assert "no successful poll yet" in before.stdout
    cli("poll")
    after = cli("health")
    assert after.returncode == 0
    assert after.stdout.startswith("ok: last successful poll")
    # With a one-second interval the same poll is stale once two seconds have passed.
    subprocess.run(["sleep", "2.1"], check=True)
    stale = cli("health", POLL_INTERVAL="1")
    assert stale.returncode == 1
    assert "more than two poll intervals" in stale.stdout
    # On arXiv's calendar the sources poll once an evening: a poll two seconds old is fresh.
    calendar = cli("health", POLL_INTERVAL="1", POLL_SCHEDULE="calendar")
    assert calendar.returncode == 0, calendar.stdout
    assert "last mailing" not in calendar.stdout  # none seen yet


def test_health_fails_when_the_database_does_not_answer(cli) -> None:  # type: ignore[no-untyped-def]
    result = cli("health", DATABASE_URL="postgresql://postgres@127.0.0.1:1/test")
    assert result.returncode == 1
    assert result.stdout.startswith("unhealthy: DATABASE_URL")


def test_db_upgrade_then_current(cli, entry_point) -> None:  # type: ignore[no-untyped-def]
    migrations = len(list((MIGRATIONS / "versions").glob("[0-9]*.py")))
    assert migrations >= 5
    assert entry_point("db", "upgrade").stdout.strip() == f"applied {migrations} migration(s)"
    assert cli("db", "current").stdout.strip() == "database is up to date"
    assert cli("db", "upgrade").stdout.strip() == "database is up to date"


def test_version_and_help(entry_point) -> None:  # type: ignore[no-untyped-def]
    assert entry_point("--version").stdout.startswith("arxiv-watcher ")
    helped = entry_point("--help")
    for command in ("run", "poll", "recent", "subject", "follow", "unfollow", "authors", "health"):
        assert command in helped.stdout


def test_authors_and_health_show_the_last_mailing(cli, database_url: str) -> None:  # type: ignore[no-untyped-def]
    cli("db", "upgrade")
    assert cli("poll").returncode == 0
    engine = create_db_engine(database_url)
    try:
        Store(engine).record_mailing_seen(
            date(2026, 12, 2), source="OAI", at=datetime(2026, 12, 2, 3, 31, tzinfo=UTC)
        )
    finally:
        engine.dispose()
    line = (
        "last mailing 2026-12-02, first from OAI-PMH at 2026-12-02 03:31 UTC, 2 h 31 min after "
        "the announcement"
    )
    assert f"arXiv: {line}" in cli("authors").stdout.splitlines()
    health = cli("health")
    assert health.returncode == 0 and health.stdout.rstrip().endswith(f"; {line}")


def test_health_names_a_source_that_stopped_parsing_and_stays_ok(cli, database_url: str) -> None:  # type: ignore[no-untyped-def]
    cli("db", "upgrade")
    assert cli("poll").returncode == 0
    engine = create_db_engine(database_url)
    try:
        Store(engine).record_parse_failure(
            "listing", url="https://arxiv.org/list/cs/new", problem="names no mailing date",
            now=datetime(2026, 12, 4, 1, 1, tzinfo=UTC), admin_chats=[], wording=str,
        )  # fmt: skip
    finally:
        engine.dispose()
    health = cli("health")
    assert health.returncode == 0, health.stdout  # the other sources bring the papers
    assert (
        "; not parsing: listing since 2026-12-04 01:01 UTC (https://arxiv.org/list/cs/new: "
        "names no mailing date)"
    ) in health.stdout
