"""The health verdict: whether this service does its job, in one line, for `arxiv-watcher
health` (its exit code) and for the service's `/readyz` (`watcher.runtime.observability`).

Healthy when the database answers, its migrations are applied, some polled follow had a good
poll within two poll intervals (a day and two hours on arXiv's calendar), and arXiv answers for
some follow: unhealthy when every follow someone wants has failed `UNHEALTHY_FAILURES` polls in
a row. The verdict is about the service (its sources and its poll loop), never one follow: a
follow that alone keeps failing (a name arXiv errors on, an author id arXiv stopped knowing) is
named in the "ok" line ("failing: ..."), shown and told once to the chats that follow it
and to the administrators (/stats, `arxiv-watcher authors`), but one chat's follow can never make
the operator's service unhealthy. An author id arXiv does not know is never arXiv failing, so it
never counts. A WATCH_AUTHORS author id the last start refused (`watcher.core.watched_check`) is
named in the "ok" line too ("WATCH_AUTHORS not followed: ..."). A source whose answers stopped
parsing (`watcher.polling.source_alerts`) is named in the verdict but leaves it healthy: the other
sources bring the papers, later. An instance known to be a standby is healthy while the database
answers: polling is the active instance's job.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from sqlalchemy import Engine

from watcher.core.mailing_report import describe_mailing
from watcher.core.watched_check import not_followed
from watcher.errors import UNKNOWN_AUTHOR, ConfigError
from watcher.polling.failures import UNHEALTHY_FAILURES
from watcher.runtime import db
from watcher.runtime.status import InstanceState
from watcher.settings import Settings
from watcher.store import Store
from watcher.store.source_health import SourceHealth

CALENDAR_HEALTH_LIMIT = timedelta(hours=26)  # POLL_SCHEDULE=calendar: one poll an evening


@dataclass(frozen=True, slots=True)
class Verdict:
    healthy: bool
    line: str  # "ok: ..." or "unhealthy: ...", one line


def ago(moment: datetime | None) -> str:
    if moment is None:
        return "never"
    seconds = int((datetime.now(UTC) - moment).total_seconds())
    for unit, size in (("d", 86400), ("h", 3600), ("min", 60)):
        if seconds >= size:
            return f"{seconds // size} {unit} ago"
    return f"{max(seconds, 0)} s ago"


def verdict(settings: Settings, engine: Engine, instances: Sequence[InstanceState]) -> Verdict:
    """The verdict on the services `instances` (those running on this DATA_DIR, or the asking
    process alone). Blocking: it queries the database."""
    try:
        db.check_connection(engine)
        if instances and all(state.role == "standby" for state in instances):
            return Verdict(True, describe_standby(instances))
        if db.pending_migrations(engine):
            return Verdict(
                False, "unhealthy: database migrations are pending (run: arxiv-watcher db upgrade)"
            )
        store = Store(engine)
        newest, failing = store.poll_health()
        unparsed = describe_unparsed(store.source_health())
        polling_well = store.any_polling_well(failures_below=UNHEALTHY_FAILURES)
        mailing = describe_mailing(store.last_mailing(), settings.announcement_calendar)
        refused = [str(identity) for identity in not_followed(store, settings.followed_specs)]
    except ConfigError as error:
        return Verdict(False, f"unhealthy: {error}")
    limit = timedelta(seconds=2 * settings.poll_interval)
    if settings.poll_calendar is not None:
        # On arXiv's calendar every source polls once an evening (a 25-hour day at a clock
        # change), so a day and a bit is the longest a healthy service goes without one.
        limit = max(limit, CALENDAR_HEALTH_LIMIT)
    if newest is None:
        return Verdict(False, "unhealthy: no successful poll yet")
    if datetime.now(UTC) - newest > limit:
        return Verdict(
            False,
            f"unhealthy: last successful poll {ago(newest)}, more than two poll intervals"
            + (" or a day and two hours" if limit == CALENDAR_HEALTH_LIMIT else ""),
        )
    stuck = [
        f
        for f in failing
        if f.polled
        and f.consecutive_failures >= UNHEALTHY_FAILURES
        and not (f.last_error or "").startswith(UNKNOWN_AUTHOR)
    ]
    if stuck and not polling_well:  # arXiv fails every follow: the sources, not one follow
        worst = max(stuck, key=lambda f: f.consecutive_failures)
        return Verdict(
            False,
            f"unhealthy: polling fails for {len(stuck)} author(s): {worst.label}, "
            f"{worst.consecutive_failures} failures in a row, last success "
            f"{ago(worst.last_success)}: {worst.last_error}",
        )
    labels = [f.label for f in failing]
    roles = ", ".join(f"{state.role} (pid {state.pid})" for state in instances)
    return Verdict(
        True,
        f"ok: last successful poll {ago(newest)}"
        + (f"; failing: {', '.join(labels)}" if labels else "")
        + (f"; {unparsed}" if unparsed else "")
        + (f"; WATCH_AUTHORS not followed: {', '.join(refused)}" if refused else "")
        + (f"; {roles}" if roles else "")
        + (f"; {mailing}" if mailing else ""),
    )


def describe_unparsed(states: Sequence[SourceHealth]) -> str:
    """The sources that do not parse, in one clause: "not parsing: listing since 2026-12-03
    20:01 UTC (https://arxiv.org/list/cs/new: the listing ... names no mailing date)"."""
    broken = [
        f"{s.source} since {s.broken_since:%Y-%m-%d %H:%M} UTC ({s.url}: {s.problem})"
        for s in states
        if s.broken_since is not None
    ]
    return f"not parsing: {'; '.join(broken)}" if broken else ""


def describe_standby(instances: Sequence[InstanceState]) -> str:
    pids = ", ".join(str(state.pid) for state in instances)
    since = min(state.since for state in instances)
    return (
        f"ok: standby (pid {pids}, since {ago(since)}): another instance is active; "
        "this one takes over when it stops"
    )
