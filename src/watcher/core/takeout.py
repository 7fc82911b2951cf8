"""Export and import of a chat's follows and settings (or the operator's own list), free of any
chat framework: the bot's /export and /import and the CLI's `export` and `import` share it.

- `export_list`: the chat's (topic's) follows and settings as a file, plain text
  (`watcher.follows.follow_list`) or OPML (`watcher.follows.follow_opml`), with its file name.
- `read_file`: a file's bytes to what it holds, refusing with `FileRefused` (one sentence) what
  is too large (`MAX_FILE_BYTES`), not text, not UTF-8, or malformed XML; OPML is told from text
  by its first characters, not by the name it was sent under.
- `plan_import`: what an import would do (read-only): each follow added, or skipped and why
  (already followed here, twice in the file, over the chat's limit, over its allowance of new
  follows), each setting set, or skipped (unknown to this version, a value that cannot be set,
  no chat to set it on). Its `digest` names the plan, so a confirmation pressed after the chat
  changed is told apart (the bot's button carries it).
- `apply_import`: the plan stored in one transaction (`watcher.store.applied_imports`).
- The chat's reading list (/saved) travels in the same file, one `save ARXIV-ID  # title` line a
  paper: an import saves those not saved here yet, within the chat's `MAX_SAVED`; each over
  that, or twice in the file, is skipped and says why. The operator's list has none.
- So do the chat's excluded words (/exclude), one `exclude WORD` line each: an import adds
  those not excluded here yet, within `MAX_EXCLUDED`. A file from before them imports as it did.
- `without_refused`: before planning, the author ids arXiv does not know (asked by
  `watcher.core.identity_check`, as /subscribe asks) move to the skipped lines, with the reason.

Database thread: every function here but `read_file` reads or writes the store.
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import datetime

from watcher.follows.excluded_words import MAX_EXCLUDED, ExcludedWord
from watcher.follows.follow_list import (
    Entry,
    FollowRule,
    ReadList,
    SavedLine,
    Skipped,
    read_text,
    render_text,
    rule_key,
)
from watcher.follows.follow_opml import BadOpml, read_opml, render_opml
from watcher.follows.followed import Followed
from watcher.follows.identity import Identity
from watcher.follows.rules import PersonRule
from watcher.follows.topics import topic_from_stored
from watcher.kinds import FollowKind
from watcher.sentences import SaysSentence, Sentence, sentence
from watcher.store import Store
from watcher.store.applied_imports import ImportStore
from watcher.store.chats import MAX_SUBSCRIPTIONS, Chats
from watcher.store.exported_settings import SETTINGS
from watcher.store.reading_list import MAX_SAVED
from watcher.store.tables import NO_THREAD

MAX_FILE_BYTES = 256 * 1024
# Where a skipped line was, besides its line number (`watcher.follows.follow_list.line_at`).
_HEADER = sentence("header")
_FILE = sentence("file")
_TWICE = sentence("twice in the file")
TEXT_NAME = "arxiv-watcher-follows.txt"
OPML_NAME = "arxiv-watcher-follows.opml"


class FileRefused(SaysSentence, ValueError):
    """A file that cannot be imported at all; the message is the sentence to answer with (a
    `watcher.sentences.Sentence`, `error.sentence`)."""


@dataclass(frozen=True, slots=True)
class Target:
    """Where an import goes: a chat's forum topic, or the operator's own list (`chat_id` None)."""

    chat_id: int | None
    thread_id: int = NO_THREAD


@dataclass(frozen=True, slots=True)
class ImportPlan:
    """What an import would do; `digest` names it (the same file on an unchanged chat gives the
    same digest)."""

    adds: tuple[Entry, ...]
    skipped: tuple[Skipped, ...]
    settings: Mapping[str, str]  # known settings that change, as they will read
    settings_skipped: tuple[Skipped, ...]
    new_follows: int  # of the adds, how many start a history (the allowance they spend)
    saves: tuple[SavedLine, ...] = ()  # papers to save, newest saved first
    saved_already: int = 0  # papers of the file saved here already (nothing to do)
    excludes: tuple[ExcludedWord, ...] = ()  # words to exclude here (/exclude), not yet

    @property
    def digest(self) -> str:
        parts = [rule_key(entry.rule) for entry in self.adds]
        parts += [f"{key}={value}" for key, value in sorted(self.settings.items())]
        parts += [f"save {line.arxiv_id}" for line in self.saves]
        parts += [f"exclude {word.text}" for word in self.excludes]
        return hashlib.sha256("\n".join(parts).encode()).hexdigest()[:10]

    @property
    def empty(self) -> bool:
        return not self.adds and not self.settings and not self.saves and not self.excludes


def follow_rule(followed: Followed) -> FollowRule:
    """The rule a stored follow is, as a list writes it."""
    if followed.kind == FollowKind.TOPIC and followed.topic is not None:
        return topic_from_stored(followed.topic, followed.categories)
    if followed.identity is not None:
        return Identity.from_key(followed.identity)
    return PersonRule(followed.names, followed.categories)


def export_list(
    store: Store,
    chats: Chats,
    imports: ImportStore,
    target: Target,
    *,
    opml: bool,
    now: datetime,
    say: Callable[[Sentence], str] = str,
) -> tuple[str, bytes]:
    """The file name and bytes of the target's follows and settings; `say` says the text
    file's comment lines (in the chat's language; English by default)."""
    if target.chat_id is None:
        followed = [f for f in store.followed() if f.watched]
        settings: dict[str, str] = {}
        saved: list[tuple[str, str]] = []
        excluded: list[str] = []
        title = sentence("the operator's list, exported {when} UTC", when=f"{now:%Y-%m-%d %H:%M}")
    else:
        followed = store.followed(chats.subscribed_ids(target.chat_id, thread_id=target.thread_id))
        settings = imports.settings_of(target.chat_id, target.thread_id)
        saved = imports.saved_of(target.chat_id)
        excluded = [ExcludedWord.stored(text).shown for text in imports.excluded_of(target.chat_id)]
        when = f"{now:%Y-%m-%d %H:%M}"
        title = (
            sentence(
                "chat {chat}, topic {topic}, exported {when} UTC",
                chat=target.chat_id,
                topic=target.thread_id,
                when=when,
            )
            if target.thread_id != NO_THREAD
            else sentence("chat {chat}, exported {when} UTC", chat=target.chat_id, when=when)
        )
    rules = [(follow_rule(f), f.name if f.identity is not None else None) for f in followed]
    if opml:
        return OPML_NAME, render_opml(rules, settings, title=str(title), now=now, saved=saved)
    text = render_text(rules, settings, title=title, saved=saved, excluded=excluded, say=say)
    return TEXT_NAME, text.encode("utf-8")


def read_file(data: bytes) -> ReadList:
    """What a file holds; FileRefused for one that is too large, no text, or malformed."""
    if len(data) > MAX_FILE_BYTES:
        raise FileRefused(
            sentence(
                "That file is too large ({size} KB); a follow list is at most {most} KB.",
                size=len(data) // 1024,
                most=MAX_FILE_BYTES // 1024,
            )
        )
    if b"\x00" in data:
        raise FileRefused(
            sentence("That is not a text file; send the .txt or .opml file /export made.")
        )
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise FileRefused(
            sentence("That file is not UTF-8 text; save it as UTF-8 and send it again.")
        ) from None
    if text.lstrip().startswith("<"):
        try:
            return read_opml(text)
        except BadOpml as error:
            raise FileRefused(
                sentence("That OPML file cannot be read: {problem}.", problem=error.sentence)
            ) from None
    return read_text(text)


def plan_import(
    store: Store,
    chats: Chats,
    imports: ImportStore,
    read: ReadList,
    target: Target,
    *,
    now: datetime,
) -> ImportPlan:
    """What importing `read` into `target` would do now (see the module docstring)."""
    adds: list[Entry] = []
    skipped: list[Skipped] = list(read.skipped)
    seen: set[str] = set()
    here: set[str] = set()
    room = math.inf
    follows_left = lookups_left = math.inf
    if target.chat_id is not None:
        here = {
            f.key
            for f in store.followed(
                chats.subscribed_ids(target.chat_id, thread_id=target.thread_id)
            )
        }
        room = MAX_SUBSCRIPTIONS - _subscription_count(chats, target.chat_id)
        if imports.budgets is not None:
            standing = imports.budgets.standing(target.chat_id)
            follows_left, lookups_left = math.floor(standing.follows), math.floor(standing.lookups)
    else:
        here = {f.key for f in store.followed() if f.watched}
    candidates = []
    for entry in read.entries:
        key = rule_key(entry.rule)
        if key in seen:
            skipped.append(Skipped(entry.where, str(entry.rule), _TWICE))
        elif key in here:
            skipped.append(Skipped(entry.where, str(entry.rule), sentence("followed here already")))
        else:
            candidates.append(entry)
        seen.add(key)
    costs = imports.costs([entry.rule for entry in candidates]) if candidates else []
    new_follows = 0
    for entry, cost in zip(candidates, costs, strict=True):
        if len(adds) >= room:
            why = sentence("over the limit: a chat follows at most {most}", most=MAX_SUBSCRIPTIONS)
            skipped.append(Skipped(entry.where, str(entry.rule), why))
            continue
        if target.chat_id is not None and (
            (cost.follow and follows_left < 1) or (cost.lookup and lookups_left < 1)
        ):
            why = sentence(
                "over this chat's allowance of new follows for now; import the file again later"
            )
            skipped.append(Skipped(entry.where, str(entry.rule), why))
            continue
        follows_left -= cost.follow
        lookups_left -= cost.lookup
        new_follows += cost.follow
        adds.append(entry)
    changes, settings_skipped = _plan_settings(imports, read.settings, target, now=now)
    saves, saved_already = _plan_saves(imports, read.saved, target, skipped)
    return ImportPlan(
        tuple(adds),
        tuple(skipped),
        changes,
        settings_skipped,
        new_follows,
        saves=saves,
        saved_already=saved_already,
        excludes=_plan_excludes(imports, read.excluded, target, skipped),
    )


def _plan_saves(
    imports: ImportStore, lines: tuple[SavedLine, ...], target: Target, skipped: list[Skipped]
) -> tuple[tuple[SavedLine, ...], int]:
    """The file's saved papers to save here, and how many are saved here already; the others
    go to `skipped`, with why."""
    if target.chat_id is None:
        why = sentence("a reading list is a chat's: import it with --chat ID")
        skipped += [Skipped(line.where, f"save {line.arxiv_id}", why) for line in lines]
        return (), 0
    have = set(imports.saved_ids(target.chat_id)) if lines else set()
    seen: set[str] = set()
    saves: list[SavedLine] = []
    already = 0
    for line in lines:
        text = f"save {line.arxiv_id}"
        if line.arxiv_id in seen:
            skipped.append(Skipped(line.where, text, _TWICE))
        elif line.arxiv_id in have:
            already += 1
        elif len(have) + len(saves) >= MAX_SAVED:
            why = sentence(
                "over the limit: a chat saves at most {most}; unsave some with /saved",
                most=MAX_SAVED,
            )
            skipped.append(Skipped(line.where, text, why))
        else:
            saves.append(line)
        seen.add(line.arxiv_id)
    return tuple(saves), already


def _plan_excludes(
    imports: ImportStore, words: tuple[ExcludedWord, ...], target: Target, skipped: list[Skipped]
) -> tuple[ExcludedWord, ...]:
    """The file's excluded words not excluded here yet, within `MAX_EXCLUDED`; those over the
    limit go to `skipped`, with why."""
    if target.chat_id is None:
        why = sentence("excluded words are a chat's: import them with --chat ID")
        skipped += [Skipped(_FILE, f"exclude {word.shown}", why) for word in words]
        return ()
    have = set(imports.excluded_of(target.chat_id)) if words else set()
    new = list(dict.fromkeys(word for word in words if word.text not in have))
    room = max(0, MAX_EXCLUDED - len(have))
    why = sentence(
        "over the limit: a chat excludes at most {most} words; /exclude off N", most=MAX_EXCLUDED
    )
    skipped += [Skipped(_FILE, f"exclude {word.shown}", why) for word in new[room:]]
    return tuple(new[:room])


def _plan_settings(
    imports: ImportStore, settings: Mapping[str, str], target: Target, *, now: datetime
) -> tuple[dict[str, str], tuple[Skipped, ...]]:
    unknown = sentence("a setting this version does not know")
    skipped = [
        Skipped(_HEADER, f"{key}: {value}", unknown)
        for key, value in settings.items()
        if key not in SETTINGS
    ]
    if target.chat_id is None:
        known = [f"{key}: {value}" for key, value in settings.items() if key in SETTINGS]
        skipped += [Skipped(_HEADER, text, sentence("settings are a chat's")) for text in known]
        return {}, tuple(skipped)
    changes, refused = imports.try_settings(target.chat_id, target.thread_id, settings, now=now)
    skipped += [Skipped(_HEADER, f"{key}: {settings[key]}", why) for key, why in refused.items()]
    return changes, tuple(skipped)


def apply_import(
    imports: ImportStore, plan: ImportPlan, target: Target, *, now: datetime
) -> list[int]:
    """Store the plan in one transaction; ImportStale when the chat changed meanwhile."""
    return imports.apply(
        chat_id=target.chat_id,
        thread_id=target.thread_id,
        rules=[entry.rule for entry in plan.adds],
        settings=plan.settings,
        saves=[(line.arxiv_id, line.title) for line in plan.saves],
        excludes=plan.excludes,
        now=now,
    )


def without_refused(read: ReadList, refused: Mapping[str, Sentence]) -> ReadList:
    """`read` with the author ids `refused` (`Identity.key`: why, `watcher.core.identity_check`)
    among its skipped lines rather than its follows."""
    if not refused:
        return read
    kept: list[Entry] = []
    skipped = list(read.skipped)
    for entry in read.entries:
        why = refused.get(entry.rule.key) if isinstance(entry.rule, Identity) else None
        if why is None:
            kept.append(entry)
        else:
            skipped.append(Skipped(entry.where, str(entry.rule), why))
    return ReadList(tuple(kept), read.settings, tuple(skipped), read.saved, read.excluded)


def identities_in(read: ReadList) -> list[Identity]:
    """The author ids a list asks to follow, to be checked with arXiv before it is planned."""
    return [entry.rule for entry in read.entries if isinstance(entry.rule, Identity)]


def _subscription_count(chats: Chats, chat_id: int) -> int:
    """The chat's follows, all its forum topics together (the limit counts them all)."""
    return sum(len(ids) for ids in chats.subscriptions_of([chat_id]).values())
