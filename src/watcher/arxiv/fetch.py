"""Fetch step: a polite async client for the arXiv API that returns raw feed bytes.

arXiv's terms of use ask for at most one request every three seconds and one connection at a
time, and for a User-Agent that names the software. `ArxivClient` does that by default: one
connection, callers queue on a lock, and a request starts no sooner than `min_interval` seconds
after the previous one *ended*, so the spacing holds at arXiv's end however slow the network.
Use one client per process; the spacing is per client.

`get` fetches another arXiv service (the OAI-PMH harvest) through the same connection and
spacing: arXiv's limit counts all of a user's requests. `get_page` fetches a listing page
(`arxiv.org/list/...`, HTML) the same way, conditionally (`If-None-Match`,
`If-Modified-Since`; a 304 is an answer, not an error), and no sooner than `listing_interval`
seconds after the previous listing request (arXiv's robots.txt asks crawlers for 15 s).

Timeouts, connection errors, 429 and 5xx are retried with exponential backoff and full jitter;
a `Retry-After` header is honoured. Once retries run out: `ArxivUnreachable` or
`ArxivHTTPError(status)`. A 400 is never retried: it carries arXiv's error feed, raised as
`ArxivAPIError` with arXiv's message. Parsing a good answer is the parse step's job.
"""

from __future__ import annotations

import asyncio
import email.utils
import logging
import math
import random
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from types import TracebackType
from typing import Self

import httpx

from watcher import __version__
from watcher.arxiv.parse import parse_feed
from watcher.errors import (
    ArxivAPIError,
    ArxivBadFeed,
    ArxivError,
    ArxivHTTPError,
    ArxivUnreachable,
)
from watcher.metrics import count_request
from watcher.tls import shared_ssl_context

USER_AGENT = f"arxiv-watcher/{__version__} (+https://github.com/arxiv-watcher/arxiv-watcher)"
DEFAULT_API_URL = "https://export.arxiv.org/api/query"
# The API pages no further than about this many results into one query: later pages come back
# empty. A query with more results cannot be read whole (and a name that broad is not a person).
ARXIV_PAGING_CAP = 30_000

log = logging.getLogger(__name__)

_TRANSIENT_ERRORS = (httpx.TimeoutException, httpx.NetworkError, httpx.RemoteProtocolError)


