"""The chat's reading list (`Core.reading_list`): the "🔖 Save" / "🗑 Unsave" button under a paper,
/saved (a page of the list, with "🗑 N" and paging buttons) and /saved bib (one .bib file).

Saving and unsaving change the chat, so in groups and channels only administrators may press
them (`refuse_press`: a stranger's press is answered in an alert and changes nothing); anyone may
read /saved and take the .bib file. Under a paper, the pressed button turns into the other one
(the message's keyboard is edited, everything else on it kept), so a second press undoes the
first. Two presses at once save the paper once; a press on an old message is answered as things
stand now.
"""

from __future__ import annotations

from telegram import InlineKeyboardButton, InlineKeyboardMarkup, Update
from telegram.constants import ParseMode
from telegram.error import BadRequest

from bot.arguments import DEFAULT_COUNT
from bot.handlers.common import (
    NO_PREVIEW,
    Context,
    ServiceHandlers,
    keyboard,
    place_of,
    quoting,
    refusal,
    refuse_press,
    reply,
)
from bot.handlers.permissions import READING_LIST
from bot.i18n import N_, _, ngettext
from bot.render import Message
from bot.render.actions import PREFIX as PAPER_PREFIX
from bot.render.actions import SAVE, UNSAVE, Action, save_button
from bot.render.saved import render_saved_page, saved_button
from watcher.core import Core
from watcher.core.reading_list import MAX_SAVED, ListFull, NotStored, UnknownChat, WasSaved
from watcher.follows.names import is_same_person

WHAT = READING_LIST
STALE = N_("This button no longer works; send /saved again.")
EMPTY = N_(
    "Nothing is saved here yet. Press 🔖 Save under a paper (an announcement, or /paper ID) "
    "to keep it on this chat's reading list."
)


def full() -> str:
    """The alert when the reading list has no room left."""
    return ngettext(
        "This chat's reading list is full: it keeps at most {n} paper. Make room with "
        "/saved: 🗑 takes a paper off.",
        "This chat's reading list is full: it keeps at most {n} papers. Make room with "
        "/saved: 🗑 takes a paper off.",
        MAX_SAVED,
    )


