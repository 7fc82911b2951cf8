"""The fetch step against the fake arXiv API over real HTTP: politeness, retries and errors.

Spacing is asserted as a lower bound measured at the server (the client must wait at least
`min_interval`), which holds however slow the machine is.
"""

from __future__ import annotations

import asyncio
import itertools
import logging
import socket
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from email.utils import format_datetime

import httpx
import pytest

from tests.fakes.arxiv_api import FakeArxiv, Fault, FaultKind, SeenRequest
from tests.fakes.corpus import dezun_dong_records
from tests.harness.patience import LOOPBACK_TIMEOUT, wait_until
from watcher import __version__
from watcher.arxiv.fetch import USER_AGENT, ArxivClient
from watcher.arxiv.parse import parse_feed
from watcher.errors import (
    ArxivAPIError,
    ArxivBadFeed,
    ArxivHTTPError,
    ArxivUnreachable,
)

QUERY = 'au:"Dezun Dong"'
INTERVAL = 0.2


@pytest.fixture
def fake() -> Iterator[FakeArxiv]:
    with FakeArxiv(dezun_dong_records()) as server:
        yield server


def client_for(
    fake: FakeArxiv,
    *,
    min_interval: float = INTERVAL,
    timeout: float = 5.0,
    backoff_max: float = 5.0,
    max_retries: int = 4,
) -> ArxivClient:
    return ArxivClient(
        fake.url,
        min_interval=min_interval,
        timeout=timeout,
        max_retries=max_retries,
        backoff_base=0.01,
        backoff_max=backoff_max,
    )


def gaps(requests: list[SeenRequest]) -> list[float]:
    return [later.time - earlier.time for earlier, later in itertools.pairwise(requests)]


async def test_sends_the_query_with_a_user_agent_naming_the_watcher(fake: FakeArxiv) -> None:
    async with client_for(fake) as client:
        body = await client.query(search_query=QUERY, start=5, max_results=3)
    (seen,) = fake.requests
    assert seen.headers["User-Agent"] == USER_AGENT
    assert USER_AGENT.startswith(f"arxiv-watcher/{__version__} (")
    assert seen.params == {
        "search_query": QUERY,
        "start": "5",
        "max_results": "3",
        "sortBy": "lastUpdatedDate",
        "sortOrder": "descending",
    }
    result = parse_feed(body)
    assert (result.total_results, result.start_index, len(result.records)) == (15, 5, 3)


async def test_defaults_are_arxivs_https_endpoint_and_its_terms() -> None:
    async with ArxivClient() as client:
        assert client.base_url == "https://export.arxiv.org/api/query"
        assert client.min_interval == 3.0


async def test_consecutive_requests_are_spaced_by_the_minimum_interval(fake: FakeArxiv) -> None:
    async with client_for(fake) as client:
        for start in range(4):
            await client.query(search_query=QUERY, start=start, max_results=1)
    assert len(fake.requests) == 4
    assert min(gaps(fake.requests)) >= INTERVAL


async def test_concurrent_callers_queue_on_one_connection(fake: FakeArxiv) -> None:
    async with client_for(fake) as client:
        bodies = await asyncio.gather(
            *(client.query(search_query=QUERY, start=i, max_results=1) for i in range(5))
        )
    assert sorted(parse_feed(b).start_index or 0 for b in bodies) == [0, 1, 2, 3, 4]
    assert fake.max_concurrent_connections == 1
    assert fake.max_concurrent_requests == 1
    assert min(gaps(fake.requests)) >= INTERVAL


async def test_the_server_can_see_more_than_one_connection(fake: FakeArxiv) -> None:
    """Guards the test above: without the client's limits, the fake does count two at once."""
    fake.inject("timeout")
    async with httpx.AsyncClient(timeout=LOOPBACK_TIMEOUT) as free_for_all:
        held = asyncio.create_task(free_for_all.get(fake.url, params={"search_query": "au:x"}))
        await asyncio.to_thread(wait_until, lambda: bool(fake.requests), "the fake holds one")
        await free_for_all.get(fake.url, params={"search_query": "au:x"})
        held.cancel()
        with pytest.raises(asyncio.CancelledError):
            await held
    assert fake.max_concurrent_connections == 2
    assert fake.max_concurrent_requests == 2


@pytest.mark.parametrize("status", ["429", "503"])
async def test_retries_a_busy_server_and_logs_each_retry(
    fake: FakeArxiv, status: FaultKind, caplog: pytest.LogCaptureFixture
) -> None:
    fake.inject(status, times=2)
    with caplog.at_level(logging.DEBUG, logger="watcher.arxiv.fetch"):
        async with client_for(fake) as client:
            body = await client.query(search_query=QUERY)
    assert len(parse_feed(body).records) == 15
    assert [r.fault for r in fake.requests] == [status, status, None]
    assert min(gaps(fake.requests)) >= INTERVAL
    retries = [r.getMessage() for r in caplog.records if r.name == "watcher.arxiv.fetch"]
    assert len(retries) == 2
    assert "attempt 1 of 5" in retries[0]
    assert "attempt 2 of 5" in retries[1]
    assert f"HTTP {status}" in retries[0]
    assert "/api/query?search_query=" in retries[0]


async def test_retry_after_in_seconds_is_honoured(fake: FakeArxiv) -> None:
    fake.faults.append(Fault("429", retry_after="1"))
    async with client_for(fake, min_interval=0.05) as client:
        await client.query(search_query=QUERY)
    assert gaps(fake.requests)[0] >= 1.0


