"""What a row of the command table (`bot.handlers.commands`) is: a `Command`, and the /help
`Group` it is listed under."""

from __future__ import annotations

from collections.abc import Callable, Coroutine
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from telegram import Update

from bot.handlers.common import Context

Callback = Callable[[Update, Context], Coroutine[Any, Any, None]]


class Group(StrEnum):
    """The groups /help shows the commands in, in this order."""

    FOLLOWING = "Following"
    READING = "Reading"
    SETTINGS = "Settings"


@dataclass(frozen=True, slots=True)
class Command:
    """One command: `/name`, its menu line, its handler among `Handlers`, its /help group and
    line (`usage`: what follows the name; `summary`: a few words), and what `/help NAME` adds."""

    name: str
    menu: str
    route: Callable[[Any], Callback]  # from `bot.handlers.commands.Handlers`
    group: Group
    usage: str
    summary: str
    details: tuple[str, ...]

    @property
    def line(self) -> str:
        """Its one line in /help: `/subscribe NAME: follow an author`."""
        return f"/{self.name}{' ' + self.usage if self.usage else ''}: {self.summary}"
