"""The long-running service: a scheduler that polls arXiv and a front end that announces.

`arxiv-watcher run` lands here. The front end is found through the `arxiv_watcher.frontends`
entry point (the Telegram bot registers itself there), so this package never imports the chat
framework. Without a bot token the console front end prints each new paper to stdout.
Next to the poll, the scheduler prunes the outbox (at start, then hourly; see
`watcher.store.outbox`) and the suggestions (`SuggestionOutbox.prune` of
`watcher.store.suggestion_outbox`: what went into profiles 365 days ago comes out), and with
EARLY_LISTINGS the service reads arXiv's listing pages from each announcement instant of
`watcher.calendars.announcements` (`watcher.polling.sources.listing`):
one task waits on the clock for the next announcement, and queues the one after as it starts (an
evening arXiv's holiday list skips is queued too: the listing is probed a few times then). A
service that starts within LISTING_PROBE_HOURS of an announcement reads that one at once: after
a crash, the read is redone, and the store announces nothing twice.

`run_service` builds the one clock everything runs on (`watcher.clock`; the wall clock unless a
test passes its own) and hands it down: the core's face, the poller, the listing waits, the
pruning, and through the core the sender. The scheduler's ticks stay on the event loop's time:
they only say when to look, and what is due is decided on the clock.

Of several services on one database only one is active (see `watcher.runtime.leader`): the others
wait as standbys, polling nothing and sending nothing, and the first to take the lock after the
active one stops carries on from the outbox. Each leaves its role in a status file for
`arxiv-watcher health` (see `watcher.runtime.status`), and with METRICS_LISTEN serves its metrics,
liveness and readiness over HTTP (`watcher.runtime.observability`), standbys too.
"""

from __future__ import annotations

import asyncio
import logging
import signal
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from importlib.metadata import entry_points
from typing import Protocol

from apscheduler.schedulers.asyncio import AsyncIOScheduler
from sqlalchemy import Engine

from watcher.aio import in_db_thread
from watcher.arxiv.fetch import ArxivClient
from watcher.calendars.announcements import Announcement
from watcher.clock import SYSTEM_CLOCK, Clock, sleep_until
from watcher.core import Core
from watcher.core.identity_check import IdentityCheck
from watcher.core.watched_check import START_PATIENCE, refuse_unknown_watched
from watcher.polling.poll import Poller, PollReport
from watcher.polling.ranking_process import ChildLog, suggester_for
from watcher.polling.sources.listing import HOLIDAY_PROBES
from watcher.runtime.db import at_head, open_database, upgrade_in_child
from watcher.runtime.leader import Leadership, Role, leader_lock
from watcher.runtime.poll_requests import PollRequests
from watcher.runtime.status import StatusFile, remove_stale
from watcher.settings import Settings
from watcher.store import Store
from watcher.store.chats import Chats
from watcher.store.outbox import Outbox
from watcher.store.suggesting import SuggestionStore
from watcher.store.suggestion_outbox import SuggestionOutbox
from watcher.text import describe_record

log = logging.getLogger(__name__)

# The scheduler wakes at least this often (and at least every POLL_RETRY_FIRST seconds), so an
# author whose poll failed is retried on time.
MAX_TICK_SECONDS = 60
PRUNE_INTERVAL = 3600  # seconds between two prunings of the outbox (the first at start)


class Frontend(Protocol):
    """Where the news goes. `notify` runs after every poll cycle."""

    async def start(self) -> None: ...
    async def notify(self, report: PollReport) -> None: ...
    async def stop(self) -> None: ...


class ConsoleFrontend:
    """Prints each new paper to stdout: the service without a Telegram bot."""

    def __init__(self, context: Core) -> None:
        self.context = context

    async def start(self) -> None:
        log.info("no TELEGRAM_BOT_TOKEN set: console mode, new papers are printed here")

    async def notify(self, report: PollReport) -> None:
        for record in report.new:
            print(describe_record(record), flush=True)

    async def stop(self) -> None:
        return None


