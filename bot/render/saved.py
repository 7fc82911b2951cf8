"""A page of /saved: the chat's reading list as `/recent` lists papers (`render_paper_list`),
newest saved first, with a row of "🗑 N" buttons that take entry N off the list, and the paging
buttons under it.

Callback data: "v:PAGE" pages (as `/recent`'s "r:5:PAGE"), "v:x:PAGE:ARXIV-ID" unsaves one paper
and shows page PAGE again; an arXiv id is at most 40-odd bytes, far below the 64 allowed.
A saved paper this service no longer holds (or never did: an imported list) is listed under the
title it had when saved, its date the day it was saved, marked "not stored here".
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from bot.i18n import N_, _
from bot.render.lists import render_paper_list
from bot.render.styled import MAX_CALLBACK_DATA_BYTES, Button, Message
from watcher.arxiv.records import Record
from watcher.core.views import SavedEntry

PREFIX = "v"
_UNSAVE = "x"
NOT_STORED = N_("not stored here")  # translated where it is shown


@dataclass(frozen=True, slots=True)
class SavedButton:
    """What a /saved button asks: show `page`, after taking `unsave` off the list if any."""

    page: int
    unsave: str | None = None


@dataclass(frozen=True, slots=True)
class _Unstored(Record):
    """A saved paper without a stored record: no version to show, its id stands alone."""

    @property
    def versioned_id(self) -> str:
        return self.arxiv_id


def render_saved_page(
    entries: Sequence[SavedEntry],
    *,
    page: int,
    per_page: int,
    total: int,
    marked: Callable[[str], bool] = lambda name: False,
) -> Message:
    """One page of the list: the entries as a paper list headed "Saved · N", a "🗑 N" button
    for each, then "◀ Newer"/"Older ▶"."""
    records = [entry.record or _placeholder(entry) for entry in entries]
    listed = render_paper_list(
        records,
        title=_("Saved"),
        page=page,
        per_page=per_page,
        total=total,
        callback_prefix=PREFIX,
        marked=marked,
    )
    first = page * per_page + 1
    unsave = tuple(
        Button(f"🗑 {number}", callback_data=data)
        for number, entry in enumerate(entries, start=first)
        if len((data := unsave_data(page, entry.arxiv_id)).encode()) <= MAX_CALLBACK_DATA_BYTES
    )
    return Message(listed.html, listed.plain, ((unsave,) if unsave else ()) + listed.buttons)


def unsave_data(page: int, arxiv_id: str) -> str:
    return f"{PREFIX}:{_UNSAVE}:{page}:{arxiv_id}"


def saved_button(data: str) -> SavedButton | None:
    """Decode a /saved button's callback data; None for anything else (old or forged data)."""
    parts = data.split(":", 3)
    if parts[0] != PREFIX:
        return None
    if len(parts) == 2 and _number(parts[1]):
        return SavedButton(int(parts[1]))
    if len(parts) == 4 and parts[1] == _UNSAVE and _number(parts[2]) and parts[3]:
        return SavedButton(int(parts[2]), parts[3])
    return None


def _number(text: str) -> bool:
    return text.isascii() and text.isdigit() and len(text) <= 4


def _placeholder(entry: SavedEntry) -> Record:
    return _Unstored(
        arxiv_id=entry.arxiv_id,
        version=1,
        title=entry.title or f"arXiv:{entry.arxiv_id}",
        abstract="",
        authors=(),
        primary_category=_(NOT_STORED),
        categories=(),
        published=entry.saved_at,
        updated=entry.saved_at,
        abs_url=f"https://arxiv.org/abs/{entry.arxiv_id}",
        pdf_url=f"https://arxiv.org/pdf/{entry.arxiv_id}",
    )
