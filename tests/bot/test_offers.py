"""The homonym question's buttons (`bot.handlers.offers`, on the core's question,
`watcher.core.homonym_question`, and `watcher.store.offers`, a real database): the name and
papers on each, short callback data, one use, expired, stale and forged ones refused, and kept
few by pruning."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from sqlalchemy import Engine

from bot.handlers.offers import parse_press, question
from bot.render import MAX_CALLBACK_DATA_BYTES, Message
from watcher.core.homonym_question import HomonymQuestions, Picked
from watcher.core.subscribing import NeedsChoice
from watcher.follows.homonyms import NameSurvey
from watcher.store.offers import KEEP_EXPIRED, OFFER_LIFETIME, Expired, OfferStore

SURVEY = NameSurvey(
    total=4000, categories=(("cs.DC", 40), ("cond-mat.mtrl-sci", 30), ("math.OC", 9), ("hep-th", 2))
)
LONG_NAME = "Wolfgang Amadeus Theophilus Chrysostomus Sigismundus Mozart-Zhāng Ōyama"
START = datetime(2026, 12, 1, 9, tzinfo=UTC)


class Clock:
    def __init__(self) -> None:
        self.now = START

    def __call__(self) -> datetime:
        return self.now


class Offers:
    """The core's questions, asked and taken through the buttons' callback data as the bot
    reads it."""

    def __init__(self, store: OfferStore) -> None:
        self.questions = HomonymQuestions(store)

    def ask(
        self,
        *,
        chat_id: int,
        thread_id: int,
        names: tuple[str, ...],
        survey: NameSurvey,
        anyway: bool,
    ) -> Message:
        needs = NeedsChoice(survey, anyway=anyway)
        return question(self.questions.ask(chat_id, thread_id, names, needs))

    def take(self, data: str, *, chat_id: int) -> Picked | Expired | None:
        press = parse_press(data)
        if press is None:
            return None
        taken = self.questions.take(*press, chat_id=chat_id)
        return taken if isinstance(taken, Picked | Expired) else None

    def put_back(self, picked: Picked) -> None:
        self.questions.put_back(picked)


def ask(
    offers: Offers,
    *,
    anyway: bool = True,
    chat_id: int = 42,
    name: str = "Wei Wang",
    survey: NameSurvey = SURVEY,
) -> Message:
    return offers.ask(chat_id=chat_id, thread_id=0, names=(name,), survey=survey, anyway=anyway)


def data(message: Message, row: int) -> str:
    (button,) = message.buttons[row]
    assert button.callback_data is not None
    return button.callback_data


def test_each_button_shows_the_name_and_papers_within_64_bytes(engine: Engine) -> None:
    message = ask(Offers(OfferStore(engine)), name=LONG_NAME)

    assert [[b.text for b in row] for row in message.buttons] == [
        ["Wolfgang Amadeus Theophilus Chr… in cs.DC · 40 of the newest 100"],
        ["Wolfgang Amadeus Theophilus Chr… in cond-mat.mtrl-sci · 30 of the newest 100"],
        ["Wolfgang Amadeus Theophilus Chr… in math.OC · 9 of the newest 100"],
        ["Wolfgang Amadeus Theophilus Chr… in any category · 4,000 papers"],
    ]
    for row in range(4):
        assert len(data(message, row).encode()) <= MAX_CALLBACK_DATA_BYTES
    assert message.plain.startswith("🤔 The name Wolfgang")
    assert "4,000 papers" in message.html and "several people" in message.html


def test_a_small_name_shows_exact_counts(engine: Engine) -> None:
    survey = NameSurvey(total=7, categories=(("cs.DC", 3), ("hep-th", 1), ("math.OC", 1)))
    message = ask(Offers(OfferStore(engine)), survey=survey)

    assert [row[0].text for row in message.buttons] == [
        "Wei Wang in cs.DC · 3 papers",
        "Wei Wang in hep-th · 1 paper",
        "Wei Wang in math.OC · 1 paper",
        "Wei Wang in any category · 7 papers",
    ]
    assert message.plain.startswith("🤔 The name Wei Wang looks like several people: its papers")


def test_a_button_is_taken_once_and_then_the_others_are_stale(engine: Engine) -> None:
    store = OfferStore(engine)
    offers = Offers(store)
    message = ask(offers)

    choice = offers.take(data(message, 1), chat_id=42)

    assert isinstance(choice, Picked)
    assert (choice.offer.names, choice.category) == (("Wei Wang",), "cond-mat.mtrl-sci")
    assert offers.take(data(message, 3), chat_id=42) is None
    assert store.count() == 0


def test_a_question_put_back_can_be_answered_again(engine: Engine) -> None:
    offers = Offers(OfferStore(engine))
    message = ask(offers)
    choice = offers.take(data(message, 0), chat_id=42)
    assert isinstance(choice, Picked)

    offers.put_back(choice)  # e.g. the chat's budget was spent for now

    again = offers.take(data(message, 3), chat_id=42)
    assert isinstance(again, Picked) and again.category is None


def test_forged_and_foreign_buttons_are_refused(engine: Engine) -> None:
    offers = Offers(OfferStore(engine))
    real = data(ask(offers), 0)
    token = real.split(":")[1]

    assert offers.take(real, chat_id=43) is None  # another chat
    assert offers.take(f"h:{token}:7", chat_id=42) is None  # no such category
    assert offers.take(f"h:{token}:cs.DC", chat_id=42) is None
    assert offers.take("h:nonsense:0", chat_id=42) is None
    assert offers.take("r:3:1", chat_id=42) is None
    assert isinstance(offers.take(real, chat_id=42), Picked)  # still good after all that


def test_no_any_category_button_when_the_name_cannot_be_followed_whole(engine: Engine) -> None:
    offers = Offers(OfferStore(engine))
    message = ask(offers, anyway=False)

    assert len(message.buttons) == 3
    token = data(message, 0).split(":")[1]
    assert offers.take(f"h:{token}:a", chat_id=42) is None
    assert "fuller name" in message.html


def test_an_expired_question_names_the_name_and_is_pruned_later(engine: Engine) -> None:
    clock = Clock()
    store = OfferStore(engine, clock=clock)
    offers = Offers(store)
    message = ask(offers)
    clock.now += OFFER_LIFETIME + timedelta(seconds=1)

    assert offers.take(data(message, 0), chat_id=42) == Expired("Wei Wang")
    assert offers.take(data(message, 0), chat_id=42) == Expired("Wei Wang")  # still so

    clock.now += KEEP_EXPIRED
    ask(offers, name="Someone Else")  # a new question prunes the old
    assert store.count() == 1
    assert offers.take(data(message, 0), chat_id=42) is None


def test_a_month_of_questions_keeps_only_the_last_week(engine: Engine) -> None:
    clock = Clock()
    store = OfferStore(engine, clock=clock)
    offers = Offers(store)
    for _ in range(31):
        for chat_id in range(5):
            ask(offers, chat_id=chat_id)
        clock.now += timedelta(days=1)

    days = (OFFER_LIFETIME + KEEP_EXPIRED).days
    assert store.count() <= 5 * (days + 1)
