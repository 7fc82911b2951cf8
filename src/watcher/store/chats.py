"""Chats and what each follows: the subscriber side of the store, free of any chat framework.

A chat is identified by its integer id. It is *active* until the far side says it is gone
(the user blocked the bot, it was removed from the group); its pending deliveries are then
parked, and they resume when the chat comes back. A chat that is there but may not be written
to for now (no rights, a closed topic) is parked by `Parking` instead, topic by topic. A chat that
comes back to more than `summary_threshold` waiting papers gets them as one summary message per
topic, not one message each. Each destination (the chat, or one forum topic) may take its papers
as a daily or weekly digest instead (`digests`, a `watcher.store.digests.Digests`), at a local
time in its own zone, and may ask for new versions (`set_notify_revisions`).

In a forum supergroup each topic subscribes on its own: a subscription and a delivery carry the
topic's `thread_id`, `NO_THREAD` (0) for General or a chat without topics. The subscription limit
counts every topic of the chat together, so one chat's rows stay bounded.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import Engine, delete, func, update
from sqlmodel import Session, col, select

from watcher.errors import WatcherError
from watcher.store.announce import forget_untold, move_told
from watcher.store.destinations import (
    DestinationSetting,
    destination,
    flag_summaries,
    language_of,
    move_destinations,
)
from watcher.store.digests import Digests
from watcher.store.exclusions import move_exclusions
from watcher.store.parking import Parking
from watcher.store.reading_list import move_saved
from watcher.store.speaking import Speaking
from watcher.store.suggestion_outbox import move_suggestions
from watcher.store.tables import (
    NO_THREAD,
    WAITING,
    Chat,
    Delivery,
    DeliveryStatus,
    FollowedAuthor,
    PaperMatch,
    ParkedDestination,
    PollState,
    Subscription,
    utcnow,
)

MAX_SUBSCRIPTIONS = 50
SUMMARY_THRESHOLD = 5  # a returning chat with more waiting papers than this gets one summary


class SubscriptionLimit(WatcherError):
    """The chat already follows as many authors as one chat may."""


@dataclass(frozen=True, slots=True)
class ChatInfo:
    id: int
    kind: str
    title: str | None
    active: bool


class Chats:
    """Every read and write of chats and subscriptions. Each method is one transaction."""

    def __init__(self, engine: Engine, *, summary_threshold: int = SUMMARY_THRESHOLD) -> None:
        self.engine = engine
        self.parking = Parking(engine)
        self.digests = Digests(engine)
        self.speaking = Speaking(engine, summary_threshold=summary_threshold)
        self.summary_threshold = summary_threshold

    def seen(
        self, chat_id: int, *, kind: str, title: str | None = None, language: str | None = None
    ) -> bool:
        """Record that the chat spoke to us; reactivates it. True when it was inactive.

        `language`: what the person who wrote (or added the bot) asked for; kept as the chat's
        language only if it has none yet, so the first writer's stays.

        A chat that comes back has its parked deliveries due again; more than
        `summary_threshold` of them are flagged to go out as one summary.
        """
        came_back, _language = self.arrived(chat_id, kind=kind, title=title, language=language)
        return came_back

    def arrived(
        self,
        chat_id: int,
        *,
        kind: str,
        title: str | None = None,
        language: str | None = None,
        thread_id: int = NO_THREAD,
    ) -> tuple[bool, str | None]:
        """`seen`, and in the same transaction the language the destination (`thread_id`)
        speaks now (`watcher.store.destinations.language_of`): what a command needs first."""
        with Session(self.engine) as session:
            chat = session.get(Chat, chat_id)
            if chat is None:
                session.add(Chat(id=chat_id, kind=kind, title=title, language=language))
                session.commit()
                return False, language_of(session, chat_id, thread_id)
            came_back = not chat.active
            chat.language = chat.language or language
            chat.active, chat.inactive_reason, chat.inactive_since = True, None, None
            chat.kind, chat.title = kind, title or chat.title
            if came_back:
                session.exec(
                    update(Delivery)
                    .where(
                        col(Delivery.chat_id) == chat_id,
                        col(Delivery.status) == DeliveryStatus.PENDING,
                    )
                    .values(parked=False)
                )
                # Counted per destination: each forum topic gets its own summary, in itself.
                flag_summaries(session, chat_id, threshold=self.summary_threshold)
            speaks = language_of(session, chat_id, thread_id)
            session.commit()
            return came_back, speaks

    def get(self, chat_id: int) -> ChatInfo | None:
        with Session(self.engine) as session:
            chat = session.get(Chat, chat_id)
            if chat is None:
                return None
            return ChatInfo(chat.id, chat.kind, chat.title, chat.active)

    def deactivate(self, chat_id: int, *, reason: str, now: datetime | None = None) -> None:
        """The chat is gone for now (since `now`, the caller's clock; the wall clock by
        default): park its deliveries (they stay pending)."""
        with Session(self.engine) as session:
            session.exec(
                update(Chat)
                .where(col(Chat.id) == chat_id)
                .values(active=False, inactive_reason=reason)
            )
            session.exec(
                update(Chat)  # gone since the first refusal, not the latest
                .where(col(Chat.id) == chat_id, col(Chat.inactive_since).is_(None))
                .values(inactive_since=now or utcnow())
            )
            session.exec(
                update(Delivery)
                .where(
                    col(Delivery.chat_id) == chat_id, col(Delivery.status) == DeliveryStatus.PENDING
                )
                .values(parked=True)
            )
            session.commit()

    def migrate(self, old_id: int, new_id: int) -> None:
        """A group became a supergroup with a new id: move everything it had.

        The new id may be known already (the supergroup spoke to us first); then the two merge,
        and what both had (a subscription, a delivery of the same paper) is kept once. Each
        destination of the merged chat keeps its own settings, and takes the old one's where it
        has none (a digest, a time zone, revisions asked for:
        `watcher.store.destinations.move_destinations`). A destination without a digest has no
        held deliveries: nothing would ever claim them, so they are pending.
        """
        with Session(self.engine) as session:
            old = session.get(Chat, old_id)
            if old is None:
                return
            known = session.get(Chat, new_id)
            if known is not None:
                known.language = known.language or old.language
            else:
                session.add(
                    Chat(
                        id=new_id,
                        kind="supergroup",
                        title=old.title,
                        active=old.active,
                        inactive_since=old.inactive_since,
                        created=old.created,
                        language=old.language,
                    )
                )
                session.flush()
            have = set(
                session.exec(
                    select(Subscription.thread_id, Subscription.followed_author_id).where(
                        col(Subscription.chat_id) == new_id
                    )
                ).all()
            )
            for subscription in session.exec(
                select(Subscription).where(col(Subscription.chat_id) == old_id)
            ).all():
                if (subscription.thread_id, subscription.followed_author_id) not in have:
                    session.add(
                        Subscription(
                            chat_id=new_id,
                            thread_id=subscription.thread_id,
                            followed_author_id=subscription.followed_author_id,
                            created=subscription.created,
                        )
                    )
                session.delete(subscription)
            owed = set(
                session.exec(
                    select(Delivery.thread_id, Delivery.paper_id, Delivery.version).where(
                        col(Delivery.chat_id) == new_id
                    )
                ).all()
            )
            new = session.get(Chat, new_id)
            assert new is not None
            for delivery in session.exec(
                select(Delivery).where(col(Delivery.chat_id) == old_id)
            ).all():
                if (delivery.thread_id, delivery.paper_id, delivery.version) in owed:
                    session.delete(delivery)
                else:
                    delivery.chat_id = new_id
                    delivery.parked = delivery.status == DeliveryStatus.PENDING and not new.active
            session.flush()
            move_told(session, old_id=old_id, new_id=new_id)
            move_destinations(session, old_id=old_id, new_id=new_id)
            move_saved(session, old_id=old_id, new_id=new_id)
            move_exclusions(session, old_id=old_id, new_id=new_id)
            move_suggestions(session, old_id=old_id, new_id=new_id)
            session.flush()
            session.exec(
                update(Delivery)
                .where(
                    col(Delivery.chat_id) == new_id,
                    col(Delivery.status) == DeliveryStatus.HELD,
                    ~select(DestinationSetting.chat_id)
                    .where(
                        col(DestinationSetting.chat_id) == new_id,
                        col(DestinationSetting.thread_id) == col(Delivery.thread_id),
                        col(DestinationSetting.next_digest_at).is_not(None),
                    )
                    .exists(),
                )
                .values(status=DeliveryStatus.PENDING, parked=not new.active)
                .execution_options(synchronize_session=False)
            )
            # A parking was about the old chat's rights; the supergroup is asked afresh.
            self.parking.forget_chat(session, old_id)
            session.exec(delete(Chat).where(col(Chat.id) == old_id))
            session.commit()

    def set_notify_revisions(
        self, chat_id: int, enabled: bool, *, thread_id: int = NO_THREAD
    ) -> None:
        """Tell the destination (the chat, or one forum topic) of new versions, or stop."""
        with Session(self.engine) as session:
            setting = destination(session, chat_id, thread_id)
            setting.notify_revisions = enabled
            session.add(setting)
            session.commit()

    def wants_revisions(self, chat_id: int, *, thread_id: int = NO_THREAD) -> bool:
        """Whether the destination is told of new versions of papers it was sent."""
        with Session(self.engine) as session:
            setting = session.get(DestinationSetting, (chat_id, thread_id))
            return setting is not None and setting.notify_revisions

    def subscribe(self, chat_id: int, followed_id: int, *, thread_id: int = NO_THREAD) -> bool:
        """Follow an author in this chat's topic `thread_id`. False when it already did.

        Raises SubscriptionLimit when the chat (all its topics together) already follows
        MAX_SUBSCRIPTIONS authors; the check and the insert share one transaction, so two
        requests at once cannot pass it.

        An author a chat brought is polled only while some chat subscribes. When the first
        subscriber comes back, its history is fetched again, silently: the papers of the time
        nobody polled it are stored, and none of them is announced as new.
        """
        with Session(self.engine) as session:
            if session.get(Subscription, (chat_id, thread_id, followed_id)) is not None:
                return False
            follows = session.exec(
                select(func.count()).where(col(Subscription.chat_id) == chat_id)
            ).one()
            if follows >= MAX_SUBSCRIPTIONS:
                raise SubscriptionLimit(f"a chat follows at most {MAX_SUBSCRIPTIONS} authors")
            _restart_if_paused(session, followed_id)
            session.add(
                Subscription(chat_id=chat_id, thread_id=thread_id, followed_author_id=followed_id)
            )
            session.commit()
            return True

    def subscribed_ids(self, chat_id: int, *, thread_id: int = NO_THREAD) -> list[int]:
        """The authors this chat's topic `thread_id` follows."""
        with Session(self.engine) as session:
            return subscribed_in(session, chat_id, thread_id)

    def subscriptions_of(self, chat_ids: Iterable[int]) -> dict[tuple[int, int], frozenset[int]]:
        """The followed authors (by id) each topic of `chat_ids` subscribes to, by (chat id,
        thread id), in one query. A topic that follows nobody is left out."""
        follows: dict[tuple[int, int], set[int]] = {}
        with Session(self.engine) as session:
            for chat_id, thread_id, followed_id in session.exec(
                select(
                    Subscription.chat_id, Subscription.thread_id, Subscription.followed_author_id
                ).where(col(Subscription.chat_id).in_(list(set(chat_ids))))
            ):
                follows.setdefault((chat_id, thread_id), set()).add(followed_id)
        return {place: frozenset(ids) for place, ids in follows.items()}

    def unsubscribe(
        self,
        chat_id: int,
        followed_id: int | None = None,
        *,
        thread_id: int = NO_THREAD,
        only_if: int | None = None,
    ) -> int:
        """Stop following one author, or everything (`None`), in this chat's topic `thread_id`.
        Returns how many were dropped. With `only_if`, nothing is dropped unless the topic
        follows exactly that many (counted in the same transaction).

        Pending deliveries the topic no longer wants are dropped with them.
        """
        with Session(self.engine) as session:
            here = (col(Subscription.chat_id) == chat_id, col(Subscription.thread_id) == thread_id)
            if only_if is not None:
                count = session.exec(select(func.count()).select_from(Subscription).where(*here))
                if int(count.one()) != only_if:
                    return 0
            query = delete(Subscription).where(*here)
            if followed_id is not None:
                query = query.where(col(Subscription.followed_author_id) == followed_id)
            removed = session.exec(query).rowcount
            still_wanted = select(PaperMatch.paper_id).where(
                col(PaperMatch.followed_author_id).in_(
                    select(Subscription.followed_author_id).where(
                        col(Subscription.chat_id) == chat_id,
                        col(Subscription.thread_id) == thread_id,
                    )
                )
            )
            unwanted = (
                col(Delivery.chat_id) == chat_id,
                col(Delivery.thread_id) == thread_id,
                col(Delivery.status).in_(WAITING),
                col(Delivery.paper_id).not_in(still_wanted),
            )
            forget_untold(
                session,
                select(Delivery.chat_id, Delivery.thread_id, Delivery.paper_id).where(*unwanted),
            )
            session.exec(delete(Delivery).where(*unwanted))
            session.commit()
            return int(removed or 0)

    def reachable_followers(
        self, followed_id: int, *, limit: int
    ) -> tuple[list[tuple[int, int]], int]:
        """The destinations (chat id, thread id) following `followed_id` that may be written to
        now: the chat active, the destination neither paused nor parked. The first `limit` of
        them by chat id, and how many there are in all."""
        reachable = (
            col(Subscription.followed_author_id) == followed_id,
            select(Chat.id)
            .where(col(Chat.id) == col(Subscription.chat_id), col(Chat.active))
            .exists(),
            ~select(DestinationSetting.chat_id)
            .where(
                col(DestinationSetting.chat_id) == col(Subscription.chat_id),
                col(DestinationSetting.thread_id) == col(Subscription.thread_id),
                col(DestinationSetting.paused),
            )
            .exists(),
            ~select(ParkedDestination.chat_id)
            .where(
                col(ParkedDestination.chat_id) == col(Subscription.chat_id),
                col(ParkedDestination.thread_id) == col(Subscription.thread_id),
            )
            .exists(),
        )
        with Session(self.engine) as session:
            total = session.exec(select(func.count()).where(*reachable)).one()
            places = session.exec(
                select(Subscription.chat_id, Subscription.thread_id)
                .where(*reachable)
                .order_by(col(Subscription.chat_id), col(Subscription.thread_id))
                .limit(limit)
            ).all()
            return [(chat_id, thread_id) for chat_id, thread_id in places], int(total)

    def subscribers(self, followed_id: int) -> int:
        with Session(self.engine) as session:
            return session.exec(
                select(func.count()).where(col(Subscription.followed_author_id) == followed_id)
            ).one()

    def counts(self) -> tuple[int, int, int]:
        """(chats, active chats, subscriptions)."""
        with Session(self.engine) as session:
            chats = session.exec(select(func.count()).select_from(Chat)).one()
            active = session.exec(select(func.count()).where(col(Chat.active))).one()
            subscriptions = session.exec(select(func.count()).select_from(Subscription)).one()
            return chats, active, subscriptions


def subscribed_in(session: Session, chat_id: int, thread_id: int) -> list[int]:
    """`Chats.subscribed_ids` in the caller's session."""
    query = select(Subscription.followed_author_id).where(
        col(Subscription.chat_id) == chat_id, col(Subscription.thread_id) == thread_id
    )
    return list(session.exec(query))


def _restart_if_paused(session: Session, followed_id: int) -> None:
    """Before this subscription nobody polled the author: its next poll is a silent backfill."""
    author = session.get(FollowedAuthor, followed_id)
    if author is None or author.watched:
        return
    others = session.exec(
        select(func.count()).where(col(Subscription.followed_author_id) == followed_id)
    ).one()
    state = session.get(PollState, followed_id)
    if others == 0 and state is not None and state.last_success is not None:
        state.last_success = state.next_poll = state.started = state.refreshed = None
        state.consecutive_failures, state.last_error = 0, None
