"""How a destination (a chat, or one forum topic of it) wants to be spoken to: the
`destination_setting` table, and the few statements on it that other store modules run inside
their own transactions.

A destination without a row speaks as by default: in UTC, no digest, no revisions, not paused,
no quiet hours, with sound, each paper in full, no link preview. Each forum topic has its own
row, as General (`NO_THREAD`) and a chat without topics have theirs: a topic's settings never
change another's.
The row holds:

- `timezone`: the destination's clock, an IANA name or a fixed offset ("UTC+08:00", see
  `watcher.calendars.schedule`), on which its digest and quiet hours are read;
- its digest (`watcher.store.digests`): `digest_minute` (after local midnight) and `digest_days`
  (bit 0 is Monday), `next_digest_at` (UTC, indexed; set exactly when a digest is on) and
  `digest_since`; papers to it wait "held" and go out together;
- `notify_revisions`: it is told of new versions of papers it was sent (/revisions);

- `paused` (and since when): nothing goes out until /resume;
- the quiet window, as local minutes after midnight (`quiet_start`, `quiet_end`, the end earlier
  than the start when the window spans midnight) in the destination's time zone, and that window's
  current or next occurrence in UTC (`quiet_from`, `quiet_until`), kept by `watcher.store.quiet`;
- `silent`: every message goes out with `disable_notification`;
- `format`: "full" (one message per paper) or "compact" (one line per paper, several to a message);
- `link_preview`: news of a paper in full shows its abstract page's preview, small, above the
  text (/preview on); off by default, no preview;
- `language`: what /language set there (a BCP 47 tag the front end knows, "zh-Hans"); empty
  until then, when the chat's own `Chat.language` (its first writer's) speaks (`language_of`);
- `suggest` and `suggest_count`: "Suggested for you" on (off by default), and at most how many
  papers a batch brings (3 by default, 1..10; `watcher.store.suggesting`).

Deliveries to a held destination (paused, or inside its quiet window) stay pending and are simply
not due (`held_now`): nothing is marked sent that Telegram did not confirm. Their release flags
them for one "While you were away" summary when more than the threshold waited
(`flag_summaries`, the same flag a chat coming back gets in `watcher.store.chats`).
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import BigInteger, Column, ForeignKey, and_, false, func, or_, update
from sqlalchemy.sql.elements import ColumnElement
from sqlmodel import Field, Session, SQLModel, col, select

from watcher.calendars.schedule import DEFAULT_ZONE
from watcher.kinds import MessageFormat
from watcher.store.tables import NO_THREAD, Chat, Delivery, DeliveryStatus, UTCDateTime


class DestinationSetting(SQLModel, table=True):
    """The speaking settings of one destination (chat, forum topic); see the module docstring."""

    __tablename__ = "destination_setting"
    chat_id: int = Field(
        sa_column=Column(
            BigInteger, ForeignKey("chat.id", ondelete="CASCADE"), primary_key=True, nullable=False
        )
    )
    thread_id: int = Field(
        default=NO_THREAD,
        sa_column=Column(
            BigInteger, primary_key=True, nullable=False, server_default=str(NO_THREAD),
            autoincrement=False,
        ),
    )  # fmt: skip
    timezone: str = Field(
        default=DEFAULT_ZONE, max_length=64, sa_column_kwargs={"server_default": "UTC"}
    )
    digest_minute: int | None = None  # minutes after local midnight
    digest_days: int | None = None  # bit 0 is Monday: 127 every day, 31 Monday to Friday
    next_digest_at: datetime | None = Field(
        default=None, sa_column=Column(UTCDateTime(), index=True)
    )
    digest_since: datetime | None = Field(default=None, sa_column=Column(UTCDateTime()))
    notify_revisions: bool = Field(default=False, sa_column_kwargs={"server_default": false()})
    paused: bool = Field(default=False, sa_column_kwargs={"server_default": false()})
    paused_since: datetime | None = Field(default=None, sa_column=Column(UTCDateTime()))
    quiet_start: int | None = None  # minutes after local midnight
    quiet_end: int | None = None
    quiet_from: datetime | None = Field(default=None, sa_column=Column(UTCDateTime()))
    quiet_until: datetime | None = Field(default=None, sa_column=Column(UTCDateTime(), index=True))
    silent: bool = Field(default=False, sa_column_kwargs={"server_default": false()})
    format: str = Field(
        default=MessageFormat.FULL,
        max_length=16,
        sa_column_kwargs={"server_default": MessageFormat.FULL.value},
    )
    link_preview: bool = Field(default=False, sa_column_kwargs={"server_default": false()})
    language: str | None = Field(default=None, max_length=16)
    suggest: bool = Field(default=False, sa_column_kwargs={"server_default": false()})
    suggest_count: int = Field(default=3, sa_column_kwargs={"server_default": "3"})


def destination(session: Session, chat_id: int, thread_id: int) -> DestinationSetting:
    """In the caller's session: the destination's row, as stored or new with the defaults (and
    its chat's row, which a lone call may need first: the gate records every chat that asks).
    The caller adds it."""
    setting = session.get(DestinationSetting, (chat_id, thread_id))
    if setting is None:
        if session.get(Chat, chat_id) is None:
            session.add(Chat(id=chat_id))
            session.flush()
        setting = DestinationSetting(chat_id=chat_id, thread_id=thread_id)
    return setting


def language_of(session: Session, chat_id: int, thread_id: int) -> str | None:
    """In the caller's session: the language the destination speaks, as set there by /language,
    else as its chat's first writer asked; None when neither is known."""
    chosen = session.exec(
        select(DestinationSetting.language).where(
            col(DestinationSetting.chat_id) == chat_id,
            col(DestinationSetting.thread_id) == thread_id,
        )
    ).first()
    if chosen:
        return chosen
    return session.exec(select(Chat.language).where(col(Chat.id) == chat_id)).first()


def _of_delivery() -> ColumnElement[bool]:
    return and_(
        col(DestinationSetting.chat_id) == col(Delivery.chat_id),
        col(DestinationSetting.thread_id) == col(Delivery.thread_id),
    )


def _holds(now: datetime) -> ColumnElement[bool]:
    return or_(col(DestinationSetting.paused), col(DestinationSetting.quiet_from) <= now)


def held_now(now: datetime) -> ColumnElement[bool]:
    """True for a delivery whose destination holds its messages at `now`: paused, or inside its
    quiet window. A window is left only by `watcher.store.quiet` moving it on (which flags the
    summary in the same transaction), so an ended window holds until then."""
    return select(DestinationSetting.chat_id).where(_of_delivery(), _holds(now)).exists()


def held_threads(session: Session, chat_id: int, now: datetime) -> set[int]:
    """Inside the caller's transaction: the chat's destinations (thread ids) that hold their
    messages at `now` (paused, or inside a quiet window), as `held_now` reads them."""
    return set(
        session.exec(
            select(DestinationSetting.thread_id).where(
                col(DestinationSetting.chat_id) == chat_id, _holds(now)
            )
        ).all()
    )


def flag_summaries(
    session: Session, chat_id: int, *, threshold: int, thread_id: int | None = None
) -> None:
    """Inside the caller's transaction: each destination of the chat (or only `thread_id`) with
    more than `threshold` pending deliveries has them flagged to go out as one summary. Digest
    messages and parked rows are left as they are."""
    waiting = [
        col(Delivery.chat_id) == chat_id,
        col(Delivery.status) == DeliveryStatus.PENDING,
        col(Delivery.digest_part_id).is_(None),
    ]
    if thread_id is not None:
        waiting.append(col(Delivery.thread_id) == thread_id)
    counts = session.exec(
        select(Delivery.thread_id, func.count()).where(*waiting).group_by(col(Delivery.thread_id))
    ).all()
    many = [thread for thread, count in counts if count > threshold]
    if many:
        session.exec(
            update(Delivery)
            .where(*waiting, col(Delivery.thread_id).in_(many))
            .values(summarize=True)
        )


def move_destinations(session: Session, *, old_id: int, new_id: int) -> None:
    """Inside the caller's transaction: a group became a supergroup; its destinations' settings
    move with it. Where the supergroup has its own for that topic already, they stay, and take
    the group's digest and time zone when they have neither, revisions when the group asked for
    them, and its language when they chose none."""
    for setting in session.exec(
        select(DestinationSetting).where(col(DestinationSetting.chat_id) == old_id)
    ).all():
        known = session.get(DestinationSetting, (new_id, setting.thread_id))
        if known is None:
            session.add(DestinationSetting(**{**setting.model_dump(), "chat_id": new_id}))
        else:
            _carry(setting, into=known)
        session.delete(setting)


def _carry(old: DestinationSetting, *, into: DestinationSetting) -> None:
    if into.next_digest_at is None and old.next_digest_at is not None:
        into.digest_minute, into.digest_days = old.digest_minute, old.digest_days
        into.next_digest_at, into.digest_since = old.next_digest_at, old.digest_since
        if into.timezone == DEFAULT_ZONE:
            into.timezone = old.timezone
    into.notify_revisions = into.notify_revisions or old.notify_revisions
    into.language = into.language or old.language
