"""Follow rules and their poll state: who and what is watched, and when each is polled next.

A follow is stored once per rule (`rule_key` makes "Dong Dezun" and "Dezun Dong" one row, and a
topic one row however its words are ordered); a person carries its aliases, a topic (`kind`
"topic") its canonical text and categories. A stored rule is shared by every chat that asks for
exactly it, so it is never changed to match more: the same name with other aliases or in other
categories is a rule of its own. Its poll state says how the last polls went; no
`last_success` yet means its history has not been fetched, and nothing of it is announced until
it has.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import datetime
from typing import Any

from sqlalchemy import ColumnElement, Engine, delete, func, null, or_, update
from sqlalchemy import select as sql_select
from sqlmodel import Session, col, select

from watcher.follows.followed import Followed
from watcher.follows.identity import Identity
from watcher.follows.names import name_key
from watcher.follows.rules import PersonRule, WatchedRule, rule_key
from watcher.follows.topics import Topic
from watcher.kinds import FollowKind
from watcher.store.papers import horizon_on_start
from watcher.store.tables import Chat, FollowedAuthor, PaperMatch, PollState, Subscription

MAX_SHOWN_NAME = 100  # followed_author.name
_IDS_PER_QUERY = 1000


def key_of(name: str) -> str:
    """A name's key alone: "Dong, Dezun" and "Dezun Dong" give "dezun dong"."""
    return " ".join(name_key(name))


