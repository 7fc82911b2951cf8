"""What each of Telegram's answers to a send counts as in `arxiv_watcher_deliveries_total`
(`bot.delivery.counting`), the delay a confirmed send observes, and a suggestion message's
count in `arxiv_watcher_suggestion_messages_total`. Pure: no database."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from bot.delivery.answers import Deactivate, Fail, Migrate, Outcome, Park, Retry, Sent
from bot.delivery.counting import count_send, count_suggestion_send, outcome_label
from tests.fakes.corpus import make_record
from watcher.kinds import NewsKind
from watcher.metrics import build_registry
from watcher.store.outbox import PendingDelivery


@pytest.mark.parametrize(
    ("outcome", "label"),
    [
        (Sent(7), "sent"),
        (Retry("flood control", wait=3.0), "retried"),
        (Retry("HTTP 502"), "retried"),
        (Migrate(-100123), "retried"),
        (Park("not enough rights to send text messages"), "parked"),
        (Deactivate("bot was blocked by the user"), "parked"),
        (Fail("message is too long"), "failed"),
    ],
)
def test_each_answer_has_its_outcome(outcome: Outcome, label: str) -> None:
    assert outcome_label(outcome) == label


def counted(name: str, **labels: str) -> float:
    return build_registry().get_sample_value(name, labels) or 0.0


def test_a_send_counts_every_row_it_carried_and_a_confirmed_one_its_delay() -> None:
    delivery = PendingDelivery(
        id=1,
        chat_id=5,
        kind=NewsKind.NEW,
        attempts=0,
        record=make_record(),
        queued=datetime.now(UTC) - timedelta(minutes=10),
    )
    sent, retried = (
        counted("arxiv_watcher_deliveries_total", outcome="sent"),
        counted("arxiv_watcher_deliveries_total", outcome="retried"),
    )
    delays = counted("arxiv_watcher_delivery_delay_seconds_count")
    within_15_min = counted("arxiv_watcher_delivery_delay_seconds_bucket", le="900.0")
    within_5_min = counted("arxiv_watcher_delivery_delay_seconds_bucket", le="300.0")

    count_send(Retry("HTTP 502"), delivery, 4)
    count_send(Sent(9), delivery, 4)  # a summary of four papers

    assert counted("arxiv_watcher_deliveries_total", outcome="retried") == retried + 4
    assert counted("arxiv_watcher_deliveries_total", outcome="sent") == sent + 4
    assert counted("arxiv_watcher_delivery_delay_seconds_count") == delays + 1
    assert counted("arxiv_watcher_delivery_delay_seconds_bucket", le="900.0") == within_15_min + 1
    assert counted("arxiv_watcher_delivery_delay_seconds_bucket", le="300.0") == within_5_min


def test_a_suggestion_message_counts_once_an_answer_and_no_delivery() -> None:
    suggestions, deliveries = (
        "arxiv_watcher_suggestion_messages_total",
        "arxiv_watcher_deliveries_total",
    )
    before = {
        (name, outcome): counted(name, outcome=outcome)
        for name in (suggestions, deliveries)
        for outcome in ("sent", "retried", "parked", "failed")
    }

    count_suggestion_send(Retry("HTTP 502"))
    count_suggestion_send(Sent(9))

    after = {key: counted(key[0], outcome=key[1]) for key in before}
    moved = {key: after[key] - before[key] for key in before if after[key] != before[key]}
    assert moved == {(suggestions, "retried"): 1, (suggestions, "sent"): 1}