class SavedPapers(ServiceHandlers):
    """/saved, its buttons, and the Save / Unsave button under a paper."""

    def __init__(self, service: Core) -> None:
        super().__init__(service)
        self.reading_list = service.reading_list
        self.questions = service.questions

    async def saved(self, update: Update, context: Context) -> None:
        """/saved: the first page of the chat's list; /saved bib: the whole list as a .bib."""
        args = [arg.casefold() for arg in context.args or []]
        if args == ["bib"]:
            await self._bib(update, context)
            return
        if args:
            await reply(update, context, refusal(_("/saved takes nothing, or bib."), "/saved bib"))
            return
        await reply(update, context, await self._page(update, 0))

    async def _page(self, update: Update, page: int) -> Message | str:
        place = place_of(update)
        found = await self.reading_list.page(place.chat_id, per_page=DEFAULT_COUNT, page=page)
        if found.total == 0:
            return _(EMPTY)
        last = (found.total - 1) // DEFAULT_COUNT
        if page > last:  # the last page emptied (a paper unsaved): show the one before
            return await self._page(update, last)
        names = await self.questions.marked_names(place.chat_id, place.thread_id)
        return render_saved_page(
            found.entries,
            page=page,
            per_page=DEFAULT_COUNT,
            total=found.total,
            marked=lambda author: is_same_person(author, names),
        )

    async def _bib(self, update: Update, context: Context) -> None:
        place = place_of(update)
        made = await self.reading_list.bib(place.chat_id)
        if made.entries == 0 and not made.missing:
            await reply(update, context, _(EMPTY))
            return
        if made.missing:
            caption = ngettext(
                "{n} saved paper as BibTeX; {missing} not stored here are named at the top, "
                "not cited.",
                "{n} saved papers as BibTeX; {missing} not stored here are named at the top, "
                "not cited.",
                made.entries,
                missing=len(made.missing),
            )
        else:
            caption = ngettext(
                "{n} saved paper as BibTeX.", "{n} saved papers as BibTeX.", made.entries
            )
        await context.bot.send_document(
            place.chat_id,
            document=made.data,
            filename=made.name,
            caption=caption,
            message_thread_id=place.thread_id or None,
            reply_parameters=quoting(update),
        )

    async def page(self, update: Update, context: Context) -> None:
        """A /saved button: another page, or "🗑 N" (unsave, then the same page again)."""
        query = update.callback_query
        assert query is not None
        wanted = saved_button(query.data or "")
        if wanted is None or update.effective_chat is None or query.message is None:
            await query.answer(_(STALE))
            return
        note = None
        if wanted.unsave is not None:
            if await refuse_press(update, context, what=WHAT):
                return
            gone = await self.reading_list.unsave(place_of(update).chat_id, wanted.unsave)
            note = (
                _("Unsaved arXiv:{arxiv_id}.", arxiv_id=wanted.unsave)
                if gone
                else _("It was unsaved already.")
            )
        await query.answer(note)
        answer = await self._page(update, wanted.page)
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
                raise  # a double press asks for the page already shown

    async def press_on_paper(self, update: Update, context: Context, action: Action) -> None:
        """ "🔖 Save" or "🗑 Unsave" under a paper: change the list, then the button."""
        query = update.callback_query
        assert query is not None
        if await refuse_press(update, context, what=WHAT):
            return
        chat_id = place_of(update).chat_id
        if action.verb == UNSAVE:
            gone = await self.reading_list.unsave(chat_id, action.arxiv_id)
            await query.answer(
                _("Taken off this chat's reading list.") if gone else _("It was not saved here.")
            )
            await _show_button(update, action.arxiv_id, saved=False)
            return
        assert action.verb == SAVE
        outcome = await self.reading_list.save(chat_id, action.arxiv_id)
        if isinstance(outcome, WasSaved):
            await query.answer(
                _("🔖 Saved: /saved lists this chat's reading list.")
                if outcome.fresh
                else _("It was saved here already: /saved lists it.")
            )
            await _show_button(update, action.arxiv_id, saved=True)
        elif isinstance(outcome, ListFull):
            await query.answer(full(), show_alert=True)
        elif isinstance(outcome, NotStored):
            await query.answer(
                _(
                    "arXiv:{arxiv_id} is no longer stored here, so it cannot be saved; "
                    "its page is https://arxiv.org/abs/{arxiv_id}",
                    arxiv_id=outcome.arxiv_id,
                ),
                show_alert=True,
            )
        else:
            assert isinstance(outcome, UnknownChat)
            await query.answer(
                _("I do not know this chat yet: send /start here, then press again."),
                show_alert=True,
            )


async def _show_button(update: Update, arxiv_id: str, *, saved: bool) -> None:
    """The message's keyboard with its Save / Unsave button for `arxiv_id` showing `saved`."""
    query = update.callback_query
    assert query is not None and query.message is not None
    markup = getattr(query.message, "reply_markup", None)
    if not isinstance(markup, InlineKeyboardMarkup):
        return
    mine = {f"{PAPER_PREFIX}{verb}:{arxiv_id}" for verb in (SAVE, UNSAVE)}
    wanted = save_button(arxiv_id, saved=saved)
    rows = [
        [
            InlineKeyboardButton(wanted.text, callback_data=wanted.callback_data)
            if button.callback_data in mine
            else button
            for button in row
        ]
        for row in markup.inline_keyboard
    ]
    try:
        await query.edit_message_reply_markup(InlineKeyboardMarkup(rows))
    except BadRequest as error:
        if "not modified" not in str(error).lower():
            raise  # the button shows the state already (two presses at once)
