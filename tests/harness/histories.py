"""A history of follows, papers and deliveries played against the real store, beside a model
of what each chat should hear (for `tests/core/test_histories.py`).

`HistoryWorld` drives the store as the service does: each source's save (`Store.save_records`
with the records and follows it hands over: an API poll of a group, a harvest of what changed,
an identity's author feed), a follow's first poll (silent) and its poll state, the sender's
claim (`Outbox.due`) and confirmation (`Outbox.mark_sent_many`, with the version each message
carried), `Outbox.prune`, and restarts (a new engine on the same database; what was claimed
and not confirmed never reached the chat). `HistoryModel` says, from the rules alone, which
follow found which paper new (its first link, the paper announced after the follow began: its
id newer than the newest the store held at the follow's first poll; the follow past that poll)
and which version each follow's announcing saves reached; `HistoryWorld.check` compares the
messages sent with it.

Ids are given at announcement, in its order, as arXiv does
(`watcher.arxiv.records.announced_after`): a paper that arrives at most `HELD` after its v1 date is
announced as it arrives (a week in moderation included), with the next of one counter for every
world (`9912.NNNNN`, a month no follow's start reaches); an older one was announced long ago
(`1501.NNNNN`), and arrives now because it was claimed or its metadata moved.

Each world has its own chats, follows and papers (names and ids drawn from a counter), so the
examples of one test share a database without meeting.
"""

from __future__ import annotations

import itertools
from collections import defaultdict
from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta

from sqlalchemy import delete, update
from sqlmodel import Session, col

from tests.fakes.corpus import make_record
from watcher.arxiv.records import Record
from watcher.follows.identity import Identity
from watcher.follows.topics import parse_topic
from watcher.kinds import FollowKind, NewsKind
from watcher.runtime.db import open_database
from watcher.store import MatchedRecord, Store
from watcher.store.chats import Chats
from watcher.store.outbox import Outbox
from watcher.store.tables import Delivery, FollowedAuthor, utcnow

CHATS = 3
# The follows a history may create: person 0 by name and by identity, person 1 by name, topic 0
# and topic 1.
FOLLOWS = [(FollowKind.PERSON, 0), (FollowKind.IDENTITY, 0), (FollowKind.TOPIC, 0),
           (FollowKind.PERSON, 1), (FollowKind.TOPIC, 1)]  # fmt: skip
_worlds = itertools.count(1)
# Announcements, in order, over every world of a run: the store's newest id at a follow's start
# may be another world's, which is older than every paper of this world.
_announcements = itertools.count(1)
HELD = timedelta(days=14)
_LONG_AGO = 0  # the order of a paper announced before every world


def _letters(n: int) -> str:
    """A word of lower-case letters for `n`, different for each `n`."""
    word = ""
    while True:
        n, digit = divmod(n, 26)
        word += chr(ord("a") + digit)
        if n == 0:
            return word


@dataclass
class Paper:
    """A paper as arXiv serves it now."""

    arxiv_id: str
    announced: int  # its place in the order of announcement (`_LONG_AGO`: before every world)
    person: int | None  # whose paper it is (an author of that name)
    topics: frozenset[int]
    published: datetime
    updated: datetime
    version: int = 1
    journal_ref: str | None = None
    claimed: bool = False  # in its person's arXiv author feed
    changed: bool = True  # since the last harvest (its datestamp moved)

    def record(self, author: str) -> Record:
        return make_record(
            arxiv_id=self.arxiv_id,
            version=self.version,
            title=f"Paper {self.arxiv_id} v{self.version}",
            authors=["Ann Coauthor", author] if self.person is not None else ["Ann Coauthor"],
            published=self.published,
            updated=self.updated,
            journal_ref=self.journal_ref,
        )


@dataclass(frozen=True)
class Follow:
    id: int
    kind: FollowKind
    index: int
    start: datetime
    chats: frozenset[int]
    horizon: int = _LONG_AGO  # the newest announcement the store held at the start

    def matches(self, paper: Paper) -> bool:
        if self.kind == FollowKind.TOPIC:
            return self.index in paper.topics
        if paper.person != self.index:
            return False
        return self.kind == FollowKind.PERSON or paper.claimed