def schedule_listings(
    context: Core,
    scheduler: AsyncIOScheduler,
    frontend: Frontend,
    running: set[asyncio.Task[object]],
) -> None:
    """A listing read at each announcement instant, and at once for one not long past.

    The next instant is waited for on the core's clock (a task of `running`, cancelled with
    the others at the stop), not by the scheduler, which reads the wall clock itself."""
    settings = context.settings
    calendar = settings.announcement_calendar
    clock = context.clock

    async def read_listing(announcement: Announcement) -> None:
        task = asyncio.current_task()
        assert task is not None
        running.add(task)
        try:
            report = await context.poller.read_listing(announcement)
            await frontend.notify(report)
        except asyncio.CancelledError:
            log.info("listing read interrupted by shutdown")
        except Exception:
            # The next announcement's read is queued already; the other sources find this day.
            log.exception("listing read failed")
        finally:
            running.discard(task)

    def queue_next(after: datetime) -> None:
        # Guessed holidays too: the listing is probed at a low rate then, in case arXiv announces.
        upcoming = calendar.next_listing_read(after)
        if upcoming is None:
            log.warning("no arXiv announcement within a year: the listings are never read")
            return

        async def run(announcement: Announcement = upcoming) -> None:
            await sleep_until(clock, announcement.at)
            queue_next(announcement.at)
            await read_listing(announcement)

        waiting = asyncio.get_running_loop().create_task(run(), name="listing")
        running.add(waiting)  # cancelled at the stop, as a poll is
        waiting.add_done_callback(running.discard)
        if upcoming.holiday:
            log.info(
                "next listing probe: %s UTC, an evening arXiv's holiday list skips: the listing "
                "is probed at most %d times for a mailing of %s",
                f"{upcoming.at:%Y-%m-%d %H:%M}", len(HOLIDAY_PROBES), upcoming.mailing,
            )  # fmt: skip
            return
        log.info(
            "next arXiv announcement: %s UTC (mailing of %s); its listings are read then",
            f"{upcoming.at:%Y-%m-%d %H:%M}", upcoming.mailing,
        )  # fmt: skip

    now = clock()
    latest = calendar.latest_at_or_before(now)
    if latest is not None and now < latest.at + timedelta(hours=settings.listing_probe_hours):
        scheduler.add_job(
            read_listing, args=[latest], id="listing-now", replace_existing=True,
            misfire_grace_time=None,
        )  # fmt: skip
    queue_next(now)


def load_frontend(context: Core) -> Frontend:
    if context.settings.telegram_bot_token is None:
        return ConsoleFrontend(context)
    (telegram,) = entry_points(group="arxiv_watcher.frontends", name="telegram")
    frontend: Frontend = telegram.load()(context)
    return frontend


def migrate(settings: Settings, engine: Engine) -> None:
    """Bring the database to the newest migration. Only the active instance runs this."""
    if not at_head(engine):
        log.info("the database is not at the newest migration: applying the migrations")
        upgrade_in_child(settings.database_url)


async def start_context(
    settings: Settings, engine: Engine, client: ArxivClient, *, clock: Clock = SYSTEM_CLOCK
) -> Core:
    """`build_context`, once arXiv was asked about WATCH_AUTHORS' new author ids
    (`watcher.core.watched_check`): one it does not know is refused, and not followed."""
    await in_db_thread(migrate, settings, engine)
    store = Store(engine)
    check = IdentityCheck(
        store, build_poller(settings, store, client, clock=clock), patience=START_PATIENCE
    )  # the service's own client: its spacing, its one connection
    refused = await refuse_unknown_watched(settings.followed_specs, store, check)
    return await in_db_thread(
        lambda: build_context(settings, engine, client, refused=refused, clock=clock)
    )


def build_context(
    settings: Settings,
    engine: Engine,
    client: ArxivClient,
    *,
    refused: frozenset[str] = frozenset(),
    clock: Clock = SYSTEM_CLOCK,
) -> Core:
    """The core, on a database brought to the newest migration, following WATCH_AUTHORS but
    the entries `refused` (keys; `start_context`), running on `clock`.

    Only the active instance runs this: migrations and writes never race a second service.
    """
    migrate(settings, engine)
    store = Store(engine)
    watched = [
        store.follow_watched(rule)[0].id
        for rule in settings.followed_specs
        if rule.key not in refused
    ]
    for followed in store.unwatch_all_but(watched):
        if followed.key in refused:
            continue  # a CLI command followed it as written; its ERROR line said why not
        log.info(
            "%s is no longer in WATCH_AUTHORS: %s",
            followed.label,
            f"still polled for the {followed.subscribers} chat(s) that follow it"
            if followed.polled
            else "no longer polled (no chat follows it)",
        )
    poller = build_poller(settings, store, client, clock=clock)
    chats = Chats(engine, summary_threshold=settings.summary_threshold)
    return Core(settings, store, chats, Outbox(engine), poller, clock=clock)


