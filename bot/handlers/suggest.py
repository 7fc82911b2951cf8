"""/suggest: "Suggested for you" (issue 32, `Core.suggestions`), and the 👍/👎 under a suggestion.

`/suggest on` turns the destination's (chat's, forum topic's) suggestions on, `/suggest off`
off (the default), `/suggest 5` sets how many papers a batch brings at most (1 to 10); each
batch read whole then brings one message of the papers most like what the chat reads
(`bot.render.suggested`, sent by the delivery sender), or a section of the digest. `/suggest`
alone shows the setting and sends the newest batch's top five now, or says why there are none.
Where no source reads a batch whole (API-only mode) `/suggest on` says what it needs.

Anyone may read; in groups and channels only administrators change the setting
(`refuse_non_admin`), and only their 👍/👎 count (`refuse_press`): a press tells the chat's
profile (all its topics share one) more or less like this paper, answered with a short toast.
"""

from __future__ import annotations

import html

from telegram import Update

from bot.arguments import Refused, suggest
from bot.handlers.common import (
    Context,
    Place,
    ServiceHandlers,
    place_of,
    refuse_non_admin,
    refuse_press,
    reply,
    reply_usage,
)
from bot.i18n import N_, _, ngettext, say
from bot.i18n.dates import short_day
from bot.render.suggested import parse_vote, render_suggestions
from watcher.core import Core
from watcher.core.suggestions import (
    DEFAULT_COUNT,
    MAX_COUNT,
    TOP_NOW,
    Reacted,
    SuggestionState,
    TopNow,
)
from watcher.sentences import Sentence

WHAT = N_("its suggestions")
STALE = N_("This button no longer works; the message is too old.")
UNREADABLE = N_(
    "This bot reads no day's batch of arXiv whole (it asks arXiv's API for each followed name "
    "instead), so it has nothing to suggest from."
)


class SuggestCommands(ServiceHandlers):
    """/suggest, /suggest on|off|N, and the 👍/👎 buttons under the suggestions."""

    def __init__(self, service: Core) -> None:
        super().__init__(service)
        self.suggestions = service.suggestions

    async def suggest(self, update: Update, context: Context) -> None:
        try:
            asked = suggest(context.args or [])
        except Refused as error:
            await reply_usage(update, context, error)
            return
        place = place_of(update)
        if asked is None:
            await self._show(update, context, place)
            return
        if await refuse_non_admin(update, context, what=_(WHAT), example="/suggest"):
            return
        outcome: SuggestionState | Sentence
        if asked.count is not None:
            outcome = await self.suggestions.set_count(place.chat_id, place.thread_id, asked.count)
        elif asked.on:
            outcome = await self.suggestions.turn_on(place.chat_id, place.thread_id)
        else:
            outcome = await self.suggestions.turn_off(place.chat_id, place.thread_id)
        if isinstance(outcome, Sentence):
            await reply(update, context, html.escape(say(outcome)))  # what it needs
            return
        await reply(update, context, _changed(outcome, counted=asked.count is not None))

    async def _show(self, update: Update, context: Context, place: Place) -> None:
        """/suggest alone: the setting, then the newest batch's top five (or why none)."""
        state = await self.suggestions.state(place.chat_id, place.thread_id)
        lines = [state_text(state)]
        if not state.readable:
            await reply(update, context, "\n".join([*lines, _(UNREADABLE)]))
            return
        top = await self.suggestions.top_now(place.chat_id, place.thread_id, limit=TOP_NOW)
        if not top.papers:
            await reply(update, context, "\n".join([*lines, _nothing_now(top)]))
            return
        await reply(update, context, "\n".join(lines))
        assert top.mailing is not None
        await reply(update, context, render_suggestions(top.papers, day=short_day(top.mailing)))

    async def press(self, update: Update, context: Context) -> None:
        """👍 or 👎 under a suggestion: the chat's profile learns it; a toast says so."""
        query = update.callback_query
        assert query is not None
        vote = parse_vote(query.data or "")
        if vote is None or update.effective_chat is None or query.message is None:
            await query.answer(_(STALE), show_alert=True)
            return
        if await refuse_press(update, context, what=WHAT):
            return
        place = place_of(update)
        reacted = await self.suggestions.react(
            place.chat_id, place.thread_id, vote.arxiv_id, liked=vote.liked
        )
        if not isinstance(reacted, Reacted):
            await query.answer(
                _(
                    "arXiv:{paper} is no longer stored here, so nothing was changed.",
                    paper=vote.arxiv_id,
                ),
                show_alert=True,
            )
            return
        if reacted.liked:
            noted = _("Noted: more like this.") if reacted.changed else _("Noted already.")
        else:
            noted = _("Noted: less like this.") if reacted.changed else _("Noted already.")
        await query.answer(noted)


