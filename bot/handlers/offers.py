"""The homonym guard's question: "this name looks like several people; which one?"

When `/subscribe NAME` finds a name that looks like several people (`watcher.homonyms`), the
chat gets one button per common category of the name, each showing the name, the category and
its papers, and one to follow the name in any category when it may be followed whole. What each
button means is kept in the database (`watcher.store.offers`) under a short random token: the
button's callback data is `h:<token>:<choice>` (a category's index, or `a` for any category), a
few bytes whatever the name (Telegram allows 64). So a button works after a restart; an expired
one is answered with the command to send again, and a forged, foreign or answered one with what
to do; nothing changes then. Rendering is pure; `Offers` calls the store (database thread).
"""

from __future__ import annotations

import html
from dataclasses import dataclass

from bot.render import Button, Message
from watcher.homonyms import MANY_PAPERS, OFFERED_CATEGORIES, SURVEY_SAMPLE, NameSurvey
from watcher.store.offers import Expired, Offer, OfferStore, Taken

PREFIX = "h:"
ANYWAY = "a"
STALE = (
    "This button no longer works (answered already, or not this chat's); send /subscribe NAME "
    "to be asked again."
)
_SHORTEST_NAME = 32  # characters of a name a button shows; a longer one is cut with "…"


def expired(name: str) -> str:
    """The answer to a press on a question that expired (a toast holds 200 characters)."""
    return f"This question has expired; send /subscribe {_short(name, 60)} to be asked again."


@dataclass(frozen=True, slots=True)
class Choice:
    """A pressed button, resolved: the question taken, and the category (None: any)."""

    taken: Taken
    category: str | None

    @property
    def offer(self) -> Offer:
        return self.taken.offer


class Offers:
    """The questions asked and not answered yet, in the database (`OfferStore`)."""

    def __init__(self, store: OfferStore) -> None:
        self.store = store

    def ask(
        self,
        *,
        chat_id: int,
        thread_id: int,
        names: tuple[str, ...],
        survey: NameSurvey,
        anyway: bool,
    ) -> Message:
        """Database thread: the question for a name, its buttons' meaning kept until pressed or
        expired."""
        categories = survey.categories[:OFFERED_CATEGORIES]
        offer = Offer(chat_id, thread_id, names, categories, anyway, survey.total)
        return question(offer, survey, self.store.keep(offer))

    def take(self, data: str, *, chat_id: int) -> Choice | Expired | None:
        """Database thread: the choice a button's `data` stands for, pressed in `chat_id`; the
        question is answered then (its other buttons go stale). `Expired` for a question too
        old, None for one forged, another chat's, or answered already."""
        if not data.startswith(PREFIX):
            return None
        token, _, choice = data.removeprefix(PREFIX).partition(":")
        if not (choice == ANYWAY or choice.isdigit()):
            return None
        taken = self.store.take(token, chat_id=chat_id)
        if taken is None or isinstance(taken, Expired):
            return taken
        offer = taken.offer
        if choice == ANYWAY and offer.anyway:
            return Choice(taken, None)
        if choice.isdigit() and int(choice) < len(offer.categories):
            return Choice(taken, offer.categories[int(choice)][0])
        self.store.put_back(taken)  # a forged choice on a real question: it stays open
        return None

    def put_back(self, choice: Choice) -> None:
        """Database thread: the choice could not be acted on yet; its question stays open."""
        self.store.put_back(choice.taken)


def question(offer: Offer, survey: NameSurvey, token: str) -> Message:
    """The homonym question's text and buttons, one a row: the name in each category with its
    papers, then the name in any category (if it may be followed whole)."""
    name = offer.names[0]
    shown = f"<b>{html.escape(name)}</b>"
    if survey.total > MANY_PAPERS:
        why = f"arXiv lists {survey.total:,} papers under it"
    else:
        why = f"its papers span {', '.join(sorted(survey.fields))}"
    text = (
        f"🤔 The name {shown} looks like several people: {why}. Pick one by category below "
        "(their papers listed there, primary or cross-list), or "
        + (
            "follow the name in any category."
            if offer.anyway
            else "send a fuller name: that many papers cannot be followed whole."
        )
    )
    sampled = survey.total > SURVEY_SAMPLE  # the counts are of the newest papers alone
    rows: list[tuple[Button, ...]] = [
        (
            Button(
                f"{_short(name)} in {category} · "
                + (f"{count} of the newest {SURVEY_SAMPLE}" if sampled else _papers(count)),
                callback_data=f"{PREFIX}{token}:{index}",
            ),
        )
        for index, (category, count) in enumerate(offer.categories)
    ]
    if offer.anyway:
        rows.append(
            (
                Button(
                    f"{_short(name)} in any category · {_papers(survey.total)}",
                    callback_data=f"{PREFIX}{token}:{ANYWAY}",
                ),
            )
        )
    return Message.from_html(text, tuple(rows))


def _papers(count: int) -> str:
    return f"{count:,} paper{'' if count == 1 else 's'}"


def _short(name: str, longest: int = _SHORTEST_NAME) -> str:
    return name if len(name) <= longest else name[: longest - 1] + "…"
