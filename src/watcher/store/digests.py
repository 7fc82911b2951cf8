"""Digests: a destination's papers gathered into one message a day or a week, sent exactly once.

A destination is a chat, or one forum topic of it (`NO_THREAD` for General and a chat without
topics); each has its own digest, on its own clock (`watcher.store.destinations`). One with a
digest on has its deliveries queued "held" (`DeliveryStatus.HELD`), outside the due index, so
nothing goes out per paper. Its `next_digest_at` (UTC, indexed) is the next occurrence of its
local schedule (`watcher.calendars.schedule`). When that instant has passed, `claim` does in ONE
transaction everything that makes the digest happen exactly once:

- the destination's held rows are read and rendered into at most a few messages by the front
  end's `render` (the core knows no chat framework);
- each message becomes a `DigestPart`, and its rows turn pending, naming their part (the rows a
  cut left out, "… and N more", go with the last part, which mentions them);
- `next_digest_at` moves to the following occurrence, on the condition that it still holds the
  value read, so two claims of one digest cannot both succeed.

The destination's suggestions of the newest batch, held for it, go in the same claim
(`watcher.store.suggestion_outbox.take_held`): a digest carries them once. A crash before the
commit leaves everything held and the digest still due: it is claimed again
when the service is back, once. After the commit the parts are ordinary outbox rows: the sender
sends each part and confirms it like a delivery, so a crash re-sends at most the part in flight.
A row queued while a claim runs is not among those it read: it stays held for the next digest,
so a paper is never in two digests. A day with nothing held sends nothing (the schedule moves
on). Turning a destination's digest off claims what it holds at once, as one digest; the
chat's other topics keep theirs.
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
from watcher.store.destinations import DestinationSetting, destination
from watcher.store.rows import load_records
from watcher.store.suggestion_outbox import take_held
from watcher.store.tables import (
    NO_THREAD,
    Chat,
    Delivery,
    DeliveryStatus,
    DigestPart,
    FollowedAuthor,
    Paper,
    Subscription,
    utcnow,
)
from watcher.suggestions.shown import SuggestedPaper

log = logging.getLogger(__name__)

CLAIMS_PER_CALL = 50  # destinations claimed per `claim_due` call: the database thread is shared


@dataclass(frozen=True, slots=True)
class DigestItem:
    record: Record
    kind: NewsKind


@dataclass(frozen=True, slots=True)
class DigestContent:
    """What one destination's digest says: its papers, oldest first, whom it follows, the
    language it is said in (None: the front end's default), and its "Suggested for you"
    section (`suggestions`, best first; empty: none), which goes in the digest's last part."""

    items: tuple[DigestItem, ...]
    since: datetime  # the previous digest (or when the digest was turned on)
    zone: tzinfo
    followed_names: tuple[tuple[str, ...], ...]  # each followed author's names and aliases
    language: str | None = None
    suggestions: tuple[SuggestedPaper, ...] = ()


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
    """One destination's digest, claimed."""

    chat_id: int
    thread_id: int
    papers: int  # deliveries the digest carries
    parts: int  # messages it takes


class Digests:
    """Each destination's zone and digest schedule, and claiming due digests. Each method is
    one transaction, except `claim_due`, one per destination. `thread_id` is the forum topic
    (`NO_THREAD`: General, or a chat without topics)."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine

    def settings(self, chat_id: int, thread_id: int = NO_THREAD) -> DigestSettings:
        with Session(self.engine) as session:
            return settings_in(session, chat_id, thread_id)

    def set_zone(
        self,
        chat_id: int,
        zone_name: str,
        *,
        thread_id: int = NO_THREAD,
        now: datetime | None = None,
    ) -> DigestSettings:
        """Move the destination's clock to `zone_name` (see
        `watcher.calendars.schedule.canonical_zone`); a digest that is on fires at the same local
        time in the new zone. Its quiet hours are not placed again:
        `watcher.store.speaking.Speaking.set_zone` does both at once."""
        with Session(self.engine) as session:
            move_zone(session, chat_id, thread_id, zone_name, now=now or utcnow())
            session.commit()
            return settings_in(session, chat_id, thread_id)

    def set_schedule(
        self,
        chat_id: int,
        schedule: DigestSchedule | None,
        *,
        render: DigestRenderer,
        thread_id: int = NO_THREAD,
        now: datetime | None = None,
    ) -> tuple[DigestSettings, ClaimReport | None]:
        """Turn the destination's digest on (or move it), or off with `None`. Off claims what
        it holds at once, as one digest (the report says what it carries); papers found later
        go out one message each. The chat's other topics are left as they are."""
        now = now or utcnow()
        with Session(self.engine) as session:
            setting = destination(session, chat_id, thread_id)
            flushed = None
            if schedule is None:
                if setting.next_digest_at is not None:
                    flushed = _claim_held(session, setting, now=now, render=render)
                setting.digest_minute = setting.digest_days = None
                setting.next_digest_at = setting.digest_since = None
            else:
                if setting.next_digest_at is None:
                    setting.digest_since = now  # the first digest lists what comes from now on
                setting.digest_minute, setting.digest_days = (
                    schedule.minute_of_day,
                    schedule.day_mask,
                )
                setting.next_digest_at = next_digest_time(
                    schedule, zone_of(setting.timezone), after=now
                )
            session.add(setting)
            session.commit()
            return settings_in(session, chat_id, thread_id), flushed

    def next_due(self) -> datetime | None:
        """When the earliest digest falls due (one index entry read), if any destination takes
        one."""
        with Session(self.engine) as session:
            return session.exec(select(func.min(DestinationSetting.next_digest_at))).one()

    def claim_due(
        self, *, render: DigestRenderer, now: datetime | None = None, limit: int = CLAIMS_PER_CALL
    ) -> list[ClaimReport]:
        """Claim the digests due by `now`, earliest first, at most `limit` destinations (one
        transaction each). A destination whose claim fails is logged and left due, to be tried
        again at the caller's next round; the others go on."""
        now = now or utcnow()
        with Session(self.engine) as session:
            due = session.exec(
                select(DestinationSetting.chat_id, DestinationSetting.thread_id)
                .where(col(DestinationSetting.next_digest_at) <= now)
                .order_by(col(DestinationSetting.next_digest_at))
                .limit(limit)
            ).all()
        reports = []
        for chat_id, thread_id in due:
            try:
                report = self.claim(chat_id, thread_id=thread_id, render=render, now=now)
            except Exception:
                log.exception(
                    "claiming the digest of chat %d, topic %d failed; it stays due",
                    chat_id,
                    thread_id,
                )
                continue
            if report is not None:
                reports.append(report)
        return reports

    def claim(
        self,
        chat_id: int,
        *,
        render: DigestRenderer,
        thread_id: int = NO_THREAD,
        now: datetime | None = None,
    ) -> ClaimReport | None:
        """If the destination's digest is due by `now`: turn its held rows into a digest and
        move the schedule on, in one transaction. None when it was not due (or another claim
        won)."""
        now = now or utcnow()
        with Session(self.engine) as session:
            setting = session.get(DestinationSetting, (chat_id, thread_id))
            if setting is None or setting.next_digest_at is None or setting.next_digest_at > now:
                return None
            schedule = _schedule_of(setting)
            assert schedule is not None
            following = next_digest_time(schedule, zone_of(setting.timezone), after=now)
            # Conditional on the value read: of two claims of one digest, one moves it.
            moved = session.exec(
                update(DestinationSetting)
                .where(
                    col(DestinationSetting.chat_id) == chat_id,
                    col(DestinationSetting.thread_id) == thread_id,
                    col(DestinationSetting.next_digest_at) == setting.next_digest_at,
                )
                .values(next_digest_at=following, digest_since=now)
                .execution_options(synchronize_session=False)
            )
            if moved.rowcount != 1:
                session.rollback()
                return None
            report = _claim_held(session, setting, now=now, render=render)
            session.commit()
        if report.papers:
            log.info(
                "digest of chat %d, topic %d claimed: %d papers in %d messages; next at %s",
                chat_id,
                thread_id,
                report.papers,
                report.parts,
                f"{following:%Y-%m-%d %H:%M} UTC",
            )
        return report


