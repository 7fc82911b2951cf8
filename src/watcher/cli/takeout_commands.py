"""`arxiv-watcher export [--chat ID] [--opml]` and `arxiv-watcher import FILE [--chat ID]`: the
bot's /export and /import for the operator (`watcher.core.takeout`).

Without `--chat` they work on the operator's own list: the follows the service watches whoever
subscribes (`WATCH_AUTHORS`, `arxiv-watcher follow` and `watch`); an import then follows each as
`follow` does, with no limit and no allowance, and reports the settings a file carries as a chat's.
With `--chat ID` they work on that chat (its General topic, or a chat without topics), within its
limit of follows; the operator is not charged the chat's allowance, and the chat's reading list
(/saved) goes out and comes in with its follows. An import prints what it adds and skips and
why, then stores it in one transaction; nothing is asked (the operator ran it).
An author id nobody follows is asked of arXiv first, and one arXiv does not know is skipped with
the reason /subscribe and `follow` give.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from collections.abc import Callable
from pathlib import Path

from sqlalchemy import Engine

from watcher.core.identity_check import IdentityCheck
from watcher.core.takeout import (
    FileRefused,
    Target,
    apply_import,
    export_list,
    identities_in,
    plan_import,
    read_file,
    without_refused,
)
from watcher.core.watched_check import follow_as_written
from watcher.errors import UsageError
from watcher.follows.identity import Identity
from watcher.runtime import db
from watcher.runtime.service import arxiv_client, build_poller
from watcher.sentences import Sentence
from watcher.settings import Settings
from watcher.store import Store
from watcher.store.applied_imports import ImportStale, ImportStore
from watcher.store.chats import Chats
from watcher.store.tables import utcnow


def add_commands(command: Callable[[str, object, str], argparse.ArgumentParser]) -> None:
    """Register `export` and `import` with the CLI's `command(name, handler, help)` helper."""
    export = command("export", cmd_export, "print the follows and settings of a chat, or yours")
    export.add_argument("--chat", type=int, metavar="ID", help="a chat's id (see /id)")
    export.add_argument("--opml", action="store_true", help="OPML of arXiv feeds, not text")
    imported = command("import", cmd_import, "follow what an exported file lists")
    imported.add_argument("file", type=Path, metavar="FILE", help="a .txt or .opml file")
    imported.add_argument("--chat", type=int, metavar="ID", help="a chat's id (see /id)")


def _open(settings: Settings) -> tuple[Engine, Store]:
    """The database, migrated, following WATCH_AUTHORS (as every CLI command opens it)."""
    engine = db.open_database(settings.database_url)
    store = Store(engine)
    follow_as_written(store, settings.followed_specs)
    return engine, store


async def _refusals(
    settings: Settings, store: Store, identities: list[Identity]
) -> dict[str, Sentence]:
    """Why arXiv's answers refuse some of these author ids (`watcher.core.identity_check`)."""
    async with arxiv_client(settings) as client:
        check = IdentityCheck(store, build_poller(settings, store, client))
        return await check.refusals(identities)


def _target(engine: Engine, chat: int | None) -> Target:
    if chat is not None and Chats(engine).get(chat) is None:
        raise UsageError(f"no chat {chat} is known; a chat's id is what /id answers in it")
    return Target(chat)


def cmd_export(args: argparse.Namespace, settings: Settings) -> int:
    engine, store = _open(settings)
    target = _target(engine, args.chat)
    _, data = export_list(
        store, Chats(engine), ImportStore(engine), target, opml=args.opml, now=utcnow()
    )
    sys.stdout.write(data.decode("utf-8"))
    return 0


def cmd_import(args: argparse.Namespace, settings: Settings) -> int:
    try:
        data = args.file.read_bytes()
    except OSError as error:
        raise UsageError(f"cannot read {args.file}: {error.strerror}") from None
    try:
        read = read_file(data)
    except FileRefused as error:
        raise UsageError(str(error)) from None
    engine, store = _open(settings)
    target = _target(engine, args.chat)
    identities = identities_in(read)
    if identities:  # an author id arXiv does not know is refused, as /subscribe refuses it
        read = without_refused(read, asyncio.run(_refusals(settings, store, identities)))
    imports = ImportStore(engine, summary_threshold=settings.summary_threshold)
    now = utcnow()
    plan = plan_import(store, Chats(engine), imports, read, target, now=now)
    for entry in plan.adds:
        print(f"follow  {entry.rule}")
    for key, value in plan.settings.items():
        print(f"set     {key}: {value}")
    for line in plan.saves:
        print(f"save    {line.arxiv_id}  {line.title}".rstrip())
    for skipped in (*plan.skipped, *plan.settings_skipped):
        print(f"skip    {skipped.where}: {skipped.text}: {skipped.reason}")
    if plan.empty:
        print("Nothing to import.")
        return 0
    try:
        apply_import(imports, plan, target, now=now)
    except ImportStale as error:
        print(f"arxiv-watcher: nothing imported: {error}", file=sys.stderr)
        return 1
    saved = f" and saved {len(plan.saves)} paper(s)" if plan.saves else ""
    history = " Their history is fetched silently at the next poll." if plan.adds else ""
    print(f"Imported {len(plan.adds)} follow(s){saved}.{history}")
    if target.chat_id is None and plan.adds:
        print("WATCH_AUTHORS is the operator's list at each start: add them there to keep them.")
    return 0
