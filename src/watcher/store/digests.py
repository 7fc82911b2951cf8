"""Digests: a chat's papers gathered into one message a day or a week, sent exactly once.

A chat with a digest on has its deliveries queued "held" (`DeliveryStatus.HELD`), outside the
due index, so nothing goes out per paper. Its `next_digest_at` (UTC, indexed) is the next
occurrence of its local schedule (`watcher.calendars.schedule`). When that instant has passed,
`claim` does in ONE transaction everything that makes the digest happen exactly once:

- the chat's held rows are read, per destination (chat, forum topic), and rendered into at most
  a few messages by the front end's `render` (the core knows no chat framework);
- each message becomes a `DigestPart`, and its rows turn pending, naming their part (the rows a
  cut left out, "… and N more", go with the last part, which mentions them);
- `next_digest_at` moves to the following occurrence, on the condition that it still holds the
  value read, so two claims of one digest cannot both succeed.

A crash before the commit leaves everything held and the digest still due: it is claimed again
when the service is back, once. After the commit the parts are ordinary outbox rows: the sender
sends each part and confirms it like a delivery, so a crash re-sends at most the part in flight.
A row queued while a claim runs is not among those it read: it stays held for the next digest,
so a paper is never in two digests. A day with nothing held sends nothing (the schedule moves
on). Turning the digest off claims what is held at once, as one digest.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime, tzinfo

from sqlalchemy import Engine, func, update
from sqlmodel import Session, col, select

from watcher.arxiv.records import Record
from watcher.calendars.schedule import (
    DEFAULT_ZONE,
    DigestSchedule,
    next_digest_time,
    zone_of,
)
from watcher.kinds import NewsKind
from watcher.store.rows import load_records
from watcher.store.tables import (
    Chat,
    Delivery,
    DeliveryStatus,
    DigestPart,
    FollowedAuthor,
    Paper,
    Subscription,
    utcnow,
)

log = logging.getLogger(__name__)

CLAIMS_PER_CALL = 50  # chats claimed per `claim_due` call: the database thread is shared


@dataclass(frozen=True, slots=True)
class DigestItem:
    record: Record
    kind: NewsKind


@dataclass(frozen=True, slots=True)
class DigestContent:
    """What one destination's digest says: its papers, oldest first, and whom it follows."""

    items: tuple[DigestItem, ...]
    since: datetime  # the previous digest (or when the digest was turned on)
    zone: tzinfo
    followed_names: tuple[tuple[str, ...], ...]  # each followed author's names and aliases


@dataclass(frozen=True, slots=True)
class RenderedPart:
    """One message of a digest: its HTML, the plain-text fallback, and the indices (into
    `DigestContent.items`) of the papers it lists."""

    html: str
    plain: str
    covers: tuple[int, ...]


# The front end's renderer: at least one part for a digest with items.
DigestRenderer = Callable[[DigestContent], Sequence[RenderedPart]]


@dataclass(frozen=True, slots=True)
class DigestSettings:
    zone_name: str
    zone: tzinfo
    schedule: DigestSchedule | None  # None: one message per paper
    next_at: datetime | None
    held: int  # papers waiting for the next digest


@dataclass(frozen=True, slots=True)
class ClaimReport:
    chat_id: int
    papers: int  # deliveries the digest carries
    parts: int  # messages it takes, all topics together
    by_thread: tuple[tuple[int, int], ...] = ()  # (thread id, papers) of each destination

    def papers_in(self, thread_id: int) -> int:
        """The papers the digest carries to one destination (chat, forum topic)."""
        return dict(self.by_thread).get(thread_id, 0)