class FollowStore:
    """Reads and writes of followed authors and their poll state. Each method is one transaction."""

    engine: Engine

    def follow(
        self, names: Sequence[str], *, watched: bool = True, categories: Sequence[str] = ()
    ) -> tuple[Followed, bool]:
        """Follow a person (display name first, then aliases), maybe only in `categories`.
        Returns it and whether it is new.

        `watched`: the operator's (WATCH_AUTHORS, `arxiv-watcher follow`), polled whoever
        subscribes. A chat's `/subscribe` passes False: polled while some chat subscribes.
        Following never turns a watched author into an unwatched one. The same name in other
        categories is another rule.
        """
        with Session(self.engine) as session:
            followed, created = add_person(session, names, categories, watched=watched)
            session.commit()
            assert followed.id is not None
            return _followed(session, [followed.id])[0], created

    def follow_person(self, rule: PersonRule, *, watched: bool = True) -> tuple[Followed, bool]:
        """`follow` for a checked rule ("Wei Wang|W. Wang in cs.DC")."""
        return self.follow(rule.names, watched=watched, categories=rule.categories)

    def follow_watched(self, rule: WatchedRule) -> tuple[Followed, bool]:
        """Follow a WATCH_AUTHORS entry: a person rule, or an identity (shown as itself until
        someone follows it with a name)."""
        if isinstance(rule, Identity):
            return self.follow_identity(rule)
        return self.follow_person(rule)

    def unwatch_all_but(self, kept: Iterable[int]) -> list[Followed]:
        """The operator's list is the truth: every person or identity watched but not in `kept`
        (the follows of today's WATCH_AUTHORS) is watched no more, and polled only while a chat
        follows it. Topics are the `watch` command's, and stay. Returns those unwatched, as
        they are now (`polled` says whether a chat still wants them)."""
        kept_ids = set(kept)
        with Session(self.engine) as session:
            dropped = [
                followed_id
                for followed_id in session.exec(
                    select(FollowedAuthor.id).where(
                        col(FollowedAuthor.watched), col(FollowedAuthor.kind) != FollowKind.TOPIC
                    )
                )
                if followed_id is not None and followed_id not in kept_ids
            ]
            for start in range(0, len(dropped), _IDS_PER_QUERY):
                part = dropped[start : start + _IDS_PER_QUERY]
                session.exec(
                    update(FollowedAuthor)
                    .where(col(FollowedAuthor.id).in_(part))
                    .values(watched=False)
                )
            session.commit()
        return self.followed(dropped) if dropped else []

    def find_watched(self, rule: WatchedRule) -> Followed | None:
        """The follow of a WATCH_AUTHORS entry, if it is followed."""
        if isinstance(rule, Identity):
            return self.find_identity(rule.key)
        return self.find_person(rule)

    def find_person(self, rule: PersonRule) -> Followed | None:
        """The follow that is exactly `rule`: its names (the aliases too) and categories. A
        follow of the same name with other aliases is another rule, and not found."""
        with Session(self.engine) as session:
            found = session.exec(
                select(FollowedAuthor.id).where(
                    col(FollowedAuthor.kind) == FollowKind.PERSON,
                    col(FollowedAuthor.rule_key) == rule.key,
                )
            ).first()
            return None if found is None else _followed(session, [found])[0]

    def find_followed(
        self, name: str, *, categories: Sequence[str] = (), among: Iterable[int] | None = None
    ) -> Followed | None:
        """The person followed as `name` (or having it as an alias) in exactly `categories`,
        of the follows `among` if given (a chat's, for /unsubscribe): a follow of the name
        alone first (one index look-up), else the first by name of those with aliases."""
        key, wanted = key_of(name), set(categories)
        kept = None if among is None else set(among)
        person = col(FollowedAuthor.kind) == FollowKind.PERSON
        with Session(self.engine) as session:
            found = session.exec(
                select(FollowedAuthor.id).where(
                    person, col(FollowedAuthor.rule_key) == rule_key(name, categories)
                )
            ).first()
            if found is None or (kept is not None and found not in kept):
                with_aliases = session.exec(
                    select(FollowedAuthor)
                    .where(person, col(FollowedAuthor.aliases) != "")
                    .order_by(col(FollowedAuthor.name), col(FollowedAuthor.id))
                )
                found = next(
                    (
                        author.id
                        for author in with_aliases
                        if (kept is None or author.id in kept)
                        and {c for c in author.categories.split(",") if c} == wanted
                        and key in {key_of(n) for n in (author.name, *author.alias_list)}
                    ),
                    None,
                )
            return None if found is None else _followed(session, [found])[0]

    def follow_identity(
        self, identity: Identity, *, name: str | None = None, watched: bool = True
    ) -> tuple[Followed, bool]:
        """Follow a person by arXiv author id or ORCID iD. `name` (the person's name as their
        feed shows it, if any) is only shown, with the identity: "Dezun Dong (arxiv:dong_d_1)"
        (`Followed.label`), and marks them on announced papers; it never matches. Returns the
        follow and whether it is new; `watched` as in `follow`."""
        with Session(self.engine) as session:
            followed, created = add_identity(session, identity, name, watched=watched)
            session.commit()
            assert followed.id is not None
            return _followed(session, [followed.id])[0], created

    def find_identity(self, key: str) -> Followed | None:
        """The person followed by this identity ("arxiv:dong_d_1"), if anyone follows it."""
        with Session(self.engine) as session:
            found = session.exec(
                select(FollowedAuthor.id).where(col(FollowedAuthor.rule_key) == key)
            ).first()
            return None if found is None else _followed(session, [found])[0]

    def unfollow(self, followed_id: int) -> None:
        """Stop following; the papers stay, as they may belong to others or be asked for."""
        with Session(self.engine) as session:
            session.exec(delete(FollowedAuthor).where(col(FollowedAuthor.id) == followed_id))
            session.commit()

    def followed(self, ids: Iterable[int] | None = None, *, counted: bool = True) -> list[Followed]:
        """Followed authors with their poll state and record counts, by name. Without
        `counted`, `record_count` is 0: their papers are not counted (the health verdict)."""
        with Session(self.engine) as session:
            return followed_in(session, ids, counted=counted)

    # -- poll state ------------------------------------------------------------------------

    def any_follow_due(self, now: datetime) -> bool:
        """Whether a follow someone wants (watched, or with an active chat) is due for a poll by
        `now` (never polled, or its `next_poll` has come): one row at most, where `followed()`
        reads every follow and counts its papers."""
        due = or_(col(PollState.next_poll).is_(None), col(PollState.next_poll) <= now)
        query = (
            select(PollState.followed_author_id)
            .join(FollowedAuthor, col(FollowedAuthor.id) == col(PollState.followed_author_id))
            .where(due, _wanted())
            .limit(1)
        )
        with Session(self.engine) as session:
            return session.exec(query).first() is not None

    def poll_health(self) -> tuple[datetime | None, list[Followed]]:
        """For the health verdict: the newest good poll of a follow someone wants, and the
        follows whose last polls failed (few, and read with their labels). Two short queries,
        where `followed()` reads every follow (a quarter of a second at 2,000)."""
        newest = (
            select(func.max(PollState.last_success))
            .join(FollowedAuthor, col(FollowedAuthor.id) == col(PollState.followed_author_id))
            .where(_wanted())
        )
        failing = select(PollState.followed_author_id).where(
            col(PollState.consecutive_failures) > 0
        )
        with Session(self.engine) as session:
            last_success = session.exec(newest).one()
            ids = list(session.exec(failing))
        return last_success, self.followed(ids, counted=False) if ids else []

    def any_polling_well(self, *, failures_below: int) -> bool:
        """For the health verdict: whether some follow someone wants was polled well once and
        has failed fewer than `failures_below` polls in a row since (the sources answer for
        it); one just followed, never polled, proves nothing. One row at most."""
        query = (
            select(PollState.followed_author_id)
            .join(FollowedAuthor, col(FollowedAuthor.id) == col(PollState.followed_author_id))
            .where(
                col(PollState.consecutive_failures) < failures_below,
                col(PollState.last_success).is_not(None),
                _wanted(),
            )
            .limit(1)
        )
        with Session(self.engine) as session:
            return session.exec(query).first() is not None

    def record_poll_success(
        self,
        followed_ids: Iterable[int],
        *,
        now: datetime,
        next_poll: datetime,
        whole_list: bool = False,
    ) -> None:
        """A poll of these follows is stored whole; `whole_list`: it read their whole list
        (a first poll, or the API source's weekly refresh), `refreshed` says so."""
        refreshed = {"refreshed": now} if whole_list else {}
        ids = list(followed_ids)
        self._update_poll_state(
            ids,
            last_attempt=now,
            last_success=now,
            started=func.coalesce(col(PollState.started), now),  # the first success stays
            last_error=None,
            consecutive_failures=0,
            next_poll=next_poll,
            **refreshed,
            **horizon_on_start(self.engine, ids),  # what "new" is measured from
        )

    def record_poll_failure(
        self, followed_ids: Iterable[int], *, error: str, now: datetime, next_poll: datetime
    ) -> None:
        self._update_poll_state(
            followed_ids,
            last_attempt=now,
            last_error=error,
            consecutive_failures=col(PollState.consecutive_failures) + 1,
            next_poll=next_poll,
        )

    def record_source_failure(
        self, followed_ids: Iterable[int], *, error: str, now: datetime
    ) -> None:
        """A source beside the poll failed for these follows (the listing): count it and show
        it, leaving their next poll as it was; the poll's next success clears it."""
        self._update_poll_state(
            followed_ids,
            last_attempt=now,
            last_error=error,
            consecutive_failures=col(PollState.consecutive_failures) + 1,
        )

    def put_off_polls(self, followed_ids: Iterable[int], *, until: datetime) -> None:
        """These follows are polled with a source that is not due before `until` (the harvest
        on arXiv's calendar): they wait for it, rather than being due at every tick."""
        self._update_poll_state(followed_ids, next_poll=until)

    def _update_poll_state(self, followed_ids: Iterable[int], **values: object) -> None:
        """One UPDATE of these follows' poll states (a harvest ends by noting 100,000 of them;
        loaded as objects and written back a row at a time, that took 3.6-5.3 s)."""
        with Session(self.engine) as session:
            session.execute(
                update(PollState)
                .where(col(PollState.followed_author_id).in_(list(followed_ids)))
                .values(**values)
            )
            session.commit()

    # -- topics ----------------------------------------------------------------------------

    def watch_topic(self, topic: Topic, *, watched: bool = True) -> tuple[Followed, bool]:
        """Follow a topic (`watcher.follows.topics`). Returns it and whether it is new.

        `watched` as for `follow`. A new topic's poll state says "history never fetched": its
        first poll stores what it finds silently, so a topic never announces the past.
        """
        with Session(self.engine) as session:
            followed, created = add_topic(session, topic, watched=watched)
            session.commit()
            assert followed.id is not None
            return _followed(session, [followed.id])[0], created

    def find_topic(self, topic: Topic) -> Followed | None:
        """The followed topic that is `topic` (whichever way it was written), if any."""
        with Session(self.engine) as session:
            found = session.exec(
                select(FollowedAuthor.id).where(col(FollowedAuthor.rule_key) == topic.rule_key)
            ).first()
            return None if found is None else _followed(session, [found])[0]


