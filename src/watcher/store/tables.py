"""The database tables (SQLModel). Alembic migrations in `watcher/migrations` own the schema.

Papers are unique on their arXiv id and keep their current version. A paper's authors are an
ordered link to `author`; `paper_match` says which followed authors a paper belongs to. No text
arXiv sends is held in a column of limited length (titles, names, links, DOIs, ACM/MSC classes);
where such text must be unique (an author's name), a digest of it is: PostgreSQL indexes no value
over about 2.7 kB. Deliveries are the front end's outbox: a row is written in the transaction
that stores a new paper, and marked sent only once the far side confirmed it.
"""

from __future__ import annotations

from datetime import UTC, date, datetime
from enum import StrEnum
from typing import Any

from sqlalchemy import (
    BigInteger,
    Column,
    Date,
    DateTime,
    ForeignKey,
    ForeignKeyConstraint,
    Index,
    Text,
    UniqueConstraint,
    false,
    text,
)
from sqlalchemy.engine import Dialect
from sqlalchemy.types import TypeDecorator
from sqlmodel import Field, SQLModel

from watcher.clock import utcnow as utcnow  # stamps rows; the store's modules take it here
from watcher.kinds import FollowKind, NewsKind


class UTCDateTime(TypeDecorator[datetime]):
    """A timestamp that is timezone-aware UTC in Python, also on SQLite (which drops zones)."""

    impl = DateTime(timezone=True)
    cache_ok = True

    def process_bind_param(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        if value is None:
            return None
        if value.tzinfo is None:
            raise ValueError("naive datetime given to a UTC column")
        return value.astimezone(UTC)

    def process_result_value(self, value: Any, dialect: Dialect) -> datetime | None:
        if value is None:
            return None
        assert isinstance(value, datetime)
        return value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)


def _timestamp(*, nullable: bool = False, index: bool = False) -> Column[datetime]:
    return Column(UTCDateTime(), nullable=nullable, index=index)


def _chat_id(*, primary_key: bool = False) -> Column[int]:
    return Column(
        BigInteger, ForeignKey("chat.id"), primary_key=primary_key, nullable=False, index=True
    )


class Paper(SQLModel, table=True):
    # Newest first is (published DESC, arxiv_id DESC) everywhere: this index serves /recent.
    __table_args__ = (Index("ix_paper_newest", "published", "arxiv_id"),)
    id: int | None = Field(default=None, primary_key=True)
    arxiv_id: str = Field(max_length=64, unique=True)
    version: int
    title: str = Field(sa_type=Text)
    abstract: str = Field(sa_type=Text)
    primary_category: str = Field(sa_type=Text)
    published: datetime = Field(sa_column=_timestamp())
    updated: datetime = Field(sa_column=_timestamp())
    abs_url: str = Field(sa_type=Text)
    pdf_url: str = Field(sa_type=Text)
    comment: str | None = Field(default=None, sa_type=Text)
    journal_ref: str | None = Field(default=None, sa_type=Text)
    doi: str | None = Field(default=None, sa_type=Text)
    # Free text as the authors wrote it ("H.5.4; H.3.5", "Primary 05C50; Secondary 05C85"):
    # shown with the paper, never counted as categories.
    acm_class: str | None = Field(default=None, sa_type=Text)
    msc_class: str | None = Field(default=None, sa_type=Text)
    first_seen: datetime = Field(default_factory=utcnow, sa_column=_timestamp())
    # What the stored version changed from the one stored before it: "," joined names of
    # `records.CHANGEABLE` ("" for nothing); None for a first version (`watcher.store.saving`).
    changes: str | None = Field(default=None, sa_type=Text)


class PaperCategory(SQLModel, table=True):
    """Every arXiv taxonomy category of a paper, the primary one included; `position` 0 is the
    primary. Only terms that are categories get here (`taxonomy.is_paper_category`).

    `published` is the paper's v1 date, copied (it never changes) so that one index serves
    "newest first within a category" without visiting the papers.
    """

    __tablename__ = "paper_category"
    __table_args__ = (Index("ix_paper_category_newest", "category", "published", "paper_id"),)
    paper_id: int = Field(foreign_key="paper.id", primary_key=True, ondelete="CASCADE")
    category: str = Field(sa_type=Text, primary_key=True)
    position: int
    published: datetime = Field(sa_column=_timestamp())


ALL_PAPERS = ""  # the `paper_count` scope of every stored paper; the others are category ids