class Digests:
    """A chat's zone and digest schedule, and claiming due digests. Each method is one
    transaction, except `claim_due`, one per chat."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine

    def settings(self, chat_id: int) -> DigestSettings:
        with Session(self.engine) as session:
            chat = session.get(Chat, chat_id)
            held = session.exec(
                select(func.count()).where(
                    col(Delivery.chat_id) == chat_id, col(Delivery.status) == DeliveryStatus.HELD
                )
            ).one()
            return _settings(chat, held)

    def set_zone(
        self, chat_id: int, zone_name: str, *, now: datetime | None = None
    ) -> DigestSettings:
        """Move the chat's clock to `zone_name` (see `watcher.calendars.schedule.canonical_zone`); a
        digest that is on fires at the same local time in the new zone. The chat's quiet hours
        are not placed again: `watcher.store.speaking.Speaking.set_zone` does both at once."""
        with Session(self.engine) as session:
            move_zone(session, chat_id, zone_name, now=now or utcnow())
            session.commit()
            return settings_in(session, chat_id)

    def set_schedule(
        self,
        chat_id: int,
        schedule: DigestSchedule | None,
        *,
        render: DigestRenderer,
        now: datetime | None = None,
    ) -> tuple[DigestSettings, ClaimReport | None]:
        """Turn the digest on (or move it), or off with `None`. Off claims what is held at
        once, as one digest (the report says what it carries); papers found later go out one
        message each."""
        now = now or utcnow()
        with Session(self.engine) as session:
            chat = _chat(session, chat_id)
            flushed = None
            if schedule is None:
                if chat.next_digest_at is not None:
                    flushed = _claim_held(session, chat, now=now, render=render)
                chat.digest_minute = chat.digest_days = None
                chat.next_digest_at = chat.digest_since = None
            else:
                if chat.next_digest_at is None:
                    chat.digest_since = now  # the first digest lists what comes from now on
                chat.digest_minute, chat.digest_days = schedule.minute_of_day, schedule.day_mask
                chat.next_digest_at = next_digest_time(schedule, zone_of(chat.timezone), after=now)
            session.commit()
            return _settings(chat, _held(session, chat_id)), flushed

    def next_due(self) -> datetime | None:
        """When the earliest digest falls due (one index entry read), if any chat takes one."""
        with Session(self.engine) as session:
            return session.exec(select(func.min(Chat.next_digest_at))).one()

    def claim_due(
        self, *, render: DigestRenderer, now: datetime | None = None, limit: int = CLAIMS_PER_CALL
    ) -> list[ClaimReport]:
        """Claim the digests due by `now`, earliest first, at most `limit` chats (one
        transaction each). A chat whose claim fails is logged and left due, to be tried again
        at the caller's next round; the others go on."""
        now = now or utcnow()
        with Session(self.engine) as session:
            chat_ids = session.exec(
                select(Chat.id)
                .where(col(Chat.next_digest_at) <= now)
                .order_by(col(Chat.next_digest_at))
                .limit(limit)
            ).all()
        reports = []
        for chat_id in chat_ids:
            try:
                report = self.claim(chat_id, render=render, now=now)
            except Exception:
                log.exception("claiming the digest of chat %d failed; it stays due", chat_id)
                continue
            if report is not None:
                reports.append(report)
        return reports

    def claim(
        self, chat_id: int, *, render: DigestRenderer, now: datetime | None = None
    ) -> ClaimReport | None:
        """If the chat's digest is due by `now`: turn its held rows into a digest and move the
        schedule on, in one transaction. None when it was not due (or another claim won)."""
        now = now or utcnow()
        with Session(self.engine) as session:
            chat = session.get(Chat, chat_id)
            if chat is None or chat.next_digest_at is None or chat.next_digest_at > now:
                return None
            schedule = _schedule_of(chat)
            assert schedule is not None
            following = next_digest_time(schedule, zone_of(chat.timezone), after=now)
            # Conditional on the value read: of two claims of one digest, one moves it.
            moved = session.exec(
                update(Chat)
                .where(col(Chat.id) == chat_id, col(Chat.next_digest_at) == chat.next_digest_at)
                .values(next_digest_at=following, digest_since=now)
                .execution_options(synchronize_session=False)
            )
            if moved.rowcount != 1:
                session.rollback()
                return None
            report = _claim_held(session, chat, now=now, render=render)
            session.commit()
        if report.papers:
            log.info(
                "digest of chat %d claimed: %d papers in %d messages; next at %s",
                chat_id,
                report.papers,
                report.parts,
                f"{following:%Y-%m-%d %H:%M} UTC",
            )
        return report