def add_person(
    session: Session, names: Sequence[str], categories: Sequence[str], *, watched: bool
) -> tuple[FollowedAuthor, bool]:
    """In `session`: the person rule of `names` (display name first, then aliases) in
    `categories`, stored if new; and whether it was. The aliases are part of the rule
    (`rule_key`): a stored rule is never widened by them, since other chats may share it."""
    display, *aliases = names
    distinct: dict[str, str] = {key_of(display): display}
    for alias in aliases:
        distinct.setdefault(key_of(alias), alias)
    kept = list(distinct.values())[1:]
    new = FollowedAuthor(
        name=display,
        rule_key=rule_key(display, categories, kept),
        categories=",".join(categories),
        aliases="|".join(kept),
    )
    return _add_rule(session, new, watched=watched)


def add_identity(
    session: Session, identity: Identity, name: str | None, *, watched: bool
) -> tuple[FollowedAuthor, bool]:
    """In `session`: the identity's rule, stored if new (shown as `name` when given)."""
    new = FollowedAuthor(
        name=(name or identity.shown)[:MAX_SHOWN_NAME],
        rule_key=identity.key,
        kind=FollowKind.IDENTITY,
        identity=identity.key,
    )
    followed, created = _add_rule(session, new, watched=watched)
    if name and followed.name == identity.shown:
        # Followed by id alone so far (WATCH_AUTHORS): now its person's name is known.
        followed.name = new.name
    return followed, created


