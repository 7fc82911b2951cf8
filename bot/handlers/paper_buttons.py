"""The buttons under a paper that talk back to the bot (`bot.render.actions`): "Cite", and
"Unfollow NAME" / "Mute topic" with its confirmation ("🔖 Save" / "🗑 Unsave" are passed on to
`bot.handlers.saved`).

"Cite" reads only, so anyone may press it: it answers with the paper's BibTeX, built from the
stored record (`watcher.arxiv.bibtex`). "Unfollow …" asks first, with "Yes" and "Keep"; "Yes" stops
that one follow for the chat (or forum topic) the message is in, nowhere else. In groups and
channels only administrators may press those, "Keep" too (`refuse_press`, see
`bot.handlers.permissions`).

A press on an old message is answered as things stand now: a paper no longer stored, a follow
already stopped, or a question already answered each get a short clear answer and change
nothing.
"""

from __future__ import annotations

import html

from telegram import Update

from bot.handlers.common import (
    Context,
    DeliveryEvents,
    Place,
    ServiceHandlers,
    edit_answer,
    place_of,
    refuse_press,
    reply,
)
from bot.handlers.saved import SavedPapers
from bot.i18n import N_, _
from bot.render import Message
from bot.render.actions import (
    CITE,
    CONFIRM,
    KEEP,
    SAVE,
    UNFOLLOW,
    UNSAVE,
    Action,
    confirm_row,
    parse_action,
)
from watcher.arxiv.bibtex import CITE_ROOM, bibtex_entry
from watcher.core import Core
from watcher.core.unfollowing import Stopped
from watcher.follows.followed import Followed
from watcher.kinds import FollowKind

STALE = N_("This button no longer works; the message is too old.")
KEPT = N_("Kept: nothing was changed.")


class PaperButtons(ServiceHandlers):
    """The answers to a paper's "Cite" and "Unfollow …" buttons; "Yes" is the core's one
    unfollow call (`Core.follows.unfollow`)."""

    def __init__(self, service: Core, *, events: DeliveryEvents, saved: SavedPapers) -> None:
        super().__init__(service)
        self.follows = service.follows
        self.questions = service.questions
        self.events = events
        self.saved = saved

    async def press(self, update: Update, context: Context) -> None:
        """A paper's button: cite, ask to unfollow, unfollow, or keep."""
        query = update.callback_query
        assert query is not None
        action = parse_action(query.data or "")
        if action is None or update.effective_chat is None or query.message is None:
            await query.answer(_(STALE), show_alert=True)
            return
        if action.verb == CITE:
            await self._cite(update, context, action.arxiv_id)
            return
        if action.verb in (SAVE, UNSAVE):
            await self.saved.press_on_paper(update, context, action)
            return
        if await refuse_press(update, context):
            return
        if action.verb == KEEP:
            await query.answer()
            await edit_answer(update, context, _(KEPT))
            return
        assert action.followed_id is not None
        place = place_of(update)
        if action.verb == UNFOLLOW:
            followed = await self.follows.subscribed(
                place.chat_id, place.thread_id, action.followed_id
            )
            if followed is None:
                await query.answer(_already_gone(place), show_alert=True)
                return
            await query.answer()
            await reply(update, context, _question(place, followed, action))
            return
        assert action.verb == CONFIRM
        stopped = await self.follows.unfollow(place.chat_id, place.thread_id, action.followed_id)
        if not isinstance(stopped, Stopped):
            await query.answer(_already_gone(place), show_alert=True)
            await edit_answer(update, context, _already_gone(place))
            return
        await query.answer()
        self.events.unsubscribed(place.chat_id)
        await edit_answer(update, context, _done(place, stopped.followed))

    async def _cite(self, update: Update, context: Context, arxiv_id: str) -> None:
        query = update.callback_query
        assert query is not None
        record = await self.questions.paper(arxiv_id)
        if record is None:
            await query.answer(
                _(
                    "arXiv:{paper} is no longer stored here; its page is "
                    "https://arxiv.org/abs/{paper}",
                    paper=arxiv_id,
                ),
                show_alert=True,
            )
            return
        await query.answer()
        entry = html.escape(bibtex_entry(record, limit=CITE_ROOM).rstrip("\n"), quote=False)
        cited = f'<pre><code class="language-bibtex">{entry}</code></pre>'
        await reply(update, context, cited, quote_pressed=True)  # in a group: which paper


def _question(place: Place, followed: Followed, action: Action) -> Message:
    topic = followed.kind == FollowKind.TOPIC
    values = {"name": html.escape(followed.label), "here": place.here.lower()}
    asked = (
        _(
            "Stop watching the topic <b>{name}</b> in {here}? Nothing else it follows changes.",
            **values,
        )
        if topic
        else _("Stop following <b>{name}</b> in {here}? Nothing else it follows changes.", **values)
    )
    return Message.from_html(asked, (confirm_row(followed.id, action.arxiv_id, topic=topic),))


def _done(place: Place, followed: Followed) -> str:
    values = {"here": place.here, "name": html.escape(followed.label)}
    if followed.kind == FollowKind.TOPIC:
        return _("✅ {here} no longer watches <b>{name}</b>.", **values)
    return _("✅ {here} no longer follows <b>{name}</b>.", **values)


def _already_gone(place: Place) -> str:
    return _("{here} no longer has that follow: nothing to stop.", here=place.here)
