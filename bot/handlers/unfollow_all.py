"""/unsubscribe alone: stop everything this chat (or forum topic) follows, once confirmed.

The command only asks, with two buttons: "Unfollow all N" ("Unfollow it" for one) and "Keep".
The first carries N, the number of follows it was asked about, so that a press after the chat's
follows changed (another administrator followed or stopped someone meanwhile) is answered "out
of date" and changes nothing; so is a press on a question already answered. In groups and
channels only administrators may press (`bot.handlers.permissions`).
"""

from __future__ import annotations

from telegram import Update

from bot.handlers.common import (
    Context,
    DeliveryEvents,
    ServiceHandlers,
    bold_names,
    edit_answer,
    managed_press,
    place_of,
    refusal,
    reply,
)
from bot.i18n import N_, _, ngettext
from bot.render import Button, Message
from watcher.core import Core
from watcher.core.unfollowing import StoppedAll

PREFIX = "u:"
_ALL = f"{PREFIX}all:"
_KEEP = f"{PREFIX}keep"
STALE = N_("This question is out of date; send /unsubscribe again.")
KEPT = N_("Kept: nothing was unfollowed.")


class UnfollowAll(ServiceHandlers):
    """The question /unsubscribe alone asks, and its two buttons; "Unfollow all" is the core's
    one call (`Core.follows.unfollow_all`)."""

    def __init__(self, service: Core, *, events: DeliveryEvents) -> None:
        super().__init__(service)
        self.follows = service.follows
        self.questions = service.questions
        self.events = events

    async def ask(self, update: Update, context: Context) -> None:
        """/unsubscribe alone: how many this chat follows, and the two buttons."""
        place = place_of(update)
        count = await self.questions.how_many_follows(place.chat_id, place.thread_id)
        if not count:
            await reply(
                update,
                context,
                refusal(
                    _("{here} follows nobody, so there is nothing to stop.", here=place.here),
                    "/subscribe Dezun Dong",
                    lead=_("Follow someone with:"),
                ),
            )
            return
        question = Message.from_html(
            ngettext(
                "Stop {here}'s only follow? /unsubscribe NAME stops one.",
                "Stop {here}'s {n} follows, all of them? /unsubscribe NAME stops one.",
                count,
                here=place.here.lower(),
            ),
            (
                (
                    Button(
                        ngettext("Unfollow it", "Unfollow all {n}", count),
                        callback_data=f"{_ALL}{count}",
                    ),
                    Button(_("Keep"), callback_data=_KEEP),
                ),
            ),
        )
        await reply(update, context, question)

    async def press(self, update: Update, context: Context) -> None:
        """A button of the question: unfollow everything it counted, or keep it all."""
        query = update.callback_query
        assert query is not None
        data = await managed_press(update, context, stale=_(STALE), declined=(_KEEP, _(KEPT)))
        if data is None:
            return
        asked = data.removeprefix(_ALL)
        place = place_of(update)
        stopped = (
            await self.follows.unfollow_all(place.chat_id, place.thread_id, int(asked))
            if data.startswith(_ALL) and asked.isascii() and asked.isdigit()
            else None
        )
        if not isinstance(stopped, StoppedAll):
            await query.answer(_(STALE), show_alert=True)
            return
        await query.answer()
        self.events.unsubscribed(place.chat_id)
        answer = _(
            "✅ {here} no longer follows {names}.",
            here=place.here,
            names=bold_names(stopped.followed),
        )
        await edit_answer(update, context, answer)
