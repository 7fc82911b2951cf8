"""Questions about the papers: /recent, /subject (up to 3 categories, as /watch takes them),
/subjects, /paper (any arXiv paper: `watcher.lookup`, answered by `paper_answers`), and the
paging buttons under a list.

They are about the chat's own authors, or the watched ones (WATCH_AUTHORS) while it follows
nobody. Nothing here changes what a chat follows, so anyone in any chat may ask (/paper may
store a paper it fetched from arXiv, linked to no follow and announced to no one).
"""

from __future__ import annotations

import html

from telegram import Update
from telegram.constants import ParseMode
from telegram.error import BadRequest

from bot import arguments
from bot.handlers.common import (
    NO_PREVIEW,
    Context,
    Place,
    ServiceHandlers,
    bold_names,
    keyboard,
    place_of,
    plain_names,
    refusal,
    reply,
    reply_usage,
)
from bot.handlers.paper_answers import paper_answer
from bot.render import MAX_PER_PAGE, Message, render_paper_list
from watcher.aio import in_db_thread
from watcher.core import Core
from watcher.errors import UsageError
from watcher.followed import Followed
from watcher.kinds import FollowKind
from watcher.lookup import PaperLookup
from watcher.names import is_same_person
from watcher.taxonomy import category_name

_MAX_LISTED_CATEGORIES = 40
Categories = tuple[str, ...] | None  # those of /subject; None for /recent
_WATCHED_NOTE = (
    "This chat follows nobody, so these are the authors I watch; /subscribe follows them here."
)


