"""What the fake arXiv answers with and what it records: the `Fault` kinds a test queues, the
`SeenRequest` logged for each request, the `Answer` a service hands to the HTTP server, and the
refusals (429, 503, an HTML error page) and truncation that every service applies the same way.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from html import escape
from typing import Literal, get_args

FaultKind = Literal["none", "429", "500", "503", "timeout", "html", "truncated", "empty", "reset"]
FAULT_KINDS: tuple[FaultKind, ...] = get_args(FaultKind)


# The statuses arXiv answers instead of its content, and their plain-text bodies.
_REFUSALS = {
    "429": b"Rate exceeded.\n",
    "500": b"Internal Server Error\n",
    "503": b"Service Unavailable\n",
}
ATOM_TYPE = "application/atom+xml; charset=utf-8"
XML_TYPE = "text/xml; charset=utf-8"
HTML_TYPE = "text/html; charset=utf-8"
_HTML_PAGE = (
    b"<!DOCTYPE html>\n<html><head><title>arXiv is down for maintenance</title></head>\n"
    b"<body><h1>We are performing maintenance</h1><p>Please try again later.</p></body></html>\n"
)


@dataclass(frozen=True)
class Fault:
    """One misbehaviour, applied to one request.

    `429`/`500`/`503`: that status, with `Retry-After: <retry_after>` when given. `timeout`:
    hold the request (until the client hangs up, the server stops, or `hold` seconds), then
    drop it.
    `html`: a 200 HTML page. `truncated`: the real answer cut mid-entry. `empty`: a valid feed
    with no entries and `totalResults` 0. `reset`: close the connection without an answer.
    `none`: answer normally (queued before other faults, it lets them hit a later request).
    """

    kind: FaultKind
    retry_after: str | None = None
    hold: float = 60.0


@dataclass(frozen=True)
class SeenRequest:
    """One request as the fake saw it, stamped when its headers arrived.

    `time` is `time.monotonic()` (for spacing), `wall` is `time.time()` (for HTTP dates).
    """

    time: float
    wall: float
    method: str
    path: str
    params: dict[str, str]
    headers: dict[str, str]
    fault: FaultKind | None
    client: str = ""  # who asked, when it came through `FakeArxiv.url_for(client)`


@dataclass
class Answer:
    status: int
    body: bytes
    content_type: str = ATOM_TYPE
    headers: dict[str, str] = field(default_factory=dict)


def refusal(fault: Fault) -> Answer | None:
    """What every arXiv service answers instead of its content for a 429, a 500, a 503 (with
    the fault's Retry-After) or an HTML error page; None for the faults each answers its own
    way."""
    retry = {"Retry-After": fault.retry_after} if fault.retry_after else {}
    if fault.kind in _REFUSALS:
        body = _REFUSALS[fault.kind]
        return Answer(int(fault.kind), body, "text/plain; charset=utf-8", retry)
    if fault.kind == "html":
        return Answer(200, _HTML_PAGE, "text/html; charset=utf-8")
    return None


def truncate(feed: bytes) -> bytes:
    """Cut a feed mid-entry (or mid-header when it has no entries)."""
    entry = feed.find(b"<entry>")
    if entry < 0:
        return feed[: len(feed) // 2]
    summary = feed.find(b"<summary>", entry)
    return feed[: summary + len(b"<summary>") + 20]


def unknown_author_page(author_id: str, status: int) -> bytes:
    """arXiv's answer for an author id it does not know: today a 400 HTML page ("Author X not
    found", arxiv-browse 26f634fb `browse/controllers/list_page/author.py`), before a 404."""
    if status != 400:
        return b"<!DOCTYPE html>\n<html><body><h1>Not Found</h1></body></html>\n"
    return (
        "<!DOCTYPE html>\n<html><head><title>Bad Request | arXiv e-print repository</title>"
        f"</head>\n<body><h1>Bad Request</h1><p>Author {escape(author_id)} not found</p>"
        "</body></html>\n"
    ).encode()
