"""The `arxiv-watcher` command line (also `python -m watcher`).

Exit codes: 0 success; 2 usage or configuration errors, with a message that says what would be
right; 1 runtime failures, with a one-line message (a traceback only with LOG_LEVEL=DEBUG).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import sys
from collections.abc import Sequence

from sqlalchemy import Engine

from watcher import __version__
from watcher.arxiv.records import Record
from watcher.arxiv.taxonomy import resolve_category
from watcher.cli.takeout_commands import add_commands as add_takeout_commands
from watcher.core.mailing_report import describe_mailing
from watcher.core.unfollowing import EVERYWHERE, Stopped, Unfollowing
from watcher.core.watched_check import follow_as_written, not_followed
from watcher.errors import (
    ConfigError,
    UnknownAuthorId,
    UnknownCategory,
    UsageError,
    WatcherError,
    first_line,
)
from watcher.follows.followed import Followed
from watcher.follows.identity import EXAMPLE_ARXIV_PAGE, Identity, IdentityError, parse_identity
from watcher.follows.names import likely_name
from watcher.follows.rules import parse_person, split_categories
from watcher.follows.topics import EXAMPLE as TOPIC_EXAMPLE
from watcher.follows.topics import Topic, TopicError, parse_topic
from watcher.kinds import FollowKind, NewsKind
from watcher.logs import RedactingFilter, setup_logging
from watcher.polling.poll import PollReport
from watcher.runtime import db
from watcher.runtime.health import ago, verdict
from watcher.runtime.service import arxiv_client, build_poller, run_service
from watcher.runtime.status import live_instances
from watcher.settings import Settings, load_settings
from watcher.store import Store
from watcher.store.chats import Chats
from watcher.text import counted, record_json, summary_line

log = logging.getLogger("watcher.cli.command_line")

MAX_LIST = 1000
# Said of a person just followed: their past papers are stored, not announced.
HISTORY_NOTE = (
    "Their history is fetched silently at the next poll; only later papers are announced."
)


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        settings = load_settings()
    except ConfigError as error:
        print(f"arxiv-watcher: {error}", file=sys.stderr)
        return 2
    secrets = settings.secrets
    setup_logging(settings.log_level, secrets=secrets, log_format=settings.log_format)
    redact = RedactingFilter(secrets).redact
    try:
        result: int = args.handler(args, settings)
        return result
    except (ConfigError, UsageError) as error:
        print(f"arxiv-watcher: {error}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130
    except Exception as error:
        if settings.log_level == "DEBUG":
            log.exception("failed")
        # Some libraries quote the token in their errors (PTB's InvalidToken does).
        print(f"arxiv-watcher: {redact(first_line(error))}", file=sys.stderr)
        return 1


def count(text: str) -> int:
    """argparse type for -n: a whole number from 1 to MAX_LIST."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
    if not 1 <= value <= MAX_LIST:
        raise argparse.ArgumentTypeError(f"must be between 1 and {MAX_LIST}, got {value}")
    return value


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="arxiv-watcher",
        description="Watch arXiv for new papers by the authors you follow.",
        epilog="Settings come from the environment or a .env file; see .env.example.",
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    commands = parser.add_subparsers(title="commands", metavar="COMMAND", required=True)

    def command(name: str, handler: object, help_text: str) -> argparse.ArgumentParser:
        sub = commands.add_parser(name, help=help_text, description=help_text)
        sub.set_defaults(handler=handler)
        return sub

    command("run", cmd_run, "run the service: poll on a schedule and announce on Telegram")
    poll = command("poll", cmd_poll, "poll arXiv once now and print what is new")
    poll.add_argument("--json", action="store_true", help="print a JSON array")
    recent = command("recent", cmd_recent, "list stored papers, newest first")
    recent.add_argument("-n", type=count, default=10, metavar="N", help="how many (default 10)")
    recent.add_argument("--author", metavar="NAME", help="only this followed author's papers")
    recent.add_argument("--json", action="store_true", help="print a JSON array")
    subject = command("subject", cmd_subject, "list stored papers in an arXiv category")
    subject.add_argument("category", metavar="CATEGORY", help="an arXiv category, e.g. cs.DC")
    subject.add_argument("-n", type=count, default=10, metavar="N", help="how many (default 10)")
    subject.add_argument("--json", action="store_true", help="print a JSON array")
    follow = command(
        "follow",
        cmd_follow,
        "follow an author (aliases after |), or an arXiv author id or ORCID iD",
    )
    follow.add_argument(
        "name",
        metavar="NAME",
        help='e.g. "Dezun Dong", "Dezun Dong|De-Zun Dong", "Wei Wang in cs.DC,cs.NI", '
        "arxiv:dong_d_1 or 0000-0002-1825-0097",
    )
    unfollow = command("unfollow", cmd_unfollow, "stop following an author or author id")
    unfollow.add_argument("name", metavar="NAME", help="as given to follow")
    watch = command("watch", cmd_watch, "watch a topic: words and phrases in 1 to 3 categories")
    watch.add_argument("topic", metavar="TOPIC", help=f"e.g. '{TOPIC_EXAMPLE}'")
    unwatch = command("unwatch", cmd_unwatch, "stop watching a topic")
    unwatch.add_argument("topic", metavar="TOPIC", help="as given to watch, or as authors lists it")
    add_takeout_commands(command)
    command("authors", cmd_authors, "list followed authors and topics with their poll state")
    command("health", cmd_health, "exit 0 when the database answers and polling is recent")
    database = command("db", cmd_db, "database maintenance")
    database.add_argument("action", choices=["upgrade", "current"], help="apply migrations / show")
    return parser


