"""The plain-text follow list that /export writes and /import (and `arxiv-watcher import`) reads.

One follow a line, in the syntax the bot's commands and `WATCH_AUTHORS` take:

    # arxiv-watcher follows: This chat, exported 2026-12-03 09:40 UTC
    # digest: daily 08:00
    # timezone: Europe/Berlin
    # revisions: on
    # quiet: 22:00-07:00
    subscribe Dezun Dong|De-Zun Dong
    subscribe Wei Wang in cs.DC,cs.NI
    subscribe arxiv:dong_d_1  # Dezun Dong
    watch "remote direct memory access" rdma in cs.DC
    watch in cs.DC

    save 2604.01234  # Adaptive Routing in Dragonfly Networks

`subscribe` takes a name (aliases after `|`, categories after ` in `), an arXiv author id or an
ORCID iD; `watch` a topic; `save` a paper of the chat's reading list (/saved), by its arXiv id,
its title after `#` for the reader (and for a service that does not store the paper), newest
saved first; a line without any of these words is read as `WATCH_AUTHORS` reads an entry,
so a bare list of names imports too. A leading `/` is fine. `#` starts a comment. The comment
lines before the first follow are the header: those of the shape `# key: value` are the chat's
settings, read into a dict, so that a setting this version does not know is reported rather than
lost or refused (`watcher.store.exported_settings` says which keys are known).

Pure: no I/O. Each line that cannot be followed becomes a `Skipped` with its line number and the
one-line reason the commands give (both `watcher.sentences.Sentence`s, said in the reader's
language by the bot, in English by the command line).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field

from watcher.arxiv.parse import split_arxiv_id
from watcher.errors import WatcherError
from watcher.follows.excluded_words import ExcludedError, ExcludedWord, parse_excluded
from watcher.follows.identity import Identity, IdentityError, parse_identity
from watcher.follows.rules import BadRule, PersonRule, parse_person, with_categories
from watcher.follows.topics import Topic, parse_topic
from watcher.sentences import SaysSentence, Sentence, sentence

FollowRule = PersonRule | Identity | Topic
MAX_LINES = 1000  # lines read from one file; a chat follows at most 50 and saves at most 500
MAX_TITLE = 500  # characters of a saved paper's title kept from a file
_SETTING = re.compile(r"#\s*(?P<key>[a-z][a-z_-]{0,31}):\s*(?P<value>.*?)\s*$")
_COMMENT = re.compile(r"\s#")
_SUBSCRIBE = frozenset({"subscribe", "follow"})
_WATCH = frozenset({"watch"})
_SAVE = "save"
_EXCLUDE = "exclude"


@dataclass(frozen=True, slots=True)
class Entry:
    """One follow read from a file: where it was (a line number, or an OPML outline's), the rule."""

    where: Sentence
    rule: FollowRule


@dataclass(frozen=True, slots=True)
class Skipped:
    """A line or outline not followed: where, what it said (clipped), and why."""

    where: Sentence  # "line 3", "outline 2", "header"
    text: str
    reason: Sentence


@dataclass(frozen=True, slots=True)
class SavedLine:
    """A saved paper read from a file: where, its arXiv id (no version), its title ("" if none)."""

    where: Sentence
    arxiv_id: str
    title: str = ""


@dataclass(frozen=True, slots=True)
class ReadList:
    """What a file holds: its follows in order, its settings header, what could not be read,
    and the saved papers of a reading list, newest saved first."""

    entries: tuple[Entry, ...]
    settings: Mapping[str, str] = field(default_factory=dict)
    skipped: tuple[Skipped, ...] = ()
    saved: tuple[SavedLine, ...] = ()
    excluded: tuple[ExcludedWord, ...] = ()  # words the chat never wants to see (/exclude)


def rule_key(rule: FollowRule) -> str:
    """The rule's unique key among all follows (`followed_author.rule_key`)."""
    return rule.rule_key if isinstance(rule, Topic) else rule.key


def rule_line(rule: FollowRule, *, shown_name: str | None = None) -> str:
    """The rule as a line of the list: `subscribe NAME|ALIAS in CATS`, `subscribe arxiv:ID`,
    `watch TOPIC in CATS`, `watch in CATS` (a whole category). `shown_name`: an identity's
    person, written as a comment."""
    if isinstance(rule, Topic):  # a whole category is shown "all of cs.DC", written "in cs.DC"
        return f"watch in {','.join(rule.categories)}" if rule.whole else f"watch {rule}"
    if isinstance(rule, Identity):
        note = f"  # {shown_name}" if shown_name and shown_name != rule.shown else ""
        return f"subscribe {rule.key}{note}"
    return f"subscribe {with_categories('|'.join(rule.names), rule.categories)}"


def why_not(error: WatcherError) -> Sentence:
    """The reason an error gives, as a Sentence (the errors a line's reading raises say one)."""
    if isinstance(error, SaysSentence):
        return error.sentence
    return sentence("{reason}", reason=str(error))


def line_at(number: int) -> Sentence:
    """Where a line of a file is: "line 3"."""
    return sentence("line {number}", number=number)


def parse_rule(text: str) -> FollowRule:
    """One follow as a line of the list has it (see the module docstring); BadRule (TopicError,
    UnknownCategory) with the one-line reason when it cannot be followed."""
    text = _COMMENT.split(text.strip(), maxsplit=1)[0].strip()
    word, _, rest = text.partition(" ")
    verb = word.removeprefix("/").split("@", 1)[0].casefold()
    if verb in _WATCH:
        return parse_topic(rest)
    spec = rest if verb in _SUBSCRIBE else text
    try:
        identity = parse_identity(spec)
    except IdentityError as error:
        raise BadRule(error.sentence) from None
    return identity if identity is not None else parse_person(spec)


class BadSave(SaysSentence, WatcherError):
    """A `save` line whose paper is no arXiv id; the message says so."""


def saved_line(where: Sentence, text: str) -> SavedLine:
    """`save ARXIV-ID  # title` (the word `save` already taken off); BadSave when the id is
    no arXiv id."""
    spec, _, title = text.partition("#")
    try:
        arxiv_id, _version = split_arxiv_id(spec.strip())
    except ValueError:
        raise BadSave(sentence("{text} is not an arXiv id", text=repr(spec.strip()[:40]))) from None
    return SavedLine(where, arxiv_id, " ".join(title.split())[:MAX_TITLE])


def read_text(text: str) -> ReadList:
    """The follows, settings, saved papers and unreadable lines of a plain-text list."""
    entries: list[Entry] = []
    saved: list[SavedLine] = []
    excluded: list[ExcludedWord] = []
    skipped: list[Skipped] = []
    settings: dict[str, str] = {}
    read = 0
    lines = text.splitlines()
    for number, raw in enumerate(lines, start=1):
        line = raw.strip()
        if not line:
            continue
        if line.startswith("#"):
            found = _SETTING.fullmatch(line)
            if found is not None and not entries and not skipped and not saved:
                settings[found["key"]] = found["value"]
            continue
        read += 1
        if read > MAX_LINES:
            rest = sum(1 for other in lines[number - 1 :] if other.strip()[:1] not in ("", "#"))
            more = sentence(
                "{count} more lines not read (at most {most})", count=rest, most=MAX_LINES
            )
            skipped.append(Skipped(line_at(number), "…", more))
            break
        word, _, after = line.partition(" ")
        where = line_at(number)
        if word.removeprefix("/").casefold() == _EXCLUDE:
            try:
                excluded.append(parse_excluded(after))
            except ExcludedError as error:
                skipped.append(Skipped(where, clip(line), error.sentence))
            continue
        try:
            if word.removeprefix("/").casefold() == _SAVE:
                saved.append(saved_line(where, after))
                continue
        except WatcherError as not_saved:
            try:  # a person named "Save ..." in an old list of names
                entries.append(Entry(where, parse_rule(line)))
            except WatcherError:
                skipped.append(Skipped(where, clip(line), why_not(not_saved)))
            continue
        try:
            entries.append(Entry(where, parse_rule(line)))
        except WatcherError as error:
            skipped.append(Skipped(where, clip(line), why_not(error)))
    return ReadList(tuple(entries), settings, tuple(skipped), tuple(saved), tuple(excluded))


def render_text(
    rules: Iterable[tuple[FollowRule, str | None]],
    settings: Mapping[str, str],
    *,
    title: Sentence,
    saved: Iterable[tuple[str, str]] = (),
    excluded: Iterable[str] = (),
    say: Callable[[Sentence], str] = str,
) -> str:
    """The list: a header (`title`, the settings as `# key: value`), then one rule a line
    (each with its identity's shown name, if any), then one saved paper (arXiv id, title) a
    line, newest saved first, then one excluded word or "phrase" (as /exclude lists it) a line.

    The header's comment lines are said by `say` (the bot's, in the chat's language; English
    by default); the keys, the settings and the lines are the same in every language."""
    comments = [
        sentence("arxiv-watcher follows: {title}", title=title),
        sentence(
            "One follow a line: subscribe NAME|ALIAS in CATEGORY, subscribe AUTHOR-ID, watch "
            "TOPIC; one saved paper (/saved) a line: save ARXIV-ID; one word never to see here "
            '(/exclude) a line: exclude WORD or exclude "A PHRASE".'
        ),
        sentence(
            "Send this file to the bot with /import as its caption, or: arxiv-watcher import FILE"
        ),
    ]
    header = [
        *(f"# {' '.join(say(comment).split())}" for comment in comments),
        *(f"# {key}: {value}" for key, value in settings.items()),
    ]
    body = [rule_line(rule, shown_name=name) for rule, name in rules]
    for arxiv_id, paper_title in saved:
        shown = " ".join(paper_title.split())
        body.append(f"save {arxiv_id}  # {shown}" if shown else f"save {arxiv_id}")
    body += [f"exclude {shown}" for shown in excluded]
    return "\n".join([*header, *body]) + "\n"


def clip(text: str, most: int = 60) -> str:
    return text if len(text) <= most else text[: most - 1] + "…"
