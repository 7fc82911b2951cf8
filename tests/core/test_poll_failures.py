"""A poll that fails, for any reason, is recorded with its real cause, backed off with a bound,
and never stops the other authors' polls: fake arXiv over real HTTP, a real database."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from datetime import timedelta

import pytest
from sqlalchemy import Engine, text
from sqlmodel import Session, update

from tests.fakes.arxiv_api import FakeArxiv, Fault
from tests.fakes.corpus import dezun_dong_records, make_record
from tests.harness.patience import LOOPBACK_TIMEOUT
from watcher.arxiv.fetch import ArxivClient
from watcher.follows.followed import Followed
from watcher.polling.failures import retry_delay
from watcher.polling.poll import Poller
from watcher.store import Store
from watcher.store.tables import PollState, utcnow

POISONED_TITLE = "A Paper The Database Refuses"
POISON_MESSAGE = "refused by the test trigger"


@pytest.fixture
def fake() -> Iterator[FakeArxiv]:
    with FakeArxiv(dezun_dong_records()) as server:
        yield server


def poller(store: Store, client: ArxivClient) -> Poller:
    return Poller(store=store, client=client, poll_interval=3600, retry_first=60)


def by_name(store: Store) -> dict[str, Followed]:
    return {f.name: f for f in store.followed()}


def test_the_backoff_doubles_up_to_the_cap_and_never_overflows() -> None:
    cap = timedelta(hours=1)
    delays = [retry_delay(n, first=60, cap=cap) for n in (1, 2, 3, 6, 7, 42, 43, 1000, 10**9)]
    minutes = [round(d.total_seconds() / 60) for d in delays]
    assert minutes == [1, 2, 4, 32, 60, 60, 60, 60, 60]


async def test_an_author_failing_for_the_43rd_time_is_recorded_and_the_others_polled_on(
    engine: Engine, client: ArxivClient, fake: FakeArxiv
) -> None:
    store = Store(engine)
    store.follow(["Dezun Dong"])
    store.follow(["Jane Failing"])
    fake.fail_queries("Jane Failing")
    with Session(engine) as session:  # 42 failures in a row already, as after a long outage
        session.exec(update(PollState).values(consecutive_failures=42))  # type: ignore[call-overload]
        session.commit()

    report = await poller(store, client).poll()

    assert report.polled == ["Dezun Dong"]
    assert "HTTP 503" in report.failures["Jane Failing"]
    jane = by_name(store)["Jane Failing"]
    assert jane.consecutive_failures == 43
    assert jane.last_error is not None and "HTTP 503" in jane.last_error
    assert jane.next_poll is not None and jane.last_attempt is not None
    assert jane.next_poll - jane.last_attempt == timedelta(hours=1)  # capped at POLL_INTERVAL
    assert by_name(store)["Dezun Dong"].consecutive_failures == 0


async def test_an_absurd_retry_after_is_honoured_up_to_a_day(
    engine: Engine, fake: FakeArxiv
) -> None:
    store = Store(engine)
    store.follow(["Dezun Dong"])
    fake.faults.append(Fault("503", retry_after="1e20"))

    async with ArxivClient(
        fake.url, min_interval=0, timeout=LOOPBACK_TIMEOUT, max_retries=1
    ) as client:
        report = await poller(store, client).poll()

    assert "HTTP 503" in report.failures["Dezun Dong"]
    (followed,) = store.followed()
    assert followed.next_poll is not None and followed.last_attempt is not None
    assert followed.next_poll - followed.last_attempt == timedelta(days=1)


@pytest.fixture
def poisoned(engine: Engine) -> Engine:
    """A database that refuses to store one paper, as a real save can fail (a constraint, a
    full disk, a restarting server): the failure comes from the database itself."""
    with engine.begin() as connection:
        if engine.dialect.name == "sqlite":
            connection.execute(
                text(
                    "CREATE TRIGGER refuse_paper BEFORE INSERT ON paper "
                    f"WHEN NEW.title = '{POISONED_TITLE}' "
                    f"BEGIN SELECT RAISE(ABORT, '{POISON_MESSAGE}'); END"
                )
            )
        else:
            connection.execute(
                text(
                    "CREATE FUNCTION refuse_paper() RETURNS trigger AS $$ BEGIN "
                    f"IF NEW.title = '{POISONED_TITLE}' THEN RAISE EXCEPTION '{POISON_MESSAGE}'; "
                    "END IF; RETURN NEW; END $$ LANGUAGE plpgsql"
                )
            )
            connection.execute(
                text(
                    "CREATE TRIGGER refuse_paper BEFORE INSERT ON paper "
                    "FOR EACH ROW EXECUTE FUNCTION refuse_paper()"
                )
            )
    return engine


async def test_a_failed_save_is_a_poll_failure_with_its_real_cause(
    poisoned: Engine, client: ArxivClient, fake: FakeArxiv, caplog: pytest.LogCaptureFixture
) -> None:
    store = Store(poisoned)
    store.follow(["Dezun Dong"])
    watcher = poller(store, client)
    await watcher.poll()
    fake.add(make_record(arxiv_id="2611.00666", title=POISONED_TITLE, authors=["Dezun Dong"]))

    with caplog.at_level(logging.WARNING, logger="watcher.polling.poll"):
        started = utcnow()
        report = await watcher.poll(force=True)

    assert POISON_MESSAGE in report.failures["Dezun Dong"]
    (followed,) = store.followed()
    assert followed.consecutive_failures == 1
    assert followed.last_error is not None and POISON_MESSAGE in followed.last_error
    assert followed.next_poll is not None and followed.next_poll >= started + timedelta(seconds=59)
    (line,) = [r.getMessage() for r in caplog.records if "poll failed" in r.getMessage()]
    assert POISON_MESSAGE in line
    assert "autoflush" not in line and "[SQL:" not in line and "[parameters:" not in line
    assert store.paper("2611.00666") is None


async def test_a_failed_save_does_not_stop_the_next_group(
    poisoned: Engine, client: ArxivClient, fake: FakeArxiv
) -> None:
    store = Store(poisoned)
    store.follow(["Dezun Dong"])
    watcher = poller(store, client)
    await watcher.poll()
    store.follow(["Ann Other"])  # not backfilled yet: polled in a group of its own, after
    fake.add(make_record(arxiv_id="2611.00666", title=POISONED_TITLE, authors=["Dezun Dong"]))
    fake.add(make_record(arxiv_id="2611.00777", authors=["Ann Other"]))

    report = await watcher.poll(force=True)

    assert list(report.failures) == ["Dezun Dong"]
    assert report.polled == ["Ann Other"]
    assert store.paper("2611.00777") is not None