# -- helpers ----------------------------------------------------------------------------------


def open_store(settings: Settings, *, migrate: bool = True) -> tuple[Engine, Store]:
    engine = db.open_database(settings.database_url, migrate=migrate)
    store = Store(engine)
    follow_as_written(store, settings.followed_specs)
    return engine, store


def print_records(records: Sequence[Record], *, as_json: bool, empty: str) -> None:
    if as_json:
        print(json.dumps([record_json(record) for record in records], indent=2, ensure_ascii=False))
    elif not records:
        print(empty)
    else:
        for record in records:
            print(summary_line(record))


# -- commands ---------------------------------------------------------------------------------


def cmd_run(args: argparse.Namespace, settings: Settings) -> int:
    asyncio.run(run_service(settings))
    return 0


def cmd_poll(args: argparse.Namespace, settings: Settings) -> int:
    _, store = open_store(settings)

    async def poll_once() -> tuple[list[tuple[NewsKind, Record]], PollReport]:
        async with arxiv_client(settings) as client:
            poller = build_poller(settings, store, client)
            report = await poller.poll(force=True)
            await poller.suggestions_settled()  # a harvest's new day: its suggestions queued
        found = [(NewsKind.NEW, r) for r in report.new] + [
            (NewsKind.REVISION, r) for r in report.revisions
        ]
        return found, report

    found, report = asyncio.run(poll_once())
    failures, backfilled = report.failures, report.backfilled
    if args.json:
        print(
            json.dumps(
                [record_json(r, kind=kind) for kind, r in found], indent=2, ensure_ascii=False
            )
        )
    else:
        for kind, record in found:
            print(("NEW      " if kind == NewsKind.NEW else "REVISED  ") + summary_line(record))
        if backfilled:
            print(
                f"Stored {backfilled} earlier record(s) silently (first poll of an author). "
                "List them with: arxiv-watcher recent"
            )
        if not found and not backfilled and not failures:
            print("Nothing new.")
    for name, error in failures.items():
        print(f"arxiv-watcher: polling {name} failed: {error}", file=sys.stderr)
    if report.split_requests:
        print(
            f"arxiv-watcher: {report.split_requests} more request(s) spent splitting queries that "
            "keep failing, to find the name arXiv fails on",
            file=sys.stderr,
        )
    return 1 if failures else 0


def cmd_recent(args: argparse.Namespace, settings: Settings) -> int:
    _, store = open_store(settings)
    followed_ids = None
    if args.author:
        followed = store.find_followed(args.author)
        if followed is None:
            names = ", ".join(f.name for f in store.followed()) or "none"
            raise UsageError(
                f"{args.author!r} is not followed (followed: {names}); "
                f"add it with: arxiv-watcher follow {args.author!r}"
            )
        followed_ids = [followed.id]
    records = store.recent(limit=args.n, followed_ids=followed_ids)
    print_records(
        records,
        as_json=args.json,
        empty="No papers stored yet. Fetch them with: arxiv-watcher poll",
    )
    return 0


def cmd_subject(args: argparse.Namespace, settings: Settings) -> int:
    try:
        category = resolve_category(args.category)
    except UnknownCategory as error:
        raise UsageError(str(error)) from None
    _, store = open_store(settings)
    records = store.by_category(category, limit=args.n)
    if records or args.json:
        print_records(records, as_json=args.json, empty="")
        return 0
    have = ", ".join(c for c, _ in store.category_counts()[:10])
    print(f"No stored papers in {category}." + (f" Categories with papers: {have}" if have else ""))
    return 0


def cmd_follow(args: argparse.Namespace, settings: Settings) -> int:
    try:
        identity = parse_identity(args.name)
    except IdentityError as error:
        raise UsageError(str(error)) from None
    if identity is not None:
        return follow_identity(identity, settings)
    if not args.name.replace("|", "").strip():
        raise UsageError('give a name to follow, e.g. "Dezun Dong"')
    try:
        rule = parse_person(args.name)
    except WatcherError as error:
        raise UsageError(f'cannot follow {error}; e.g. "Dezun Dong in cs.DC"') from None
    _, store = open_store(settings)
    followed, created = store.follow_person(rule)
    if created:
        print(f"Now following {followed.label}. {HISTORY_NOTE}")
    else:
        print(f"Already following {followed.label}.")
    return 0


