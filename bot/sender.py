"""Delivery: drains the outbox into Telegram, each announcement once per chat, surviving crashes.

A delivery is marked sent only after Telegram answered the sendMessage with the message, so a
crash (or a lost answer) can re-send at most what was in flight, and never skips anything:
pending deliveries are rows in the database, and a restarted sender simply finds them again.

Several sends run at once (`concurrency`), so throughput reaches the rate limiter's pace, but
never two to the same chat: that keeps each chat's announcements in order and its limit honest.
A send keeps its slot until its confirmation is committed, and the confirmations that arrive while
one commit runs are committed together in the next (a group commit): the database does one
transaction per batch rather than per message, and a crash still re-sends at most `concurrency`
messages, since every message Telegram has and the outbox does not is holding a slot.
How each Telegram answer is handled:

- confirmed → marked sent (`Outbox.mark_sent_many`, many confirmations to one transaction); a
  commit that fails is tried again, never the send (see `ConfirmationWriter`);
- `RetryAfter` (429) → that delivery is due again after `retry_after` (the rate limiter pauses
  every request meanwhile);
- network faults, timeouts, 5xx → due again after an exponential backoff with jitter;
- `Forbidden` (blocked, kicked) → the chat is deactivated after ONE refusal; its deliveries stay
  pending (parked) until it comes back with /start;
- `ChatMigrated` → the chat moves to its new id and the send is retried at once;
- `BadRequest` "can't parse entities" → sent again as plain text;
- a `BadRequest` about the chat rather than the message (`is_chat_refusal`: the bot lost its
  rights, the topic is closed) → the destination (chat, topic) is parked (`watcher.parking`):
  its deliveries stay pending and one probes again with a backoff capped at an hour, or at once
  when the bot's rights come back; a probe that gets through releases it;
- any other `BadRequest` ("message is too long", "chat not found") → failed with the reason,
  never retried in a loop.

Deliveries to a forum topic carry its `message_thread_id`, and so do summaries.

A chat that came back to many waiting papers (`PendingDelivery.summarize`, see `watcher.chats`)
gets one summary message instead of one message each: its flagged deliveries go out together,
and are marked sent together once Telegram confirmed that one message. A crash in between
re-sends at most that summary.

Digests (`watcher.digests`) work the same way. The sender claims the digests that fell due
(rendered by `bot.digest`, one transaction a chat), and their messages are then pending rows:
a delivery carrying a digest part sends the destination's earliest unsent part, with every
delivery of that part confirmed by its one message. Parts go out under the same limits and
answers as any delivery (429, parking, an inactive chat); a crash re-sends at most the part
in flight.

The sender holds what it fetched until a slot frees up. `forget(chat)` (after /unsubscribe) and
`refresh()` (after a revision moved a waiting delivery to a newer version) make it drop that and
read the outbox again, so nothing the outbox no longer owes, nor an outdated version, goes out.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import random
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta

from telegram import Bot, InlineKeyboardButton, InlineKeyboardMarkup, LinkPreviewOptions
from telegram.constants import ParseMode
from telegram.error import (
    BadRequest,
    ChatMigrated,
    Forbidden,
    NetworkError,
    RetryAfter,
    TelegramError,
)

from bot.digest import render_digest_parts
from bot.ratelimit import retry_after_seconds
from bot.render import Message, render_paper, render_summary
from watcher.aio import in_db_thread
from watcher.kinds import NewsKind
from watcher.match import is_same_person
from watcher.models import utcnow
from watcher.outbox import Outbox, PendingDelivery
from watcher.records import Record
from watcher.service import ServiceContext
from watcher.taxonomy import category_name

log = logging.getLogger(__name__)

BACKOFF_FIRST = 5.0
BACKOFF_MAX = 3600.0
# With nothing due, the outbox is looked at again this often anyway: a chat that came back with
# /start has parked deliveries that are due at once, and nobody wakes the sender for it.
IDLE_RECHECK = 10.0
STOP_GRACE = 5.0  # seconds a stopping sender waits for the sends in flight
RENDER_CACHE_SIZE = 64  # one paper goes to many chats: render it once
# Sends at once. Enough to keep pace while each waits on Telegram: at the default 30 messages a
# second, 8 sends cover a round trip of up to 260 ms. More costs CPU on the event loop (about a
# sixth more per message at 16, measured in bench/README.md) and raises the crash bound: a crash
# re-sends at most this many messages.
CONCURRENCY = 8
# Seconds a confirmation may wait for others to share its transaction. The send keeps its slot
# meanwhile, so this is paid in concurrency: at 500 messages a second, 10 ms holds about 5 slots.
CONFIRM_LINGER = 0.01
# Pauses before writing confirmations again after a failed commit: 0.5 s doubling up to 30 s.
CONFIRM_RETRY_FIRST, CONFIRM_RETRY_MAX = 0.5, 30.0
# Chats whose due digests one round of the sender's loop claims (a transaction each); sends go
# on between rounds, and the rest are claimed in the next ones.
DIGEST_CLAIMS = 50

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


def is_chat_refusal(description: str) -> bool:
    """Whether a 400 is about the chat or topic (park it), not about the message (fail it)."""
    lowered = description.lower()
    return any(refusal in lowered for refusal in CHAT_REFUSALS)


def backoff_delay(attempts: int, *, jitter: Callable[[], float] = random.random) -> float:
    """Seconds to wait after the `attempts`-th failure: 5 s doubling up to 1 h, ±25% jitter."""
    base = min(BACKOFF_MAX, BACKOFF_FIRST * 2.0 ** min(attempts, 20))
    return min(BACKOFF_MAX, base * (0.75 + jitter() / 2))


@dataclass(frozen=True, slots=True)
class _Rendered:
    message: Message
    markup: InlineKeyboardMarkup | None


def _markup(message: Message) -> InlineKeyboardMarkup | None:
    rows = [
        [InlineKeyboardButton(button.text, url=button.url) for button in row if button.url]
        for row in message.buttons
    ]
    rows = [row for row in rows if row]
    return InlineKeyboardMarkup(rows) if rows else None


class ConfirmationWriter:
    """Marks deliveries sent in batches: one transaction for the confirmations of many sends.

    `confirm` returns once that delivery's row is committed. A batch is written when `linger`
    seconds have passed since its first confirmation, or as soon as every send in flight is
    waiting on it (`in_flight()`), since no other confirmation can come then. While a commit runs
    on the database thread, new confirmations gather for the next one.

    A commit that fails (SQLite busy beyond its timeout while another writer holds the lock, a
    database restarting) loses nothing: Telegram has those messages, so sending them again would
    double them. The confirmations stay here and are written again after a growing pause
    (`confirm_retry_delay`), each send keeping its slot meanwhile. That bounds the memory to the
    sends in flight, stops new sends while the database refuses writes, and means a crash
    re-sends at most those: the same bound as a crash mid-send.
    """

    def __init__(
        self, outbox: Outbox, *, in_flight: Callable[[], int], linger: float = CONFIRM_LINGER
    ) -> None:
        self.outbox = outbox
        self.in_flight = in_flight
        self.linger = linger
        self._waiting: list[tuple[int, int | None, asyncio.Future[None]]] = []
        self._everyone_waits = asyncio.Event()
        self._writer: asyncio.Task[None] | None = None

    def unwritten(self) -> set[int]:
        """Ids of deliveries Telegram confirmed whose rows are not yet marked sent."""
        return {delivery_id for delivery_id, _, _ in self._waiting}

    async def confirm(self, delivery_id: int, message_id: int | None) -> None:
        """Mark one delivery sent; returns once that is committed, however many tries it takes."""
        committed = asyncio.get_running_loop().create_future()
        self._waiting.append((delivery_id, message_id, committed))
        if len(self._waiting) >= self.in_flight():
            self._everyone_waits.set()
        if self._writer is None or self._writer.done():
            self._writer = asyncio.create_task(self._write(), name="confirmation-writer")
        await committed

    async def close(self, grace: float) -> None:
        """Give unwritten confirmations `grace` seconds more, then give them up (logged)."""
        if self._writer is None or self._writer.done():
            return
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(grace):
                await asyncio.shield(self._writer)
        if self._writer.done():
            return
        self._writer.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await self._writer
        if self._waiting:
            log.error(
                "%d deliveries Telegram confirmed could not be marked sent before stopping; "
                "they will be sent again",
                len(self._waiting),
            )
        self._waiting = []

    async def _write(self) -> None:
        failures = 0
        while self._waiting:
            if self.linger > 0 and not self._everyone_waits.is_set():
                with contextlib.suppress(TimeoutError):
                    async with asyncio.timeout(self.linger):
                        await self._everyone_waits.wait()
            self._everyone_waits.clear()
            batch, self._waiting = self._waiting, []
            rows = [(delivery_id, message_id) for delivery_id, message_id, _ in batch]
            try:
                await in_db_thread(self.outbox.mark_sent_many, rows)
            except Exception as error:
                failures += 1
                self._waiting = batch + self._waiting  # oldest first, written with the next
                delay = confirm_retry_delay(failures)
                log.warning(
                    "marking %d confirmed deliveries sent failed (%s; %d time(s) in a row); "
                    "writing them again in %.1fs, never sending them again",
                    len(self._waiting),
                    _one_line(error),
                    failures,
                    delay,
                )
                await asyncio.sleep(delay)
                continue
            if failures:
                log.info(
                    "marked %d confirmed deliveries sent after %d failed tries", len(rows), failures
                )
                failures = 0
            for _, _, committed in batch:
                if not committed.done():  # its send may have been cancelled meanwhile
                    committed.set_result(None)


def confirm_retry_delay(failures: int) -> float:
    """Seconds before writing confirmations again after `failures` failed commits in a row."""
    return min(CONFIRM_RETRY_MAX, CONFIRM_RETRY_FIRST * 2.0 ** min(failures - 1, 20))


def _one_line(error: BaseException) -> str:
    text = str(error).strip().splitlines()
    return text[0][:200] if text else type(error).__name__


class DeliverySender:
    """Sends due outbox rows until stopped. `wake()` after queuing deliveries; `stop()` to end."""

    def __init__(
        self,
        bot: Bot,
        context: ServiceContext,
        *,
        concurrency: int = CONCURRENCY,
        batch: int = 200,
        retry_delay: Callable[[int], float] = backoff_delay,
        confirm_linger: float = CONFIRM_LINGER,
    ) -> None:
        """`retry_delay(attempts)`: seconds before retrying after a network fault or 5xx.

        `confirm_linger`: seconds a confirmation may wait to share a transaction with others.
        """
        if concurrency < 1 or batch < 1:
            raise ValueError("concurrency and batch must be at least 1")
        self.bot = bot
        self.context = context
        self.concurrency = concurrency
        self.batch = batch
        self.retry_delay = retry_delay
        self._queue: list[PendingDelivery] = []  # fetched, not yet started
        self._in_flight: dict[int, asyncio.Task[None]] = {}  # by delivery id
        self._busy_chats: set[int] = set()
        self._summarized: set[int] = set()  # delivery ids covered by a summary in flight
        self._next_digest: datetime | None = None  # when to claim digests; None: look now
        # Bumped by forget(), refresh() and a summary's end: a refill that read the outbox
        # before is dropped, and the outbox read again.
        self._generation = 0
        self._wakeup = asyncio.Event()
        self._stopping = False
        self._stopped = asyncio.Event()
        self._stopped.set()
        # Who is marked ★ in a chat's message: the followed authors THAT chat subscribes to.
        self._followed_names: dict[int, tuple[str, ...]] = {}  # by followed author id
        # (chat id, thread id) -> the followed author ids that topic subscribes to
        self._chat_follows: dict[tuple[int, int], frozenset[int]] = {}
        self._rendered: OrderedDict[tuple[str, int, str, frozenset[int]], _Rendered] = OrderedDict()
        self._confirmations = ConfirmationWriter(
            context.outbox, in_flight=lambda: len(self._in_flight), linger=confirm_linger
        )

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

    def refresh(self) -> None:
        """Waiting deliveries changed (moved to a newer version): read the outbox again."""
        self._generation += 1
        self._queue.clear()
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
                    if not self._startable() and len(self._in_flight) < self.concurrency:
                        await self._refill()
                    self._start_ready()
                    if self._stopping:
                        break
                    if self._startable() and len(self._in_flight) < self.concurrency:
                        continue
                    timeout = await self._idle_timeout()
                except Exception:
                    # The database may be restarting; the outbox is still the truth later.
                    log.exception("reading the outbox failed; trying again in %.0fs", IDLE_RECHECK)
                    timeout = IDLE_RECHECK
                await self._idle(timeout)
        finally:
            self._queue.clear()
            await self._finish_in_flight()
            await self._confirmations.close(STOP_GRACE)
            self._stopped.set()

    async def _finish_in_flight(self) -> None:
        tasks = list(self._in_flight.values())
        if not tasks:
            return
        _, late = await asyncio.wait(tasks, timeout=STOP_GRACE)
        for task in late:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)

    # -- the loop's steps ------------------------------------------------------------------

    async def _claim_digests(self) -> None:
        """Claim the digests due now (a bounded number a round); note when the next falls due."""
        now = utcnow()
        if self._next_digest is not None and self._next_digest > now:
            return
        digests = self.context.chats.digests
        claimed = await in_db_thread(
            digests.claim_due, render=render_digest_parts, now=now, limit=DIGEST_CLAIMS
        )
        if len(claimed) >= DIGEST_CLAIMS:
            self._next_digest = None  # more may be due: the next round claims on
        else:
            upcoming = await in_db_thread(digests.next_due)
            # Still due: a claim failed (logged), and is tried again after the idle recheck.
            # None: no chat takes digests; `digests_changed` says when one starts.
            recheck = now + timedelta(seconds=IDLE_RECHECK)
            self._next_digest = recheck if upcoming is None or upcoming <= now else upcoming
        if any(report.papers for report in claimed):
            self._wakeup.set()

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
        due = await in_db_thread(
            self.context.outbox.due, limit=len(known) + self.batch + self.concurrency
        )
        if generation != self._generation:
            self._wakeup.set()  # read before a forget() or refresh(): read again
            return
        known |= self._summarized  # a summary may have started meanwhile
        fresh = [delivery for delivery in due if delivery.id not in known]
        if fresh:
            self._queue.extend(fresh)
            # Kept for the chats queued or in flight only, so it never outgrows the queue.
            chats = {delivery.chat_id for delivery in self._queue} | self._busy_chats
            self._followed_names, self._chat_follows = await in_db_thread(
                self._who_follows_whom, chats
            )

    def _who_follows_whom(
        self, chat_ids: set[int]
    ) -> tuple[dict[int, tuple[str, ...]], dict[tuple[int, int], frozenset[int]]]:
        """Database thread: whom each chat's topics follow, and the names of those follows (to
        mark them in a message), read for them alone."""
        follows = self.context.chats.subscriptions_of(chat_ids)
        wanted = set().union(*follows.values())
        names = {f.id: f.names for f in self.context.store.followed(wanted)} if wanted else {}
        return names, follows

    def _start_ready(self) -> None:
        """Start sends, oldest first, for chats with nothing in flight, while slots are free."""
        waiting: list[PendingDelivery] = []
        for index, delivery in enumerate(self._queue):
            if len(self._in_flight) >= self.concurrency:
                # Every slot is taken: the rest waits as it is, unscanned (it runs per send).
                waiting.extend(self._queue[index:])
                break
            if delivery.chat_id in self._busy_chats:
                waiting.append(delivery)
                continue
            self._busy_chats.add(delivery.chat_id)
            self._in_flight[delivery.id] = asyncio.create_task(
                self._deliver(delivery), name=f"deliver-{delivery.id}"
            )
        self._queue = waiting

    async def _idle_timeout(self) -> float | None:
        """How long to sleep: until a send ends (None), or until the next delivery is due."""
        if self._in_flight or self._queue:
            return None  # a finishing send wakes the loop
        next_due = await in_db_thread(self.context.outbox.next_due)
        if self._next_digest is not None:
            next_due = min(next_due or self._next_digest, self._next_digest)
        if next_due is None:
            return IDLE_RECHECK
        return min(IDLE_RECHECK, max(0.0, (next_due - utcnow()).total_seconds()))

    async def _idle(self, seconds: float | None) -> None:
        if seconds == 0:
            return
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(seconds):
                await self._wakeup.wait()

    def _forget_chat(self, chat_id: int, thread_id: int | None = None) -> None:
        """Drop queued deliveries of a chat that moved or left, or of one of its topics that was
        parked; the outbox still has them."""
        self._queue = [
            delivery
            for delivery in self._queue
            if delivery.chat_id != chat_id
            or (thread_id is not None and delivery.thread_id != thread_id)
        ]

    # -- one delivery ----------------------------------------------------------------------

    async def _deliver(self, delivery: PendingDelivery) -> None:
        try:
            await self._attempt(delivery)
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
            self._busy_chats.discard(delivery.chat_id)
            del self._in_flight[delivery.id]
            self._wakeup.set()

    async def _attempt(self, delivery: PendingDelivery) -> None:
        if delivery.digest_part is not None:
            await self._attempt_digest_part(delivery)
            return
        if not delivery.summarize:
            rendered = self._render(
                delivery.record, delivery.kind, delivery.chat_id, delivery.thread_id
            )
            await self._attempt_send(delivery, [delivery.id], rendered, delivery.record.arxiv_id)
            return
        covered = await in_db_thread(
            self.context.outbox.summary_for, delivery.chat_id, delivery.thread_id
        )
        ids = [pending.id for pending in covered]
        if not ids:
            return  # another summary covered it already
        papers = [(pending.record, NewsKind.of(pending.kind)) for pending in covered]
        rendered = _Rendered(render_summary(papers), None)
        await self._send_covering(delivery, ids, rendered, f"a summary of {len(ids)} papers")

    async def _attempt_digest_part(self, delivery: PendingDelivery) -> None:
        """Send the destination's earliest unsent digest message, confirming its deliveries."""
        part = await in_db_thread(
            self.context.outbox.digest_part_for, delivery.chat_id, delivery.thread_id
        )
        if part is None or not part.delivery_ids:
            return  # sent meanwhile
        await self._send_covering(
            delivery,
            part.delivery_ids,
            _Rendered(Message(part.html, part.plain), None),
            f"digest message {part.position} of {part.parts}",
        )

    async def _send_covering(
        self, delivery: PendingDelivery, ids: list[int], rendered: _Rendered, what: str
    ) -> None:
        """Send one message for several deliveries of the chat (a summary, a digest part); the
        refills meanwhile skip them, and what was fetched of them is dropped afterwards."""
        self._summarized.update(ids)
        try:
            await self._attempt_send(delivery, ids, rendered, what)
        finally:
            self._summarized.difference_update(ids)
            # Fetched while this was in flight: the chat was busy, so none has started.
            # A refill still reading may have seen them pending: it is dropped (generation).
            self._generation += 1
            self._queue = [pending for pending in self._queue if pending.id not in ids]

    async def _attempt_send(
        self, delivery: PendingDelivery, ids: list[int], rendered: _Rendered, what: str
    ) -> None:
        """Send one message for the deliveries `ids` (one, or a summary's) of one chat."""
        outbox, chats = self.context.outbox, self.context.chats
        attempt = delivery.attempts + 1
        try:
            message_id = await self._send(rendered, delivery.chat_id, delivery.thread_id, what)
        except ChatMigrated as error:
            new_id = error.new_chat_id
            log.info(
                "chat %d became %d; moving it, %s goes out to the new id",
                delivery.chat_id,
                new_id,
                what,
            )
            # The outbox row moves with the chat (or merges into one the new chat already
            # owed); the next refill sends whatever is still pending, exactly once.
            await in_db_thread(chats.migrate, delivery.chat_id, new_id)
            self._forget_chat(delivery.chat_id)
            self.wake()
            return
        except RetryAfter as error:
            wait = retry_after_seconds(error)
            log.warning(
                "flood control on chat %d for %s (attempt %d): retry in %.0fs",
                delivery.chat_id,
                what,
                attempt,
                wait,
            )
            await self._retry_later(ids, f"flood control: retry after {wait:.0f}s", wait)
            return
        except Forbidden as error:
            log.warning(
                "chat %d refused %s (%s): chat deactivated, its deliveries parked",
                delivery.chat_id,
                what,
                error.message,
            )
            await in_db_thread(chats.deactivate, delivery.chat_id, reason=error.message)
            self._forget_chat(delivery.chat_id)
            return
        except BadRequest as error:
            if is_chat_refusal(error.message):
                await self._park(delivery, error.message)
                return
            log.error(
                "Telegram refused %s for chat %d (attempt %d): %s; not retried",
                what,
                delivery.chat_id,
                attempt,
                error.message,
            )
            await in_db_thread(outbox.mark_failed, ids, error=error.message)
            return
        except (NetworkError, TelegramError) as error:
            # TimedOut, lost connections and 5xx are NetworkErrors; BadRequest was caught above.
            delay = self.retry_delay(delivery.attempts)
            log.warning(
                "sending %s to chat %d failed (attempt %d): %s; retry in %.0fs",
                what,
                delivery.chat_id,
                attempt,
                error.message,
                delay,
            )
            await self._retry_later(ids, error.message, delay)
            return
        # One message confirms every delivery it carried; they share one transaction unless
        # the writer is mid-commit (then a crash between the two re-sends this one message).
        if len(ids) == 1:
            await self._confirmations.confirm(ids[0], message_id)
        else:
            await asyncio.gather(*(self._confirmations.confirm(i, message_id) for i in ids))
        log.info(
            "delivered %s to chat %d (delivery %d, attempt %d)",
            what if len(ids) > 1 or delivery.digest_part else delivery.record.versioned_id,
            delivery.chat_id,
            delivery.id,
            attempt,
        )
        if delivery.probing:
            parking = chats.parking
            if await in_db_thread(parking.release, delivery.chat_id, delivery.thread_id):
                log.info(
                    "chat %d%s takes messages again; its parked deliveries go out",
                    delivery.chat_id,
                    _topic(delivery.thread_id),
                )

    async def _park(self, delivery: PendingDelivery, reason: str) -> None:
        """The chat or topic refused for a reason of its own: hold its deliveries, probe later."""
        parked = await in_db_thread(
            self.context.chats.parking.park,
            delivery.chat_id,
            delivery.thread_id,
            reason=reason,
            first_retry=self.context.settings.parked_retry_first,
        )
        log.warning(
            "chat %d%s refused %s (%s): its deliveries are parked, refusal %d in a row; "
            "next try at %s",
            delivery.chat_id,
            _topic(delivery.thread_id),
            delivery.record.arxiv_id,
            reason,
            parked.failures,
            f"{parked.retry_at:%Y-%m-%d %H:%M:%S} UTC",
        )
        self._forget_chat(delivery.chat_id, delivery.thread_id)

    async def _send(self, rendered: _Rendered, chat_id: int, thread_id: int, what: str) -> int:
        """Send the HTML message to the chat (and forum topic), falling back to plain text if
        Telegram cannot parse it."""
        thread = thread_id or None
        try:
            sent = await self.bot.send_message(
                chat_id,
                rendered.message.html,
                message_thread_id=thread,
                parse_mode=ParseMode.HTML,
                link_preview_options=LinkPreviewOptions(is_disabled=True),
                reply_markup=rendered.markup,
            )
        except BadRequest as error:
            if "can't parse entities" not in error.message.lower():
                raise
            log.warning(
                "Telegram could not parse the HTML of %s (%s); sending plain text to chat %d",
                what,
                error.message,
                chat_id,
            )
            sent = await self.bot.send_message(
                chat_id,
                rendered.message.plain,
                message_thread_id=thread,
                link_preview_options=LinkPreviewOptions(is_disabled=True),
                reply_markup=rendered.markup,
            )
        return sent.message_id

    def _render(self, record: Record, kind: str, chat_id: int, thread_id: int) -> _Rendered:
        follows = self._chat_follows.get((chat_id, thread_id), frozenset())
        key = (record.arxiv_id, record.version, kind, follows)
        rendered = self._rendered.get(key)
        if rendered is not None:
            self._rendered.move_to_end(key)
            return rendered
        names = [self._followed_names[i] for i in sorted(follows) if i in self._followed_names]

        def marked(author: str) -> bool:
            return any(is_same_person(author, known) for known in names)

        message = render_paper(
            record, marked=marked, kind=NewsKind.of(kind), category_name=category_name
        )
        rendered = _Rendered(message, _markup(message))
        self._rendered[key] = rendered
        if len(self._rendered) > RENDER_CACHE_SIZE:
            self._rendered.popitem(last=False)
        return rendered

    async def _retry_later(self, ids: list[int], error: str, seconds: float) -> None:
        at: datetime = utcnow() + timedelta(seconds=seconds)
        await in_db_thread(self.context.outbox.retry_later, ids, error=error, at=at)


def _topic(thread_id: int) -> str:
    return f" (topic {thread_id})" if thread_id else ""
