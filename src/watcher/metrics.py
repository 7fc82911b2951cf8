"""The service's Prometheus metrics: every metric object, its name, and the helpers that move them.

The counters, the histogram and the in-memory gauges live here, created unregistered; each
exposition (`watcher.runtime.observability`) builds a `CollectorRegistry` of its own holding them
and the store gauges read at scrape time (`StoreGauges`, through `watcher.store.gauges`), so
nothing lands in prometheus-client's global registry. Each is moved where the thing happens:

- `arxiv_watcher_arxiv_requests_total{source, outcome}`: each attempt of a request to arXiv
  (`watcher.arxiv.fetch`); outcome `ok` (answered), `retried` (failed, tried again), `failed`
  (failed, given up). A request answered at its third attempt counts retried twice, ok once.
- `arxiv_watcher_polls_total{source, outcome}`: each source's part of a poll cycle
  (`watcher.polling.poll`), `ok` or `failed` (some follow failed); a cycle with nothing due counts
  none.
- `arxiv_watcher_source_parse_failures_total{source}`: each answer of an interface that did not
  parse (`watcher.polling.source_alerts`): listing, oai, api, author_feed.
- `arxiv_watcher_papers_found_total{kind}`: papers reported `new` and `revision` by the saves.
- `arxiv_watcher_deliveries_total{outcome}`: each outbox row a send carried, by Telegram's
  answer (`bot.delivery.answers`): sent, retried, parked, failed.
- `arxiv_watcher_suggestion_messages_total{outcome}`: each send of a "Suggested for you"
  message (`bot.delivery.suggestions`), by Telegram's answer, with the same outcomes.
- `arxiv_watcher_telegram_retry_after_total`: Telegram's 429s, any request (`bot.ratelimit`).
- `arxiv_watcher_telegram_network_errors_total`: the Bot API could not be reached while reading
  updates (`bot.network_blips`): a blip, logged as one WARNING line.
- `arxiv_watcher_delivery_delay_seconds`: from the outbox row's creation (the paper was found;
  a digest's rows wait for their digest) to the send Telegram confirmed.
- `arxiv_watcher_leader`: 1 active, 0 standby. A standby polls and sends nothing, so its
  counters stay where they are.
- `arxiv_watcher_last_success_timestamp_seconds{source}`: a source's last good poll, since
  this process started.
- `arxiv_watcher_build_info{version}`: always 1.

Label values come from the fixed tuples below, so no label grows without bound.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable, Iterator
from datetime import UTC, datetime

from prometheus_client import Counter, Gauge, Histogram
from prometheus_client.core import GaugeMetricFamily
from prometheus_client.registry import Collector, CollectorRegistry

from watcher import __version__
from watcher.errors import first_line
from watcher.store.gauges import Gauges

log = logging.getLogger(__name__)

PREFIX = "arxiv_watcher_"
REQUEST_SOURCES = ("api", "oai", "author_feed", "listing")
REQUEST_OUTCOMES = ("ok", "retried", "failed")
POLL_SOURCES = ("api", "harvest", "author_feed", "listing")
POLL_OUTCOMES = ("ok", "failed")
PARSE_SOURCES = ("listing", "oai", "api", "author_feed")
PAPER_KINDS = ("new", "revision")
DELIVERY_OUTCOMES = ("sent", "retried", "parked", "failed")
# From seconds (a send right after the poll) to days (a digest, a chat that came back).
DELAY_BUCKETS = (1, 5, 15, 60, 300, 900, 3600, 4 * 3600, 12 * 3600, 86400, 3 * 86400, 7 * 86400)

ARXIV_REQUESTS = Counter(
    "arxiv_watcher_arxiv_requests",
    "Attempts of requests to arXiv, by source and outcome (ok, retried, failed).",
    ["source", "outcome"],
    registry=None,
)
POLLS = Counter(
    "arxiv_watcher_polls",
    "Poll cycles of each source, by outcome (failed: some follow failed).",
    ["source", "outcome"],
    registry=None,
)
PARSE_FAILURES = Counter(
    "arxiv_watcher_source_parse_failures",
    "Answers of arXiv that did not parse, by interface (listing, oai, api, author_feed).",
    ["source"],
    registry=None,
)
PAPERS_FOUND = Counter(
    "arxiv_watcher_papers_found",
    "Papers found new, and new versions (revision), announced to the chats that follow them.",
    ["kind"],
    registry=None,
)
DELIVERIES = Counter(
    "arxiv_watcher_deliveries",
    "Outbox rows a send carried, by Telegram's answer (sent, retried, parked, failed).",
    ["outcome"],
    registry=None,
)
SUGGESTION_MESSAGES = Counter(
    "arxiv_watcher_suggestion_messages",
    "Sends of suggestion messages, by Telegram's answer (sent, retried, parked, failed).",
    ["outcome"],
    registry=None,
)
TELEGRAM_RETRY_AFTER = Counter(
    "arxiv_watcher_telegram_retry_after",
    "Telegram's 429 answers (flood control), any request.",
    registry=None,
)
TELEGRAM_NETWORK_ERRORS = Counter(
    "arxiv_watcher_telegram_network_errors",
    "Failed reads of updates because the Bot API could not be reached (network blips).",
    registry=None,
)
DELIVERY_DELAY = Histogram(
    "arxiv_watcher_delivery_delay_seconds",
    "Seconds from the moment a paper was found to the confirmed send of its announcement.",
    buckets=DELAY_BUCKETS,
    registry=None,
)
LEADER = Gauge(
    "arxiv_watcher_leader", "1 when this instance is active, 0 as a standby.", registry=None
)
LAST_SUCCESS = Gauge(
    "arxiv_watcher_last_success_timestamp_seconds",
    "Unix time of each source's last successful poll by this process.",
    ["source"],
    registry=None,
)
BUILD_INFO = Gauge(
    "arxiv_watcher_build_info", "Always 1; the version is the label.", ["version"], registry=None
)
BUILD_INFO.labels(version=__version__).set(1)

# Every label combination exists from the start (at 0), so a rate() has a first sample.
for _source in REQUEST_SOURCES:
    for _outcome in REQUEST_OUTCOMES:
        ARXIV_REQUESTS.labels(source=_source, outcome=_outcome)
for _source in POLL_SOURCES:
    for _outcome in POLL_OUTCOMES:
        POLLS.labels(source=_source, outcome=_outcome)
for _source in PARSE_SOURCES:
    PARSE_FAILURES.labels(source=_source)
for _kind in PAPER_KINDS:
    PAPERS_FOUND.labels(kind=_kind)
for _outcome in DELIVERY_OUTCOMES:
    DELIVERIES.labels(outcome=_outcome)
    SUGGESTION_MESSAGES.labels(outcome=_outcome)
LEADER.set(0)

IN_MEMORY: tuple[Collector, ...] = (
    ARXIV_REQUESTS,
    POLLS,
    PARSE_FAILURES,
    PAPERS_FOUND,
    DELIVERIES,
    SUGGESTION_MESSAGES,
    TELEGRAM_RETRY_AFTER,
    TELEGRAM_NETWORK_ERRORS,
    DELIVERY_DELAY,
    LEADER,
    LAST_SUCCESS,
    BUILD_INFO,
)


def count_request(source: str, outcome: str) -> None:
    """One attempt of a request to arXiv ended so."""
    ARXIV_REQUESTS.labels(source=source, outcome=outcome).inc()


def count_poll(source: str, *, failed: bool) -> None:
    """A source's poll cycle ended; a good one is its last success."""
    POLLS.labels(source=source, outcome="failed" if failed else "ok").inc()
    if not failed:
        LAST_SUCCESS.labels(source=source).set_to_current_time()


