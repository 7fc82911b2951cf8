"""`Core`: the object a front end receives, built once at start by the runtime."""

from __future__ import annotations

from dataclasses import dataclass, field

from watcher.clock import Clock, utcnow
from watcher.core.admin import Admin
from watcher.core.chat_settings import ChatSettings
from watcher.core.delivery import Deliveries
from watcher.core.imports import Imports
from watcher.core.presence import Presence
from watcher.poll import Poller
from watcher.settings import Settings
from watcher.store import Store
from watcher.store.chats import Chats
from watcher.store.outbox import Outbox


@dataclass(frozen=True, slots=True)
class Core:
    """Everything a front end may use of the core, and the one clock the runtime runs on.

    The use cases hang on it in small groups, built from the fields above them:
    `chat_settings` (`watcher.core.chat_settings`), `imports` (`watcher.core.imports`),
    `admin` (`watcher.core.admin`), `presence` (`watcher.core.presence`), `delivery`
    (`watcher.core.delivery`).
    """

    settings: Settings
    store: Store
    chats: Chats
    outbox: Outbox
    poller: Poller
    clock: Clock = utcnow
    chat_settings: ChatSettings = field(init=False)
    imports: Imports = field(init=False)
    admin: Admin = field(init=False)
    presence: Presence = field(init=False)
    delivery: Deliveries = field(init=False)

    def __post_init__(self) -> None:
        built = {
            "chat_settings": ChatSettings(self.chats, self.clock),
            "imports": Imports(self.settings, self.store, self.chats, self.poller, self.clock),
            "admin": Admin(self.settings, self.store, self.chats, self.outbox),
            "presence": Presence(self.chats, self.clock),
            "delivery": Deliveries(self.settings, self.store, self.chats, self.outbox, self.clock),
        }
        for name, value in built.items():
            object.__setattr__(self, name, value)