def state_text(state: SuggestionState) -> str:
    """/suggest alone: whether suggestions are on here, how many a day, and how they come."""
    if not state.on:
        return ngettext(
            "Suggestions are off here. /suggest on sends, after each day's arXiv batch, up to "
            "{n} paper like the ones this chat reads, with 👍 and 👎 to refine them.",
            "Suggestions are off here. /suggest on sends, after each day's arXiv batch, up to "
            "{n} papers like the ones this chat reads, with 👍 and 👎 to refine them.",
            state.count,
        )
    said = ngettext(
        "✨ Suggestions are on here: after each day's arXiv batch, up to {n} paper like the "
        "ones this chat reads. /suggest off stops them.",
        "✨ Suggestions are on here: after each day's arXiv batch, up to {n} papers like the "
        "ones this chat reads. /suggest off stops them.",
        state.count,
    )
    if state.digest:
        said += " " + _("They come as a section of this chat's digest.")
    return said


def _changed(state: SuggestionState, *, counted: bool) -> str:
    """The answer to /suggest on, off or N: the setting as it now stands."""
    if counted and not state.on:
        return ngettext(
            "Up to {n} suggested paper a day, once suggestions are on: /suggest on.",
            "Up to {n} suggested papers a day, once suggestions are on: /suggest on.",
            state.count,
        )
    if not state.on:
        return _("Suggestions are off here. /suggest on brings them back.")
    said = ngettext(
        "✨ Suggestions are on: after each day's arXiv batch, up to {n} paper like the ones "
        "this chat reads, with 👍 and 👎 to refine them. /suggest shows today's now.",
        "✨ Suggestions are on: after each day's arXiv batch, up to {n} papers like the ones "
        "this chat reads, with 👍 and 👎 to refine them. /suggest shows today's now.",
        state.count,
    )
    if state.digest:
        said += " " + _("They come as a section of this chat's digest.")
    return said


def _nothing_now(top: TopNow) -> str:
    """Why /suggest has no paper to show now."""
    if top.mailing is None:
        return _("No day's batch has been read whole yet, so there is nothing to suggest now.")
    return _(
        "Nothing in the batch of {day} is close enough to what this chat reads to suggest it.",
        day=short_day(top.mailing),
    )


SUGGEST_DETAILS = (
    N_(
        "<code>/suggest on</code>: after each day's arXiv batch is read whole, one message of "
        "up to {default_suggested} papers of it that this chat was not told of, the ones most "
        "like what it reads (its follows' papers of the last year, and your 👍 and 👎); a weak "
        "day sends nothing. Each shows the linked title, the first authors, the category and "
        "why: the paper it is like, or the words they share."
    ),
    N_(
        "<code>/suggest 5</code> sends up to 5 (at most {max_suggested}); <code>/suggest "
        "off</code> stops them (the default). <code>/suggest</code> alone shows the setting "
        "and sends today's top {top_now} now. With a digest they come as its last section."
    ),
    N_(
        "👍 and 👎 under a suggestion bring more or fewer papers like it. In a group or channel "
        "anyone can read them; only its administrators can change the setting, and only their "
        "👍 and 👎 count."
    ),
)
SUGGEST_LIMITS = {
    "default_suggested": DEFAULT_COUNT,
    "max_suggested": MAX_COUNT,
    "top_now": TOP_NOW,
}