class PaperCount(SQLModel, table=True):
    """How many papers are stored ("" as `scope`) and how many are in each category (the
    category id as `scope`), kept by the save path (`watcher.store.saving`) in the same transaction
    as the rows it counts, so `/stats`, `/subject`'s count and `subjects` read one row each
    rather than counting a million. Changed only by `papers = papers + delta`, never by a
    value read before: two writers at once add up."""

    __tablename__ = "paper_count"
    scope: str = Field(sa_type=Text, primary_key=True)
    papers: int = Field(sa_type=BigInteger)


class Author(SQLModel, table=True):
    """A name as arXiv writes it. `name_digest` (SHA-256 of the name, hex) keeps names unique;
    `key_digest` (of its `name_key`) finds every spelling of one person by one index."""

    id: int | None = Field(default=None, primary_key=True)
    name: str = Field(sa_type=Text)
    name_digest: str = Field(max_length=64, unique=True)
    key_digest: str = Field(max_length=64, index=True)


class PaperAuthor(SQLModel, table=True):
    """A paper's authors, in order; `published`, its v1 date copied, serves "an author's newest
    papers" from one index."""

    __tablename__ = "paper_author"
    __table_args__ = (Index("ix_paper_author_newest", "author_id", "published", "paper_id"),)
    paper_id: int = Field(foreign_key="paper.id", primary_key=True, ondelete="CASCADE")
    position: int = Field(primary_key=True)
    author_id: int = Field(foreign_key="author.id")
    affiliations: str | None = Field(default=None, sa_type=Text)
    published: datetime = Field(sa_column=_timestamp())


class FollowedAuthor(SQLModel, table=True):
    """A follow rule: what the service watches for, and what chats subscribe to.

    `kind` says which rule it is (a `FollowKind`; the rules are read in `watcher.follows.rules`):
    - "person": a name and its aliases, matched against each paper's authors; with
      `categories` ("," joined ids), only papers in one of them (primary or cross-list);
    - "identity": an arXiv author id or ORCID iD (`identity`, "arxiv:dong_d_1" or
      "orcid:0000-..."), whose papers come from the person's own arXiv feed;
    - "topic": phrases and words in a title or abstract (`topic`), in `categories`.
    `rule_key` is the rule's canonical form, unique: "Dong Dezun" and "Dezun Dong" are one row.
    """

    __tablename__ = "followed_author"
    # The whole-category topics (no words: `topic` is empty), for `Store.category_week`: a
    # handful of rows among any number of follows.
    __table_args__ = (
        Index(
            "ix_followed_author_whole_topic",
            "id",
            "categories",
            sqlite_where=text("topic = ''"),
            # postgresql_where: added by `dialects.with_postgresql_options`, as naming it here loads
            # SQLAlchemy's PostgreSQL dialect on SQLite runs too (about 2 MB resident).
        ),
    )
    id: int | None = Field(default=None, primary_key=True)
    name: str = Field(max_length=100)
    rule_key: str = Field(max_length=255, unique=True)
    kind: str = Field(
        default=FollowKind.PERSON,
        max_length=16,
        sa_column_kwargs={"server_default": FollowKind.PERSON.value},
    )
    categories: str = Field(default="", max_length=255, sa_column_kwargs={"server_default": ""})
    identity: str | None = Field(default=None, max_length=255)
    topic: str | None = Field(default=None, sa_type=Text)
    aliases: str = Field(default="", sa_type=Text)  # "|"-joined, as in WATCH_AUTHORS
    # The operator's (WATCH_AUTHORS, `arxiv-watcher follow`): polled even without subscribers.
    # Otherwise a chat brought it, and it is polled only while some chat subscribes.
    watched: bool = True
    created: datetime = Field(default_factory=utcnow, sa_column=_timestamp())

    @property
    def alias_list(self) -> list[str]:
        return self.split_aliases(self.aliases)

    @staticmethod
    def split_aliases(aliases: str) -> list[str]:
        """The aliases of a stored `aliases` column."""
        return [alias for alias in aliases.split("|") if alias]


class PollState(SQLModel, table=True):
    """How polling one followed author went. No `last_success` yet means its backfill is pending.

    `started` is its first successful poll (the backfill), since it was created or since a chat
    brought it back after nobody polled it: the follow's start. `horizon`, set with `started`,
    is the newest new-style arXiv id the store held then (its first poll's answer included): a
    paper is new to the follow when arXiv announced it after that id (`watcher.store.papers`;
    None: the store held none, and January of the year before the start's stands in).
    `refreshed` is when the API source last read its whole list, which it does again once a
    week (`watcher.polling.sources.api`).
    """

    __tablename__ = "poll_state"
    followed_author_id: int = Field(
        foreign_key="followed_author.id", primary_key=True, ondelete="CASCADE"
    )
    last_attempt: datetime | None = Field(default=None, sa_column=_timestamp(nullable=True))
    last_success: datetime | None = Field(default=None, sa_column=_timestamp(nullable=True))
    started: datetime | None = Field(default=None, sa_column=_timestamp(nullable=True))
    horizon: str | None = Field(default=None, max_length=64)
    refreshed: datetime | None = Field(default=None, sa_column=_timestamp(nullable=True))
    last_error: str | None = Field(default=None, sa_type=Text)
    consecutive_failures: int = 0
    next_poll: datetime | None = Field(default=None, sa_column=_timestamp(nullable=True))


