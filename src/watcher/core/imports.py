"""A chat's follows and settings taken elsewhere or brought in: export, import plan and apply.

The front end reads the file (`watcher.core.takeout.read_file`) and asks; the core does the rest,
each step ONE async call on the runtime's clock. Before planning, the author ids in the file
that nobody follows are asked of arXiv (`watcher.core.identity_check`), each question one of the
chat's look-ups; one arXiv does not know is skipped, with the reason /subscribe gives.

`apply` plans again and imports only if the plan is still the one the chat was asked about (its
`digest`); the import itself is one store transaction (`watcher.store.applied_imports`), so a chat
that changed meanwhile gets `ImportOutdated` and nothing changes. New follows ask for a poll soon.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass

from watcher.aio import in_db_thread
from watcher.clock import Clock
from watcher.core.identity_check import IdentityCheck
from watcher.core.takeout import (
    ImportPlan,
    Target,
    apply_import,
    export_list,
    identities_in,
    plan_import,
    without_refused,
)
from watcher.follows.follow_list import ReadList
from watcher.sentences import Sentence
from watcher.settings import Settings
from watcher.store import Store
from watcher.store.applied_imports import ImportStale, ImportStore
from watcher.store.budgets import LookupBudgets
from watcher.store.chats import Chats

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class Exported:
    """The file of a chat's follows and settings: its name and bytes."""

    name: str
    data: bytes


@dataclass(frozen=True, slots=True)
class Imported:
    """The plan, imported whole."""

    plan: ImportPlan


@dataclass(frozen=True, slots=True)
class ImportOutdated:
    """The plan asked about is no longer what the file would do here: nothing was imported."""

    reason: str


class Imports:
    """Export, and the import's plan and apply, of one chat's (forum topic's) follows."""

    def __init__(
        self,
        settings: Settings,
        store: Store,
        chats: Chats,
        *,
        identities: IdentityCheck,
        poll_soon: Callable[[], None],
        clock: Clock,
    ) -> None:
        self._store = store
        self._chats = chats
        self._poll_soon = poll_soon
        self._clock = clock
        self._imports = ImportStore(
            chats.engine,
            budgets=LookupBudgets(
                chats.engine, per_hour=settings.backfills_per_chat_hour, clock=clock
            ),
            summary_threshold=chats.summary_threshold,
        )
        self._identities = identities

    async def export(
        self, chat_id: int, thread_id: int, *, opml: bool, say: Callable[[Sentence], str] = str
    ) -> Exported:
        """The chat's (topic's) follows and settings as a file: plain text, or an OPML. `say`
        says the text file's comment lines (the front end's, in the chat's language)."""
        name, data = await in_db_thread(
            export_list,
            self._store,
            self._chats,
            self._imports,
            Target(chat_id, thread_id),
            opml=opml,
            now=self._clock(),
            say=say,
        )
        return Exported(name, data)

    async def plan(self, read: ReadList, chat_id: int, thread_id: int) -> ImportPlan:
        """What importing `read` here would do (ids arXiv does not know skipped)."""
        checked = await self._checked(read, chat_id)
        return await in_db_thread(self._plan, checked, Target(chat_id, thread_id))

    async def apply(
        self, read: ReadList, chat_id: int, thread_id: int, digest: str
    ) -> Imported | ImportOutdated:
        """Import `read` here if it still plans to what was asked (`digest`)."""
        checked = await self._checked(read, chat_id)
        return await in_db_thread(self._apply, checked, Target(chat_id, thread_id), digest)

    def _plan(self, read: ReadList, target: Target) -> ImportPlan:
        return plan_import(self._store, self._chats, self._imports, read, target, now=self._clock())

    def _apply(self, read: ReadList, target: Target, digest: str) -> Imported | ImportOutdated:
        """Database thread: plan again and, if it is still the plan asked about, import it."""
        now = self._clock()
        plan = plan_import(self._store, self._chats, self._imports, read, target, now=now)
        if plan.empty or plan.digest != digest:
            return ImportOutdated("the plan changed since it was asked about")
        try:
            apply_import(self._imports, plan, target, now=now)
        except ImportStale as error:
            log.info("an import in chat %s went stale: %s", target.chat_id, error)
            return ImportOutdated(str(error))
        if plan.new_follows:
            self._poll_soon()
        return Imported(plan)

    async def _checked(self, read: ReadList, chat_id: int) -> ReadList:
        """`read` with the author ids arXiv does not know skipped, and why (as /subscribe
        refuses them); each question asked spends one of the chat's look-ups."""
        identities = identities_in(read)
        if not identities:
            return read
        budgets = self._imports.budgets
        assert budgets is not None

        async def spend() -> bool:
            return await in_db_thread(budgets.take_lookup, chat_id) is None

        return without_refused(read, await self._identities.refusals(identities, spend=spend))
