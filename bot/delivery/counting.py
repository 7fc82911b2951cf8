"""The sender's part of the metrics (`watcher.metrics`): what each of Telegram's answers to a
send counts as, and the delay of each confirmed send.

- `Sent` → sent; `Retry` (a 429, a network fault, a 5xx) and `Migrate` (sent again at once to
  the new chat id) → retried; `Park` and `Deactivate` (the rows wait, parked) → parked;
  `Fail` → failed. An announcement counts once for each outbox row the message carried
  (`arxiv_watcher_deliveries_total`); a "Suggested for you" message counts once
  (`arxiv_watcher_suggestion_messages_total`).
- The delay is one observation a confirmed announcement: the time since the row that started
  the send was created (for a summary or a digest message, the oldest it carries is due first).
  Suggestion messages observe none: they carry no outbox row.
"""

from __future__ import annotations

from typing import assert_never

from bot.delivery.answers import Deactivate, Fail, Migrate, Outcome, Park, Retry, Sent
from watcher.core.views import PendingDelivery
from watcher.metrics import count_deliveries, count_suggestion_message, observe_delays


def outcome_label(outcome: Outcome) -> str:
    """The `outcome` label of the send counters for Telegram's answer."""
    match outcome:
        case Sent():
            return "sent"
        case Retry() | Migrate():
            return "retried"
        case Park() | Deactivate():
            return "parked"
        case Fail():
            return "failed"
        case _:
            assert_never(outcome)


def count_send(outcome: Outcome, delivery: PendingDelivery, carried: int) -> None:
    """A send of `carried` rows, started by `delivery`, was answered with `outcome`."""
    count_deliveries(outcome_label(outcome), carried)
    if isinstance(outcome, Sent):
        observe_delays([delivery.queued])


def count_suggestion_send(outcome: Outcome) -> None:
    """A send of one suggestion message was answered with `outcome`."""
    count_suggestion_message(outcome_label(outcome))