def _claim_held(
    session: Session, chat: Chat, *, now: datetime, render: DigestRenderer
) -> ClaimReport:
    """Within the caller's transaction: the chat's held rows become the parts of one digest
    per destination, pending and due now (parked if the chat is gone for now)."""
    held = session.exec(
        select(Delivery)
        .where(col(Delivery.chat_id) == chat.id, col(Delivery.status) == DeliveryStatus.HELD)
        .order_by(col(Delivery.id))
    ).all()
    if not held:
        return ClaimReport(chat.id, 0, 0)
    papers = session.exec(
        select(Paper).where(col(Paper.id).in_({delivery.paper_id for delivery in held}))
    ).all()
    records = dict(zip([p.id for p in papers], load_records(session, list(papers)), strict=True))
    destinations: dict[int, list[Delivery]] = {}
    for delivery in held:
        destinations.setdefault(delivery.thread_id, []).append(delivery)
    zone = zone_of(chat.timezone)
    since = chat.digest_since or min(delivery.created for delivery in held)
    parts = 0
    for thread_id, rows in destinations.items():
        content = DigestContent(
            items=tuple(DigestItem(records[row.paper_id], NewsKind(row.kind)) for row in rows),
            since=since,
            zone=zone,
            followed_names=_followed_names(session, chat.id, thread_id),
        )
        rendered = list(render(content))
        if not rendered:
            raise ValueError(f"the digest renderer made no message of {len(rows)} papers")
        carried: dict[int, int] = {}  # row index → part index
        for number, part in enumerate(rendered):
            for index in part.covers:
                carried.setdefault(index, number)
        for number, part in enumerate(rendered, start=1):
            row = DigestPart(
                position=number,
                parts=len(rendered),
                html=part.html,
                plain=part.plain,
                created=now,
            )
            session.add(row)
            session.flush()
            ids = [
                delivery.id
                for index, delivery in enumerate(rows)
                if carried.get(index, len(rendered) - 1) == number - 1
            ]
            session.exec(
                update(Delivery)
                .where(col(Delivery.id).in_(ids), col(Delivery.status) == DeliveryStatus.HELD)
                .values(
                    status=DeliveryStatus.PENDING,
                    digest_part_id=row.id,
                    next_attempt=now,
                    parked=not chat.active,
                    summarize=False,
                )
                .execution_options(synchronize_session=False)
            )
        parts += len(rendered)
    by_thread = tuple((thread, len(rows)) for thread, rows in destinations.items())
    return ClaimReport(chat.id, len(held), parts, by_thread)


def _followed_names(session: Session, chat_id: int, thread_id: int) -> tuple[tuple[str, ...], ...]:
    followed = session.exec(
        select(FollowedAuthor)
        .join(Subscription, col(Subscription.followed_author_id) == col(FollowedAuthor.id))
        .where(col(Subscription.chat_id) == chat_id, col(Subscription.thread_id) == thread_id)
    ).all()
    return tuple((author.name, *author.alias_list) for author in followed)


def move_zone(session: Session, chat_id: int, zone_name: str, *, now: datetime) -> None:
    """In the caller's session: the chat's clock moves to `zone_name`; a digest that is on
    fires at the same local time in the new zone."""
    chat = _chat(session, chat_id)
    chat.timezone = zone_name
    schedule = _schedule_of(chat)
    if schedule is not None:
        chat.next_digest_at = next_digest_time(schedule, zone_of(zone_name), after=now)
    session.add(chat)


def settings_in(session: Session, chat_id: int) -> DigestSettings:
    """The chat's digest settings as the caller's session sees them."""
    return _settings(session.get(Chat, chat_id), _held(session, chat_id))


def _chat(session: Session, chat_id: int) -> Chat:
    chat = session.get(Chat, chat_id)
    if chat is None:  # the gate records every chat that asks; a lone call may come first
        chat = Chat(id=chat_id)
        session.add(chat)
    return chat


def _held(session: Session, chat_id: int) -> int:
    return session.exec(
        select(func.count()).where(
            col(Delivery.chat_id) == chat_id, col(Delivery.status) == DeliveryStatus.HELD
        )
    ).one()


def _schedule_of(chat: Chat) -> DigestSchedule | None:
    if chat.digest_minute is None:
        return None
    return DigestSchedule.from_stored(chat.digest_minute, chat.digest_days or 0)


def _settings(chat: Chat | None, held: int) -> DigestSettings:
    name = chat.timezone if chat is not None else DEFAULT_ZONE
    return DigestSettings(
        zone_name=name,
        zone=zone_of(name),
        schedule=_schedule_of(chat) if chat is not None else None,
        next_at=chat.next_digest_at if chat is not None else None,
        held=held,
    )
