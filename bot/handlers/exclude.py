"""/exclude: the words a chat never wants to see (`Core.exclusions`).

`/exclude survey` or `/exclude "large language model"` adds one; `/exclude` alone lists them,
numbered; `/exclude off 2` or `/exclude off survey` takes one off. A paper whose title or abstract
holds one (matched as a topic's words are) is not announced or digested to this chat, whichever
follow found it; the list is the chat's, all its forum topics together. Anyone may list; in
groups and channels only administrators may change it (`refuse_non_admin`).
"""

from __future__ import annotations

import html

from telegram import Update

from bot.handlers.common import (
    Context,
    ServiceHandlers,
    command_text,
    place_of,
    refusal,
    refuse_non_admin,
    reply,
)
from bot.i18n import N_, _, ngettext, say
from watcher.core import Core
from watcher.core.exclusions import (
    MAX_EXCLUDED,
    Added,
    ExcludedError,
    ListFull,
    NotExcluded,
    Removed,
    UnknownChat,
)

WHAT = N_("its excluded words")
EXAMPLE = '/exclude "large language model"'
EMPTY = N_(
    "This chat excludes no words. /exclude survey holds back every paper whose title or "
    'abstract says "survey" (or "surveys"), whichever follow finds it.'
)


class ExcludeCommands(ServiceHandlers):
    """/exclude, /exclude WORD, /exclude off N|WORD."""

    def __init__(self, service: Core) -> None:
        super().__init__(service)
        self.exclusions = service.exclusions

    async def exclude(self, update: Update, context: Context) -> None:
        place = place_of(update)
        text = command_text(update)
        if not text:
            await reply(update, context, await self._listing(place.chat_id))
            return
        if await refuse_non_admin(update, context, what=_(WHAT), example="/exclude"):
            return
        first, _sep, rest = text.partition(" ")
        if first.casefold() == "off":
            await reply(update, context, await self._off(place.chat_id, rest.strip()))
            return
        try:
            outcome = await self.exclusions.add(place.chat_id, text)
        except ExcludedError as error:
            why = say(error.sentence)
            wrong = _("Not excluded: {why}.", why=html.escape(why))
            await reply(update, context, refusal(wrong, EXAMPLE))
            return
        if isinstance(outcome, Added):
            shown = html.escape(outcome.shown)
            await reply(
                update,
                context,
                _(
                    "🔇 Papers saying {shown} will no longer be sent here. /exclude lists the "
                    "excluded words.",
                    shown=shown,
                )
                if outcome.fresh
                else _(
                    "{shown} is excluded here already. /exclude lists the excluded words.",
                    shown=shown,
                ),
            )
        elif isinstance(outcome, ListFull):
            await reply(
                update,
                context,
                refusal(
                    _(
                        "This chat excludes {count} words already, the most it may: take one off "
                        "first.",
                        count=MAX_EXCLUDED,
                    ),
                    "/exclude off 1",
                ),
            )
        else:
            assert isinstance(outcome, UnknownChat)
            await reply(update, context, _("I do not know this chat yet: send /start here first."))

    async def _listing(self, chat_id: int) -> str:
        listed = await self.exclusions.listed(chat_id)
        if not listed:
            return _(EMPTY)
        lines = [f"{n}. {html.escape(entry)}" for n, entry in enumerate(listed, 1)]
        return "\n".join(
            [
                _(
                    "🔇 Papers saying any of these are not sent here ({count} of {most}):",
                    count=len(listed),
                    most=MAX_EXCLUDED,
                ),
                *lines,
                _("/exclude off N takes one off."),
            ]
        )

    async def _off(self, chat_id: int, which: str) -> str:
        if not which:
            return refusal(
                _("Say which word to take off: its number or the word."), "/exclude off 1"
            )
        outcome = await self.exclusions.remove(chat_id, which)
        if isinstance(outcome, Removed):
            return _(
                "✅ Papers saying {shown} will be sent here again.",
                shown=html.escape(outcome.shown),
            )
        assert isinstance(outcome, NotExcluded)
        if outcome.count == 0:
            return _("This chat excludes no words, so there is nothing to take off.")
        return refusal(
            ngettext(
                "{asked} is not this chat's one excluded word: /exclude shows it.",
                "{asked} is not one of this chat's {n} excluded words: /exclude lists them, "
                "numbered.",
                outcome.count,
                asked=html.escape(outcome.asked[:40]),
            ),
            "/exclude off 1",
        )


EXCLUDE_DETAILS = (
    N_(
        '<code>/exclude survey</code> or <code>/exclude "large language model"</code>: a paper '
        "whose title or abstract holds that word or phrase (whole words in any of their forms, "
        "as /watch matches them) is not announced here, nor put in the digest, whichever follow "
        "finds it. Other chats still get it."
    ),
    N_(
        "<code>/exclude</code> lists them, numbered; <code>/exclude off 2</code> or "
        "<code>/exclude off survey</code> takes one off. /subscriptions says (🔇) how many "
        "papers they held back this week; /export and /import carry them."
    ),
    N_(
        "At most {max_excluded} a chat, each at most {max_excluded_length} characters. The list "
        "is the whole chat's: in a forum it holds for every topic. In a group or channel anyone "
        "can list them; only its administrators can change them."
    ),
)