def add_topic(session: Session, topic: Topic, *, watched: bool) -> tuple[FollowedAuthor, bool]:
    """In `session`: the topic's rule, stored if new."""
    new = FollowedAuthor(
        name=topic.text,
        rule_key=topic.rule_key,
        kind=FollowKind.TOPIC,
        categories=",".join(topic.categories),
        topic=topic.text,
    )
    return _add_rule(session, new, watched=watched)


def _add_rule(
    session: Session, new: FollowedAuthor, *, watched: bool
) -> tuple[FollowedAuthor, bool]:
    """The rule keyed `new.rule_key`: the stored one, or `new` added with a poll state that
    says "history never fetched" (so its first poll is silent). Whether it was added is the
    second value. Following never turns a watched rule into an unwatched one."""
    followed = session.exec(
        select(FollowedAuthor).where(col(FollowedAuthor.rule_key) == new.rule_key)
    ).first()
    if followed is not None:
        followed.watched = followed.watched or watched
        return followed, False
    new.watched = watched
    session.add(new)
    session.flush()
    assert new.id is not None
    session.add(PollState(followed_author_id=new.id))
    return new, True


# What `Followed` reads of a follow and of its poll state, in `_as_followed`'s order.
_FOLLOWED_COLUMNS = (
    col(FollowedAuthor.id), col(FollowedAuthor.name), col(FollowedAuthor.aliases),
    col(FollowedAuthor.watched), col(FollowedAuthor.kind), col(FollowedAuthor.categories),
    col(FollowedAuthor.identity), col(FollowedAuthor.topic), col(FollowedAuthor.created),
    col(PollState.last_attempt), col(PollState.last_success), col(PollState.last_error),
    col(PollState.consecutive_failures), col(PollState.next_poll), col(PollState.refreshed),
)  # fmt: skip


