"""Tests for `bot.delivery.answers`: each of Telegram's answers, as PTB raises it, to its outcome.

The end-to-end tests (`test_sender`, `test_parking`) send through the fake Bot API and check
what the sender then does; these pin the table itself, including the answers the fake does not
give (a timeout, a 409 Conflict) and the ones whose PTB types nest (a 400 is a NetworkError).
"""

from __future__ import annotations

from datetime import timedelta

import pytest
from telegram.error import (
    BadRequest,
    ChatMigrated,
    Conflict,
    Forbidden,
    NetworkError,
    RetryAfter,
    TelegramError,
    TimedOut,
)

from bot.delivery.answers import (
    Deactivate,
    Fail,
    Migrate,
    Outcome,
    Park,
    Retry,
    cannot_parse,
    outcome_of,
)


@pytest.mark.parametrize(
    ("error", "outcome"),
    [
        (ChatMigrated(-100123), Migrate(-100123)),
        (RetryAfter(17), Retry("flood control: retry after 17s", 17.0)),
        (RetryAfter(timedelta(seconds=3)), Retry("flood control: retry after 3s", 3.0)),
        (
            Forbidden("Forbidden: bot was blocked by the user"),
            Deactivate("Forbidden: bot was blocked by the user"),
        ),
        (
            BadRequest("Bad Request: not enough rights to send text messages to the chat"),
            Park("Not enough rights to send text messages to the chat"),
        ),
        (BadRequest("Bad Request: TOPIC_CLOSED"), Park("Topic_closed")),
        (BadRequest("Bad Request: message is too long"), Fail("Message is too long")),
        (BadRequest("Bad Request: chat not found"), Fail("Chat not found")),
        (TimedOut(), Retry("Timed out")),
        (NetworkError("Bad Gateway"), Retry("Bad Gateway")),
        (
            Conflict("Conflict: terminated by other getUpdates request"),
            Retry("Conflict: terminated by other getUpdates request"),
        ),
        (TelegramError("Internal Server Error"), Retry("Internal Server Error")),
    ],
)
def test_each_answer_has_its_outcome(error: TelegramError, outcome: Outcome) -> None:
    assert outcome_of(error) == outcome


def test_only_a_400_about_entities_is_sent_again_as_plain_text() -> None:
    assert cannot_parse(BadRequest("Bad Request: can't parse entities: unclosed tag at 12"))
    assert not cannot_parse(BadRequest("Bad Request: message is too long"))
    assert not cannot_parse(NetworkError("can't parse entities"))
