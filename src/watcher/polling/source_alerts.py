"""A source that stops parsing is told to the operator the same evening, once.

arXiv changes its markup now and then; a source whose answers no longer parse (`ArxivBadListing`,
`ArxivBadFeed`: the listing pages, an OAI-PMH page that fails its checks, the API's Atom, an
author feed) would otherwise show only as a WARNING line while the other sources carry the day,
hours late. The poll step hands each source's parse failures and good reads to `SourceAlerts`,
which counts them (`arxiv_watcher_source_parse_failures_total{source}`), records them in the
store (`watcher.store.source_health`: the spell, and one notice to each of ADMIN_CHAT_IDS when
it opens and when it closes, at most one failure notice a day a source), and logs what it did.
The words say what still works, from the configured sources and arXiv's calendar
(`still_works`). The front end sends the notices; the core never talks to Telegram.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from urllib.parse import urlsplit, urlunsplit
from zoneinfo import ZoneInfo

from watcher.aio import in_db_thread
from watcher.calendars.announcements import AnnouncementCalendar
from watcher.calendars.poll_calendar import PollCalendar
from watcher.errors import ArxivBadListing, first_line
from watcher.metrics import count_parse_failure
from watcher.polling.failures import failure_cause
from watcher.store import Store
from watcher.store.source_health import SourceChange, SourceHealth

log = logging.getLogger(__name__)

NAMES = {
    "listing": "arXiv's listing pages",
    "oai": "arXiv's OAI-PMH feed",
    "api": "arXiv's API (its Atom answers)",
    "author_feed": "arXiv's author feeds",
}
# The poll step's names of its sources, and the interface each one reads.
POLL_SOURCES = {"api": "api", "harvest": "oai", "author_feed": "author_feed", "listing": "listing"}


def safe_url(url: str) -> str:
    """The URL without any user or password in it (a proxy's credentials, say)."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return "(an unreadable URL)"
    host = parts.hostname or ""
    if parts.port is not None:
        host = f"{host}:{parts.port}"
    return urlunsplit((parts.scheme, host, parts.path, parts.query, ""))


@dataclass(frozen=True, slots=True)
class Setup:
    """What the sources are, to say what still works when one breaks."""

    listings: bool  # EARLY_LISTINGS
    calendar: AnnouncementCalendar
    schedule: PollCalendar | None  # POLL_SCHEDULE=calendar; None: every POLL_INTERVAL
    poll_interval: float
    oai_url: str
    author_feed_url: str


def source_of(error: BaseException, setup: Setup) -> str:
    """Which interface an unparsable answer came from, by its error and URL: a harvest asks
    the API for versions, and the listing asks it for cross-lists."""
    if isinstance(error, ArxivBadListing):
        return "listing"
    url = getattr(error, "url", "") or ""
    if url and url.startswith(setup.oai_url):
        return "oai"
    if url and url.startswith(setup.author_feed_url):
        return "author_feed"
    return "api"


def _local(calendar: AnnouncementCalendar, when: datetime) -> str:
    local = when.astimezone(ZoneInfo(calendar.zone))
    return f"at about {local:%H:%M %Z} ({when.astimezone(UTC):%H:%M} UTC)"


def _poll_at(setup: Setup, now: datetime, after: timedelta | None) -> str:
    """When a structured source next polls: "at about 22:30 EST (03:30 UTC)" on the calendar,
    else at its next poll."""
    if setup.schedule is None or after is None:
        return f"at its next poll (every {setup.poll_interval:g} s)"
    return _local(setup.calendar, setup.schedule.next_start(now, after))


def _listing_at(setup: Setup, now: datetime) -> str:
    upcoming = setup.calendar.next_after(now)
    return "at the next announcement" if upcoming is None else _local(setup.calendar, upcoming.at)


def still_works(source: str, *, setup: Setup, harvesting: bool, now: datetime) -> str:
    """What still brings papers while `source` does not parse, in one sentence."""
    schedule = setup.schedule
    harvest_at = _poll_at(setup, now, schedule.harvest_after if schedule else None)
    api_at = _poll_at(setup, now, schedule.api_after if schedule else None)
    listing_at = _listing_at(setup, now)
    if source == "listing":
        if harvesting:
            return f"papers will come from OAI-PMH {harvest_at}, once each; nothing is lost."
        return f"papers will come from the API {api_at}, once each; nothing is lost."
    if source == "author_feed":
        return (
            "follows by name and topics are not affected; follows by author id or ORCID wait "
            "until the feeds read again (each poll reads a whole feed, so nothing is lost)."
        )
    others = []
    if setup.listings:
        others.append(f"the listing pages still bring new papers and cross-lists {listing_at}")
    if source == "oai":
        others.append("the API still fetches new follows' histories, and author feeds their own")
        tail = "the harvest redoes its window when OAI-PMH reads again, so nothing is lost."
    else:
        if harvesting:
            others.append(f"OAI-PMH still brings the harvested follows' papers {harvest_at}")
        tail = "each poll reads back POLL_WINDOW_DAYS when the API reads again, so nothing is lost."
    return "; ".join([*others, tail]) if others else f"nothing else finds those papers: {tail}"


def failure_notice(health: SourceHealth, works: str) -> str:
    return (
        f"⚠️ {NAMES[health.source]} stopped parsing.\n"
        f"URL: {health.url}\n"
        f"Problem: {health.problem}\n"
        f"Still working: {works}\n"
        "You will hear once more when it reads again; arxiv-watcher health and /stats show "
        "it meanwhile."
    )


def recovery_notice(health: SourceHealth) -> str:
    since = f"{health.broken_since:%Y-%m-%d %H:%M} UTC" if health.broken_since else "?"
    return (
        f"✅ {NAMES[health.source]} read again (broken since {since}, "
        f"{health.failures} failed read(s); last problem: {health.problem})."
    )


class SourceAlerts:
    """Records parse failures and good reads of the sources; see the module docstring."""

    def __init__(
        self,
        store: Store,
        *,
        setup: Setup,
        admin_chats: Sequence[int],
        harvesting: Callable[[], bool],
        clock: Callable[[], datetime],
    ) -> None:
        self.store = store
        self.setup = setup
        self.admin_chats = tuple(admin_chats)
        self.harvesting = harvesting
        self.clock = clock

    async def observe(self, poll_source: str, *, errors: Sequence[Exception], read: bool) -> None:
        """One source's part of a cycle: the parse failures it met (of whichever interface),
        and whether its own answers parsed (`read`: it polled something)."""
        failed = set()
        for error in errors:
            source = source_of(error, self.setup)
            failed.add(source)
            await self.failed(source, error)
        own = POLL_SOURCES[poll_source]
        if read and own not in failed:
            await self.read_ok(own)

    async def failed(self, source: str, error: Exception) -> None:
        count_parse_failure(source)
        url = safe_url(getattr(error, "url", "") or "") or "(not known)"
        problem = first_line(error)
        now = self.clock()
        works = still_works(source, setup=self.setup, harvesting=self.harvesting(), now=now)
        try:
            change = await in_db_thread(
                self.store.record_parse_failure, source, url=url, problem=problem, now=now,
                admin_chats=self.admin_chats, wording=lambda h: failure_notice(h, works),
            )  # fmt: skip
        except Exception as recording:
            log.error("could not record that %s stopped parsing: %s", source,
                      failure_cause(recording))  # fmt: skip
            return
        if change.changed or change.notices:
            log.warning(
                "%s stopped parsing (%s: %s); %s",
                NAMES[source], url, problem, self._told(change),
                extra={"source": source},
            )  # fmt: skip

    async def read_ok(self, source: str) -> None:
        now = self.clock()
        try:
            change = await in_db_thread(
                self.store.record_parse_success, source, now=now,
                admin_chats=self.admin_chats, wording=recovery_notice,
            )  # fmt: skip
        except Exception as recording:
            log.error("could not record that %s reads again: %s", source,
                      failure_cause(recording))  # fmt: skip
            return
        if change.changed:
            log.info("%s read again; %s", NAMES[source], self._told(change, recovery=True),
                     extra={"source": source})  # fmt: skip

    def _told(self, change: SourceChange, *, recovery: bool = False) -> str:
        if change.notices:
            return f"told {change.notices} admin chat(s)"
        if not self.admin_chats:
            return "no admin chat is set (ADMIN_CHAT_IDS), so only this line says so"
        if recovery:
            return "the admin chats had not been told it stopped (told of it within a day before)"
        if not change.told:
            return "the admin chats were told of this source within the last day: not again"
        return "the admin chats were told already"
