"""Questions about the papers: /recent, /subject (up to 3 categories, as /watch takes them),
/subjects, /search (words in every stored paper's title or abstract, `Core.questions.search`),
/paper (any arXiv paper: `watcher.core.lookup`, answered by `paper_answers`), and the
paging buttons under a list.

They are about the chat's own authors, or the watched ones (WATCH_AUTHORS) while it follows
nobody. Nothing here changes what a chat follows, so anyone in any chat may ask (/paper may
store a paper it fetched from arXiv, linked to no follow and announced to no one).
"""

from __future__ import annotations

import html

from telegram import CallbackQuery, Update
from telegram.constants import ParseMode
from telegram.error import BadRequest

from bot import arguments
from bot.arguments import DEFAULT_COUNT
from bot.handlers.busy import typing_shown
from bot.handlers.common import (
    NO_PREVIEW,
    Context,
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
from bot.i18n import N_, _, ngettext
from bot.render import MAX_PER_PAGE, Message, render_paper_list
from watcher.arxiv.taxonomy import category_name
from watcher.core import Core
from watcher.core.questions import (
    NobodyFollowed,
    NoneInCategory,
    NoneStored,
    PapersAnswer,
    SearchPage,
)
from watcher.errors import UsageError
from watcher.follows.names import is_same_person

_MAX_LISTED_CATEGORIES = 40
Categories = tuple[str, ...] | None  # those of /subject; None for /recent
_WATCHED_NOTE = N_(
    "This chat follows nobody, so these are the authors I watch; /subscribe follows them here."
)


class Questions(ServiceHandlers):
    """The read-only commands: lists of papers, categories, one paper in full (any arXiv
    paper: one the store lacks is asked of arXiv, `Core.lookups`). The scope rule (whose papers
    a chat's questions are about) is the core's (`Core.questions`)."""

    def __init__(self, service: Core) -> None:
        super().__init__(service)
        self.questions = service.questions
        self.lookups = service.lookups

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
        answer = await self.questions.papers(
            place.chat_id, place.thread_id, categories, per_page=per_page, page=0
        )
        await reply(update, context, _list(answer, categories, per_page, 0))

    async def search(self, update: Update, context: Context) -> None:
        """/search WORDS [in CATEGORY]: the newest stored papers holding every word."""
        try:
            wanted = arguments.search(context.args or [])
        except UsageError as error:
            await reply_usage(update, context, error)
            return
        place = place_of(update)
        found = await self.questions.search(
            place.chat_id, place.thread_id, wanted, per_page=DEFAULT_COUNT, page=0
        )
        await reply(update, context, _search_list(found, 0))

    async def page(self, update: Update, context: Context) -> None:
        """A "Newer"/"Older" button under a list: edit that message to the asked page."""
        query = update.callback_query
        chat = update.effective_chat
        assert query is not None
        searched = arguments.search_button(query.data or "")
        if searched is not None and chat is not None and query.message is not None:
            await query.answer()
            place = place_of(update)
            hits = await self.questions.search(
                place.chat_id,
                place.thread_id,
                searched[0],
                per_page=DEFAULT_COUNT,
                page=searched[1],
            )
            await _edit(query, _search_list(hits, searched[1]))
            return
        wanted = arguments.list_button(query.data or "")
        if wanted is None or chat is None or query.message is None:
            await query.answer(_("This button no longer works; send the command again."))
            return
        await query.answer()
        place = place_of(update)
        found = await self.questions.papers(
            place.chat_id,
            place.thread_id,
            wanted.categories,
            per_page=wanted.per_page,
            page=wanted.page,
        )
        await _edit(query, _list(found, wanted.categories, wanted.per_page, wanted.page))

    async def subjects(self, update: Update, context: Context) -> None:
        """/subjects: the categories of the stored papers, with names and counts."""
        place = place_of(update)
        subjects = await self.questions.subjects(place.chat_id, place.thread_id)
        if not subjects.counts:
            await reply(
                update,
                context,
                _("No papers are stored yet, so there are no categories to show."),
            )
            return
        lines = [
            _(
                "Categories of the papers of {names}:",
                names=html.escape(plain_names(subjects.scope.followed)),
            )
        ]
        for category, n in subjects.counts[:_MAX_LISTED_CATEGORIES]:
            named = category_name(category)
            label = f" {html.escape(named)}" if named else ""
            lines.append(f"• <code>{html.escape(category)}</code>{label}: {n}")
        if len(subjects.counts) > _MAX_LISTED_CATEGORIES:
            rest = len(subjects.counts) - _MAX_LISTED_CATEGORIES
            lines.append(ngettext("… and {n} more.", "… and {n} more.", rest))
        lines.append(_("/subject CATEGORY shows the newest papers of one, e.g. /subject cs.DC"))
        await reply(update, context, "\n".join(lines))

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
            await reply(update, context, _("I answer commands only. /help lists them."))
            return
        await self._show_paper(update, context, wanted)

    async def _show_paper(
        self, update: Update, context: Context, wanted: arguments.PaperArguments
    ) -> None:
        place = place_of(update)
        async with typing_shown(update, context):  # a paper not stored is asked of arXiv
            outcome = await self.lookups.papers.find(place.chat_id, wanted.arxiv_id, wanted.version)
        names = await self.questions.marked_names(place.chat_id, place.thread_id)
        answer = paper_answer(outcome, marked=lambda author: is_same_person(author, names))
        await reply(update, context, answer)


async def _edit(query: CallbackQuery, answer: Message | str) -> None:
    """Edit the list a paging button is under to show `answer`."""
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


def _search_list(found: SearchPage, page: int) -> Message | str:
    """One page of /search, or the answer that nothing stored matches."""
    searched = html.escape(str(found.query))
    if found.total == 0:
        return _(
            "No stored paper holds every word of <b>{words}</b> in its title or abstract. I "
            "search the papers I have stored (those of the follows of every chat), not all of "
            "arXiv; fewer words find more.",
            words=searched,
        )
    people = found.people
    # "Search · network · the newest · 1000" (the renderer adds the count)
    title = (
        _("Search · {words} · the newest", words=str(found.query))
        if found.more
        else _("Search · {words}", words=str(found.query))
    )
    return render_paper_list(
        list(found.records),
        title=title,
        page=page,
        per_page=DEFAULT_COUNT,
        total=found.total,
        callback_prefix=arguments.search_prefix(found.query),
        marked=lambda author: is_same_person(author, people),
    )


def _list(found: PapersAnswer, categories: Categories, per_page: int, page: int) -> Message | str:
    """One page of /recent or /subject, or the answer why there is none."""
    if isinstance(found, NobodyFollowed):
        return refusal(
            _("Nobody is followed yet."), "/subscribe Dezun Dong", lead=_("Follow with:")
        )
    scope = found.scope
    followed = scope.followed
    whose = (
        bold_names(followed)
        if len(followed) <= 3
        else ngettext("{n} author", "{n} authors", len(followed))
    )
    if isinstance(found, NoneStored):
        return _(
            "No papers of {whose} are stored yet; the first fetch from arXiv may still be "
            "running. Try again in a minute.",
            whose=whose,
        )
    if isinstance(found, NoneInCategory):
        assert categories is not None
        have = ", ".join(f"{html.escape(name)} ({n})" for name, n in found.counts[:10])
        label = html.escape(_labels(categories))
        none = _("No stored papers of {whose} are in {categories}.", whose=whose, categories=label)
        return f"{none} " + (
            _("Categories with papers: {categories}.", categories=have)
            if have
            else _("No papers are stored yet.")
        )
    # Short: "cs.DC · your follows"; the renderer adds " · 13".
    if categories is None:
        title = _("Newest · your follows") if scope.own else _("Newest · the watched authors")
    else:
        shown = ", ".join(categories)
        title = (
            _("{categories} · your follows", categories=shown)
            if scope.own
            else _("{categories} · the watched authors", categories=shown)
        )
    people = scope.people
    return render_paper_list(
        list(found.records),
        title=title,
        page=page,
        per_page=per_page,
        total=found.total,
        callback_prefix=arguments.list_prefix(categories, per_page),
        note="" if scope.own else _(_WATCHED_NOTE),
        marked=lambda author: is_same_person(author, people),
    )


def _labels(categories: tuple[str, ...]) -> str:
    """ "cs.DC (Distributed, ...)" for one category; "cs.DC, cs.NI" for several."""
    if len(categories) > 1:
        return ", ".join(categories)
    named = category_name(categories[0])
    return f"{categories[0]} ({named})" if named else categories[0]
