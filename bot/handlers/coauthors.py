"""/authors ID: a paper's authors, each with a button that follows that person here
(`bot.handlers.author_list` renders the pages; the core lists them: `Core.coauthors`).

The paper is found as /paper finds it (the same arguments, the stored paper, else one request to
arXiv on the chat's look-up budget). Anyone may list and turn the pages. A "Follow" button is
/subscribe NAME for that author (`Core.follows.subscribe`: the homonym question, the budget of
new follows, the limit, "already followed"), so in groups and channels only administrators may
press it (`refuse_press`); it follows in the chat (forum topic) the list is in. A press whose
paper is no longer stored, or whose author list changed since, is answered with what to do.
"""

from __future__ import annotations

import html

from telegram import Update
from telegram.constants import ParseMode
from telegram.error import BadRequest

from bot import arguments
from bot.handlers.author_list import FollowPress, PagePress, author_page, page_of, parse_press
from bot.handlers.busy import typing_shown
from bot.handlers.common import (
    NO_PREVIEW,
    Context,
    Place,
    ServiceHandlers,
    keyboard,
    place_of,
    refusal,
    refuse_press,
    reply,
    reply_usage,
)
from bot.handlers.follow_answers import person_answer
from bot.handlers.offers import question
from bot.handlers.paper_answers import paper_answer
from bot.i18n import N_, _, say
from bot.render import Message
from watcher.core import Core
from watcher.core.coauthors import AuthorList, AuthorMoved, PaperGone, Unfollowable
from watcher.core.homonym_question import Asked
from watcher.core.lookup import Missing
from watcher.core.subscribing import Subscribed
from watcher.errors import UsageError
from watcher.follows.rules import PersonRule

STALE = N_("This button no longer works; send /authors with the paper's id again.")
EXAMPLE = arguments.EXAMPLES["authors"]


class CoauthorCommands(ServiceHandlers):
    """/authors and the buttons of its list."""

    def __init__(self, service: Core) -> None:
        super().__init__(service)
        self.coauthors = service.coauthors
        self.follows = service.follows

    async def authors(self, update: Update, context: Context) -> None:
        """/authors ID: the paper's authors, a page at a time, each with a Follow button."""
        try:
            wanted = arguments.paper(context.args or [], command="authors")
        except UsageError as error:
            await reply_usage(update, context, error)
            return
        place = place_of(update)
        async with typing_shown(update, context):  # a paper not stored is asked of arXiv
            listed = await self.coauthors.authors(place.chat_id, place.thread_id, wanted.arxiv_id)
        if isinstance(listed, AuthorList):
            answer: Message | str = author_page(listed, 0, asked_version=wanted.version)
        elif isinstance(listed, Missing):
            answer = _missing(listed)
        else:
            answer = paper_answer(listed, marked=lambda _author: False)
        await reply(update, context, answer)

    async def press(self, update: Update, context: Context) -> None:
        """A button of the list: turn its page, or follow its author."""
        query = update.callback_query
        assert query is not None
        pressed = parse_press(query.data or "")
        if pressed is None or update.effective_chat is None or query.message is None:
            await query.answer(_(STALE), show_alert=True)
            return
        place = place_of(update)
        if isinstance(pressed, PagePress):
            await self._turn(update, place, pressed.arxiv_id, pressed.page)
            return
        if await refuse_press(update, context):
            return
        author = await self.coauthors.author(pressed.arxiv_id, pressed.position, pressed.mark)
        if not isinstance(author, PersonRule):
            await query.answer(_not_followed(author), show_alert=True)
            return
        await query.answer()
        # A name nobody follows yet waits for arXiv: run it aside, as /subscribe does.
        context.application.create_task(
            self._follow(update, context, place, author, pressed),
            update=update,
            name=f"authors-follow-{place.chat_id}",
        )

    async def _follow(
        self, update: Update, context: Context, place: Place, rule: PersonRule, press: FollowPress
    ) -> None:
        """/subscribe NAME for the pressed author; the answer quotes the list (in a group), and
        the list's page is shown again with the author ★ once followed."""
        async with typing_shown(update, context):
            outcome = await self.follows.subscribe(place.chat_id, place.thread_id, rule)
        answer = (
            question(outcome)
            if isinstance(outcome, Asked)
            else person_answer(place, rule, outcome, self.settings)
        )
        await reply(update, context, answer, quote_pressed=True)
        if isinstance(outcome, Subscribed):
            await self._turn(update, place, press.arxiv_id, page_of(press.position), quiet=True)

    async def _turn(
        self, update: Update, place: Place, arxiv_id: str, page: int, *, quiet: bool = False
    ) -> None:
        """Show page `page` of the list in the pressed message (`quiet`: the press is answered
        already)."""
        query = update.callback_query
        assert query is not None
        listed = await self.coauthors.stored(place.chat_id, place.thread_id, arxiv_id)
        if not isinstance(listed, AuthorList):
            if not quiet:
                await query.answer(_not_followed(listed), show_alert=True)
            return
        if not quiet:
            await query.answer()
        page_shown = author_page(listed, page)
        try:
            await query.edit_message_text(
                page_shown.html,
                parse_mode=ParseMode.HTML,
                link_preview_options=NO_PREVIEW,
                reply_markup=keyboard(page_shown),
            )
        except BadRequest as error:
            # A double press asks for the page already shown: nothing to do. After a follow,
            # a list deleted meanwhile is no error: the follow's answer was sent.
            if not quiet and "not modified" not in str(error).lower():
                raise


def _missing(missing: Missing) -> str:
    shown = html.escape(missing.arxiv_id)
    if missing.reason:
        wrong = _(
            "arXiv has no paper arXiv:{paper}: it answered “{reason}”.",
            paper=shown,
            reason=html.escape(missing.reason),
        )
    else:
        wrong = _(
            "arXiv has no paper arXiv:{paper}, so no authors to list; check its digits.",
            paper=shown,
        )
    if missing.arxiv_id in EXAMPLE:  # never offer as the example the id just refused
        return refusal(wrong, "/recent", lead=_("Take an id from the papers I have stored:"))
    return refusal(wrong, EXAMPLE)


def _not_followed(why: PaperGone | AuthorMoved | Unfollowable) -> str:
    """The answer to a Follow press that follows nobody (a toast holds 200 characters)."""
    if isinstance(why, PaperGone):
        return _(
            "arXiv:{paper} is no longer stored here; send /authors {paper} again.",
            paper=why.arxiv_id,
        )
    if isinstance(why, AuthorMoved):
        return _(
            "The authors of arXiv:{paper} changed since this list; send /authors {paper} again.",
            paper=why.arxiv_id,
        )
    return (
        f"{why.name[:60]} cannot be followed by name ({say(why.problem)}); /subscribe with their "
        "arXiv author id can."
    )
