"""A follow as the rest of the service sees it: the rule (a person, an identity or a topic) and
its poll state, read from the store (`watcher.store.follow_state`) and shown by the CLI and the bot.
`closest_person` finds the follow a name that is not followed most likely meant.
"""

from __future__ import annotations

import difflib
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from watcher.follows.folding import fold
from watcher.follows.identity import Identity
from watcher.follows.rules import rule_key, with_categories
from watcher.follows.topics import whole_label
from watcher.kinds import FollowKind


@dataclass(frozen=True, slots=True)
class Followed:
    """A followed author with its poll state, as the CLI and the bot show it."""

    id: int
    name: str
    aliases: tuple[str, ...]
    record_count: int
    last_attempt: datetime | None
    last_success: datetime | None
    last_error: str | None
    consecutive_failures: int
    next_poll: datetime | None
    watched: bool = True
    subscribers: int = 0
    kind: FollowKind = FollowKind.PERSON
    categories: tuple[str, ...] = ()
    identity: str | None = None
    topic: str | None = None
    created: datetime | None = None
    refreshed: datetime | None = None  # its whole list last read (`watcher.polling.sources.api`)

    @property
    def names(self) -> tuple[str, ...]:
        return (self.name, *self.aliases)

    @property
    def key(self) -> str:
        """The rule's unique key: a person's (`watcher.follows.rules.rule_key`), a topic's
        (`watcher.follows.topics.Topic.rule_key`: "topic:" and its label), or an identity's
        ("arxiv:dong_d_1"), never to be confused with its name's."""
        if self.kind == FollowKind.TOPIC:
            return f"topic:{self.label}"
        if self.identity is not None:
            return self.identity
        return rule_key(self.name, self.categories, self.aliases)

    @property
    def label(self) -> str:
        """How the rule is shown: "Wei Wang in cs.DC,cs.NI", "Dezun Dong (arxiv:dong_d_1)" for
        a person followed by identity, or just the name."""
        if self.identity is not None:
            shown = identity_shown(self.identity)
            return self.name if self.name == shown else f"{self.name} ({shown})"
        if self.kind == FollowKind.TOPIC and not self.topic:
            return whole_label(self.categories)  # a whole-category topic: "all of cs.DC"
        return with_categories(self.name, self.categories)

    @property
    def polled(self) -> bool:
        """Whether anyone wants its papers: the operator watches it, or an active chat
        subscribes (`subscribers` counts only those)."""
        return self.watched or self.subscribers > 0

    @property
    def backfilled(self) -> bool:
        """Whether its history has been fetched once; until then nothing of it is announced."""
        return self.last_success is not None


def identity_shown(key: str) -> str:
    """How a stored identity key reads: "arxiv:dong_d_1", "ORCID 0000-0002-1825-0097"."""
    try:
        return Identity.from_key(key).shown
    except ValueError:
        return key  # not written by `follow_identity`; shown as stored


def closest_person(name: str, follows: Sequence[Followed]) -> Followed | None:
    """The person followed by name that `name` most likely meant: the same name in other
    categories ("ke wu" for "Ke Wu in cs.DC"), else the nearest name by `difflib`'s ratio."""
    people = [f for f in follows if f.kind == FollowKind.PERSON and f.identity is None]
    by_name = {fold(f.name): f for f in people}
    wanted = fold(name)
    if wanted in by_name:
        return by_name[wanted]
    near = difflib.get_close_matches(wanted, by_name, n=1, cutoff=0.8)
    return by_name[near[0]] if near else None