def _wanted() -> ColumnElement[bool]:
    """A follow someone wants polled: the operator watches it, or an active chat subscribes."""
    return or_(
        col(FollowedAuthor.watched),
        select(Subscription.chat_id)
        .join(Chat, col(Chat.id) == col(Subscription.chat_id))
        .where(col(Subscription.followed_author_id) == col(FollowedAuthor.id), col(Chat.active))
        .exists(),
    )


def followed_in(
    session: Session, ids: Iterable[int] | None, *, counted: bool = True
) -> list[Followed]:
    """`FollowStore.followed` in the caller's session."""
    wanted = None if ids is None else list(ids)
    if wanted is None or len(wanted) <= _IDS_PER_QUERY:
        return _followed(session, wanted, counted=counted)
    # Each id is bound three times (the follows, their links, their chats): in parts,
    # so that no statement binds more values than a database takes (SQLite 32,766).
    found = [
        followed
        for start in range(0, len(wanted), _IDS_PER_QUERY)
        for followed in _followed(session, wanted[start : start + _IDS_PER_QUERY], counted=counted)
    ]
    return sorted(found, key=lambda followed: followed.name)


def _followed(session: Session, ids: list[int] | None, *, counted: bool = True) -> list[Followed]:
    links = select(PaperMatch.followed_author_id, func.count().label("n"))
    # Subscribers are the active chats: one that blocked the bot keeps its subscriptions
    # for when it comes back, but wants nothing polled meanwhile.
    chats = (
        select(Subscription.followed_author_id, func.count().label("n"))
        .join(Chat, col(Chat.id) == col(Subscription.chat_id))
        .where(col(Chat.active))
    )
    if ids is not None:
        # Counted for these follows only: one index range each, not every stored link.
        links = links.where(col(PaperMatch.followed_author_id).in_(ids))
        chats = chats.where(col(Subscription.followed_author_id).in_(ids))
    counts = links.group_by(col(PaperMatch.followed_author_id)).subquery()
    subscribers = chats.group_by(col(Subscription.followed_author_id)).subquery()
    # Columns, not ORM objects: a poll tick reads every follow, and 100,000 of them as
    # objects took 3.7 s (SQLModel builds two models a row), as tuples 0.8 s.
    author, state = FollowedAuthor, PollState
    papers = counts.c.n if counted else null()
    query = sql_select(*_FOLLOWED_COLUMNS, papers, subscribers.c.n).join(
        state, col(state.followed_author_id) == col(author.id)
    )
    if counted:
        query = query.outerjoin(counts, counts.c.followed_author_id == col(author.id))
    query = query.outerjoin(
        subscribers, subscribers.c.followed_author_id == col(author.id)
    ).order_by(col(author.name))
    if ids is not None:
        query = query.where(col(author.id).in_(ids))
    return [_as_followed(row) for row in session.execute(query)]


def _as_followed(row: Sequence[Any]) -> Followed:
    """A `Followed` of one row of `_FOLLOWED_COLUMNS` and its paper and chat counts."""
    (
        id_, name, aliases, watched, kind, categories, identity, topic, created,
        last_attempt, last_success, last_error, failures, next_poll, refreshed, papers, chats,
    ) = row  # fmt: skip
    return Followed(
        id=id_,
        name=name,
        aliases=tuple(FollowedAuthor.split_aliases(aliases)),
        record_count=papers or 0,
        last_attempt=last_attempt,
        last_success=last_success,
        last_error=last_error,
        consecutive_failures=failures,
        next_poll=next_poll,
        watched=watched,
        subscribers=chats or 0,
        kind=FollowKind(kind),
        categories=tuple(c for c in categories.split(",") if c),
        identity=identity,
        topic=topic,
        created=created,
        refreshed=refreshed,
    )