async def test_retry_after_as_an_http_date_is_honoured(fake: FakeArxiv) -> None:
    not_before = datetime.now(UTC).replace(microsecond=0) + timedelta(seconds=2)
    fake.faults.append(Fault("503", retry_after=format_datetime(not_before, usegmt=True)))
    async with client_for(fake, min_interval=0.05) as client:
        await client.query(search_query=QUERY)
    assert fake.requests[1].wall >= not_before.timestamp()


async def test_a_retry_after_longer_than_backoff_max_ends_the_request_carrying_the_wait(
    fake: FakeArxiv,
) -> None:
    fake.faults.append(Fault("429", retry_after="3600"))
    async with asyncio.timeout(30), client_for(fake, backoff_max=0.3) as client:
        with pytest.raises(ArxivHTTPError) as raised:
            await client.query(search_query=QUERY)
    assert len(fake.requests) == 1  # no early retry
    assert raised.value.status == 429 and raised.value.retry_after == 3600
    assert "asked us to wait 3600 s" in str(raised.value)


async def test_retry_after_never_shortens_the_minimum_interval(fake: FakeArxiv) -> None:
    fake.faults.append(Fault("503", retry_after="0"))
    async with client_for(fake, min_interval=0.4) as client:
        await client.query(search_query=QUERY)
    assert gaps(fake.requests)[0] >= 0.4


async def test_a_timeout_is_retried(fake: FakeArxiv) -> None:
    fake.inject("timeout")
    async with client_for(fake, timeout=0.3) as client:
        body = await client.query(search_query=QUERY)
    assert len(parse_feed(body).records) == 15
    assert [r.fault for r in fake.requests] == ["timeout", None]
    assert min(gaps(fake.requests)) >= INTERVAL


async def test_a_reset_connection_is_retried(fake: FakeArxiv) -> None:
    fake.inject("reset")
    async with client_for(fake) as client:
        body = await client.query(search_query=QUERY)
    assert len(parse_feed(body).records) == 15
    assert [r.fault for r in fake.requests] == ["reset", None]


async def test_http_errors_that_outlast_the_retries_raise_with_the_attempt_count(
    fake: FakeArxiv,
) -> None:
    fake.inject("503", times=3)
    async with client_for(fake, max_retries=2) as client:
        with pytest.raises(ArxivHTTPError) as caught:
            await client.query(search_query=QUERY)
    assert (caught.value.status, caught.value.attempt) == (503, 3)
    assert "/api/query" in caught.value.url
    assert len(fake.requests) == 3
    assert not fake.faults


async def test_timeouts_that_outlast_the_retries_raise_unreachable(fake: FakeArxiv) -> None:
    fake.inject("timeout", times=2)
    async with client_for(fake, max_retries=1, timeout=0.2) as client:
        with pytest.raises(ArxivUnreachable, match="after 2 attempts") as caught:
            await client.query(search_query=QUERY)
    assert caught.value.attempt == 2
    assert len(fake.requests) == 2


async def test_a_closed_port_is_unreachable() -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    client = ArxivClient(f"http://127.0.0.1:{port}/api/query", min_interval=0, max_retries=1)
    async with client:
        with pytest.raises(ArxivUnreachable) as caught:
            await client.query(search_query=QUERY)
    assert caught.value.attempt == 2


async def test_arxivs_error_feed_becomes_an_api_error_without_retry(fake: FakeArxiv) -> None:
    async with client_for(fake) as client:
        with pytest.raises(ArxivAPIError, match="unbalanced parentheses") as caught:
            await client.query(search_query='(au:"Dezun Dong"')
    assert caught.value.attempt == 1
    assert len(fake.requests) == 1


async def test_an_html_page_is_refused_without_retry(fake: FakeArxiv) -> None:
    fake.inject("html")
    async with client_for(fake) as client:
        with pytest.raises(ArxivBadFeed, match="HTML"):
            await client.query(search_query=QUERY)
    assert len(fake.requests) == 1


async def test_a_truncated_feed_is_returned_for_the_parser_to_refuse(fake: FakeArxiv) -> None:
    fake.inject("truncated")
    async with client_for(fake) as client:
        body = await client.query(search_query=QUERY)
    with pytest.raises(ArxivBadFeed):
        parse_feed(body)


async def test_redirects_are_followed(fake: FakeArxiv) -> None:
    async with ArxivClient(fake.redirecting_url, min_interval=0) as client:
        body = await client.query(search_query=QUERY)
    assert parse_feed(body).total_results == 15
    assert [r.path for r in fake.requests] == ["/old/api/query", "/api/query"]


def _replying(status: int, body: bytes, calls: list[httpx.Request]) -> httpx.MockTransport:
    def reply(request: httpx.Request) -> httpx.Response:
        calls.append(request)
        return httpx.Response(status, content=body)

    return httpx.MockTransport(reply)


@pytest.mark.parametrize("status", [400, 403, 404])
async def test_other_client_errors_are_http_errors_without_retry(status: int) -> None:
    calls: list[httpx.Request] = []
    transport = _replying(status, b"Bad Request, and no feed to say why", calls)
    async with ArxivClient(min_interval=0, transport=transport) as client:
        with pytest.raises(ArxivHTTPError) as caught:
            await client.query(search_query=QUERY)
    assert (caught.value.status, caught.value.attempt, len(calls)) == (status, 1, 1)


@pytest.mark.parametrize("body", [b"", b"Rate exceeded.", b"\xff\xfe garbage"])
async def test_a_200_that_is_not_xml_is_refused(body: bytes) -> None:
    calls: list[httpx.Request] = []
    async with ArxivClient(min_interval=0, transport=_replying(200, body, calls)) as client:
        with pytest.raises(ArxivBadFeed):
            await client.query(search_query=QUERY)
    assert len(calls) == 1
