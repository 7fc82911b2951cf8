"""The kinds the command table (`bot.handlers.commands`) is made of: a `Command` row, the /help
`Group` it is shown in, the `Handlers` a command is routed to, and the sentences many commands'
details share (who may change a setting in a group, and that a forum topic's is its own).
A row's texts are English templates marked for the catalog; `Command.line` and `Group.heading`
say them in the language speaking now.
"""

from __future__ import annotations

from collections.abc import Callable, Coroutine
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from telegram import Update

from bot.handlers.admin import Admin
from bot.handlers.coauthors import CoauthorCommands
from bot.handlers.common import Context
from bot.handlers.digest import DigestCommands
from bot.handlers.exclude import ExcludeCommands
from bot.handlers.language import LanguageCommands
from bot.handlers.questions import Questions
from bot.handlers.saved import SavedPapers
from bot.handlers.speaking import SpeakingCommands
from bot.handlers.subscriptions import Subscriptions
from bot.handlers.suggest import SuggestCommands
from bot.handlers.takeout import Takeout
from bot.handlers.topics import Topics
from bot.handlers.welcome import Welcome
from bot.handlers.why import WhyCommand
from bot.i18n import N_, _

Callback = Callable[[Update, Context], Coroutine[Any, Any, None]]


@dataclass(frozen=True, slots=True)
class Handlers:
    """The handler groups a command may be routed to, built once by `bot.handlers.register`."""

    welcome: Welcome
    subscriptions: Subscriptions
    coauthors: CoauthorCommands
    topics: Topics
    questions: Questions
    digest: DigestCommands
    speaking: SpeakingCommands
    admin: Admin
    takeout: Takeout
    saved: SavedPapers
    exclude: ExcludeCommands
    suggest: SuggestCommands
    why: WhyCommand
    language: LanguageCommands


class Group(StrEnum):
    """The groups /help shows the commands in, in this order."""

    FOLLOWING = N_("Following")
    READING = N_("Reading")
    SETTINGS = N_("Settings")

    @property
    def heading(self) -> str:
        """Its title in /help, in the language speaking now."""
        return _(self.value)


@dataclass(frozen=True, slots=True)
class Command:
    """One command: `/name`, its menu line, its handler among `Handlers`, its /help group and
    line (`usage`: what follows the name; `summary`: a few words), and what `/help NAME` adds
    (`details`: templates whose `{placeholders}` are limits, `bot.handlers.commands.LIMITS`)."""

    name: str
    menu: str
    route: Callable[[Handlers], Callback]
    group: Group
    usage: str
    summary: str
    details: tuple[str, ...]

    @property
    def line(self) -> str:
        """Its one line in /help, in the language speaking now: `/subscribe NAME: follow an
        author`."""
        command = f"/{self.name} {_(self.usage)}" if self.usage else f"/{self.name}"
        return _("{command}: {summary}", command=command, summary=_(self.summary))


IN_GROUPS = N_(
    "In a group or channel only its administrators can change this; in a forum each topic has "
    "its own."
)
# The settings that were the whole chat's once: said plainly that a topic's is its own.
PER_TOPIC = N_(
    "In a group or channel only its administrators can change this. In a forum each topic has "
    "its own: sent in a topic, it shows and changes that topic's, and the other topics (and "
    "General) keep theirs."
)