class PaperMatch(SQLModel, table=True):
    """A paper belongs to a followed author: one of its authors IS that person.

    `version` is the newest version that author's polls have seen, so that "new" and
    "revision" are judged per author, whoever stored the paper first. `published` is the
    paper's v1 date, copied so that one index serves "newest first of these authors".
    """

    __tablename__ = "paper_match"
    __table_args__ = (
        Index("ix_paper_match_newest", "followed_author_id", "published", "paper_id"),
    )
    paper_id: int = Field(foreign_key="paper.id", primary_key=True, ondelete="CASCADE")
    followed_author_id: int = Field(
        foreign_key="followed_author.id", primary_key=True, ondelete="CASCADE"
    )
    version: int
    published: datetime = Field(sa_column=_timestamp())


class PaperMatchCategory(SQLModel, table=True):
    """A followed author's paper in one of its categories: a `paper_match` row times the
    paper's `paper_category` rows, kept by the save path (`watcher.store.saving`) in the same
    transaction, so that a chat's questions within a category (`/subject C` of a chat, its
    count, `/subjects` of a chat) read one range of `ix_paper_match_category_newest` per
    author instead of probing each of the chat's papers for the category. Gone with its
    `paper_match` row (cascade). `published` is the paper's v1 date, as in `paper_match`."""

    __tablename__ = "paper_match_category"
    __table_args__ = (
        ForeignKeyConstraint(
            ["paper_id", "followed_author_id"],
            ["paper_match.paper_id", "paper_match.followed_author_id"],
            ondelete="CASCADE",
        ),
        # The questions' way in; the primary key (by paper) is the save path's and the cascade's.
        Index(
            "ix_paper_match_category_newest",
            "followed_author_id", "category", "published", "paper_id",
        ),
    )  # fmt: skip
    paper_id: int = Field(primary_key=True)
    followed_author_id: int = Field(primary_key=True)
    category: str = Field(sa_type=Text, primary_key=True)
    published: datetime = Field(sa_column=_timestamp())


class Chat(SQLModel, table=True):
    """A place notifications go to. Inactive chats (blocked the bot, removed it) get nothing.
    How each of its destinations (the chat, or one forum topic) is spoken to, its clock and
    digest included, is `watcher.store.destinations.DestinationSetting`."""

    id: int = Field(sa_column=Column(BigInteger, primary_key=True, autoincrement=False))
    kind: str = Field(default="private", max_length=16)
    title: str | None = Field(default=None, max_length=255)
    active: bool = True
    inactive_reason: str | None = Field(default=None, sa_type=Text)
    # Since when it is inactive: a chat gone longer than the outbox retention loses its queue.
    inactive_since: datetime | None = Field(default=None, sa_column=_timestamp(nullable=True))
    created: datetime = Field(default_factory=utcnow, sa_column=_timestamp())
    # The language its first writer's Telegram client asked for (or whoever added the bot), as
    # the front end maps it; a destination's /language overrides it there.
    language: str | None = Field(default=None, max_length=16)


# A chat's General topic, or a chat without topics. A real sentinel rather than NULL: the thread
# is part of the subscription's primary key and of the delivery's uniqueness, and a primary key
# column cannot be NULL, while NULLs never collide in a unique constraint. Telegram's topic ids
# are message ids, which start at 1.
NO_THREAD = 0


def _thread_id(*, primary_key: bool = False) -> Column[int]:
    return Column(
        BigInteger,
        primary_key=primary_key,
        nullable=False,
        default=NO_THREAD,
        server_default=str(NO_THREAD),
        autoincrement=False,
    )


class Subscription(SQLModel, table=True):
    """A chat (in one forum topic, or `NO_THREAD`) follows an author."""

    chat_id: int = Field(sa_column=_chat_id(primary_key=True))
    thread_id: int = Field(default=NO_THREAD, sa_column=_thread_id(primary_key=True))
    followed_author_id: int = Field(
        foreign_key="followed_author.id", primary_key=True, index=True, ondelete="CASCADE"
    )
    created: datetime = Field(default_factory=utcnow, sa_column=_timestamp())