class Questions(ServiceHandlers):
    """The read-only commands: lists of papers, categories, one paper in full (any arXiv
    paper: one the store lacks is asked of arXiv through `lookup`)."""

    def __init__(self, service: Core, *, lookup: PaperLookup) -> None:
        super().__init__(service)
        self.lookup = lookup

    async def recent(self, update: Update, context: Context) -> None:
        """/recent [N]: the newest stored papers of this chat's authors."""
        try:
            number = arguments.count(context.args or [], command="recent")
        except UsageError as error:
            await reply_usage(update, context, error)
            return
        await self._send_list(update, context, None, number)

    async def subject(self, update: Update, context: Context) -> None:
        """/subject CATEGORY [N]: the newest stored papers in a category."""
        try:
            wanted = arguments.subject(context.args or [])
        except UsageError as error:
            await reply_usage(update, context, error)
            return
        await self._send_list(update, context, wanted.categories, wanted.count)

    async def _send_list(
        self, update: Update, context: Context, categories: Categories, number: int
    ) -> None:
        place = place_of(update)
        # The renderer fits at most MAX_PER_PAGE entries in one message; more page on.
        per_page = min(number, MAX_PER_PAGE)
        await reply(update, context, await in_db_thread(self._list, place, categories, per_page, 0))

    async def page(self, update: Update, context: Context) -> None:
        """A "Newer"/"Older" button under a list: edit that message to the asked page."""
        query = update.callback_query
        chat = update.effective_chat
        assert query is not None
        wanted = arguments.list_button(query.data or "")
        if wanted is None or chat is None or query.message is None:
            await query.answer("This button no longer works; send the command again.")
            return
        await query.answer()
        answer = await in_db_thread(
            self._list, place_of(update), wanted.categories, wanted.per_page, wanted.page
        )
        message = answer if isinstance(answer, Message) else Message.from_html(answer)
        try:
            await query.edit_message_text(
                message.html,
                parse_mode=ParseMode.HTML,
                link_preview_options=NO_PREVIEW,
                reply_markup=keyboard(message),
            )
        except BadRequest as error:
            if "not modified" not in str(error).lower():
                raise  # a double press asks for the page already shown: nothing to do

    def _list(
        self, place: Place, categories: Categories, per_page: int, page: int
    ) -> Message | str:
        """Database thread: one page of /recent or /subject, or the answer why there is none."""
        followed, own = self._scope(place)
        if not followed:
            return refusal("Nobody is followed yet.", "/subscribe Dezun Dong", lead="Follow with:")
        ids = [f.id for f in followed]
        whose = bold_names(followed) if len(followed) <= 3 else f"{len(followed)} authors"
        # Short: "cs.DC · your follows"; the renderer adds " · 13".
        scope = "Newest" if categories is None else ", ".join(categories)
        title = f"{scope} · {'your follows' if own else 'the watched authors'}"
        people = [name for f in followed if f.kind != FollowKind.TOPIC for name in f.names]
        if categories is None:
            total = self.store.count(followed_ids=ids)
            records = self.store.recent(limit=per_page, offset=page * per_page, followed_ids=ids)
        else:
            total = self.store.count_category(categories, followed_ids=ids)
            records = self.store.by_category(
                categories, limit=per_page, offset=page * per_page, followed_ids=ids
            )
        if total == 0 and categories is None:
            return (
                f"No papers of {whose} are stored yet; the first fetch from arXiv may still be "
                "running. Try again in a minute."
            )
        if total == 0:
            assert categories is not None
            return self._empty_category(categories, ids, whose)
        return render_paper_list(
            records,
            title=title,
            page=page,
            per_page=per_page,
            total=total,
            callback_prefix=arguments.list_prefix(categories, per_page),
            note="" if own else _WATCHED_NOTE,
            marked=lambda author: is_same_person(author, people),
        )

    def _empty_category(self, categories: tuple[str, ...], ids: list[int], whose: str) -> str:
        counts = self.store.category_counts(followed_ids=ids)
        have = ", ".join(f"{html.escape(name)} ({n})" for name, n in counts[:10])
        label = html.escape(_labels(categories))
        return f"No stored papers of {whose} are in {label}. " + (
            f"Categories with papers: {have}." if have else "No papers are stored yet."
        )

    async def subjects(self, update: Update, context: Context) -> None:
        """/subjects: the categories of the stored papers, with names and counts."""
        await reply(update, context, await in_db_thread(self._subjects, place_of(update)))

    def _subjects(self, place: Place) -> str:
        """Database thread."""
        followed, _ = self._scope(place)
        counts = self.store.category_counts(followed_ids=[f.id for f in followed])
        if not counts:
            return "No papers are stored yet, so there are no categories to show."
        lines = [f"Categories of the papers of {html.escape(plain_names(followed))}:"]
        for category, n in counts[:_MAX_LISTED_CATEGORIES]:
            named = category_name(category)
            label = f" {html.escape(named)}" if named else ""
            lines.append(f"• <code>{html.escape(category)}</code>{label}: {n}")
        if len(counts) > _MAX_LISTED_CATEGORIES:
            lines.append(f"… and {len(counts) - _MAX_LISTED_CATEGORIES} more.")
        lines.append("/subject CATEGORY shows the newest papers of one, e.g. /subject cs.DC")
        return "\n".join(lines)

    async def paper(self, update: Update, context: Context) -> None:
        """/paper ID: one stored paper in full."""
        try:
            wanted = arguments.paper(context.args or [])
        except UsageError as error:
            await reply_usage(update, context, error)
            return
        await self._show_paper(update, context, wanted)

    async def plain_text(self, update: Update, context: Context) -> None:
        """Plain text in a private chat: an arXiv id or link alone is answered as /paper would
        answer it; anything else points at /help."""
        message = update.effective_message
        wanted = arguments.looks_like_paper(message.text or "") if message else None
        if wanted is None:
            await reply(update, context, "I answer commands only. /help lists them.")
            return
        await self._show_paper(update, context, wanted)

    async def _show_paper(
        self, update: Update, context: Context, wanted: arguments.PaperArguments
    ) -> None:
        place = place_of(update)
        outcome = await self.lookup.find(place.chat_id, wanted.arxiv_id, wanted.version)
        names = await in_db_thread(self._marked_names, place)
        answer = paper_answer(outcome, marked=lambda author: is_same_person(author, names))
        await reply(update, context, answer)

    def _marked_names(self, place: Place) -> list[str]:
        """Database thread: the names to mark ★ in a paper: those of the authors this chat's
        questions are about (another chat's authors are not marked)."""
        followed, _ = self._scope(place)
        return [name for f in followed for name in f.names]

    def _scope(self, place: Place) -> tuple[list[Followed], bool]:
        """Database thread: the authors a chat's (topic's) questions are about: its own (True),
        else the watched ones (False)."""
        ids = self.chats.subscribed_ids(place.chat_id, thread_id=place.thread_id)
        if ids:
            return self.store.followed(ids), True
        found = (self.store.find_watched(rule) for rule in self.settings.followed_specs)
        return [followed for followed in found if followed is not None], False


def _labels(categories: tuple[str, ...]) -> str:
    """ "cs.DC (Distributed, ...)" for one category; "cs.DC, cs.NI" for several."""
    if len(categories) > 1:
        return ", ".join(categories)
    named = category_name(categories[0])
    return f"{categories[0]} ({named})" if named else categories[0]