def follow_identity(identity: Identity, settings: Settings) -> int:
    """Follow a person by arXiv author id or ORCID iD, once arXiv confirmed it knows them."""
    _, store = open_store(settings)

    async def ask_arxiv() -> list[Record]:
        async with arxiv_client(settings) as client:
            return await build_poller(settings, store, client).identity_papers(identity)

    try:
        found = asyncio.run(ask_arxiv())
    except UnknownAuthorId:
        raise UsageError(f"{identity.unknown}, like {EXAMPLE_ARXIV_PAGE}") from None
    followed, created = store.follow_identity(identity, name=likely_name(found))
    verb = "Now following" if created else "Already following"
    claimed = f"{verb} {followed.label}: arXiv lists {len(found)} paper(s) they claimed."
    print(f"{claimed} {HISTORY_NOTE}" if created else claimed)
    return 0


def cmd_unfollow(args: argparse.Namespace, settings: Settings) -> int:
    engine, store = open_store(settings)
    try:
        parse_identity(args.name)  # an author id meant but wrong is refused, not read as a name
        name, categories = split_categories(args.name)
    except (IdentityError, WatcherError) as error:
        raise UsageError(f"cannot unfollow that: {error}") from None
    # The chats' own use case (/unsubscribe NAME), here for every chat: the follow goes.
    stopped = Unfollowing(store, Chats(engine)).by_name(EVERYWHERE, name, categories)
    if not isinstance(stopped, Stopped):
        raise UsageError(f"{args.name[:100]!r} is not followed; see: arxiv-watcher authors")
    followed = stopped.followed
    print(f"No longer following {followed.label}.")
    if any(rule.key == followed.key for rule in settings.followed_specs):
        print(
            "Note: it is in WATCH_AUTHORS, so the next start follows it again; "
            "remove it there to stop for good."
        )
    return 0


def _topic(text: str) -> Topic:
    try:
        return parse_topic(text)
    except TopicError as error:
        raise UsageError(f"cannot watch that topic: {error}") from None


def cmd_watch(args: argparse.Namespace, settings: Settings) -> int:
    topic = _topic(args.topic)
    _, store = open_store(settings)
    followed, created = store.watch_topic(topic)
    if created:
        print(
            f"Now watching {topic}. Its recent papers are stored silently at the next poll; "
            "later ones are new."
        )
    else:
        print(f"Already watching {followed.label}.")
    return 0


def cmd_unwatch(args: argparse.Namespace, settings: Settings) -> int:
    topic = _topic(args.topic)
    engine, store = open_store(settings)
    # The chats' own use case (/unwatch TOPIC), here for every chat: the topic goes.
    stopped = Unfollowing(store, Chats(engine)).topic(EVERYWHERE, topic=topic)
    if not isinstance(stopped, Stopped):
        raise UsageError(f"{str(topic)!r} is not watched; see: arxiv-watcher authors")
    print(f"No longer watching {stopped.followed.label}.")
    return 0


def cmd_authors(args: argparse.Namespace, settings: Settings) -> int:
    _, store = open_store(settings)
    for followed in store.followed():
        print(describe_followed(followed))
    for identity in not_followed(store, settings.followed_specs):
        print(f"{identity} (WATCH_AUTHORS): {NOT_FOLLOWED}")
    mailing = describe_mailing(store.last_mailing(), settings.announcement_calendar)
    if mailing is not None:
        print(f"arXiv: {mailing}")
    return 0


NOT_FOLLOWED = (
    "not followed: refused at the service's last start (see its log for arXiv's answer), "
    "or added since; each start asks arXiv about a new author id"
)


def describe_followed(followed: Followed) -> str:
    aliases = f" (also {', '.join(followed.aliases)})" if followed.aliases else ""
    if followed.kind == FollowKind.TOPIC:
        aliases = " (topic)"
    state = f"{counted(followed.record_count, 'record')}, last success {ago(followed.last_success)}"
    if followed.consecutive_failures:
        failures = counted(followed.consecutive_failures, "failure")
        state += f", {failures} in a row: {followed.last_error}"
    if not followed.polled:
        state += "; not polled: no chat subscribes any more (its papers stay)"
    return f"{followed.label}{aliases}: {state}"


def cmd_health(args: argparse.Namespace, settings: Settings) -> int:
    """Exit 0 when healthy (see `watcher.runtime.health`), printing the verdict's line either
    way."""
    engine = db.create_db_engine(settings.database_url)
    result = verdict(settings, engine, live_instances(settings.data_dir))
    print(result.line)
    return 0 if result.healthy else 1


def cmd_db(args: argparse.Namespace, settings: Settings) -> int:
    engine = db.create_db_engine(settings.database_url)
    db.check_connection(engine)
    pending = db.pending_migrations(engine)
    if args.action == "current":
        print(f"{len(pending)} migration(s) pending" if pending else "database is up to date")
        return 0
    db.upgrade(engine)
    print(f"applied {len(pending)} migration(s)" if pending else "database is up to date")
    return 0


if __name__ == "__main__":
    sys.exit(main())