class DeliveryStatus(StrEnum):
    """Where a delivery stands (`Delivery.status`); stored as the plain string."""

    PENDING = "pending"  # owed to the chat, due at `next_attempt`
    HELD = "held"  # waits for its destination's next digest; not due until the digest claims it
    SENT = "sent"  # the far side confirmed it
    FAILED = "failed"  # refused for good; `last_error` says why


WAITING = (DeliveryStatus.PENDING, DeliveryStatus.HELD)  # owed to the chat, not yet sent


class Delivery(SQLModel, table=True):
    """One announcement of one paper version to one chat: the outbox row.

    status: "pending" until the far side confirms ("sent"), or "failed" with `last_error` for a
    permanent refusal. Pending rows of an inactive chat are `parked`, not dropped; the flag keeps
    them out of the due index, so an idle check costs the same with 300,000 parked rows as with
    none. A parked topic (`ParkedDestination`) holds its rows back by its `retry_at` instead.
    `thread_id` is the forum topic it goes to. `summarize`: the chat came back to more than a few
    waiting papers, and these go out together (per topic) as one summary message.
    "held": the destination (chat, topic) takes digests, and the row waits for the next one,
    outside the due index.
    A digest claims its held rows into `DigestPart`s (`digest_part_id`); they are then pending
    like any other, and go out with their part.
    """

    __table_args__ = (
        UniqueConstraint("chat_id", "thread_id", "paper_id", "version"),
        Index("ix_delivery_due", "status", "parked", "next_attempt"),
        Index("ix_delivery_settled", "status", "created"),  # pruning sent and failed rows
        Index("ix_delivery_paper", "paper_id"),  # a paper's waiting rows, moved to its version
        # A confirmation names its row by id: an id must never come back after a delete
        # (SQLite would otherwise reuse the highest one, and a late confirmation mark the
        # newcomer sent). PostgreSQL's sequences never reuse one.
        {"sqlite_autoincrement": True},
    )
    id: int | None = Field(default=None, primary_key=True)
    chat_id: int = Field(sa_column=_chat_id())
    thread_id: int = Field(default=NO_THREAD, sa_column=_thread_id())
    paper_id: int = Field(foreign_key="paper.id", ondelete="CASCADE")
    version: int
    kind: str = Field(default=NewsKind.NEW, max_length=16)  # a `NewsKind`
    status: str = Field(default=DeliveryStatus.PENDING, max_length=16)  # a `DeliveryStatus`
    parked: bool = Field(default=False, sa_column_kwargs={"server_default": false()})
    summarize: bool = Field(default=False, sa_column_kwargs={"server_default": false()})
    attempts: int = 0
    next_attempt: datetime = Field(default_factory=utcnow, sa_column=_timestamp())
    last_error: str | None = Field(default=None, sa_type=Text)
    created: datetime = Field(default_factory=utcnow, sa_column=_timestamp())
    sent: datetime | None = Field(default=None, sa_column=_timestamp(nullable=True))
    message_id: int | None = Field(default=None, sa_column=Column(BigInteger, nullable=True))
    digest_part_id: int | None = Field(default=None, index=True)


class AnnouncedPaper(SQLModel, table=True):
    """A chat (in one forum topic, or `NO_THREAD`) was told of a paper, or will be: it has had a
    delivery of it queued. Never pruned, unlike the delivery rows, so that "a chat hears of a
    paper once" holds after `Outbox.prune`: the queue statement (`watcher.store.announce`) reads
    this, not the outbox. Written in the transaction that queues the delivery, so a row here
    means a delivery row existed. `version` is the newest version the chat was queued (for a
    revision, which it hears of once per version). Ids only: one narrow row per (destination,
    paper), and the primary key is the queue's lookup.
    """

    __tablename__ = "announced_paper"
    chat_id: int = Field(
        sa_column=Column(BigInteger, ForeignKey("chat.id"), primary_key=True, nullable=False)
    )
    thread_id: int = Field(default=NO_THREAD, sa_column=_thread_id(primary_key=True))
    paper_id: int = Field(foreign_key="paper.id", primary_key=True, ondelete="CASCADE")
    version: int


class DigestPart(SQLModel, table=True):
    """One message of a digest, rendered when the digest was claimed: its deliveries are marked
    sent together once Telegram confirmed it. `position` counts from 1 among `parts`."""

    __tablename__ = "digest_part"
    __table_args__ = ({"sqlite_autoincrement": True},)  # never reused: deliveries name it
    id: int | None = Field(default=None, primary_key=True)
    position: int
    parts: int
    html: str = Field(sa_type=Text)
    plain: str = Field(sa_type=Text)
    created: datetime = Field(default_factory=utcnow, sa_column=_timestamp(index=True))


