"""The sender's half of "Suggested for you" (issue 32): the suggestion messages the core owes
(`Core.suggestions.due`), each rendered in its destination's language (`bot.render.suggested`)
and marked sent only once Telegram confirmed it.

They go out from the delivery sender's loop (`bot.delivery.sender`), through the same Bot and so
the same rate limiter, in the slots the announcements leave free, and never while another
message to the same chat is in flight (the sender's busy chats). Telegram's answer is read as
any delivery's (`bot.delivery.answers`) and acted on the same way: a 429 waits what Telegram
asked, a passing fault (network, timeout, 5xx) retries after the same backoff; a refusal of the
message itself (400) fails it for good; a refusal of the chat or topic (rights lost, topic
closed) parks the destination, a chat that blocked or removed the bot is deactivated (its
message waits, as its deliveries do), and a group that became a supergroup moves
(`Deliveries.migrate`). A send to a parked destination is its probe: getting through releases
it. A crash between Telegram's answer and `mark_sent` sends that one message again after the
restart; nothing is skipped. Each answer is counted (`bot.delivery.counting`).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from datetime import datetime, timedelta
from typing import assert_never

from telegram import Bot
from telegram.error import TelegramError

from bot.delivery.answers import (
    Deactivate,
    Fail,
    Migrate,
    Outcome,
    Park,
    Retry,
    Sent,
    outcome_of,
)
from bot.delivery.compose import Composed, markup_of, send, topic_note
from bot.delivery.counting import count_suggestion_send
from bot.delivery.pace import finish
from bot.i18n import speaking
from bot.i18n.dates import short_day
from bot.render.suggested import render_suggestions
from watcher.core import Core
from watcher.core.suggestions import PendingSuggestion
from watcher.core.views import DEFAULT_STYLE, Style

log = logging.getLogger(__name__)

BATCH = 100  # suggestion messages one read of the due ones fetches beyond those known


class SuggestionSends:
    """The suggestion messages being sent: fetched (`start` reads the due ones when none it
    holds can start), in flight (at most the slots it is given), and their answers acted on.
    `busy` is the sender's set of chats with a send in flight, shared; `wake` tells the sender
    a send ended; `forget(chat, thread)` drops what the sender fetched for a chat that moved,
    left or was parked."""

    def __init__(
        self,
        bot: Bot,
        context: Core,
        *,
        busy: set[int],
        retry_delay: Callable[[int], float],
        wake: Callable[[], None],
        forget: Callable[[int, int | None], None],
    ) -> None:
        self.bot = bot
        self.context = context
        self.paid = context.settings.telegram_paid_broadcast
        self.retry_delay = retry_delay
        self._busy = busy
        self._wake = wake
        self._forget_elsewhere = forget
        self._queue: list[PendingSuggestion] = []
        self._in_flight: dict[int, asyncio.Task[None]] = {}  # by suggestion id
        self._styles: dict[tuple[int, int], Style] = {}
        self._languages: dict[int, str] = {}

    @property
    def sending(self) -> int:
        """Suggestion messages in flight now."""
        return len(self._in_flight)

    @property
    def holding(self) -> bool:
        """Whether any is in flight or fetched and waiting for its chat."""
        return bool(self._in_flight or self._queue)

    def forget(self, chat_id: int, thread_id: int | None = None) -> None:
        """Drop what was fetched for the chat (or one topic of it); the core still has it."""
        self._queue = [
            pending
            for pending in self._queue
            if pending.chat_id != chat_id
            or (thread_id is not None and pending.thread_id != thread_id)
        ]

    def refresh(self) -> None:
        """Destinations were paused or their quiet hours changed: read the due ones again."""
        self._queue.clear()

    async def start(self, free: int) -> None:
        """Start up to `free` sends, oldest first, for chats with nothing in flight; the due
        messages are read again first when none of those fetched can start."""
        if free <= 0:
            return
        if not any(pending.chat_id not in self._busy for pending in self._queue):
            await self._refill()
        waiting: list[PendingSuggestion] = []
        for pending in self._queue:
            if free <= 0 or pending.chat_id in self._busy:
                waiting.append(pending)
                continue
            self._busy.add(pending.chat_id)
            self._in_flight[pending.id] = asyncio.create_task(
                self._deliver(pending), name=f"suggest-{pending.id}"
            )
            free -= 1
        self._queue = waiting

    async def next_due(self) -> datetime | None:
        """When the next suggestion message falls due (None: none waits)."""
        return await self.context.suggestions.next_due()

    async def finish(self, grace: float) -> None:
        """The sender stops: the sends in flight get `grace` seconds, then are cut short."""
        self._queue.clear()
        await finish(list(self._in_flight.values()), grace)

    async def _refill(self) -> None:
        known = set(self._in_flight) | {pending.id for pending in self._queue}
        due = await self.context.suggestions.due(limit=len(known) + BATCH)
        fresh = [pending for pending in due if pending.id not in known]
        if not fresh:
            return
        self._queue.extend(fresh)
        chats = {pending.chat_id for pending in self._queue}
        audience = await self.context.delivery.audience(chats, ())
        self._styles, self._languages = audience.styles, audience.languages

    def _style(self, pending: PendingSuggestion) -> Style:
        return self._styles.get((pending.chat_id, pending.thread_id), DEFAULT_STYLE)

    async def _deliver(self, pending: PendingSuggestion) -> None:
        try:
            await self._attempt(pending)
        except Exception:
            # A bug or a database fault: the message stays pending and is tried again later.
            log.exception(
                "suggestion message %d to chat %d crashed; it stays pending",
                pending.id,
                pending.chat_id,
            )
            try:
                await self._retry_later(pending, "internal error", None)
            except Exception:
                log.exception("could not reschedule suggestion message %d", pending.id)
        finally:
            self._busy.discard(pending.chat_id)
            del self._in_flight[pending.id]
            self._wake()

    async def _attempt(self, pending: PendingSuggestion) -> None:
        suggestions = self.context.suggestions
        if not pending.papers:
            await suggestions.mark_failed([pending.id], error="no papers to suggest")
            return
        style = self._style(pending)
        with speaking(style.language or self._languages.get(pending.chat_id)):
            message = render_suggestions(pending.papers, day=short_day(pending.mailing))
        what = f"suggestions of {pending.mailing:%Y-%m-%d}"
        try:
            message_id = await send(
                self.bot,
                Composed(message, markup_of(message)),
                pending.chat_id,
                pending.thread_id,
                what,
                silent=style.silent,
                paid=self.paid,
            )
            outcome: Outcome = Sent(message_id)
        except TelegramError as error:
            outcome = outcome_of(error)
        await self._act(pending, outcome, what)

    async def _act(self, pending: PendingSuggestion, outcome: Outcome, what: str) -> None:
        """What Telegram's answer means for the message, as for any delivery; each answer counts
        once in `arxiv_watcher_suggestion_messages_total`."""
        count_suggestion_send(outcome)
        delivery, place = self.context.delivery, (pending.chat_id, pending.thread_id)
        where = f"chat {pending.chat_id}{topic_note(pending.thread_id)}"
        match outcome:
            case Sent(message_id):
                await self.context.suggestions.mark_sent([(pending.id, message_id)])
                log.info("sent %s to %s (attempt %d)", what, where, pending.attempts + 1)
                if pending.probing and await delivery.unpark(*place):
                    log.info("%s takes messages again; its parked deliveries go out", where)
            case Migrate(new_id):
                log.info("chat %d became %d; moving it", pending.chat_id, new_id)
                await delivery.migrate(pending.chat_id, new_id)
                self._forget(pending.chat_id, None)
            case Retry(reason, wait):
                log.warning("sending %s to %s failed: %s; retried later", what, where, reason)
                await self._retry_later(pending, reason, wait)
            case Deactivate(reason):
                log.warning("%s refused %s (%s): chat deactivated", where, what, reason)
                await delivery.deactivate(pending.chat_id, reason=reason)
                self._forget(pending.chat_id, None)
            case Park(reason):
                parked = await delivery.park(*place, reason=reason)
                log.warning(
                    "%s refused %s (%s): parked, refusal %d in a row",
                    where,
                    what,
                    reason,
                    parked.failures,
                )
                self._forget(*place)
            case Fail(reason):
                log.error("Telegram refused %s for %s: %s; not retried", what, where, reason)
                await self.context.suggestions.mark_failed([pending.id], error=reason)
            case _:
                assert_never(outcome)

    def _forget(self, chat_id: int, thread_id: int | None) -> None:
        self.forget(chat_id, thread_id)
        self._forget_elsewhere(chat_id, thread_id)

    async def _retry_later(
        self, pending: PendingSuggestion, error: str, wait: float | None
    ) -> None:
        seconds = self.retry_delay(pending.attempts) if wait is None else wait
        at: datetime = self.context.clock() + timedelta(seconds=seconds)
        await self.context.suggestions.retry_later([pending.id], error=error, at=at)