@dataclass
class HistoryModel:
    """The rules: which version of which paper each follow is linked to, which follows found
    a paper new, and the newest version each follow announced (new or revision)."""

    links: dict[tuple[int, str], int] = field(default_factory=dict)
    found_new: set[tuple[int, str]] = field(default_factory=set)
    announced: dict[tuple[int, str], int] = field(default_factory=dict)

    def save(
        self,
        batch: list[tuple[Paper, frozenset[Follow]]],
        announce_for: frozenset[int],
    ) -> set[str]:
        """What a save of `batch` does by the rules; returns the papers it finds new."""
        new: set[str] = set()
        for paper, follows in batch:
            for follow in follows:
                key = (follow.id, paper.arxiv_id)
                seen = self.links.get(key)
                announcing = follow.id in announce_for
                if seen is None:
                    self.links[key] = paper.version
                    if announcing and paper.announced > follow.horizon:
                        self.found_new.add(key)
                        self.announced[key] = paper.version
                        new.add(paper.arxiv_id)
                elif paper.version > seen:
                    self.links[key] = paper.version
                    if announcing:
                        self.announced[key] = max(self.announced.get(key, 0), paper.version)
        return new


@dataclass(frozen=True)
class Sent:
    """A message the chat got (confirmed by the far side)."""

    chat_id: int
    arxiv_id: str
    version: int
    kind: NewsKind