def _claim_held(
    session: Session, setting: DestinationSetting, *, now: datetime, render: DigestRenderer
) -> ClaimReport:
    """Within the caller's transaction: the destination's held rows become the parts of one
    digest, pending and due now (parked if the chat is gone for now). `setting` is as read
    before any change of this transaction (its `digest_since` is the digest's start)."""
    chat_id, thread_id = setting.chat_id, setting.thread_id
    rows = session.exec(
        select(Delivery)
        .where(
            col(Delivery.chat_id) == chat_id,
            col(Delivery.thread_id) == thread_id,
            col(Delivery.status) == DeliveryStatus.HELD,
        )
        .order_by(col(Delivery.id))
    ).all()
    if not rows:
        return ClaimReport(chat_id, thread_id, 0, 0)
    chat = session.get(Chat, chat_id)
    active = chat is None or chat.active
    papers = session.exec(
        select(Paper).where(col(Paper.id).in_({delivery.paper_id for delivery in rows}))
    ).all()
    records = dict(zip([p.id for p in papers], load_records(session, list(papers)), strict=True))
    content = DigestContent(
        items=tuple(DigestItem(records[row.paper_id], NewsKind(row.kind)) for row in rows),
        since=setting.digest_since or min(delivery.created for delivery in rows),
        zone=zone_of(setting.timezone),
        followed_names=_followed_names(session, chat_id, thread_id),
        language=setting.language or (chat.language if chat is not None else None),
        suggestions=take_held(session, chat_id, thread_id, now=now),
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
                parked=not active,
                summarize=False,
            )
            .execution_options(synchronize_session=False)
        )
    return ClaimReport(chat_id, thread_id, len(rows), len(rendered))


