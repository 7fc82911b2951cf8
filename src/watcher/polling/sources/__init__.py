"""Ways of finding papers: each one a module behind the one small interface the poll step uses
(`Source`), but the listing, which the poll step reads at each announcement instead.

    api           arXiv API queries, about 30 names OR-ed a request
    harvest       arXiv's OAI-PMH feed read once a cycle, matched locally (parsed by `oai`)
    author_feed   a person's own feed (arxiv.org/a/<id>.atom), for a follow by identity
    listing       arXiv's new-listing pages, read minutes after each announcement (parsed by
                  `listing_page`)

A source is given the follows it serves and a `save` callback (the poll step's store-in-parts);
it fetches, matches with `watcher.follows.match`, saves, records its own successes and failures in
the store, and returns its `PollOutcome`: which follows it polled and which failed, why. What the
saves found new is the poll step's to report, as it does the saving. Which follows go to which
source is the poll step's choice (`WATCH_SOURCE`); a follow is a rule, and all rules are matched
in `watcher.follows.match`.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Protocol

from watcher.aio import in_db_thread
from watcher.follows.followed import Followed
from watcher.polling.failures import expected, failure_cause, is_parse_failure, next_try
from watcher.store import MatchedRecord, SaveResult, Store

log = logging.getLogger(__name__)

# How a source stores what it found: the records with their follows, and the follows whose
# subscribers hear of it (those whose history was fetched before). Returns what was new.
Save = Callable[[list[MatchedRecord], frozenset[int]], Awaitable[SaveResult]]


@dataclass(slots=True)
class PollOutcome:
    """What a source did in one cycle: the follows it polled (by label), those that failed
    (by label, or the harvest's name) with the cause in one line, the earliest time a
    failure is to be tried again (the service polls then, not at its next whole tick), and the
    requests spent splitting queries that keep failing; and the answers that did not parse
    (`watcher.polling.source_alerts` tells the operator)."""

    polled: list[str] = field(default_factory=list)
    failures: dict[str, str] = field(default_factory=dict)
    retry_at: datetime | None = None
    split_requests: int = 0  # requests spent splitting failing queries (`failing_groups`)
    unparsed: list[Exception] = field(default_factory=list)

    def retry_by(self, when: datetime) -> None:
        """A failure is to be tried again at `when`: keep the earliest such time."""
        if self.retry_at is None or when < self.retry_at:
            self.retry_at = when


class Source(Protocol):
    """One way of finding papers for the follows it is given."""

    async def poll(
        self, followed: Sequence[Followed], *, save: Save, force: bool = False
    ) -> PollOutcome:
        """Find, match and `save` what is new for the due follows (all with `force`); record
        successes and failures in the store, and return which follows were polled or failed."""
        ...


async def record_poll_failure(
    store: Store,
    follows: Sequence[Followed],
    error: Exception,
    *,
    first: float,
    cap: timedelta,
    now: datetime,
    outcome: PollOutcome,
    note: str = "",
) -> None:
    """A poll of `follows` failed: log the real cause (a bug with its traceback), count it, and
    put their next poll off, doubling per failure in a row up to `cap`. Adds the failures to
    `outcome` (each follow's label, and the cause), and the time of the next try. `note` follows
    the cause where it is kept and shown (not in the log line, which names every follow)."""
    names = ", ".join(f.label for f in follows)
    cause = failure_cause(error)
    failures = max(f.consecutive_failures for f in follows) + 1
    retry = next_try(error, failures, first=first, cap=cap)
    log.log(
        logging.WARNING if expected(error) else logging.ERROR,
        "poll failed for %s: %s; %d failure(s) in a row, next try in %d s",
        names, cause, failures, retry.total_seconds(),
        exc_info=not expected(error),  # a bug: say where
    )  # fmt: skip
    try:
        await in_db_thread(
            store.record_poll_failure,
            [f.id for f in follows],
            error=cause + note,
            now=now,
            next_poll=now + retry,
        )
    except Exception as recording:
        # The database itself is failing: the log line above is all there can be, and the
        # next tick tries these follows again.
        log.error("could not record the failure of %s: %s", names, failure_cause(recording))
    outcome.failures.update({f.label: cause + note for f in follows})
    outcome.retry_by(now + retry)
    if is_parse_failure(error):
        outcome.unparsed.append(error)
