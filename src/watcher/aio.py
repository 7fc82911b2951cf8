"""Running the blocking store from asyncio code.

The store is synchronous (SQLModel sessions). Async callers hand each call to one dedicated
thread, so the event loop never blocks on the database and SQLite never sees two writers.

Calls run one at a time, first come first served, so every call is also a wait for all the
callers queued behind it: the bot's commands, the sender, the poll. Keep each call short (about
0.1 s at most); long work is split into several calls, as the poll saves a big fetch in parts
(`watcher.polling.poll`), so that others are served between them.
"""

from __future__ import annotations

import asyncio
import functools
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import ParamSpec, TypeVar

P = ParamSpec("P")
T = TypeVar("T")

_database_thread = ThreadPoolExecutor(max_workers=1, thread_name_prefix="database")


async def in_db_thread(function: Callable[P, T], *args: P.args, **kwargs: P.kwargs) -> T:
    """Run `function(*args, **kwargs)` on the database thread and await its result."""
    loop = asyncio.get_running_loop()
    return await loop.run_in_executor(
        _database_thread, functools.partial(function, *args, **kwargs)
    )
