"""The delivery loop: drains the outbox into Telegram, each announcement once per chat,
surviving crashes.

A delivery is marked sent only after Telegram answered the sendMessage with the message, so a
crash (or a lost answer) can re-send at most what was in flight, and never skips anything:
pending deliveries are rows in the database, and a restarted sender simply finds them again.

Several sends run at once (`concurrency`), so throughput reaches the rate limiter's pace, but
never two to the same chat: that keeps each chat's announcements in order and its limit honest.
A send keeps its slot until its confirmation is committed (`bot.delivery.confirmations`, many
to a transaction), so a crash re-sends at most `concurrency` messages. What each of Telegram's
answers means (retry, park, fail, migrate, deactivate) is `bot.delivery.answers`; this loop acts
on it.

Summaries, digest parts and compact messages are one message for many deliveries (what each
send carries is `bot.delivery.messages`); "Suggested for you" messages go out in the slots the
announcements leave free (`bot.delivery.suggestions`); the sender claims the digests that fell
due (rendered by `bot.digest`, a round's chats in one transaction) and ends the quiet hours that
are over
(`watcher.store.quiet`). Deliveries to a paused or quiet destination are not due: the outbox
keeps them pending, never marked sent, until they are let go. What is due, and the wait for the
next, is read on the core's clock (`watcher.clock`), which a test may turn.

The sender holds what it fetched until a slot frees up. `forget(chat)` (after /unsubscribe) and
`refresh()` (after a revision moved a waiting delivery to a newer version) make it drop that and
read the outbox again, so nothing the outbox no longer owes, nor an outdated version, goes out.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Sequence
from datetime import datetime, timedelta
from logging import LoggerAdapter
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
    backoff_delay,
    outcome_of,
)
from bot.delivery.compose import Composed, send, topic_note
from bot.delivery.confirmations import CONFIRM_LINGER, ConfirmationWriter
from bot.delivery.counting import count_send
from bot.delivery.messages import Carried, MessagePlanner
from bot.delivery.pace import CONCURRENCY as CONCURRENCY  # the tests' bound
from bot.delivery.pace import concurrency_for, finish
from bot.delivery.suggestions import SuggestionSends
from bot.digest import render_digest_parts
from watcher.clock import sleep_until
from watcher.core import Core
from watcher.core.views import PendingDelivery

log = logging.getLogger(__name__)

# With nothing due, the outbox is looked at again this often anyway: a chat that came back with
# /start has parked deliveries that are due at once, and nobody wakes the sender for it.
IDLE_RECHECK = 10.0
STOP_GRACE = 5.0  # seconds a stopping sender waits for the sends in flight
# Chats whose due digests one round of the sender's loop claims (in one transaction: 30 ms on
# SQLite, 50 on PostgreSQL); sends go on between rounds, and the rest are claimed in the next ones.
DIGEST_CLAIMS = 50


class DeliverySender:
    """Sends due outbox rows until stopped. `wake()` after queuing deliveries; `stop()` to end."""

    def __init__(
        self,
        bot: Bot,
        context: Core,
        *,
        concurrency: int | None = None,
        batch: int = 200,
        retry_delay: Callable[[int], float] = backoff_delay,
        confirm_linger: float = CONFIRM_LINGER,
    ) -> None:
        """`retry_delay(attempts)`: seconds before retrying after a network fault or 5xx.

        `confirm_linger`: seconds a confirmation may wait to share a transaction with others.
        """
        settings = context.settings
        if concurrency is None:
            concurrency = concurrency_for(settings.telegram_rate_overall)
        if concurrency < 1 or batch < 1:
            raise ValueError("concurrency and batch must be at least 1")
        self.bot = bot
        self.context = context
        self.paid_broadcast = settings.telegram_paid_broadcast
        self.clock = context.clock
        self.concurrency = concurrency
        self.batch = batch
        self.retry_delay = retry_delay
        self._queue: list[PendingDelivery] = []  # fetched, not yet started
        self._in_flight: dict[int, asyncio.Task[None]] = {}  # by delivery id
        self._busy_chats: set[int] = set()
        self._summarized: set[int] = set()  # delivery ids covered by a summary in flight
        self._next_digest: datetime | None = None  # when to claim digests; None: look now
        self._next_quiet: datetime | None = None  # when quiet hours end next; None: look now
        # Bumped by forget(), refresh() and a summary's end: a refill that read the outbox
        # before is dropped, and the outbox read again.
        self._generation = 0
        self._wakeup = asyncio.Event()
        self._stopping = False
        self._stopped = asyncio.Event()
        self._stopped.set()
        self._planner = MessagePlanner(context)  # what each send carries (`bot.delivery.messages`)
        self._confirmations = ConfirmationWriter(
            context.delivery, in_flight=lambda: len(self._in_flight), linger=confirm_linger
        )
        # "Suggested for you" messages, in the slots the announcements leave free.
        self._suggestions = SuggestionSends(
            bot, context, busy=self._busy_chats, retry_delay=retry_delay, wake=self.wake,
            forget=self._forget_chat,
        )  # fmt: skip

    # -- lifecycle -------------------------------------------------------------------------

    def wake(self) -> None:
        """New deliveries were queued: look at the outbox now rather than at the next recheck."""
        self._wakeup.set()

    def forget(self, chat_id: int, thread_id: int | None = None) -> None:
        """The chat's (or one forum topic's) deliveries changed (/unsubscribe dropped some):
        read them again."""
        self._generation += 1
        self._forget_chat(chat_id, thread_id)
        self._wakeup.set()

    def digests_changed(self) -> None:
        """A chat's digest was turned on, moved or off (which claims what it held): look at
        the digests and the outbox again now."""
        self._next_digest = None
        self._wakeup.set()

    def speaking_changed(self) -> None:
        """A destination was paused, resumed, or its quiet hours or style changed: drop what
        was fetched (it may be held now) and read the outbox and the quiet windows again."""
        self._next_quiet = None
        self.refresh()

    def refresh(self) -> None:
        """Waiting deliveries changed (moved to a newer version): read the outbox again."""
        self._generation += 1
        self._queue.clear()
        self._suggestions.refresh()
        self._wakeup.set()

    async def stop(self) -> None:
        """Stop starting sends; the ones in flight get `STOP_GRACE` seconds to finish.

        A send cut short may have reached Telegram unconfirmed: it is sent again after a
        restart, which is the only way a chat can see a message twice.
        """
        self._stopping = True
        self._wakeup.set()
        await self._stopped.wait()

    async def run(self) -> None:
        """Deliver until `stop()`. Safe to restart: everything it needs is in the outbox."""
        self._stopping = False
        self._stopped.clear()
        try:
            while not self._stopping:
                self._wakeup.clear()
                try:
                    await self._claim_digests()
                    await self._release_quiet()
                    if not self._startable() and self._sending() < self.concurrency:
                        await self._refill()
                    self._start_ready()
                    await self._suggestions.start(self.concurrency - self._sending())
                    if self._stopping:
                        break
                    if self._startable() and self._sending() < self.concurrency:
                        continue
                    until = await self._idle_until()
                except Exception:
                    # The database may be restarting; the outbox is still the truth later.
                    log.exception("reading the outbox failed; trying again in %.0fs", IDLE_RECHECK)
                    until = self.clock() + timedelta(seconds=IDLE_RECHECK)
                await self._idle(until)
        finally:
            self._queue.clear()
            await finish(list(self._in_flight.values()), STOP_GRACE)
            await self._suggestions.finish(STOP_GRACE)
            await self._confirmations.close(STOP_GRACE)
            self._stopped.set()

    # -- the loop's steps ------------------------------------------------------------------

    async def _claim_digests(self) -> None:
        """Claim the digests due now (a bounded number a round); note when the next falls due."""
        now = self.clock()
        if self._next_digest is not None and self._next_digest > now:
            return
        delivery = self.context.delivery
        claimed = await delivery.claim_digests(render=render_digest_parts, limit=DIGEST_CLAIMS)
        if len(claimed) >= DIGEST_CLAIMS:
            self._next_digest = None  # more may be due: the next round claims on
        else:
            upcoming = await delivery.next_digest()
            # Still due: a claim failed (logged), and is tried again after the idle recheck.
            # None: no chat takes digests; `digests_changed` says when one starts.
            recheck = now + timedelta(seconds=IDLE_RECHECK)
            self._next_digest = recheck if upcoming is None or upcoming <= now else upcoming
        if any(report.papers for report in claimed):
            self._wakeup.set()

    async def _release_quiet(self) -> None:
        """End the quiet hours that are over (what waited is due, flagged for one summary when
        many did: `watcher.store.quiet`); note when the next ones end."""
        now = self.clock()
        if self._next_quiet is not None and self._next_quiet > now:
            return
        if await self.context.delivery.release_quiet():
            self.refresh()
        upcoming = await self.context.delivery.next_quiet_end()
        recheck = now + timedelta(seconds=IDLE_RECHECK)  # still over: more than one call's worth
        self._next_quiet = recheck if upcoming is not None and upcoming <= now else upcoming

    def _sending(self) -> int:
        return len(self._in_flight) + self._suggestions.sending

    def _startable(self) -> bool:
        return any(delivery.chat_id not in self._busy_chats for delivery in self._queue)

    async def _refill(self) -> None:
        """Fetch due deliveries, looking past the ones already queued or in flight."""
        # Confirmed but not yet marked sent: still due in the table, but Telegram has them.
        known = (
            {delivery.id for delivery in self._queue}
            | set(self._in_flight)
            | self._confirmations.unwritten()
            | self._summarized
        )
        generation = self._generation
        due = await self.context.delivery.due(limit=len(known) + self.batch + self.concurrency)
        if generation != self._generation:
            self._wakeup.set()  # read before a forget() or refresh(): read again
            return
        known |= self._summarized  # a summary may have started meanwhile
        fresh = [delivery for delivery in due if delivery.id not in known]
        if fresh:
            self._queue.extend(fresh)
            # Kept for the chats queued or in flight only, so it never outgrows the queue.
            chats = {delivery.chat_id for delivery in self._queue} | self._busy_chats
            papers = {delivery.record.arxiv_id for delivery in self._queue}
            await self._planner.learn(chats, papers)

    def _start_ready(self) -> None:
        """Start sends, oldest first, for chats with nothing in flight, while slots are free."""
        waiting: list[PendingDelivery] = []
        for index, delivery in enumerate(self._queue):
            if self._sending() >= self.concurrency:
                # Every slot is taken: the rest waits as it is, unscanned (it runs per send).
                waiting.extend(self._queue[index:])
                break
            if delivery.chat_id in self._busy_chats or delivery.id in self._summarized:
                waiting.append(delivery)
                continue
            self._busy_chats.add(delivery.chat_id)
            # A compact destination's other papers go in the same message: kept out of the
            # refills until it is sent (the ones it had no room for are fetched again then).
            batch = self._planner.batch_for(delivery, self._queue[index + 1 :])
            self._summarized.update(other.id for other in batch)
            self._in_flight[delivery.id] = asyncio.create_task(
                self._deliver(delivery, batch), name=f"deliver-{delivery.id}"
            )
        self._queue = [d for d in waiting if d.id not in self._summarized]

    async def _idle_until(self) -> datetime | None:
        """Until when to sleep, on the clock: until a send ends (None), or until the next
        delivery is due (at most `IDLE_RECHECK` seconds)."""
        if self._in_flight or self._queue or self._suggestions.holding:
            return None  # a finishing send wakes the loop
        now = self.clock()
        next_due = await self.context.delivery.next_due()
        suggested = await self._suggestions.next_due()
        for wake in (self._next_digest, self._next_quiet, suggested):
            if wake is not None:
                next_due = min(next_due or wake, wake)
        recheck = now + timedelta(seconds=IDLE_RECHECK)
        return recheck if next_due is None else min(recheck, next_due)

    async def _idle(self, until: datetime | None) -> None:
        """Wait for `wake()` (or a send's end), or until the clock reads `until`."""
        waits: list[asyncio.Future[object]] = [asyncio.ensure_future(self._wakeup.wait())]
        if until is not None:
            waits.append(asyncio.ensure_future(sleep_until(self.clock, until)))
        try:
            await asyncio.wait(waits, return_when=asyncio.FIRST_COMPLETED)
        finally:
            for waiting in waits:
                waiting.cancel()
            await asyncio.gather(*waits, return_exceptions=True)

    def _forget_chat(self, chat_id: int, thread_id: int | None = None) -> None:
        """Drop queued deliveries of a chat that moved or left, or of one of its topics that was
        parked; the outbox still has them."""
        self._suggestions.forget(chat_id, thread_id)
        self._queue = [
            delivery
            for delivery in self._queue
            if delivery.chat_id != chat_id
            or (thread_id is not None and delivery.thread_id != thread_id)
        ]

    # -- one delivery ----------------------------------------------------------------------

    async def _deliver(
        self, delivery: PendingDelivery, batch: Sequence[PendingDelivery] = ()
    ) -> None:
        try:
            await self._attempt(delivery, batch)
        except Exception:
            # A bug or a database fault: the row stays pending and is tried again later.
            log.exception(
                "delivery %d of %s to chat %d crashed; it stays pending",
                delivery.id,
                delivery.record.arxiv_id,
                delivery.chat_id,
            )
            try:
                delay = self.retry_delay(delivery.attempts)
                await self._retry_later([delivery.id], "internal error", delay)
            except Exception:
                log.exception("could not reschedule delivery %d", delivery.id)
        finally:
            self._summarized.difference_update(other.id for other in batch)
            self._busy_chats.discard(delivery.chat_id)
            del self._in_flight[delivery.id]
            self._wakeup.set()

    async def _attempt(self, delivery: PendingDelivery, batch: Sequence[PendingDelivery]) -> None:
        planned = await self._planner.plan(delivery, batch)
        if planned is None:
            return  # another message covered it already
        attempt = self._send_covering if planned.covering else self._attempt_send
        await attempt(delivery, planned.carried, planned.composed, planned.what)

    async def _send_covering(
        self, delivery: PendingDelivery, carried: Carried, composed: Composed, what: str
    ) -> None:
        """Send one message for several deliveries of the chat (a summary, a digest part); the
        refills meanwhile skip them, and what was fetched of them is dropped afterwards."""
        ids = list(carried)
        self._summarized.update(ids)
        try:
            await self._attempt_send(delivery, carried, composed, what)
        finally:
            self._summarized.difference_update(ids)
            # Fetched while this was in flight: the chat was busy, so none has started.
            # A refill still reading may have seen them pending: it is dropped (generation).
            self._generation += 1
            self._queue = [pending for pending in self._queue if pending.id not in ids]

    async def _attempt_send(
        self, delivery: PendingDelivery, carried: Carried, composed: Composed, what: str
    ) -> None:
        """Send one message for the deliveries `carried` (one, or a summary's) of one chat, and
        act on Telegram's answer (see `bot.delivery.answers`)."""
        ids = list(carried)
        try:
            silent = self._planner.style(delivery).silent
            message_id = await send(
                self.bot,
                composed,
                delivery.chat_id,
                delivery.thread_id,
                what,
                silent=silent,
                paid=self.paid_broadcast,
            )
            outcome: Outcome = Sent(message_id)
        except TelegramError as error:
            outcome = outcome_of(error)
        count_send(outcome, delivery, len(ids))
        attempt = delivery.attempts + 1
        said = LoggerAdapter(log, {"chat_id": delivery.chat_id, "paper": delivery.record.arxiv_id})
        match outcome:
            case Sent(message_id):
                await self._confirm(delivery, carried, message_id, what)
            case Migrate(new_id):
                said.info(
                    "chat %d became %d; moving it, %s goes out to the new id",
                    delivery.chat_id,
                    new_id,
                    what,
                )
                # The outbox row moves with the chat (or merges into one the new chat already
                # owed); the next refill sends whatever is still pending, exactly once.
                await self.context.delivery.migrate(delivery.chat_id, new_id)
                self._forget_chat(delivery.chat_id)
                self.wake()
            case Retry(reason, wait) if wait is not None:
                said.warning(
                    "flood control on chat %d for %s (attempt %d): retry in %.0fs",
                    delivery.chat_id,
                    what,
                    attempt,
                    wait,
                )
                await self._retry_later(ids, reason, wait)
            case Retry(reason):
                delay = self.retry_delay(delivery.attempts)
                said.warning(
                    "sending %s to chat %d failed (attempt %d): %s; retry in %.0fs",
                    what,
                    delivery.chat_id,
                    attempt,
                    reason,
                    delay,
                )
                await self._retry_later(ids, reason, delay)
            case Deactivate(reason):
                said.warning(
                    "chat %d refused %s (%s): chat deactivated, its deliveries parked",
                    delivery.chat_id,
                    what,
                    reason,
                )
                await self.context.delivery.deactivate(delivery.chat_id, reason=reason)
                self._forget_chat(delivery.chat_id)
            case Park(reason):
                await self._park(delivery, reason)
            case Fail(reason):
                said.error(
                    "Telegram refused %s for chat %d (attempt %d): %s; not retried",
                    what,
                    delivery.chat_id,
                    attempt,
                    reason,
                )
                await self.context.delivery.mark_failed(ids, error=reason)
            case _:
                assert_never(outcome)

    async def _confirm(
        self, delivery: PendingDelivery, carried: Carried, message_id: int, what: str
    ) -> None:
        """Telegram has the message: mark its deliveries sent as carried; release a parked chat."""
        # One message confirms every delivery it carried; they share one transaction unless
        # the writer is mid-commit (then a crash between the two re-sends this one message).
        confirm = self._confirmations.confirm
        ids = list(carried)
        if len(ids) == 1:
            await confirm(ids[0], message_id, version=carried[ids[0]])
        else:
            await asyncio.gather(*(confirm(i, message_id, version=carried[i]) for i in ids))
        log.info(
            "delivered %s to chat %d (delivery %d, attempt %d)",
            what if len(ids) > 1 or delivery.digest_part else delivery.record.versioned_id,
            delivery.chat_id,
            delivery.id,
            delivery.attempts + 1,
        )
        if delivery.probing and await self.context.delivery.unpark(
            delivery.chat_id, delivery.thread_id
        ):
            log.info(
                "chat %d%s takes messages again; its parked deliveries go out",
                delivery.chat_id,
                topic_note(delivery.thread_id),
            )

    async def _park(self, delivery: PendingDelivery, reason: str) -> None:
        """The chat or topic refused for a reason of its own: hold its deliveries, probe later."""
        parked = await self.context.delivery.park(
            delivery.chat_id, delivery.thread_id, reason=reason
        )
        log.warning(
            "chat %d%s refused %s (%s): its deliveries are parked, refusal %d in a row; "
            "next try at %s",
            delivery.chat_id,
            topic_note(delivery.thread_id),
            delivery.record.arxiv_id,
            reason,
            parked.failures,
            f"{parked.retry_at:%Y-%m-%d %H:%M:%S} UTC",
        )
        self._forget_chat(delivery.chat_id, delivery.thread_id)

    async def _retry_later(self, ids: list[int], error: str, seconds: float) -> None:
        at: datetime = self.clock() + timedelta(seconds=seconds)
        await self.context.delivery.retry_later(ids, error=error, at=at)
