"""`Core`: the object a front end receives, built once at start by the runtime."""

from __future__ import annotations

from dataclasses import dataclass

from watcher.clock import SYSTEM_CLOCK, Clock
from watcher.poll import Poller
from watcher.settings import Settings
from watcher.store import Store
from watcher.store.chats import Chats
from watcher.store.outbox import Outbox


@dataclass(frozen=True, slots=True)
class Core:
    """Everything a front end may use of the core, and the one clock the runtime runs on."""

    settings: Settings
    store: Store
    chats: Chats
    outbox: Outbox
    poller: Poller
    clock: Clock = SYSTEM_CLOCK
