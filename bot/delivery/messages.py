"""What one send carries, decided before it goes: the sender (`bot.delivery.sender`) hands a
due delivery here and gets back the message and the deliveries it confirms (`Planned`).

- a digest part: the destination's earliest unsent digest message, confirming its rows;
- a summary: the destination's flagged rows ("While you were away"), one message;
- a compact destination (`/format compact`): the delivery and the others of that destination
  queued with it (found by the same poll), one line each, in one message up to Telegram's limit;
  those that do not fit stay pending for the next message;
- otherwise the paper in full.

It also keeps what the sends need to know of the chats about to be served, read at each refill
(`learn`): whom each topic follows (marked ★) and how it is spoken to (`Style`: silent, compact,
link preview, language). Each message is composed in its destination's language: /language's,
else the one its chat was first spoken to in, else the default (`bot.i18n`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace

from bot.delivery.compose import (
    Composed,
    PaperMessages,
    compose_digest_part,
    compose_summary,
    who_follows_whom,
)
from bot.i18n import speaking
from bot.render import CompactEntry, render_compact
from watcher.core import Core
from watcher.core.views import DEFAULT_STYLE, PendingDelivery, Style
from watcher.kinds import NewsKind

# The deliveries one message carries: each id, with the paper version the message says (None:
# whatever version the row has, a digest's part), which its confirmation records as sent.
Carried = Mapping[int, int | None]


@dataclass(frozen=True, slots=True)
class Planned:
    """One message to send and the deliveries it confirms; `covering`: it stands for several
    rows (or a digest part), which the sender keeps out of its refills while it is in flight."""

    carried: Carried
    composed: Composed
    what: str
    covering: bool


class MessagePlanner:
    """Decides each send's message; holds the follows and styles of the chats being served."""

    def __init__(self, context: Core) -> None:
        self.context = context
        self.papers = PaperMessages()  # who is marked ★ in each chat's messages, and the cache
        self.styles: dict[tuple[int, int], Style] = {}
        self.languages: dict[int, str] = {}  # by chat: its first writer's

    def style(self, delivery: PendingDelivery) -> Style:
        return self.styles.get((delivery.chat_id, delivery.thread_id), DEFAULT_STYLE)

    def language(self, delivery: PendingDelivery) -> str | None:
        """The language the delivery's destination speaks (None: the default)."""
        return self.style(delivery).language or self.languages.get(delivery.chat_id)

    async def learn(self, chat_ids: Iterable[int], arxiv_ids: Iterable[str]) -> None:
        """Read whom these chats' topics follow, which of those follows each queued paper is
        linked to, and how the chats are spoken to (kept for these chats alone, so it never
        outgrows the sender's queue)."""
        audience = await self.context.delivery.audience(set(chat_ids), arxiv_ids)
        self.papers.follows, self.styles = who_follows_whom(audience), audience.styles
        self.languages = audience.languages

    def batchable(self, delivery: PendingDelivery) -> bool:
        """One paper's news to a compact destination: it may share a message with others."""
        plain = delivery.digest_part is None and not delivery.summarize
        return plain and self.style(delivery).compact

    def batch_for(
        self, delivery: PendingDelivery, queued: Sequence[PendingDelivery]
    ) -> list[PendingDelivery]:
        """The queued deliveries that may go in `delivery`'s compact message: the same
        destination's other papers, in queue order."""
        if not self.batchable(delivery):
            return []
        place = (delivery.chat_id, delivery.thread_id)
        return [
            other
            for other in queued
            if (other.chat_id, other.thread_id) == place and self.batchable(other)
        ]

    async def plan(
        self, delivery: PendingDelivery, batch: Sequence[PendingDelivery] = ()
    ) -> Planned | None:
        """The message for `delivery` (with `batch`, its compact companions), in its
        destination's language; None when there is nothing left to send (another message
        covered it meanwhile)."""
        with speaking(self.language(delivery)):
            return await self._plan(delivery, batch)

    async def _plan(
        self, delivery: PendingDelivery, batch: Sequence[PendingDelivery]
    ) -> Planned | None:
        deliveries = self.context.delivery
        if delivery.digest_part is not None:
            part = await deliveries.digest_part(delivery.chat_id, delivery.thread_id)
            if part is None or not part.delivery_ids:
                return None
            # Confirmed as they are: a claimed part's rows keep the version it was rendered
            # at (a revision found since is a row of its own, `watcher.store.announce`).
            what = f"digest message {part.position} of {part.parts}"
            return Planned(dict.fromkeys(part.delivery_ids), compose_digest_part(part), what, True)
        if delivery.summarize:
            covered = await deliveries.summary(delivery.chat_id, delivery.thread_id)
            if not covered:
                return None
            carried = {pending.id: pending.record.version for pending in covered}
            what = f"a summary of {len(carried)} papers"
            # Read for this summary's papers: the round's queue need not hold them all.
            audience = await deliveries.audience(
                {delivery.chat_id}, [pending.record.arxiv_id for pending in covered]
            )
            composed = compose_summary(covered, who_follows_whom(audience))
            return Planned(carried, composed, what, True)
        if self.batchable(delivery):
            return self._compact([delivery, *batch])
        composed = self.papers.compose(
            delivery.record, NewsKind.of(delivery.kind), delivery.chat_id, delivery.thread_id
        )
        if self.style(delivery).preview and delivery.record.abs_url:
            composed = replace(composed, preview=delivery.record.abs_url)
        carried = {delivery.id: delivery.record.version}
        return Planned(carried, composed, delivery.record.arxiv_id, False)

    def _compact(self, deliveries: Sequence[PendingDelivery]) -> Planned:
        """The first compact message of these deliveries; the rest wait for the next one."""
        first = deliveries[0]
        marked = self.papers.marker(first.chat_id, first.thread_id)
        entries = [CompactEntry(d.record, NewsKind.of(d.kind), marked) for d in deliveries]
        page = render_compact(entries)[0]
        carried = {deliveries[i].id: deliveries[i].record.version for i in page.covers}
        what = (
            f"a compact message of {len(carried)} papers"
            if len(carried) > 1
            else f"{first.record.arxiv_id} (compact)"
        )
        return Planned(carried, Composed(page.message), what, True)
