"""The homonym question, kept and taken in the core: "this name looks like several people;
which one?"

When /subscribe NAME finds a name that looks like several people (`NeedsChoice`), the question is
kept in the database (`watcher.store.offers`) under a short random token, with what its answers
may do: follow the name in one of the survey's most common categories (`OFFERED_CATEGORIES`), or
whole when it may be (`anyway`). The outcome `Asked` carries the token, for the front end's
buttons. An answer names the token and the pick (a category's index, or `ANY_CATEGORY`): the
question is taken (of two answers, exactly one gets it), and the name followed as picked through
the subscribe decision (`Subscribing.choose`). A question too old is `Expired` (the name to send
again); one unknown, another chat's, answered already, or picked wrongly is `Stale`; nothing
changes then. An answer the chat's budget cannot pay for yet puts the question back.
"""

from __future__ import annotations

from dataclasses import dataclass

from watcher.core.subscribing import (
    Already,
    BudgetSpent,
    NeedsChoice,
    OverLimit,
    Subscribed,
)
from watcher.follows.homonyms import OFFERED_CATEGORIES, NameSurvey
from watcher.follows.rules import PersonRule
from watcher.store.offers import Expired, Offer, OfferStore, Taken

ANY_CATEGORY = None  # the pick "the name in any category"

__all__ = ["ANY_CATEGORY", "Answered", "Asked", "Expired", "HomonymQuestions", "Picked", "Stale"]


@dataclass(frozen=True, slots=True)
class Asked:
    """The question is kept under `token` until answered or expired: the front end shows it
    (`offer`: what its answers may do; `survey`: arXiv's counts)."""

    offer: Offer
    survey: NameSurvey
    token: str


@dataclass(frozen=True, slots=True)
class Picked:
    """An answer that got its question: the question taken, and the category (None: any)."""

    taken: Taken
    category: str | None

    @property
    def offer(self) -> Offer:
        return self.taken.offer


@dataclass(frozen=True, slots=True)
class Stale:
    """An answer to no open question of this chat: forged, another chat's, answered already."""


@dataclass(frozen=True, slots=True)
class Answered:
    """The question's answer acted on: `rule` as picked, in the chat (topic) that was asked, and
    the subscribe decision's outcome (`BudgetSpent`: the question stays open)."""

    chat_id: int
    thread_id: int
    rule: PersonRule
    outcome: Subscribed | Already | OverLimit | BudgetSpent


class HomonymQuestions:
    """The questions asked and not answered yet (`OfferStore`). Database thread, each method."""

    def __init__(self, offers: OfferStore) -> None:
        self.offers = offers

    def ask(
        self, chat_id: int, thread_id: int, names: tuple[str, ...], needs: NeedsChoice
    ) -> Asked:
        """Database thread: keep the question about `names`, whose survey `needs` a choice."""
        survey = needs.survey
        categories = survey.categories[:OFFERED_CATEGORIES]
        offer = Offer(chat_id, thread_id, names, categories, needs.anyway, survey.total)
        return Asked(offer, survey, self.offers.keep(offer))

    def take(self, token: str, pick: int | None, *, chat_id: int) -> Picked | Expired | Stale:
        """Database thread: the question `token` answered with `pick` in `chat_id`, taken so that
        no other answer gets it (a wrong pick leaves a real question open)."""
        taken = self.offers.take(token, chat_id=chat_id)
        if taken is None:
            return Stale()
        if isinstance(taken, Expired):
            return taken
        offer = taken.offer
        if pick is ANY_CATEGORY and offer.anyway:
            return Picked(taken, None)
        if pick is not None and 0 <= pick < len(offer.categories):
            return Picked(taken, offer.categories[pick][0])
        self.offers.put_back(taken)
        return Stale()

    def put_back(self, picked: Picked) -> None:
        """Database thread: the answer could not be acted on yet; its question stays open."""
        self.offers.put_back(picked.taken)
