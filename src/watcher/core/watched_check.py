"""The operator's list (WATCH_AUTHORS) checked as a chat's follows are (issue 29: unknown
identities are refused everywhere with the same answer).

At the service's start, each arXiv author id or ORCID iD of the list that is new (nobody follows
it, or its follow never polled well: an entry a CLI command followed as written) is asked about
once, through the identity check (`watcher.core.identity_check`: one request of the author's feed on
the service's shared polite client). One arXiv does not know is refused with /subscribe's reason
(`Identity.unknown`), logged at ERROR, and not followed (a follow a CLI command made of it is
watched no more). An id that polled well once is known, and never asked again, so a start costs
no request for a list that did not change; a refused entry is asked again at each start until the
operator takes it out. When arXiv does not answer, the entry is followed as written, as before
(the start is never held up: one question waits at most `START_PATIENCE`, and the first that
gets no answer ends the asking), and the log says so; its poll failures then tell the rest.

CLI commands never ask arXiv (`follow_as_written`): they follow a new entry as written, and the
next start checks it; an identity follow the start refused (or that was taken out of the list)
is left unwatched, for the next start to decide. Nothing stores a refusal (that would take a
table): a refused id nobody had followed is followed as written by the next CLI command, polled
by the running service (failing, and told as a failing follow) until the next start refuses it.
/subscribe alone (the watched authors) joins only the ids the start kept (`known_watched`).
"""

from __future__ import annotations

import logging
from collections.abc import Sequence

from watcher.aio import in_db_thread
from watcher.core.identity_check import IdentityCheck
from watcher.follows.followed import Followed
from watcher.follows.identity import Identity
from watcher.follows.rules import WatchedRule
from watcher.store import Store

log = logging.getLogger(__name__)

START_PATIENCE = 20.0  # seconds one question at start may wait for arXiv, its turn included


def is_new(followed: Followed | None) -> bool:
    """Whether a WATCH_AUTHORS identity's follow is to be asked about: none, or never polled
    well (an id arXiv does not know never is)."""
    return followed is None or followed.last_success is None


async def refuse_unknown_watched(
    rules: Sequence[WatchedRule], store: Store, check: IdentityCheck
) -> frozenset[str]:
    """The keys of the list's new identities arXiv does not know, each logged at ERROR with the
    reason; see the module docstring."""
    refused: set[str] = set()
    for rule in dict.fromkeys(rules):
        if not isinstance(rule, Identity):
            continue
        if not is_new(await in_db_thread(store.find_identity, rule.key)):
            continue
        why = await check.ask(rule)
        if why == rule.unknown:
            refused.add(rule.key)
            log.error(
                "WATCH_AUTHORS entry %s is not followed: %s. Correct it or take it out of "
                "WATCH_AUTHORS",
                rule,
                why,
            )
        elif why is not None:
            log.warning(
                "WATCH_AUTHORS entry %s is followed as written, unchecked: %s; its polls will "
                "tell if arXiv does not know it. The other new author ids are not asked about "
                "at this start either",
                rule,
                str(why).split(";")[0],
            )
            break
    return frozenset(refused)


def follow_as_written(store: Store, rules: Sequence[WatchedRule]) -> None:
    """Database thread, for CLI commands: follow the list without asking arXiv. An identity
    follow that is there but unwatched stays so: the service's start refused it, or will
    re-watch it after its check."""
    for rule in rules:
        if isinstance(rule, Identity):
            found = store.find_identity(rule.key)
            if found is not None and not found.watched:
                continue
        store.follow_watched(rule)


def known_watched(store: Store, rules: Sequence[WatchedRule]) -> list[Followed]:
    """Database thread: the follows of the list for a chat to join (/subscribe alone): each name,
    followed if it is not, and each identity the service's start kept. An identity it refused
    (or not yet asked about) is left out, never followed here."""
    follows: list[Followed] = []
    for rule in rules:
        if isinstance(rule, Identity):
            found = store.find_identity(rule.key)
            if found is not None and found.watched:
                follows.append(found)
        else:
            follows.append(store.follow_watched(rule)[0])
    return follows


def not_followed(store: Store, rules: Sequence[WatchedRule]) -> list[Identity]:
    """Database thread: the list's identities that no follow of the list stands for: refused at
    the last start (or added since), for `health` and `arxiv-watcher authors`. No request."""
    missing: list[Identity] = []
    for rule in rules:
        if isinstance(rule, Identity):
            found = store.find_identity(rule.key)
            if found is None or not found.watched:
                missing.append(rule)
    return missing
