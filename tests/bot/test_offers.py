"""The homonym question's buttons: short callback data, one use, stale and forged ones refused."""

from __future__ import annotations

from bot.handlers.offers import OFFER_LIFETIME, Offers
from bot.render import MAX_CALLBACK_DATA_BYTES
from watcher.homonyms import NameSurvey

SURVEY = NameSurvey(
    total=4000, categories=(("cs.DC", 40), ("cond-mat.mtrl-sci", 30), ("math.OC", 9), ("hep-th", 2))
)
LONG_NAME = "Wolfgang Amadeus Theophilus Chrysostomus Sigismundus Mozart-Zhāng Ōyama"


def ask(offers: Offers, *, anyway: bool = True, chat_id: int = 42, name: str = "Wei Wang"):  # type: ignore[no-untyped-def]
    return offers.ask(chat_id=chat_id, thread_id=0, names=(name,), survey=SURVEY, anyway=anyway)


def test_three_category_buttons_and_anyway_all_within_64_bytes() -> None:
    message = ask(Offers(), name=LONG_NAME)
    (categories, (anyway,)) = message.buttons
    assert [b.text for b in categories] == ["cs.DC", "cond-mat.mtrl-sci", "math.OC"]
    assert anyway.text == "Subscribe anyway"
    for button in (*categories, anyway):
        assert button.callback_data is not None
        assert len(button.callback_data.encode()) <= MAX_CALLBACK_DATA_BYTES
    assert "4,000 papers" in message.html and "several people" in message.html


def test_a_button_is_taken_once_and_then_the_others_are_stale() -> None:
    offers = Offers()
    (categories, (anyway,)) = ask(offers).buttons
    choice = offers.take(categories[1].callback_data or "", chat_id=42)
    assert choice is not None
    assert (choice.offer.names, choice.category) == (("Wei Wang",), "cond-mat.mtrl-sci")
    assert offers.take(anyway.callback_data or "", chat_id=42) is None
    assert len(offers) == 0


def test_anyway_means_the_plain_name() -> None:
    offers = Offers()
    (_, (anyway,)) = ask(offers).buttons
    choice = offers.take(anyway.callback_data or "", chat_id=42)
    assert choice is not None and choice.category is None


def test_forged_and_foreign_buttons_are_refused() -> None:
    offers = Offers()
    (categories, _) = ask(offers).buttons
    data = categories[0].callback_data or ""
    token = data.split(":")[1]
    assert offers.take(data, chat_id=43) is None  # another chat
    assert offers.take(f"h:{token}:7", chat_id=42) is None  # no such category
    assert offers.take(f"h:{token}:cs.DC", chat_id=42) is None
    assert offers.take("h:nonsense:0", chat_id=42) is None
    assert offers.take("r:3:1", chat_id=42) is None
    assert offers.take(data, chat_id=42) is not None  # still good after all that


def test_no_anyway_button_when_the_name_cannot_be_followed_whole() -> None:
    offers = Offers()
    message = ask(offers, anyway=False)
    (categories,) = message.buttons
    assert (
        offers.take(f"h:{(categories[0].callback_data or '').split(':')[1]}:a", chat_id=42) is None
    )
    assert "fuller name" in message.html


def test_a_question_goes_stale_after_its_lifetime() -> None:
    now = [0.0]
    offers = Offers(clock=lambda: now[0])
    (categories, _) = ask(offers).buttons
    now[0] = OFFER_LIFETIME + 1
    assert offers.take(categories[0].callback_data or "", chat_id=42) is None
