"""Whether arXiv knows the author ids a list asks to follow, asked before anything is followed:
/import and `arxiv-watcher import` check as /subscribe AUTHOR-ID does (`watcher.core.subscribing`),
and refuse an unknown one with the same reason (`Identity.unknown`).

Only an id nobody follows yet is asked about (one followed is known, or its failures are
reported where follows' failures are). Each question is one request of the author's feed on the
shared polite client, so a list costs at most `MAX_ASKED` of them, and a chat's questions are
charged to its look-ups (`spend`). An answer is remembered for `REMEMBERED` seconds: the
confirmation of an import plans it again, and must not ask arXiv again nor come to another plan.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable, Sequence

from watcher.aio import in_db_thread
from watcher.errors import ArxivError, UnknownAuthorId
from watcher.follows.identity import Identity
from watcher.polling.poll import Poller
from watcher.sentences import Sentence, sentence
from watcher.store import Store

MAX_ASKED = 20  # ids asked about for one list; the rest are skipped, to import later
REMEMBERED = 3600.0  # seconds an answer is kept
PATIENCE = 60.0  # seconds one question may wait for arXiv, its turn on the client included


def not_asked(why: Sentence) -> Sentence:
    """Why an author id was not checked, when arXiv could not be asked about it."""
    return sentence(
        "arXiv was not asked about this author id: {why}; import the file again later", why=why
    )


class IdentityCheck:
    """The answers arXiv gave about author ids, remembered a while."""

    def __init__(
        self,
        store: Store,
        poller: Poller,
        *,
        patience: float = PATIENCE,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.store = store
        self.poller = poller
        self.patience = patience
        self.clock = clock
        # key: (when, refusal or None)
        self._answers: dict[str, tuple[float, Sentence | None]] = {}

    async def refusals(
        self,
        identities: Sequence[Identity],
        *,
        spend: Callable[[], Awaitable[bool]] | None = None,
    ) -> dict[str, Sentence]:
        """Why each id that may not be followed may not (by `Identity.key`): arXiv knows no
        such author, or it could not be asked (arXiv failing, the chat's look-ups spent
        (`spend` says False), more than `MAX_ASKED` ids). Ids already followed are known."""
        refused: dict[str, Sentence] = {}
        asked = 0
        for identity in dict.fromkeys(identities):
            if await in_db_thread(self.store.find_identity, identity.key) is not None:
                continue
            remembered = self._remembered(identity.key)
            if remembered is not None:
                if remembered[1] is not None:
                    refused[identity.key] = remembered[1]
                continue
            if asked >= MAX_ASKED:
                refused[identity.key] = not_asked(sentence("at most {most} a file", most=MAX_ASKED))
                continue
            if spend is not None and not await spend():
                refused[identity.key] = not_asked(sentence("this chat's look-ups are spent"))
                continue
            asked += 1
            why = await self.ask(identity)
            if why is not None:
                refused[identity.key] = why
        return refused

    async def ask(self, identity: Identity) -> Sentence | None:
        """arXiv's answer, asked now (one request): None when it knows the id,
        `identity.unknown` when it does not (both remembered), `not_asked`'s sentence when arXiv
        did not answer within `patience`."""
        try:
            async with asyncio.timeout(self.patience):
                await self.poller.identity_papers(identity)
        except UnknownAuthorId:
            self._answers[identity.key] = (self.clock(), identity.unknown)
            return identity.unknown
        except (ArxivError, TimeoutError):
            return not_asked(sentence("arXiv did not answer"))
        self._answers[identity.key] = (self.clock(), None)
        return None

    def _remembered(self, key: str) -> tuple[float, Sentence | None] | None:
        now = self.clock()
        for old in [k for k, (when, _) in self._answers.items() if now - when > REMEMBERED]:
            del self._answers[old]
        return self._answers.get(key)
