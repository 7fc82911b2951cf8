"""Importing a follow list: every follow and setting of one import in ONE transaction.

An import (`/import`, `arxiv-watcher import`) is planned first (`watcher.core.takeout`, read-only),
shown, and confirmed; `ImportStore.apply` then stores it whole or not at all. It checks again what
may have changed since the plan, inside its transaction: the chat's limit (`MAX_SUBSCRIPTIONS`,
all its forum topics together), its budget of new follows and look-ups (`LookupBudgets.spend`,
the row locked), a follow meanwhile added, a setting that can no longer be set. Any of these
raises `ImportStale` and the transaction is rolled back: nothing half-imported is left behind.

What a follow costs is what `/subscribe` charges (`watcher.core.subscribing`): nothing for one kept
up to date already (watched, or an active chat subscribes), one new follow for one nobody polls, and
one look-up too for a name or author id nobody follows yet. The operator's own list (no chat)
costs nothing and follows everything as watched, as `arxiv-watcher follow` does.

The saved papers of the file go onto the chat's reading list in the same transaction
(`watcher.store.reading_list.add_saved`), newest saved first as the file lists them; a list that
would then hold more than `MAX_SAVED` raises `ImportStale` too; so do the excluded words
(`watcher.store.exclusions.add_entries`), within `MAX_EXCLUDED`.

Settings are written in the same transaction (`watcher.store.exported_settings`). A destination the
import lets go (`paused: no`, quiet hours off or moved, a new zone moving a window) has what it
held flagged for one summary when more than the threshold waited, as /resume does.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import Engine, func
from sqlmodel import Session, col, select

from watcher.errors import WatcherError
from watcher.follows.excluded_words import MAX_EXCLUDED, ExcludedWord
from watcher.follows.follow_list import FollowRule, rule_key
from watcher.follows.identity import Identity
from watcher.follows.topics import Topic
from watcher.sentences import Sentence
from watcher.store.budgets import LookupBudgets
from watcher.store.chats import MAX_SUBSCRIPTIONS, SUMMARY_THRESHOLD, _restart_if_paused
from watcher.store.destinations import flag_summaries, held_threads
from watcher.store.exclusions import AddDone, Exclusions, add_entries
from watcher.store.exported_settings import SETTINGS, SettingRefused
from watcher.store.follow_state import add_identity, add_person, add_topic
from watcher.store.reading_list import MAX_SAVED, ReadingLists, add_saved, saved_count
from watcher.store.tables import Chat, FollowedAuthor, Subscription


class ImportStale(WatcherError):
    """What the import was planned on changed before it was confirmed; nothing was stored."""


@dataclass(frozen=True, slots=True)
class Cost:
    """What following one rule costs a chat: a new follow (a history to fetch), a look-up."""

    follow: bool
    lookup: bool


class ImportStore:
    """The reads an import plan makes, and the one transaction that applies it."""

    def __init__(
        self,
        engine: Engine,
        *,
        budgets: LookupBudgets | None = None,
        summary_threshold: int = SUMMARY_THRESHOLD,
    ) -> None:
        self.engine = engine
        self.budgets = budgets  # None: no allowance is charged (the operator's CLI)
        self.summary_threshold = summary_threshold  # as /resume: more waited, one summary

    def settings_of(self, chat_id: int, thread_id: int) -> dict[str, str]:
        """The settings of the chat's topic as `key: value` (a chat never seen: the defaults;
        nothing is stored)."""
        with Session(self.engine) as session:
            found = {key: s.read(session, chat_id, thread_id) for key, s in SETTINGS.items()}
            session.rollback()
            return found

    def saved_of(self, chat_id: int) -> list[tuple[str, str]]:
        """The chat's reading list as (arXiv id, title), newest saved first."""
        saved = ReadingLists(self.engine).all_saved(chat_id)
        return [(entry.arxiv_id, entry.title) for entry in saved]

    def excluded_of(self, chat_id: int) -> list[str]:
        """The chat's excluded words (/exclude), as stored, in the order added."""
        return Exclusions(self.engine).entries(chat_id)

    def saved_ids(self, chat_id: int) -> set[str]:
        return ReadingLists(self.engine).saved_ids(chat_id)

    def costs(self, rules: Sequence[FollowRule]) -> list[Cost]:
        """What each rule would cost a chat now."""
        with Session(self.engine) as session:
            return [_cost(session, rule) for rule in rules]

    def try_settings(
        self, chat_id: int, thread_id: int, settings: Mapping[str, str], *, now: datetime
    ) -> tuple[dict[str, str], dict[str, Sentence]]:
        """The known settings that would change (key: value as written back), and those that
        cannot be set (key: why); nothing is stored. Unknown keys are the caller's to report."""
        changes: dict[str, str] = {}
        refused: dict[str, Sentence] = {}
        with Session(self.engine) as session:
            for key, setting in SETTINGS.items():
                if key not in settings:
                    continue
                before = setting.read(session, chat_id, thread_id)
                try:
                    setting.write(session, chat_id, thread_id, settings[key], now)
                except SettingRefused as error:
                    refused[key] = error.sentence
                    continue
                after = setting.read(session, chat_id, thread_id)
                if after != before:
                    changes[key] = after
            session.rollback()
        return changes, refused

    def apply(
        self,
        *,
        chat_id: int | None,
        thread_id: int,
        rules: Sequence[FollowRule],
        settings: Mapping[str, str],
        now: datetime,
        saves: Sequence[tuple[str, str]] = (),
        excludes: Sequence[ExcludedWord] = (),
    ) -> list[int]:
        """Follow `rules` in the chat's topic (`chat_id` None: as the operator's, watched), set
        `settings` and save `saves` (arXiv id, title; newest first), all or nothing; the ids of
        the follows. Raises ImportStale."""
        with Session(self.engine) as session:
            if chat_id is None:
                watched = [_add(session, rule, watched=True).id for rule in rules]
                session.commit()
                return [followed_id for followed_id in watched if followed_id is not None]
            costs = [_cost(session, rule) for rule in rules]
            follows, lookups = sum(c.follow for c in costs), sum(c.lookup for c in costs)
            if (
                self.budgets is not None
                and follows
                and not self.budgets.spend(session, chat_id, follows=follows, lookups=lookups)
            ):
                raise ImportStale("the chat's allowance of new follows is spent for now")
            if session.get(Chat, chat_id) is None:
                raise ImportStale("the chat is not known")
            count = session.exec(
                select(func.count()).where(col(Subscription.chat_id) == chat_id)
            ).one()
            if count + len(rules) > MAX_SUBSCRIPTIONS:
                raise ImportStale(f"a chat follows at most {MAX_SUBSCRIPTIONS}")
            ids: list[int] = []
            for rule in rules:
                followed = _add(session, rule, watched=False)
                assert followed.id is not None
                if session.get(Subscription, (chat_id, thread_id, followed.id)) is not None:
                    raise ImportStale(f"{rule} is followed here already")
                _restart_if_paused(session, followed.id)
                session.add(
                    Subscription(
                        chat_id=chat_id, thread_id=thread_id, followed_author_id=followed.id
                    )
                )
                session.flush()
                ids.append(followed.id)
            held = held_threads(session, chat_id, now)
            for key, setting in SETTINGS.items():
                if key in settings:
                    try:
                        setting.write(session, chat_id, thread_id, settings[key], now)
                    except SettingRefused as error:
                        raise ImportStale(f"{key}: {error}") from None
            session.flush()
            if saves:
                add_saved(session, chat_id, saves, now=now)
                if saved_count(session, chat_id) > MAX_SAVED:
                    raise ImportStale(f"a chat saves at most {MAX_SAVED} papers")
            if excludes and add_entries(session, chat_id, excludes, now=now) == AddDone.FULL:
                raise ImportStale(f"a chat excludes at most {MAX_EXCLUDED} words")
            for released in held - held_threads(session, chat_id, now):
                flag_summaries(
                    session, chat_id, threshold=self.summary_threshold, thread_id=released
                )
            session.commit()
            return ids


def _add(session: Session, rule: FollowRule, *, watched: bool) -> FollowedAuthor:
    if isinstance(rule, Topic):
        return add_topic(session, rule, watched=watched)[0]
    if isinstance(rule, Identity):
        return add_identity(session, rule, None, watched=watched)[0]
    return add_person(session, rule.names, rule.categories, watched=watched)[0]


def _cost(session: Session, rule: FollowRule) -> Cost:
    """What `/subscribe` would charge for `rule` (see the module docstring)."""
    followed = session.exec(
        select(FollowedAuthor).where(col(FollowedAuthor.rule_key) == rule_key(rule))
    ).first()
    if followed is None:
        return Cost(follow=True, lookup=not isinstance(rule, Topic))
    if followed.watched:
        return Cost(follow=False, lookup=False)
    kept = session.exec(
        select(Subscription.chat_id)
        .join(Chat, col(Chat.id) == col(Subscription.chat_id))
        .where(col(Subscription.followed_author_id) == followed.id, col(Chat.active))
        .limit(1)
    ).first()
    return Cost(follow=kept is None, lookup=False)
