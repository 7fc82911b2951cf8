"""`ReadingList`: a chat's saved papers, as the core's face offers them (`Core.reading_list`):
🔖 Save and Unsave under a paper, /saved (a page of the list), /saved bib (one .bib file).

The list is the chat's, all its forum topics together, at most `MAX_SAVED` papers
(`watcher.store.reading_list`). Only a stored paper can be saved (its title is kept with it);
once saved it stays listed even if this service stopped holding it, under the title it had.
The .bib file holds each stored paper's entry exactly as the "Cite" button makes it
(`watcher.arxiv.bibtex.bibliography`); a saved paper not stored here has no record to cite, and
is named in a comment at the top of the file instead.

Each method is ONE async call on the runtime's clock; who may call the writing ones (in a group,
its administrators) is the front end's to check.
"""

from __future__ import annotations

from dataclasses import dataclass

from watcher.aio import in_db_thread
from watcher.arxiv.bibtex import bibliography
from watcher.clock import Clock
from watcher.store import Store
from watcher.store.reading_list import (
    MAX_SAVED,
    ReadingLists,
    SavedEntry,
    SaveDone,
    SavedPage,
)

__all__ = [
    "MAX_SAVED",
    "BibFile",
    "ListFull",
    "NotStored",
    "ReadingList",
    "SavedEntry",
    "SavedPage",
    "UnknownChat",
    "WasSaved",
]

BIB_NAME = "arxiv-watcher-saved.bib"


@dataclass(frozen=True, slots=True)
class WasSaved:
    """The paper is on the list: `fresh` when this call put it there (not saved before)."""

    arxiv_id: str
    fresh: bool


@dataclass(frozen=True, slots=True)
class ListFull:
    """The chat saved `limit` papers already: nothing was saved."""

    limit: int


@dataclass(frozen=True, slots=True)
class NotStored:
    """No such paper is stored here, so there is nothing to save."""

    arxiv_id: str


@dataclass(frozen=True, slots=True)
class UnknownChat:
    """The chat never spoke to this service (no row to keep a list under)."""


SaveOutcome = WasSaved | ListFull | NotStored | UnknownChat


@dataclass(frozen=True, slots=True)
class BibFile:
    """/saved bib: the file's name and bytes, how many entries it holds, and the saved papers
    not stored here (named in its header, not cited)."""

    name: str
    data: bytes
    entries: int
    missing: tuple[str, ...]


class ReadingList:
    """The reading lists of one core's chats."""

    def __init__(self, store: Store, lists: ReadingLists, clock: Clock) -> None:
        self._store = store
        self._lists = lists
        self._clock = clock

    async def save(self, chat_id: int, arxiv_id: str) -> SaveOutcome:
        """🔖 Save: put a stored paper on the chat's list (saved already: `fresh` False)."""

        def write() -> SaveOutcome:
            record = self._store.paper(arxiv_id)
            if record is None:
                return NotStored(arxiv_id)
            title = " ".join(record.title.split())
            done = self._lists.save(chat_id, arxiv_id, title=title, now=self._clock())
            if done == SaveDone.FULL:
                return ListFull(MAX_SAVED)
            if done == SaveDone.NO_CHAT:
                return UnknownChat()
            return WasSaved(arxiv_id, fresh=done == SaveDone.SAVED)

        return await in_db_thread(write)

    async def unsave(self, chat_id: int, arxiv_id: str) -> bool:
        """Unsave: take the paper off the list; False when it was not on it."""
        return await in_db_thread(self._lists.unsave, chat_id, arxiv_id)

    async def is_saved(self, chat_id: int, arxiv_id: str) -> bool:
        return await in_db_thread(self._lists.is_saved, chat_id, arxiv_id)

    async def page(self, chat_id: int, *, per_page: int, page: int) -> SavedPage:
        """/saved: page `page` (from 0) of the list, newest saved first."""
        return await in_db_thread(
            lambda: self._lists.page(chat_id, limit=per_page, offset=page * per_page)
        )

    async def bib(self, chat_id: int) -> BibFile:
        """/saved bib: the whole list as one .bib file, newest saved first."""

        def read() -> BibFile:
            entries = self._lists.all_saved(chat_id)
            return bib_file(entries, now=f"{self._clock():%Y-%m-%d %H:%M} UTC")

        return await in_db_thread(read)


def bib_file(entries: list[SavedEntry], *, now: str) -> BibFile:
    """The .bib file of `entries`: a comment header, then each stored paper's entry."""
    stored = [entry.record for entry in entries if entry.record is not None]
    missing = tuple(entry.arxiv_id for entry in entries if entry.record is None)
    # Text outside an entry is a comment to BibTeX; '@' would start an entry, so none is written.
    header = [f"% arxiv-watcher: {len(stored)} saved papers, exported {now}"]
    if missing:
        header.append(
            "% Saved but not stored here, so not cited: "
            + ", ".join(f"arXiv:{arxiv_id}" for arxiv_id in missing)
        )
    text = "\n".join(header) + "\n\n" + bibliography(stored)
    return BibFile(BIB_NAME, text.encode("utf-8"), len(stored), missing)