class ArxivClient:
    """Queries the arXiv API politely. `async with ArxivClient() as client: ...`."""

    def __init__(
        self,
        base_url: str = DEFAULT_API_URL,
        *,
        min_interval: float = 3.0,
        timeout: float = 30.0,
        max_retries: int = 4,
        backoff_base: float = 1.0,
        backoff_max: float = 60.0,
        transport: httpx.AsyncBaseTransport | None = None,
        listing_interval: float = 15.0,
    ) -> None:
        if min(min_interval, listing_interval, max_retries, backoff_base, backoff_max) < 0:
            raise ValueError("the intervals, max_retries and the backoff times must be >= 0")
        self.base_url = base_url
        self.min_interval = min_interval
        self.max_retries = max_retries
        self.backoff_base = backoff_base
        self.backoff_max = backoff_max
        self._http = httpx.AsyncClient(
            headers={"User-Agent": USER_AGENT},
            timeout=timeout,
            limits=httpx.Limits(max_connections=1, max_keepalive_connections=1),
            follow_redirects=True,
            transport=transport,
            verify=shared_ssl_context(),  # one context for all clients: watcher.tls says why
        )
        self._turn = asyncio.Lock()
        self._next_start = 0.0  # time.monotonic() before which no request may start
        self.listing_interval = listing_interval
        self._next_listing_start = 0.0  # likewise, for a listing page

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        await self._http.aclose()

    async def query(
        self,
        *,
        search_query: str = "",
        id_list: Sequence[str] = (),
        start: int = 0,
        max_results: int = 100,
        sort_by: str = "lastUpdatedDate",
        sort_order: str = "descending",
    ) -> bytes:
        """The raw body of arXiv's answer to one query page; it looks like a feed, unparsed.

        `id_list` asks for these papers (ids without version: their current version).
        """
        params = {"search_query": search_query} if search_query or not id_list else {}
        if id_list:
            params["id_list"] = ",".join(id_list)
        params |= {
            "start": str(start),
            "max_results": str(max_results),
            "sortBy": sort_by,
            "sortOrder": sort_order,
        }
        return await self._get(self.base_url, params, api=True, source="api")

    async def get(self, url: str, params: Mapping[str, str], *, source: str = "oai") -> bytes:
        """The raw body of a GET of another arXiv service (OAI-PMH) on the same terms.

        The same connection, lock and spacing as `query`: arXiv counts all of a user's requests
        together. A 400 here is a bare `ArxivHTTPError` (only the API sends an error feed).
        `source` names it in the metrics (`watcher.metrics`): oai, or author_feed.
        """
        return await self._get(url, dict(params), api=False, source=source)

    async def get_page(
        self, url: str, params: Mapping[str, str], *, etag: str = "", modified: str = ""
    ) -> ListingResponse:
        """A listing page (HTML) on the same terms, asked conditionally: with the `etag` and
        `modified` of the last answer, an unchanged page comes back as
        `ListingResponse.not_modified`."""
        headers = {"If-None-Match": etag} if etag else {}
        if modified:
            headers["If-Modified-Since"] = modified
        response = await self._exchange(
            url, dict(params), headers=headers, listing=True, source="listing"
        )
        return ListingResponse(
            body=b"" if response.status_code == 304 else response.content,
            not_modified=response.status_code == 304,
            etag=response.headers.get("ETag", ""),
            modified=response.headers.get("Last-Modified", ""),
        )

    async def _get(self, endpoint: str, params: dict[str, str], *, api: bool, source: str) -> bytes:
        # The body was checked in turn (`_feed_body`): what is plainly no feed is an error.
        return (await self._exchange(endpoint, params, api=api, source=source)).content

    async def _exchange(
        self,
        endpoint: str,
        params: dict[str, str],
        *,
        api: bool = False,
        headers: Mapping[str, str] | None = None,
        listing: bool = False,
        source: str = "api",
    ) -> httpx.Response:
        """One request, in turn, retried as the module docstring says; a success or a 304.

        Each attempt is counted in `arxiv_watcher_arxiv_requests_total` under `source`: ok,
        retried (failed and tried again) or failed (the error raised)."""
        url = _loggable(httpx.URL(endpoint, params=params))
        attempts = self.max_retries + 1
        async with self._turn:
            for attempt in range(1, attempts + 1):
                await self._wait_for_turn(listing=listing)
                try:
                    result = await self._attempt(
                        endpoint, params, headers, url=url, attempt=attempt, api=api,
                        listing=listing,
                    )  # fmt: skip
                except ArxivError:
                    count_request(source, "failed")
                    raise
                if isinstance(result, httpx.Response):
                    count_request(source, "ok")
                    return result
                failure, retry_after, reason = result
                if attempt == attempts:
                    count_request(source, "failed")
                    raise failure
                if isinstance(failure, ArxivHTTPError) and (retry_after or 0) > self.backoff_max:
                    # Honoured, not shortened: the poll step waits it out between polls,
                    # rather than holding the connection and the poll here.
                    count_request(source, "failed")
                    raise ArxivHTTPError(
                        failure.status, url=url, attempt=attempt, retry_after=retry_after
                    )
                count_request(source, "retried")
                wait = self._retry_wait(attempt, retry_after)
                self._next_start = max(self._next_start, time.monotonic() + wait)
                # DEBUG: the poll step reports the outcome in one line; this is the detail.
                log.debug(
                    "arXiv request %s: attempt %d of %d failed (%s); retrying in %.1f s",
                    url, attempt, attempts, reason, wait,
                )  # fmt: skip
        raise AssertionError("unreachable: the loop returns or raises")

    async def _attempt(
        self,
        endpoint: str,
        params: dict[str, str],
        headers: Mapping[str, str] | None,
        *,
        url: str,
        attempt: int,
        api: bool,
        listing: bool,
    ) -> httpx.Response | tuple[ArxivError, float | None, str]:
        """One attempt: the answer (a success, or a 304 of a listing), a failure worth a retry
        (with the `Retry-After` asked for and the reason to log), or an error raised."""
        try:
            response = await self._http.get(endpoint, params=params, headers=headers)
        except _TRANSIENT_ERRORS as exc:
            reason = f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__
            unreachable = f"arXiv unreachable after {attempt} attempts ({reason})"
            return ArxivUnreachable(unreachable, url=url, attempt=attempt), None, reason
        finally:
            # Counted from the end of the exchange, so arXiv sees the gap too.
            self._next_start = time.monotonic() + self.min_interval
            if listing:
                self._next_listing_start = time.monotonic() + self.listing_interval
        if response.is_success:
            if not listing:
                _feed_body(response, url=url, attempt=attempt)
            return response
        if response.status_code == 304 and listing:
            return response
        if response.status_code == 400 and api:
            raise _api_error(response.content, url=url, attempt=attempt)
        if response.status_code != 429 and response.status_code < 500:
            raise ArxivHTTPError(response.status_code, url=url, attempt=attempt)
        failure = ArxivHTTPError(response.status_code, url=url, attempt=attempt)
        retry_after = _retry_after_seconds(response.headers.get("Retry-After"))
        return failure, retry_after, f"HTTP {response.status_code}"

    async def _wait_for_turn(self, *, listing: bool = False) -> None:
        start = max(self._next_start, self._next_listing_start) if listing else self._next_start
        delay = start - time.monotonic()
        if delay > 0:
            await asyncio.sleep(delay)

    def _retry_wait(self, attempt: int, retry_after: float | None) -> float:
        """Seconds to wait before the next attempt, never less than the polite interval."""
        if retry_after is not None:
            return max(self.min_interval, min(retry_after, self.backoff_max))
        # Full jitter: spreads out clients that failed together instead of retrying in lockstep.
        ceiling = min(self.backoff_max, self.backoff_base * 2 ** (attempt - 1))
        return max(self.min_interval, random.uniform(0, ceiling))


