"""`Core`: the object a front end receives, built once at start by the runtime.

Besides the parts it is built from, it carries the use cases, grouped: `lookups` (what the chats ask
of arXiv), `follows` (what a chat follows, and the homonym question), `coauthors` (/authors: a
paper's authors, and following one of them), `questions` (the read-only ones), `chat_settings` (how
and when a chat is spoken to), `imports` (a chat's list out and in), `admin` (/stats), `presence` (a
chat coming, going, moving), `delivery` (what the sender needs), `reading_list` (the papers a chat
saved), `exclusions` (the words a chat never wants to see), `why` (/why: what came today, or why
nothing did), `suggestions` ("Suggested for you": /suggest, 👍/👎, the sender's half) and
`inline` (inline mode: `@bot QUERY` in any chat). They are built from the parts when the core
is, so the runtime's poll request (`poll_soon`) is given to the constructor, never assigned to a
part afterwards.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from watcher.clock import SYSTEM_CLOCK, Clock
from watcher.core.admin import Admin
from watcher.core.chat_settings import ChatSettings
from watcher.core.coauthors import Coauthors
from watcher.core.delivery import Deliveries
from watcher.core.exclusions import ExcludedWords
from watcher.core.following import Follows
from watcher.core.imports import Imports
from watcher.core.inline import InlinePapers
from watcher.core.lookups import Lookups, no_poll_request
from watcher.core.presence import Presence
from watcher.core.questions import Questions
from watcher.core.reading_list import ReadingList
from watcher.core.subscribing import LOOKUP_PATIENCE
from watcher.core.suggestions import Suggestions
from watcher.core.why import Why
from watcher.polling.poll import Poller
from watcher.settings import Settings
from watcher.store import Store
from watcher.store.chats import Chats
from watcher.store.exclusions import Exclusions
from watcher.store.outbox import Outbox
from watcher.store.reading_list import ReadingLists


@dataclass(frozen=True, slots=True)
class Core:
    """Everything a front end may use of the core, and the one clock the runtime runs on.

    `poll_soon` asks the runtime for a round of polls now (a new follow's history);
    `lookup_patience`: seconds a chat's look-up waits for arXiv.
    """

    settings: Settings
    store: Store
    chats: Chats
    outbox: Outbox
    poller: Poller
    clock: Clock = SYSTEM_CLOCK
    poll_soon: Callable[[], None] = no_poll_request
    lookup_patience: float = LOOKUP_PATIENCE
    lookups: Lookups = field(init=False, repr=False, compare=False)
    follows: Follows = field(init=False, repr=False, compare=False)
    coauthors: Coauthors = field(init=False, repr=False, compare=False)
    questions: Questions = field(init=False, repr=False, compare=False)
    chat_settings: ChatSettings = field(init=False, repr=False, compare=False)
    imports: Imports = field(init=False, repr=False, compare=False)
    admin: Admin = field(init=False, repr=False, compare=False)
    presence: Presence = field(init=False, repr=False, compare=False)
    delivery: Deliveries = field(init=False, repr=False, compare=False)
    reading_list: ReadingList = field(init=False, repr=False, compare=False)
    exclusions: ExcludedWords = field(init=False, repr=False, compare=False)
    why: Why = field(init=False, repr=False, compare=False)
    suggestions: Suggestions = field(init=False, repr=False, compare=False)
    inline: InlinePapers = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        lookups = Lookups(
            settings=self.settings,
            store=self.store,
            chats=self.chats,
            poller=self.poller,
            poll_soon=self.poll_soon,
            patience=self.lookup_patience,
        )
        built = {
            "lookups": lookups,
            "questions": Questions(self.settings, self.store, self.chats, clock=self.clock),
            "follows": Follows(
                self.settings, self.store, self.chats, lookups.subscribing, clock=self.clock
            ),
            "coauthors": Coauthors(self.store, self.chats, papers=lookups.papers),
            "chat_settings": ChatSettings(self.chats, self.clock),
            "imports": Imports(
                self.settings,
                self.store,
                self.chats,
                identities=lookups.identities,
                poll_soon=self.poll_soon,
                clock=self.clock,
            ),
            "admin": Admin(self.settings, self.store, self.chats, self.outbox),
            "presence": Presence(self.chats, self.clock),
            "delivery": Deliveries(self.settings, self.store, self.chats, self.outbox, self.clock),
            "reading_list": ReadingList(self.store, ReadingLists(self.store.engine), self.clock),
            "exclusions": ExcludedWords(Exclusions(self.store.engine), self.clock),
            "why": Why(self.settings, self.store, self.clock),
            "suggestions": Suggestions(self.settings, self.store, self.clock),
            "inline": InlinePapers(self.store, lookups, self.poller, patience=self.lookup_patience),
        }
        # A frozen dataclass sets its own derived fields this way, once, while it is built.
        for name, value in built.items():
            object.__setattr__(self, name, value)