class HistoryWorld:
    """One history's chats, follows and papers, in the store at `database_url`."""

    def __init__(self, database_url: str, revisions: tuple[bool, ...]) -> None:
        self.url = database_url
        self.number = next(_worlds)
        self.word = _letters(self.number)
        self.engine = open_database(database_url)
        self._open()
        self.now = utcnow() - timedelta(days=200)
        self.chat_ids = [self.number * 10 + i for i in range(CHATS)]
        self.revisions = dict(zip(self.chat_ids, revisions, strict=True))
        for chat_id in self.chat_ids:
            self.chats.seen(chat_id, kind="private")
            self.chats.set_notify_revisions(chat_id, self.revisions[chat_id])
        self.follows: dict[tuple[FollowKind, int], Follow] = {}
        self.papers: list[Paper] = []
        self.model = HistoryModel()
        self.in_flight: list[tuple[int, Sent]] = []
        self.sent: list[Sent] = []
        self._message_ids = itertools.count(1)

    def _open(self) -> None:
        self.store, self.outbox = Store(self.engine), Outbox(self.engine)
        self.chats = Chats(self.engine)

    def close(self) -> None:
        """The world's deliveries go (an example cut short leaves some pending, which would
        crowd the sender's reads of the examples after it), and its engine."""
        with Session(self.engine) as session:
            session.exec(delete(Delivery).where(col(Delivery.chat_id).in_(self.chat_ids)))
            session.commit()
        self.engine.dispose()

    def author(self, person: int) -> str:
        return f"Ann {self.word.capitalize()} Person{'ab'[person]}"

    # -- time, follows and papers -----------------------------------------------------------

    def tick(self, days: float) -> None:
        self.now += timedelta(days=days)

    def follow(self, which: int, chats: int) -> None:
        """Create a follow (if new), subscribe the chats of the bit mask `chats`, and run its
        first poll: what it finds now is linked silently, and it starts now."""
        kind, index = FOLLOWS[which]
        if (kind, index) in self.follows:
            return
        if kind == FollowKind.PERSON:
            followed, _ = self.store.follow([self.author(index)])
        elif kind == FollowKind.IDENTITY:
            identity = Identity("arxiv", f"{self.word}_{'ab'[index]}_1")
            followed, _ = self.store.follow_identity(identity, name=self.author(index))
        else:
            topic = parse_topic(f'"{self.word} topic{"ab"[index]}" in cs.DC')
            followed, _ = self.store.watch_topic(topic)
            with Session(self.engine) as session:  # test data: a topic created now
                session.exec(
                    update(FollowedAuthor)
                    .where(col(FollowedAuthor.id) == followed.id)
                    .values(created=self.now)
                )
                session.commit()
        subscribers = frozenset(c for i, c in enumerate(self.chat_ids) if chats >> i & 1)
        for chat_id in subscribers:
            self.chats.subscribe(chat_id, followed.id)
        follow = Follow(followed.id, kind, index, self.now, subscribers)
        self._save([follow], announce_for=frozenset())
        self.store.record_poll_success([follow.id], now=self.now, next_poll=self.now)
        stored = {arxiv_id for _, arxiv_id in self.model.links}
        follow = replace(
            follow,
            horizon=max(
                (p.announced for p in self.papers if p.arxiv_id in stored), default=_LONG_AGO
            ),
        )
        self.follows[kind, index] = follow

    def arrive(self, person: int, topics: int, age: float, claimed: bool) -> None:
        """A paper out on arXiv, `age` days old (its v1 date), by `person` (-1: nobody
        followed), on the topics of the bit mask `topics`."""
        published = self.now - timedelta(days=age)
        order = next(_announcements)
        announced = order if timedelta(days=age) <= HELD else _LONG_AGO
        self.papers.append(
            Paper(
                arxiv_id=f"9912.{order:05d}" if announced else f"1501.{order:05d}",
                announced=announced,
                person=person if person >= 0 else None,
                topics=frozenset(i for i in range(2) if topics >> i & 1),
                published=published,
                updated=published,
                claimed=claimed and person >= 0,
            )
        )

    def new_version(self, which: int) -> None:
        if self.papers:
            paper = self.papers[which % len(self.papers)]
            paper.version += 1
            paper.updated, paper.changed = self.now, True

    def metadata(self, which: int, topics: int = 0) -> None:
        """A journal reference added or changed, at the same version; and the categories that
        put it on the topics of the bit mask `topics` added."""
        if self.papers:
            paper = self.papers[which % len(self.papers)]
            paper.journal_ref = f"J. Hist. {self.number} ({paper.version}) {len(self.sent)}"
            paper.topics |= {i for i in range(2) if topics >> i & 1}
            paper.changed = True

    def claim(self, person: int, which: int) -> None:
        """The person claims their papers of the bit mask `which` in their arXiv account."""
        theirs = [p for p in self.papers if p.person == person]
        for i, paper in enumerate(theirs):
            if which >> i & 1:
                paper.claimed = True

    # -- the sources' saves ------------------------------------------------------------------

    def api_poll(self, which: int) -> None:
        """The API source polls one follow by name or topic (`which`, of those created; -1: all
        of them, as one group): every paper it matches."""
        follows = self._polled_by_queries()
        if not follows:
            return
        group = follows if which < 0 else follows[which % len(follows) :][:1]
        self._save(group, announce_for=frozenset(f.id for f in group))

    def harvest(self) -> None:
        """The harvest: every paper whose datestamp moved, matched against every follow by
        name or topic; then their datestamps are marked."""
        follows = self._polled_by_queries()
        changed = [p for p in self.papers if p.changed]
        self._save(follows, announce_for=frozenset(f.id for f in follows), papers=changed)
        for paper in changed:
            paper.changed = False

    def poll_all(self) -> None:
        """A cycle in which every source runs: the API for all names and topics, the harvest,
        every author feed."""
        self.api_poll(-1)
        self.harvest()
        for person in range(2):
            self.author_feed(person)

    def author_feed(self, person: int) -> None:
        follow = self.follows.get((FollowKind.IDENTITY, person))
        if follow is not None:
            self._save([follow], announce_for=frozenset({follow.id}))

    def _polled_by_queries(self) -> list[Follow]:
        return [f for f in self.follows.values() if f.kind != FollowKind.IDENTITY]

    def _save(
        self,
        follows: list[Follow],
        *,
        announce_for: frozenset[int],
        papers: list[Paper] | None = None,
    ) -> None:
        batch = []
        for paper in self.papers if papers is None else papers:
            found = frozenset(f for f in follows if f.matches(paper))
            if found:
                batch.append((replace(paper), found))
        if not batch:
            return
        authors = {p.arxiv_id: self.author(p.person or 0) for p, _ in batch}
        result = self.store.save_records(
            [
                MatchedRecord(p.record(authors[p.arxiv_id]), frozenset(f.id for f in found))
                for p, found in batch
            ],
            announce_for=announce_for,
        )
        expected_new = self.model.save(batch, announce_for)
        found = {r.arxiv_id for r in result.new}
        assert found == expected_new, f"the save found new {found}, the rules {expected_new}"

    # -- the sender ----------------------------------------------------------------------------

    def claim_deliveries(self, most: int) -> None:
        """The sender takes up to `most` due deliveries of this world's chats on its way."""
        taken = {delivery_id for delivery_id, _ in self.in_flight}
        due = [
            d
            for d in self.outbox.due(limit=1000)
            if d.chat_id in self.revisions and d.id not in taken
        ]
        self.in_flight += [
            (d.id, Sent(d.chat_id, d.record.arxiv_id, d.record.version, d.kind)) for d in due[:most]
        ]

    def send_all(self, then_prune: bool = False) -> None:
        """The sender takes every due delivery, and the far side confirms them all."""
        self.claim_deliveries(1000)
        self.confirm(then_prune)

    def confirm(self, then_prune: bool = False) -> None:
        """The far side took every message in flight; the confirmations name their versions.
        `then_prune`: the outbox is pruned right after (as if the retention were over)."""
        if not self.in_flight:
            return
        self.outbox.mark_sent_many(
            [(delivery_id, next(self._message_ids)) for delivery_id, _ in self.in_flight],
            versions={delivery_id: sent.version for delivery_id, sent in self.in_flight},
        )
        self.sent += [sent for _, sent in self.in_flight]
        self.in_flight = []
        if then_prune:
            self.prune()

    def prune(self) -> None:
        self.outbox.prune(older_than=utcnow() + timedelta(days=1))

    def restart(self) -> None:
        """The service stops before the far side took what was in flight, and starts again."""
        self.in_flight = []
        self.engine.dispose()
        self.engine = open_database(self.url)
        self._open()

    def drain(self) -> None:
        """Send and confirm everything still owed."""
        self.confirm()
        while True:
            self.claim_deliveries(1000)
            if not self.in_flight:
                return
            self.confirm()

    # -- what must hold ------------------------------------------------------------------------

    def check(self) -> None:
        """Each chat heard of each paper as new once if one of its follows found the paper new
        (unless a revision told it of the paper first), else never; each version at most once,
        in order; a chat that asked for revisions ends at least at the newest version its
        follows announced, one that did not hears no revision; and nothing older than every
        follow of the chat that has it was called new."""
        told: dict[tuple[int, str], list[Sent]] = defaultdict(list)
        for sent in self.sent:
            told[sent.chat_id, sent.arxiv_id].append(sent)
        follows = list(self.follows.values())
        for chat_id in self.chat_ids:
            mine = [f for f in follows if chat_id in f.chats]
            for paper in self.papers:
                messages = told[chat_id, paper.arxiv_id]
                versions = [m.version for m in messages]
                where = f"chat {chat_id}, {paper.arxiv_id}: {messages}"
                assert versions == sorted(set(versions)), f"a version twice or back: {where}"
                news = [m for m in messages if m.kind == NewsKind.NEW]
                should = any((f.id, paper.arxiv_id) in self.model.found_new for f in mine)
                assert len(news) <= (1 if should else 0), f"new {len(news)} times: {where}"
                # Told once: as new, unless a revision told the chat of the paper before.
                if should:
                    assert news or (messages[:1] and messages[0].kind == NewsKind.REVISION), (
                        f"never told: {where}"
                    )
                if news:
                    assert any(
                        (f.id, paper.arxiv_id) in self.model.links and paper.announced > f.horizon
                        for f in mine
                    ), f"announced before the follows began, called new: {where}"
                if not self.revisions[chat_id]:
                    assert len(messages) == len(news), f"a revision unasked for: {where}"
                    continue
                newest = max(
                    (self.model.announced.get((f.id, paper.arxiv_id), 0) for f in mine),
                    default=0,
                )
                assert max(versions, default=0) >= newest, f"v{newest} never told: {where}"