def build_poller(
    settings: Settings, store: Store, client: ArxivClient, *, clock: Clock = SYSTEM_CLOCK
) -> Poller:
    return Poller(
        store=store,
        client=client,
        clock=clock,
        sleep=clock.sleep,
        poll_interval=settings.poll_interval,
        page_size=settings.arxiv_page_size,
        window=timedelta(days=settings.poll_window_days),
        backfill_limit=settings.backfill_limit,
        retry_first=settings.poll_retry_first,
        source=settings.watch_source,
        oai_url=str(settings.arxiv_oai_url),
        harvest_sets=settings.harvest_sets,
        author_feed_url=str(settings.arxiv_author_feed_url),
        listing_url=str(settings.arxiv_listing_url),
        listing_probe_interval=settings.listing_probe_interval,
        listing_probe_hours=settings.listing_probe_hours,
        schedule=settings.poll_calendar,
        calendar=settings.announcement_calendar,
        admin_chats=settings.admin_chat_ids,
        listings=settings.early_listings,
        suggester=suggester_for(
            settings.database_url,
            SuggestionStore(store.engine),
            clock,
            ChildLog(settings.log_level, settings.log_format, tuple(settings.secrets)),
        ),
    )


def arxiv_client(settings: Settings) -> ArxivClient:
    return ArxivClient(
        str(settings.arxiv_api_url),
        min_interval=settings.arxiv_min_interval,
        timeout=settings.arxiv_timeout,
        max_retries=settings.arxiv_max_retries,
        listing_interval=settings.listing_min_interval,
    )


async def run_service(
    settings: Settings, *, stopping: asyncio.Event | None = None, clock: Clock = SYSTEM_CLOCK
) -> None:
    """Run until SIGTERM or SIGINT: a standby until this instance holds the leader lock, then
    poll at once and every POLL_INTERVAL seconds, and announce.

    A lost lock (its database connection died, its lock file was deleted) stops polling and
    sending at once, and the instance becomes a standby again rather than exiting: the usual
    cause is a database restart, which passes, and a bare `make run` has no supervisor to
    start it again. The database is checked first, so a wrong DATABASE_URL still stops it.
    `stopping`: an event that stops it when set, instead of the signals (for several services
    in one process). `clock`: the one clock the whole service runs on (`watcher.clock`).
    """
    engine = await in_db_thread(open_database, settings.database_url, migrate=False)
    lock = leader_lock(settings.database_url)
    remove_stale(settings.data_dir)
    status = StatusFile(settings.data_dir)
    loop = asyncio.get_running_loop()
    listener = None
    if settings.metrics_address is not None:
        # Only with METRICS_LISTEN: the listener brings the WSGI server and the exposition.
        from watcher.runtime.observability import Observability

        listener = Observability(settings, engine, loop)
        listener.start()

    def on_role(role: Role) -> None:
        status.write(role)
        if listener is not None:
            listener.set_role(role)

    leadership = Leadership(lock, on_role=on_role)
    if stopping is None:
        stopping = asyncio.Event()
        for signum in (signal.SIGTERM, signal.SIGINT):
            loop.add_signal_handler(signum, stopping.set)
    try:
        async with arxiv_client(settings) as client:
            while await leadership.acquire(until=stopping):
                try:
                    context = await start_context(settings, engine, client, clock=clock)
                    await serve(context, stopping=stopping, leadership=leadership)
                finally:
                    await leadership.release()
                if not stopping.is_set():
                    log.warning("no longer active: back to standby")
    finally:
        if listener is not None:
            listener.close()
        status.remove()
        engine.dispose()


