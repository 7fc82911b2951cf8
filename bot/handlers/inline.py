"""Inline mode: `@bot QUERY` typed in any chat, answered with `answerInlineQuery` (the core's
`Core.inline`), each paper as its compact card (`bot.render.card`).

What the query is decides what it gives:
- an arXiv id or link (`bot.arguments.looks_like_paper`): that paper, from the store or fetched
  from arXiv by id, charged to the asker's private chat's look-up budget as /paper is;
- a person's name (two words or more, only what names hold): that person's newest stored
  papers, exact matches only (the homonym guard), else the words are searched as a topic;
- other words: the newest stored papers holding them all (/search's index);
- nothing: the newest papers announced to the asker's private chat.
A query over 256 characters, or one that finds nothing, gets one "nothing found" result saying
why, never an error. The results are in the asker's language (their client's `language_code`),
so they are always personal; Telegram caches them `CACHE_SECONDS`, and a failure not at all.
An inline query has no chat, so the gate (flood control by chat) never holds it back: the
look-up budget bounds what it costs arXiv, and Telegram bounds how often a person may ask.
"""

from __future__ import annotations

import html
import logging
import math

from telegram import (
    InlineQueryResultArticle,
    InputTextMessageContent,
    LinkPreviewOptions,
    Update,
)
from telegram.constants import ParseMode

from bot.arguments import looks_like_paper
from bot.delivery.compose import markup_of
from bot.handlers.common import Context
from bot.i18n import _, language_of_user, ngettext, speaking
from bot.render.card import Card, paper_card
from bot.render.styled import MAX_INLINE_QUERY
from watcher.arxiv.records import Record
from watcher.core import Core
from watcher.core.lookup import Found, Missing, NoSuchVersion
from watcher.core.subscribing import BudgetSpent
from watcher.errors import UnknownCategory
from watcher.follows.names import check_person_name, unquote
from watcher.follows.search_words import SearchError, parse_search

log = logging.getLogger(__name__)

CACHE_SECONDS = 30  # new papers are announced once a day; a changed answer shows within this
NOTHING_ID = "nothing"
MAX_RESULT_ID_BYTES = 64
_NO_PREVIEW = LinkPreviewOptions(is_disabled=True)


class Nothing:
    """No paper to offer, and why (one sentence, HTML); `lasting` False: ask again later."""

    def __init__(self, reason: str, *, lasting: bool = True) -> None:
        self.reason = reason
        self.lasting = lasting


class InlineMode:
    """The inline query handler of one core."""

    def __init__(self, service: Core) -> None:
        self.inline = service.inline

    async def answer(self, update: Update, context: Context) -> None:
        """Answer the inline query with cards, or with one "nothing found" result."""
        query = update.inline_query
        if query is None:
            return
        with speaking(language_of_user(query.from_user.language_code)):
            found = await self.found(query.from_user.id, query.query)
            if isinstance(found, Nothing):
                results = [nothing_result(found)]
                cache = CACHE_SECONDS if found.lasting else 0
            else:
                results = [card_result(paper_card(record)) for record in _unique(found)]
                cache = CACHE_SECONDS
        await query.answer(results, cache_time=cache, is_personal=True)

    async def found(self, user_id: int, text: str) -> list[Record] | Nothing:
        """The papers `text` asks for, newest first, or why there are none."""
        if len(text) > MAX_INLINE_QUERY:
            return Nothing(
                _(
                    "That is too long to look for: at most {limit} characters.",
                    limit=MAX_INLINE_QUERY,
                )
            )
        text = " ".join(text.split())
        if not text:
            announced = await self.inline.announced(user_id)
            return announced or Nothing(
                _(
                    "No paper has been announced to you yet. Type an arXiv id, an author's full "
                    "name or a few words of a title."
                )
            )
        wanted = looks_like_paper(text)
        if wanted is not None:
            return await self._paper(user_id, wanted.arxiv_id, wanted.version)
        name = unquote(text)
        if check_person_name(name) is None:
            papers = await self.inline.by_name(name)
            if papers:
                return papers
        try:
            search = parse_search(text)
        except (SearchError, UnknownCategory):
            return _nothing_for(text)
        return await self.inline.search(search) or _nothing_for(text)

    async def _paper(
        self, user_id: int, arxiv_id: str, version: int | None
    ) -> list[Record] | Nothing:
        outcome = await self.inline.paper(user_id, arxiv_id, version)
        if isinstance(outcome, Found | NoSuchVersion):
            return [outcome.record]
        shown = html.escape(arxiv_id)
        if isinstance(outcome, Missing):
            return Nothing(_("arXiv has no paper arXiv:{id}.", id=shown))
        if isinstance(outcome, BudgetSpent):
            wait = max(1, math.ceil(outcome.wait / 60))
            return Nothing(
                ngettext(
                    "You have asked arXiv for enough papers for now; try again in {n} minute. "
                    "Stored papers are still found at once.",
                    "You have asked arXiv for enough papers for now; try again in {n} minutes. "
                    "Stored papers are still found at once.",
                    wait,
                ),
                lasting=False,
            )
        log.info("inline look-up of %s failed: %s", arxiv_id, outcome)
        return Nothing(
            _(
                "arXiv could not be asked for arXiv:{id} just now; try again in a few minutes.",
                id=shown,
            ),
            lasting=False,
        )


def _nothing_for(text: str) -> Nothing:
    return Nothing(
        _(
            "No stored paper matches “{query}”. Type an arXiv id, an author's full name or a few "
            "words of a title.",
            query=html.escape(text),
        )
    )


def _unique(records: list[Record]) -> list[Record]:
    """Each paper once, with an id that can be a result's (1-64 bytes)."""
    kept: dict[str, Record] = {}
    for record in records:
        if 1 <= len(record.arxiv_id.encode()) <= MAX_RESULT_ID_BYTES:
            kept.setdefault(record.arxiv_id, record)
    return list(kept.values())


def card_result(card: Card) -> InlineQueryResultArticle:
    """One paper as an inline result: posted as its card, with its Abstract and PDF buttons."""
    return InlineQueryResultArticle(
        id=card.arxiv_id,
        title=card.title,
        description=card.description or None,
        input_message_content=InputTextMessageContent(
            card.message.html, parse_mode=ParseMode.HTML, link_preview_options=_NO_PREVIEW
        ),
        reply_markup=markup_of(card.message),
        url=None,
    )


def nothing_result(nothing: Nothing) -> InlineQueryResultArticle:
    """The one result of a query that finds nothing: "Nothing found", and why."""
    return InlineQueryResultArticle(
        id=NOTHING_ID,
        title=_("Nothing found"),
        description=html.unescape(nothing.reason),
        input_message_content=InputTextMessageContent(
            nothing.reason, parse_mode=ParseMode.HTML, link_preview_options=_NO_PREVIEW
        ),
    )