def count_parse_failure(source: str) -> None:
    """An answer of `source` did not parse."""
    PARSE_FAILURES.labels(source=source).inc()


def count_found(*, new: int, revisions: int) -> None:
    if new:
        PAPERS_FOUND.labels(kind="new").inc(new)
    if revisions:
        PAPERS_FOUND.labels(kind="revision").inc(revisions)


def count_deliveries(outcome: str, deliveries: int) -> None:
    DELIVERIES.labels(outcome=outcome).inc(deliveries)


def count_suggestion_message(outcome: str) -> None:
    """One send of a suggestion message was answered so."""
    SUGGESTION_MESSAGES.labels(outcome=outcome).inc()


def observe_delays(queued: Iterable[datetime]) -> None:
    """Confirmed sends of rows created at `queued`."""
    now = datetime.now(UTC)
    for created in queued:
        DELIVERY_DELAY.observe(max(0.0, (now - created).total_seconds()))


def set_leader(active: bool) -> None:
    LEADER.set(1 if active else 0)


class StoreGauges(Collector):
    """Gauges read from the database at each scrape (`watcher.store.gauges.read_gauges`): the
    outbox's pending rows, the follows by kind, the active chats. A scrape that cannot read
    them (the database restarts) leaves them out, logged, rather than failing as a whole: the
    in-memory metrics still say what the process does."""

    def __init__(self, read: Callable[[], Gauges]) -> None:
        self.read = read

    def describe(self) -> list[GaugeMetricFamily]:
        return []  # read only at collect time: registering never queries the database

    def collect(self) -> Iterator[GaugeMetricFamily]:
        try:
            gauges = self.read()
        except Exception as error:
            log.warning("metrics: cannot read the store's gauges (%s)", first_line(error))
            return
        yield GaugeMetricFamily(
            PREFIX + "outbox_pending",
            "Deliveries waiting to be sent (pending, not parked, not held for a digest).",
            value=gauges.outbox_pending,
        )
        family = GaugeMetricFamily(
            PREFIX + "follows", "Follow rules polled, by kind.", labels=["kind"]
        )
        for kind, number in sorted(gauges.follows.items()):
            family.add_metric([kind], number)
        yield family
        yield GaugeMetricFamily(
            PREFIX + "chats_active", "Chats the bot may send to.", value=gauges.chats_active
        )


def build_registry(*extra: Collector) -> CollectorRegistry:
    """A registry of this process's metrics and `extra` collectors (the store gauges)."""
    registry = CollectorRegistry(auto_describe=False)
    for collector in (*IN_MEMORY, *extra):
        registry.register(collector)
    return registry


def exported_names(registry: CollectorRegistry) -> set[str]:
    """The series names a scrape of `registry` may show: its samples' (`_total`, `_bucket`...)
    and its families' (a labelled gauge shows no sample before its first value)."""
    families = list(registry.collect())
    return {metric.name for metric in families} | {
        sample.name for metric in families for sample in metric.samples
    }
