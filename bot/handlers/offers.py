"""The homonym guard's question: "this name looks like several people; which one?"

When `/subscribe NAME` finds a name that looks like several people (`watcher.homonyms`), the
chat gets buttons for the name's most common categories, and one to go ahead anyway. What each
button means is kept here, in memory, under a short random token: the button's callback data
is `h:<token>:<choice>` (a category's index, or `a` for anyway), a few bytes whatever the name
(Telegram allows 64). A button whose token is unknown (forged, used already, older than
`OFFER_LIFETIME`, or from before a restart) is answered as stale, and nothing changes.
Pure: no I/O, no python-telegram-bot.
"""

from __future__ import annotations

import html
import secrets
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass

from bot.render import Button, Message
from watcher.homonyms import MANY_PAPERS, NameSurvey

PREFIX = "h:"
ANYWAY = "a"
OFFER_LIFETIME = 3600.0  # seconds a question's buttons work
MAX_OFFERS = 1000  # questions kept at once; the oldest go first
STALE = "This button no longer works; send /subscribe NAME again."


@dataclass(frozen=True, slots=True)
class Offer:
    """What a question's buttons may do: subscribe `chat_id` (in `thread_id`) to `names`, in
    one of `categories`, or plainly (`anyway`, when the name may be followed whole)."""

    chat_id: int
    thread_id: int  # the forum topic (0: none)
    names: tuple[str, ...]  # display name first, then aliases
    categories: tuple[str, ...]
    anyway: bool
    total: int
    made: float


@dataclass(frozen=True, slots=True)
class Choice:
    """A pressed button, resolved: the offer, and the category (None: the name, anyway)."""

    offer: Offer
    category: str | None


class Offers:
    """The questions asked and not answered yet, by token."""

    def __init__(self, *, clock: Callable[[], float] = time.monotonic) -> None:
        self._offers: OrderedDict[str, Offer] = OrderedDict()
        self._clock = clock

    def ask(
        self,
        *,
        chat_id: int,
        thread_id: int,
        names: tuple[str, ...],
        survey: NameSurvey,
        anyway: bool,
    ) -> Message:
        """The question for a name, its buttons' meaning kept until pressed or stale."""
        self._drop_stale()
        while len(self._offers) >= MAX_OFFERS:
            self._offers.popitem(last=False)
        token = secrets.token_urlsafe(6)
        categories = tuple(survey.top_categories())
        self._offers[token] = Offer(
            chat_id, thread_id, names, categories, anyway, survey.total, self._clock()
        )
        return question(names[0], survey, token, categories=categories, anyway=anyway)

    def take(self, data: str, *, chat_id: int) -> Choice | None:
        """The choice a button's `data` stands for, pressed in `chat_id`; None when stale or
        forged. The question is answered then: its other buttons go stale."""
        self._drop_stale()
        if not data.startswith(PREFIX):
            return None
        token, _, choice = data.removeprefix(PREFIX).partition(":")
        offer = self._offers.get(token)
        if offer is None or offer.chat_id != chat_id:
            return None
        if choice == ANYWAY and offer.anyway:
            category = None
        elif choice.isdigit() and int(choice) < len(offer.categories):
            category = offer.categories[int(choice)]
        else:
            return None
        del self._offers[token]
        return Choice(offer, category)

    def __len__(self) -> int:
        return len(self._offers)

    def _drop_stale(self) -> None:
        oldest = self._clock() - OFFER_LIFETIME
        while self._offers and next(iter(self._offers.values())).made < oldest:
            self._offers.popitem(last=False)


def question(
    name: str, survey: NameSurvey, token: str, *, categories: tuple[str, ...], anyway: bool
) -> Message:
    """The homonym question's text and buttons."""
    shown = f"<b>{html.escape(name)}</b>"
    if survey.total > MANY_PAPERS:
        why = f"arXiv lists {survey.total:,} papers under {shown}"
    else:
        fields = ", ".join(sorted(survey.fields))
        why = f"the papers under {shown} span {fields}"
    text = (
        f"🤔 {why}: that looks like several people. Follow the one in a category (their papers "
        "listed in it, primary or cross-list), or "
        + (
            "all of them anyway."
            if anyway
            else "give a fuller name: that many papers cannot be followed whole."
        )
    )
    buttons = [
        Button(category, callback_data=f"{PREFIX}{token}:{i}")
        for i, category in enumerate(categories)
    ]
    rows: list[tuple[Button, ...]] = [tuple(buttons)] if buttons else []
    if anyway:
        rows.append((Button("Subscribe anyway", callback_data=f"{PREFIX}{token}:{ANYWAY}"),))
    return Message.from_html(text, tuple(rows))