def _followed_names(session: Session, chat_id: int, thread_id: int) -> tuple[tuple[str, ...], ...]:
    followed = session.exec(
        select(FollowedAuthor)
        .join(Subscription, col(Subscription.followed_author_id) == col(FollowedAuthor.id))
        .where(col(Subscription.chat_id) == chat_id, col(Subscription.thread_id) == thread_id)
    ).all()
    return tuple((author.name, *author.alias_list) for author in followed)


def move_zone(
    session: Session, chat_id: int, thread_id: int, zone_name: str, *, now: datetime
) -> DestinationSetting:
    """In the caller's session: the destination's clock moves to `zone_name`; a digest that is
    on fires at the same local time in the new zone. Returns the row (added to the session)."""
    setting = destination(session, chat_id, thread_id)
    setting.timezone = zone_name
    schedule = _schedule_of(setting)
    if schedule is not None:
        setting.next_digest_at = next_digest_time(schedule, zone_of(zone_name), after=now)
    session.add(setting)
    return setting


def settings_in(
    session: Session, chat_id: int, thread_id: int = NO_THREAD, *, held: int | None = None
) -> DigestSettings:
    """The destination's digest settings as the caller's session sees them; `held`: its held
    deliveries, when the caller counted them already (`watcher.store.arrivals`)."""
    setting = session.get(DestinationSetting, (chat_id, thread_id))
    if held is None:
        held = session.exec(
            select(func.count()).where(
                col(Delivery.chat_id) == chat_id,
                col(Delivery.thread_id) == thread_id,
                col(Delivery.status) == DeliveryStatus.HELD,
            )
        ).one()
    name = setting.timezone if setting is not None else DEFAULT_ZONE
    return DigestSettings(
        zone_name=name,
        zone=zone_of(name),
        schedule=_schedule_of(setting) if setting is not None else None,
        next_at=setting.next_digest_at if setting is not None else None,
        held=held,
    )


def _schedule_of(setting: DestinationSetting) -> DigestSchedule | None:
    if setting.digest_minute is None:
        return None
    return DigestSchedule.from_stored(setting.digest_minute, setting.digest_days or 0)