@dataclass(frozen=True, slots=True)
class ListingResponse:
    """A listing page as arXiv answered: its body (empty when unchanged) and its validators."""

    body: bytes
    not_modified: bool
    etag: str
    modified: str


def _feed_body(response: httpx.Response, *, url: str, attempt: int) -> bytes:
    """The body of a successful answer, refusing what is plainly not XML (an HTML error page)."""
    content_type = response.headers.get("Content-Type", "")
    head = response.content.lstrip(b"\xef\xbb\xbf \t\r\n")[:64].lower()
    if "html" in content_type or head.startswith((b"<!doctype", b"<html")):
        raise ArxivBadFeed("arXiv answered with an HTML page, not a feed", url=url, attempt=attempt)
    if not head.startswith(b"<"):
        raise ArxivBadFeed("arXiv answered with something other than XML", url=url, attempt=attempt)
    return response.content


def _api_error(body: bytes, *, url: str, attempt: int) -> ArxivError:
    """arXiv's reason for a 400, from its error feed; a bare HTTP error if the body has none."""
    try:
        parse_feed(body, url=url)
    except ArxivAPIError as error:
        return ArxivAPIError(error.message, url=url, attempt=attempt)
    except ArxivBadFeed:
        pass
    return ArxivHTTPError(400, url=url, attempt=attempt)


def _retry_after_seconds(value: str | None) -> float | None:
    """`Retry-After` as seconds from now: delta-seconds or an HTTP date; None if absent or bad."""
    if not value:
        return None
    try:
        seconds = float(value)
    except ValueError:
        try:
            when = email.utils.parsedate_to_datetime(value)
        except (TypeError, ValueError):
            return None
        if when.tzinfo is None:
            when = when.replace(tzinfo=UTC)
        seconds = (when - datetime.now(UTC)).total_seconds()
    return max(0.0, seconds) if math.isfinite(seconds) else None


def _loggable(url: httpx.URL) -> str:
    """The URL without user:password, should anyone configure one."""
    return str(url.copy_with(username=None, password=None)) if url.userinfo else str(url)
