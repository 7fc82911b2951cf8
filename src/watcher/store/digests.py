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

`claim_due` claims many destinations' digests in one such transaction (the schedules moved one
by one, each conditionally, then what the winners hold read, rendered and written for all at
once): with a transaction per destination, a round's claims held the one database thread, and
the sends' confirmations queued behind them, for a third of a second when thousands fell due
together (bench/README.md, `digests.py`). A destination whose renderer fails is put back
as it was within the transaction, and the others go on; a batch that fails is claimed again one
destination a transaction.

The destination's suggestions of the newest batch, held for it, go in the same claim
(`watcher.store.suggestion_outbox.held_papers`, then `take_held` once its digest rendered): a
digest carries them once. A crash before the commit leaves everything held and the digest still
due: it is claimed again when the service is back, once. After the commit the parts are
ordinary outbox rows: the sender sends each part and confirms it like a delivery, so a crash
re-sends at most the part in flight.
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

from sqlalchemy import Engine, Table, bindparam, func, update
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
from watcher.store.suggestion_outbox import held_papers, take_held
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
    one transaction (`claim_due`: one for all it claims, unless that fails). `thread_id` is the
    forum topic (`NO_THREAD`: General, or a chat without topics)."""

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
                    reports, failed = _claim_held(session, [setting], now=now, render=render)
                    if failed:
                        raise next(iter(failed.values()))
                    flushed = reports[chat_id, thread_id]
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
        """Claim the digests due by `now`, earliest first, at most `limit` destinations, in one
        transaction. If that fails, each is claimed in a transaction of its own, so one that
        cannot be claimed (logged, left due, tried again at the caller's next round) keeps no
        other waiting; a destination whose renderer fails is left due the same way."""
        now = now or utcnow()
        with Session(self.engine) as session:
            due = session.exec(
                select(DestinationSetting.chat_id, DestinationSetting.thread_id)
                .where(col(DestinationSetting.next_digest_at) <= now)
                .order_by(col(DestinationSetting.next_digest_at))
                .limit(limit)
            ).all()
        if not due:
            return []
        try:
            return self._claim(list(due), render=render, now=now)
        except Exception:
            if len(due) == 1:
                log.exception(
                    "claiming the digest of chat %d, topic %d failed; it stays due", *due[0]
                )
                return []
            log.exception("claiming %d digests at once failed; claiming them one by one", len(due))
        reports = []
        for destination_key in due:
            try:
                reports += self._claim([destination_key], render=render, now=now)
            except Exception:
                log.exception(
                    "claiming the digest of chat %d, topic %d failed; it stays due",
                    *destination_key,
                )
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
        won, or its renderer failed: logged)."""
        reports = self._claim([(chat_id, thread_id)], render=render, now=now or utcnow())
        return reports[0] if reports else None

    def _claim(
        self, keys: list[tuple[int, int]], *, render: DigestRenderer, now: datetime
    ) -> list[ClaimReport]:
        """Claim these destinations' digests that are due by `now`, in one transaction: each
        schedule moves on first, conditionally on the value read, so of two claims of one
        digest one moves it; then what the winners hold is read, rendered and claimed."""
        with Session(self.engine) as session:
            read = session.exec(
                select(DestinationSetting).where(
                    col(DestinationSetting.chat_id).in_({chat_id for chat_id, _ in keys}),
                    col(DestinationSetting.next_digest_at) <= now,
                )
            ).all()
            wanted = set(keys)
            settings = {
                (s.chat_id, s.thread_id): s for s in read if (s.chat_id, s.thread_id) in wanted
            }
            won: list[tuple[DestinationSetting, datetime]] = []
            for key in keys:  # earliest due first, as asked
                setting = settings.get(key)
                if setting is None:
                    continue
                following = _move_schedule(session, setting, now=now)
                if following is not None:
                    won.append((setting, following))
            reports, failed = _claim_held(session, [s for s, _ in won], now=now, render=render)
            for setting, following in won:
                if _key(setting) in failed:
                    _restore_schedule(session, setting, moved_to=following)
            moved = [(_key(setting), following) for setting, following in won]
            session.commit()
        for key, following in moved:
            if key in failed:
                log.error(
                    "rendering the digest of chat %d, topic %d failed; it stays due",
                    *key,
                    exc_info=failed[key],
                )
            elif reports[key].papers:
                log.info(
                    "digest of chat %d, topic %d claimed: %d papers in %d messages; next at %s",
                    *key,
                    reports[key].papers,
                    reports[key].parts,
                    f"{following:%Y-%m-%d %H:%M} UTC",
                )
        return [reports[key] for key in keys if key in reports]


def _move_schedule(
    session: Session, setting: DestinationSetting, *, now: datetime
) -> datetime | None:
    """Move the destination's next digest on from the value read (`setting`, left as read);
    returns where to, or None if another claim (or a change of schedule) moved it first."""
    schedule = _schedule_of(setting)
    assert schedule is not None
    following = next_digest_time(schedule, zone_of(setting.timezone), after=now)
    moved = session.exec(
        update(DestinationSetting)
        .where(
            col(DestinationSetting.chat_id) == setting.chat_id,
            col(DestinationSetting.thread_id) == setting.thread_id,
            col(DestinationSetting.next_digest_at) == setting.next_digest_at,
        )
        .values(next_digest_at=following, digest_since=now)
        .execution_options(synchronize_session=False)
    )
    return following if moved.rowcount == 1 else None


def _restore_schedule(session: Session, setting: DestinationSetting, *, moved_to: datetime) -> None:
    """Undo `_move_schedule` within its transaction: the digest is due again, as read."""
    session.exec(
        update(DestinationSetting)
        .where(
            col(DestinationSetting.chat_id) == setting.chat_id,
            col(DestinationSetting.thread_id) == setting.thread_id,
            col(DestinationSetting.next_digest_at) == moved_to,
        )
        .values(next_digest_at=setting.next_digest_at, digest_since=setting.digest_since)
        .execution_options(synchronize_session=False)
    )


def _claim_held(
    session: Session,
    settings: Sequence[DestinationSetting],
    *,
    now: datetime,
    render: DigestRenderer,
) -> tuple[dict[tuple[int, int], ClaimReport], dict[tuple[int, int], Exception]]:
    """Within the caller's transaction: each destination's held rows become the parts of one
    digest, pending and due now (parked if the chat is gone for now), read and written for all
    of them at once. `settings` are as read before any change of this transaction (their
    `digest_since` is the digest's start). Returns the reports, and the renderer's failures
    (those destinations' rows are left held), by (chat id, thread id)."""
    if not settings:
        return {}, {}
    chat_ids = {setting.chat_id for setting in settings}
    held: dict[tuple[int, int], list[Delivery]] = {}
    for delivery in session.exec(
        select(Delivery)
        .where(col(Delivery.chat_id).in_(chat_ids), col(Delivery.status) == DeliveryStatus.HELD)
        .order_by(col(Delivery.id))
    ):
        held.setdefault((delivery.chat_id, delivery.thread_id), []).append(delivery)
    reports: dict[tuple[int, int], ClaimReport] = {}
    failed: dict[tuple[int, int], Exception] = {}
    claiming = [s for s in settings if (s.chat_id, s.thread_id) in held]
    for setting in settings:
        if (setting.chat_id, setting.thread_id) not in held:
            reports[setting.chat_id, setting.thread_id] = ClaimReport(*_key(setting), 0, 0)
    if not claiming:
        return reports, failed
    chats = {
        chat.id: chat
        for chat in session.exec(
            select(Chat).where(col(Chat.id).in_({s.chat_id for s in claiming}))
        )
    }
    paper_ids = {row.paper_id for s in claiming for row in held[_key(s)]}
    papers = session.exec(select(Paper).where(col(Paper.id).in_(paper_ids))).all()
    records = dict(zip([p.id for p in papers], load_records(session, list(papers)), strict=True))
    names = _followed_names(session, {s.chat_id for s in claiming})
    parts: list[tuple[DigestPart, list[Delivery], bool]] = []  # part, its rows, chat active
    for setting in claiming:
        key = _key(setting)
        rows = held[key]
        chat = chats.get(setting.chat_id)
        content = DigestContent(
            items=tuple(DigestItem(records[row.paper_id], NewsKind(row.kind)) for row in rows),
            since=setting.digest_since or min(delivery.created for delivery in rows),
            zone=zone_of(setting.timezone),
            followed_names=names.get(key, ()),
            language=setting.language or (chat.language if chat is not None else None),
            suggestions=held_papers(session, *key),
        )
        try:
            rendered = list(render(content))
            if not rendered:
                raise ValueError(f"the digest renderer made no message of {len(rows)} papers")
        except Exception as error:
            failed[key] = error
            continue
        if content.suggestions:
            take_held(session, *key, now=now)
        carried: dict[int, int] = {}  # row index → part index
        for number, part in enumerate(rendered):
            for index in part.covers:
                carried.setdefault(index, number)
        last = len(rendered) - 1
        for number, part in enumerate(rendered):
            row = DigestPart(
                position=number + 1, parts=len(rendered), html=part.html, plain=part.plain,
                created=now,
            )  # fmt: skip
            covered = [d for i, d in enumerate(rows) if carried.get(i, last) == number]
            parts.append((row, covered, chat is None or chat.active))
        reports[key] = ClaimReport(*key, len(rows), len(rendered))
    session.add_all(part for part, _, _ in parts)
    session.flush()  # one INSERT for all the parts, their ids returned
    table: Table = Delivery.__table__  # type: ignore[attr-defined]
    pending = [
        {"row_id": delivery.id, "part_id": part.id, "gone": not active}
        for part, covered, active in parts
        for delivery in covered
    ]
    if pending:
        session.connection().execute(
            update(table)
            .where(table.c.id == bindparam("row_id"), table.c.status == DeliveryStatus.HELD)
            .values(
                status=DeliveryStatus.PENDING,
                digest_part_id=bindparam("part_id"),
                next_attempt=now,
                parked=bindparam("gone"),
                summarize=False,
            ),
            pending,
        )
    return reports, failed


def _key(setting: DestinationSetting) -> tuple[int, int]:
    return setting.chat_id, setting.thread_id


def _followed_names(
    session: Session, chat_ids: set[int]
) -> dict[tuple[int, int], tuple[tuple[str, ...], ...]]:
    """Each destination of these chats: its followed authors' names and aliases."""
    names: dict[tuple[int, int], list[tuple[str, ...]]] = {}
    for chat_id, thread_id, author in session.exec(
        select(Subscription.chat_id, Subscription.thread_id, FollowedAuthor)
        .join(FollowedAuthor, col(Subscription.followed_author_id) == col(FollowedAuthor.id))
        .where(col(Subscription.chat_id).in_(chat_ids))
    ):
        names.setdefault((chat_id, thread_id), []).append((author.name, *author.alias_list))
    return {key: tuple(value) for key, value in names.items()}


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