class ParkedDestination(SQLModel, table=True):
    """A chat or forum topic that refused a message for a reason of its own, not the message's.

    The bot lacks the rights to post, or the topic is closed: an admin can fix that, so the
    deliveries to it wait (pending) and one of them probes again at `retry_at`, with a backoff.
    Parking is per topic: a closed topic must not hold back the chat's other topics.
    """

    __tablename__ = "parked_destination"
    chat_id: int = Field(
        sa_column=Column(
            BigInteger, ForeignKey("chat.id", ondelete="CASCADE"), primary_key=True, nullable=False
        )
    )
    thread_id: int = Field(default=NO_THREAD, sa_column=_thread_id(primary_key=True))
    reason: str = Field(sa_type=Text)
    since: datetime = Field(default_factory=utcnow, sa_column=_timestamp())
    failures: int = 1
    retry_at: datetime = Field(sa_column=_timestamp())


class HarvestState(SQLModel, table=True):
    """The OAI-PMH harvest of one scope (`HARVEST_SETS` as written; "" is all of arXiv).

    `harvested_through` is the high-water mark: the last datestamp day whose records were all
    stored. It moves only once a whole window is stored, so a harvest that dies half-way is
    redone from the same day. The rest says how the last attempts went, as `poll_state` does.
    """

    __tablename__ = "harvest_state"
    scope: str = Field(max_length=255, primary_key=True)
    harvested_through: date | None = Field(default=None, sa_column=Column(Date, nullable=True))
    last_attempt: datetime | None = Field(default=None, sa_column=_timestamp(nullable=True))
    last_success: datetime | None = Field(default=None, sa_column=_timestamp(nullable=True))
    last_error: str | None = Field(default=None, sa_type=Text)
    consecutive_failures: int = 0
    next_attempt: datetime | None = Field(default=None, sa_column=_timestamp(nullable=True))


class MailingSeen(SQLModel, table=True):
    """One arXiv mailing (its date, the day after the evening it went out): which source showed
    it first (`listing`, `OAI` or `API`) and when, its listing probes (a late day takes more),
    and the new papers the listing's last whole read of it counted (`listed`; None: never read
    whole). No `source` yet: probed, not seen. Its delay (`watcher.core.mailing_report`) is
    `seen_at` less the announcement instant."""

    __tablename__ = "mailing_seen"
    mailing: date = Field(sa_column=Column(Date, primary_key=True))
    source: str | None = Field(default=None, max_length=16)
    seen_at: datetime | None = Field(default=None, sa_column=_timestamp(nullable=True))
    listing_probes: int = 0
    listed: int | None = None


class HarvestedPaper(SQLModel, table=True):
    """The OAI-PMH datestamp of a followed paper when the harvest last stored it.

    A later datestamp means the paper changed (a new version, or only its metadata), and only
    then does the harvest ask the API for its version.
    """

    __tablename__ = "harvested_paper"
    arxiv_id: str = Field(max_length=64, primary_key=True)
    datestamp: date = Field(sa_column=Column(Date, nullable=False))


class LookupAllowance(SQLModel, table=True):
    """What a chat may still start of the follows that cost arXiv requests, as two token buckets
    standing at `updated` (`watcher.store.budgets`): new follows, and look-ups asked of arXiv.
    Keyed by chat id with no foreign key, so a budget never holds back deleting or moving a
    chat. Rows idle for `FORGET_AFTER` are pruned."""

    __tablename__ = "lookup_allowance"
    chat_id: int = Field(sa_column=Column(BigInteger, primary_key=True, autoincrement=False))
    follows: float
    lookups: float
    updated: datetime = Field(sa_column=_timestamp(index=True))


class HomonymOffer(SQLModel, table=True):
    """A homonym question not answered yet (`watcher.store.offers`): what its buttons, which
    carry `token`, may do. `names` and `categories` are JSON (a name's spellings; the offered
    categories with their papers). Expired at `OFFER_LIFETIME`, pruned some days later."""

    __tablename__ = "homonym_offer"
    token: str = Field(max_length=32, primary_key=True)
    chat_id: int = Field(sa_column=Column(BigInteger, nullable=False))
    thread_id: int = Field(default=NO_THREAD, sa_column=_thread_id())
    names: str = Field(sa_type=Text)
    categories: str = Field(sa_type=Text)
    anyway: bool
    total: int
    made: datetime = Field(sa_column=_timestamp(index=True))
