"""WATCH_AUTHORS' unknown author ids are refused as /subscribe refuses them (issue 29: "unknown
identities are refused everywhere with the same answer"), in-process against the fake arXiv,
on both databases: the service's start asks arXiv about a new id once, refuses an unknown one
with `Identity.unknown` (logged at ERROR, not followed, named by `health` and `authors`), asks
nothing about ids that polled well, and follows as written when arXiv does not answer.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator

import pytest
from sqlalchemy import Engine

from tests.fakes.arxiv_api import FakeArxiv
from tests.fakes.corpus import dezun_dong_records
from watcher.core.watched_check import follow_as_written, known_watched
from watcher.follows.identity import Identity
from watcher.runtime.health import verdict
from watcher.runtime.service import arxiv_client, start_context
from watcher.settings import Settings, load_settings
from watcher.store import Store
from watcher.store.chats import Chats

UNKNOWN = Identity("arxiv", "nobody_n_1")
KNOWN = Identity("arxiv", "dong_d_1")


@pytest.fixture
def fake() -> Iterator[FakeArxiv]:
    with FakeArxiv(dezun_dong_records()) as server:
        server.claim(KNOWN.value, [dezun_dong_records()[0].arxiv_id])
        yield server


def settings_for(fake: FakeArxiv, database_url: str) -> Settings:
    return load_settings(
        database_url=database_url,
        watch_authors=["Dezun Dong", str(KNOWN), str(UNKNOWN)],
        arxiv_api_url=fake.url,
        arxiv_author_feed_url=fake.author_feed_url,
        arxiv_min_interval=0,
        arxiv_max_retries=1,
    )


async def start(settings: Settings, engine: Engine) -> None:
    async with arxiv_client(settings) as client:
        context = await start_context(settings, engine, client)
        await context.poller.poll(force=True)


async def test_an_unknown_author_id_in_watch_authors_is_refused_at_start(
    fake: FakeArxiv, database_url: str, engine: Engine, caplog: pytest.LogCaptureFixture
) -> None:
    settings = settings_for(fake, database_url)
    store = Store(engine)
    with caplog.at_level(logging.INFO, logger="watcher"):
        await start(settings, engine)

    assert store.find_identity(UNKNOWN.key) is None
    known = store.find_identity(KNOWN.key)
    assert known is not None and known.watched and known.last_success is not None
    errors = [r.getMessage() for r in caplog.records if r.levelno == logging.ERROR]
    assert errors == [
        f"WATCH_AUTHORS entry arxiv:nobody_n_1 is not followed: {UNKNOWN.unknown}. "
        "Correct it or take it out of WATCH_AUTHORS"
    ]
    result = verdict(settings, engine, [])
    assert result.healthy, result.line
    assert "; WATCH_AUTHORS not followed: arxiv:nobody_n_1" in result.line

    # A chat's /subscribe alone joins the watched authors the start kept, never the refused.
    chats = Chats(engine)
    chats.seen(10, kind="private")
    joined = [f.key for f in known_watched(store, settings.followed_specs)]
    assert UNKNOWN.key not in joined and KNOWN.key in joined
    assert store.find_identity(UNKNOWN.key) is None

    # The next start asks about the refused id again (it is still new), not the known one.
    asked = len(fake.author_requests())
    async with arxiv_client(settings) as client:
        await start_context(settings, engine, client)
    assert [r.path for r in fake.author_requests()[asked:]] == ["/a/nobody_n_1.atom"]


async def test_a_cli_command_follows_as_written_and_the_next_start_refuses(
    fake: FakeArxiv, database_url: str, engine: Engine, caplog: pytest.LogCaptureFixture
) -> None:
    settings = settings_for(fake, database_url)
    store = Store(engine)
    follow_as_written(store, settings.followed_specs)  # as every CLI command opens the store
    assert fake.author_requests() == []  # the CLI never asks
    made = store.find_identity(UNKNOWN.key)
    assert made is not None and made.watched

    with caplog.at_level(logging.INFO, logger="watcher"):
        await start(settings, engine)
    refused = store.find_identity(UNKNOWN.key)
    assert refused is not None and not refused.watched and not refused.polled
    assert "is no longer in WATCH_AUTHORS" not in caplog.text
    follow_as_written(store, settings.followed_specs)  # a later CLI command: still unwatched
    after = store.find_identity(UNKNOWN.key)
    assert after is not None and not after.watched


async def test_arxiv_not_answering_at_start_follows_as_written(
    fake: FakeArxiv, database_url: str, engine: Engine, caplog: pytest.LogCaptureFixture
) -> None:
    # Nothing listens on the discard port: arXiv's author feeds cannot be reached.
    settings = settings_for(fake, database_url).model_copy(
        update={"arxiv_author_feed_url": "http://127.0.0.1:9/a/"}
    )
    with caplog.at_level(logging.INFO, logger="watcher"):
        async with arxiv_client(settings) as client:
            await start_context(settings, engine, client)
    store = Store(engine)
    for identity in (KNOWN, UNKNOWN):
        followed = store.find_identity(identity.key)
        assert followed is not None and followed.watched
    assert (
        "WATCH_AUTHORS entry arxiv:dong_d_1 is followed as written, unchecked: arXiv was not "
        "asked about this author id: arXiv did not answer" in caplog.text
    )
    assert not [r for r in caplog.records if r.levelno == logging.ERROR]