async def serve(context: Core, *, stopping: asyncio.Event, leadership: Leadership) -> None:
    """Poll and announce while this instance leads: until a stop signal or the lock is lost."""
    settings = context.settings
    scheduler = AsyncIOScheduler(timezone=UTC)

    async def poll_soon_round() -> None:
        await poll_and_notify()  # defined below; looked up when a round runs

    # One-off rounds beside the interval job; many requests make at most one round waiting.
    poll_soon = PollRequests(scheduler, poll_soon_round).request
    context = replace(context, poll_soon=poll_soon)  # the core, built with its poll request
    frontend = load_frontend(context)
    running: set[asyncio.Task[object]] = set()

    async def poll_and_notify() -> None:
        task = asyncio.current_task()
        assert task is not None
        running.add(task)
        try:
            report = await context.poller.poll()
            if report.retry_at is not None:
                retry_at(report.retry_at)
            await frontend.notify(report)
        except asyncio.CancelledError:
            # Only shutdown cancels a poll; nothing half-done was stored (saves are atomic).
            log.info("poll interrupted by shutdown")
        except Exception:
            # The job must outlive any single failure; the next tick tries again.
            log.exception("poll cycle failed")
        finally:
            running.discard(task)

    scheduler.add_job(
        poll_and_notify,
        "interval",
        seconds=min(settings.poll_interval, settings.poll_retry_first, MAX_TICK_SECONDS),
        next_run_time=datetime.now(UTC),
        id="poll",
        replace_existing=True,
        max_instances=1,
        coalesce=True,
        misfire_grace_time=None,
    )
    scheduler.start()

    def retry_at(when: datetime) -> None:
        # A failure is tried again when its log line says, not at the first whole tick after
        # (which comes up to a tick later): a one-off round then, the earliest one asked for.
        # `when` is on the core's clock; the scheduler runs on the wall clock: the same
        # distance from now on each.
        run_date = datetime.now(UTC) + (when - context.clock())
        waiting = scheduler.get_job("poll-retry")
        if waiting is not None and waiting.next_run_time <= run_date:
            return
        scheduler.add_job(
            poll_and_notify,
            "date",
            run_date=run_date,
            id="poll-retry",
            replace_existing=True,
            max_instances=2,
            misfire_grace_time=None,
        )

    async def prune_outbox() -> None:
        task = asyncio.current_task()
        assert task is not None
        running.add(task)
        older_than = context.clock() - timedelta(days=settings.outbox_retention_days)
        try:
            pruned = await in_db_thread(context.outbox.prune, older_than=older_than)
            # Suggestions: profiles lose what went in 365 days ago, old messages and batches go.
            suggestions = SuggestionOutbox(context.outbox.engine)
            await in_db_thread(suggestions.prune, now=context.clock(), older_than=older_than)
        except asyncio.CancelledError:
            # Only shutdown cancels it; each batch is its own transaction, the rest waits.
            log.info("pruning interrupted by shutdown")
            return
        except Exception:
            # The next run (an hour later) tries again; nothing is lost by waiting.
            log.exception("pruning the outbox failed")
            return
        finally:
            running.discard(task)
        if pruned.settled or pruned.abandoned:
            log.info(
                "outbox pruned: %d sent or failed deliveries older than %d days, %d queued"
                " for chats inactive as long",
                pruned.settled,
                settings.outbox_retention_days,
                pruned.abandoned,
            )

    scheduler.add_job(
        prune_outbox,
        "interval",
        seconds=PRUNE_INTERVAL,
        next_run_time=datetime.now(UTC),
        id="prune-outbox",
        replace_existing=True,
        max_instances=1,
        coalesce=True,
        misfire_grace_time=None,
    )

    if settings.early_listings:
        schedule_listings(context, scheduler, frontend, running)

    log.info(
        "arxiv-watcher running: watching %s, polling %s",
        "; ".join(settings.watch_authors),
        f"every {settings.poll_interval:g}s"
        if settings.poll_calendar is None
        else "on arXiv's announcement calendar (POLL_SCHEDULE=calendar)",
    )
    # The front end may wait for its far side (Telegram) to answer; polling goes on meanwhile,
    # and what it finds waits in the outbox. A stop signal or a lost lock ends the wait.
    starting = asyncio.create_task(frontend.start(), name="frontend-start")
    signalled = asyncio.create_task(stopping.wait(), name="stop-signal")
    lost = asyncio.create_task(leadership.watch(), name="leadership-watch")
    ending = {signalled, lost}
    try:
        await asyncio.wait({starting, *ending}, return_when=asyncio.FIRST_COMPLETED)
        if starting.done() and not any(task.done() for task in ending):
            starting.result()  # a front end that cannot start stops the service
            await asyncio.wait(ending, return_when=asyncio.FIRST_COMPLETED)
    finally:
        log.info("stopping")
        scheduler.shutdown(wait=False)
        ranking = context.poller.background  # suggestions: resumed by the next read
        for task in [*running, *ranking, starting, *ending]:
            task.cancel()
        await asyncio.gather(*running, *ranking, starting, *ending, return_exceptions=True)
        await frontend.stop()
