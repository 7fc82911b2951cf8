"""What Telegram's answer to one send means for the deliveries it carried: one typed `Outcome`
(`outcome_of`), which the sender acts on. Pure: no I/O, no clock, no database.

- confirmed → `Sent`: marked sent (see `bot.delivery.confirmations`);
- `ChatMigrated` → `Migrate`: the chat moves to its new id and the send is retried at once;
- `RetryAfter` (429) → `Retry` after the `wait` Telegram asked for (the rate limiter pauses
  every request meanwhile);
- network faults, timeouts, 5xx → `Retry` after an exponential backoff with jitter
  (`backoff_delay`, the sender's default);
- `Forbidden` (blocked, kicked) → `Deactivate`: the chat is deactivated after ONE refusal; its
  deliveries stay pending (parked) until it comes back with /start;
- a `BadRequest` about the chat rather than the message (`is_chat_refusal`: the bot lost its
  rights, the topic is closed) → `Park`: the destination (chat, topic) is parked
  (`watcher.store.parking`): its deliveries stay pending and one probes again with a backoff
  capped at an hour, or at once when the bot's rights come back; a probe that gets through
  releases it;
- any other `BadRequest` ("message is too long", "chat not found") → `Fail` with the reason,
  never retried in a loop.

A `BadRequest` "can't parse entities" (`cannot_parse`) never becomes an outcome: the sender
sends the plain text at once instead, and the answer to that is the outcome.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass

from telegram.error import BadRequest, ChatMigrated, Forbidden, RetryAfter, TelegramError

from bot.ratelimit import retry_after_seconds

BACKOFF_FIRST = 5.0
BACKOFF_MAX = 3600.0

# Refusals that describe the chat, not the message: they pass once an admin restores the bot's
# rights or reopens the topic (Telegram's wording, compared in lower case).
CHAT_REFUSALS = (
    "not enough rights to send",
    "have no rights to send a message",
    "need administrator rights in the channel chat",
    "chat_write_forbidden",
    "chat_restricted",
    "topic_closed",
    "topic_deleted",
    "message thread not found",
)


@dataclass(frozen=True, slots=True)
class Sent:
    """Telegram has the message: every delivery it carried is confirmed by it."""

    message_id: int


@dataclass(frozen=True, slots=True)
class Migrate:
    """The group became a supergroup: its deliveries move to `new_chat_id` and go out there."""

    new_chat_id: int


@dataclass(frozen=True, slots=True)
class Retry:
    """Try again later: after `wait` seconds when Telegram said how long (flood control), else
    after the backoff for the attempts so far. `reason` is what the outbox row records."""

    reason: str
    wait: float | None = None


@dataclass(frozen=True, slots=True)
class Deactivate:
    """The chat refused the bot (blocked, kicked): deactivate it, its deliveries wait."""

    reason: str


@dataclass(frozen=True, slots=True)
class Park:
    """The chat or topic refused for a reason of its own: hold its deliveries, probe later."""

    reason: str


@dataclass(frozen=True, slots=True)
class Fail:
    """Telegram refused this message itself: sending it again would get the same answer."""

    reason: str


Outcome = Sent | Migrate | Retry | Deactivate | Park | Fail


def outcome_of(error: TelegramError) -> Outcome:
    """What a refused or failed send means (a confirmed one is `Sent`)."""
    if isinstance(error, ChatMigrated):
        return Migrate(error.new_chat_id)
    if isinstance(error, RetryAfter):
        wait = retry_after_seconds(error)
        return Retry(f"flood control: retry after {wait:.0f}s", wait)
    if isinstance(error, Forbidden):
        return Deactivate(error.message)
    if isinstance(error, BadRequest):
        return Park(error.message) if is_chat_refusal(error.message) else Fail(error.message)
    # TimedOut, lost connections and 5xx are NetworkErrors; BadRequest was caught above.
    return Retry(error.message)


def is_chat_refusal(description: str) -> bool:
    """Whether a 400 is about the chat or topic (park it), not about the message (fail it)."""
    lowered = description.lower()
    return any(refusal in lowered for refusal in CHAT_REFUSALS)


def cannot_parse(error: TelegramError) -> bool:
    """Whether Telegram refused a message's HTML (send its plain text instead)."""
    return isinstance(error, BadRequest) and "can't parse entities" in error.message.lower()


def backoff_delay(attempts: int, *, jitter: Callable[[], float] = random.random) -> float:
    """Seconds to wait after the `attempts`-th failure: 5 s doubling up to 1 h, ±25% jitter."""
    base = min(BACKOFF_MAX, BACKOFF_FIRST * 2.0 ** min(attempts, 20))
    return min(BACKOFF_MAX, base * (0.75 + jitter() / 2))
