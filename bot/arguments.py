"""Command arguments: from the words after a command to checked values, or a one-line usage answer.

Pure functions, no I/O and no python-telegram-bot: each takes the argument words PTB split off
(`context.args`) and returns what the handler needs, or raises `Refused`: one sentence saying
what was wrong, and one example of the command (the handler sends both, escaped).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from bot.i18n import _, say
from watcher.arxiv.parse import split_arxiv_id
from watcher.arxiv.taxonomy import resolve_category
from watcher.calendars.quiet_hours import QuietHours, parse_quiet
from watcher.calendars.schedule import (
    MONDAY_TO_FRIDAY,
    BadSchedule,
    DigestSchedule,
    canonical_zone,
    parse_wall_time,
    parse_weekdays,
)
from watcher.core.suggestions import MAX_COUNT as MAX_SUGGESTED
from watcher.core.suggestions import MIN_COUNT as MIN_SUGGESTED
from watcher.errors import UnknownCategory, UsageError
from watcher.follows.identity import (
    EXAMPLE_ARXIV_PAGE,
    ORCID_SHAPE,
    Identity,
    IdentityError,
    parse_identity,
)
from watcher.follows.names import MAX_NAME_LENGTH, check_person_name, unquote
from watcher.follows.rules import (
    MAX_RULE_CATEGORIES,
    BadRule,
    PersonRule,
    parse_categories,
    split_categories,
    split_rules,
)
from watcher.follows.search_words import EXAMPLE as SEARCH_EXAMPLE
from watcher.follows.search_words import SearchError, SearchQuery, parse_search, search_words
from watcher.kinds import MessageFormat
from watcher.sentences import SaysSentence, Sentence

DEFAULT_COUNT = 5
MAX_COUNT = 20
# Names (or author ids) one /subscribe or /unsubscribe may carry, separated by ; or new lines.
MAX_FOLLOWS_AT_ONCE = 10
_ON = frozenset({"on", "yes", "true", "1"})
_OFF = frozenset({"off", "no", "false", "0"})
_VERSION = re.compile(r"v[1-9][0-9]{0,3}$", re.IGNORECASE)


@dataclass(frozen=True, slots=True)
class SubjectArguments:
    categories: tuple[str, ...]  # canonical, distinct, as given: ("cs.DC", "cs.NI")
    count: int


@dataclass(frozen=True, slots=True)
class PaperArguments:
    arxiv_id: str  # without version
    version: int | None


class Refused(UsageError):
    """Wrong arguments: `wrong` says in one sentence what was wrong (and what would be right),
    `example` is one command that would do. The handler sends both (`reply_usage`)."""

    def __init__(self, wrong: str, example: str) -> None:
        super().__init__(f"{wrong} For example: {example}")
        self.wrong = wrong
        self.example = example


# One example of each command, shown under every refusal of its arguments.
EXAMPLES = {
    "subscribe": "/subscribe Dezun Dong",
    "unsubscribe": "/unsubscribe Dezun Dong",
    "recent": "/recent 10",
    "subject": "/subject cs.DC,cs.NI 5",
    "paper": "/paper 2604.01234",
    "authors": "/authors 2604.01234",
    "revisions": "/revisions on",
    "digest": "/digest daily 8am",
    "timezone": "/timezone Europe/Berlin",
    "quiet": "/quiet 22:00-07:00",
    "silent": "/silent on",
    "format": "/format compact",
    "preview": "/preview on",
    "search": SEARCH_EXAMPLE,
    "suggest": "/suggest 5",
}


def unknown_category(error: UnknownCategory) -> str:
    """One sentence: the category typed is none of arXiv's, and the nearest ones."""
    near = error.suggestions
    typed = repr(error.category[:40])
    if not near:
        return _("{typed} is not an arXiv category.", typed=typed)
    listed = (
        near[0]
        if len(near) == 1
        else _("{some} or {last}", some=", ".join(near[:-1]), last=near[-1])
    )
    return _("{typed} is not an arXiv category; did you mean {listed}?", typed=typed, listed=listed)


def person_rule(args: Sequence[str], *, command: str = "subscribe") -> PersonRule | None:
    """The person in `args`, "NAME" or "NAME in CAT,CAT", whitespace tidied; None if none.

    /subscribe takes only names that can be followed (`watcher.follows.names.check_person_name`).
    /unsubscribe only looks a name up, so any followed name, even one followed before that
    rule, can be stopped: it is held to the length limit alone.
    """
    text = " ".join(" ".join(args).split())
    if not text:
        return None
    try:
        name, categories = split_categories(text)
    except UnknownCategory as error:
        raise Refused(unknown_category(error), EXAMPLES[command]) from None
    except BadRule as error:
        raise Refused(said(error), "/subscribe Wei Wang in cs.DC,cs.NI") from None
    if command == "unsubscribe":
        if len(name) > MAX_NAME_LENGTH:
            raise Refused(
                _(
                    "That name is too long (at most {most} characters).",
                    most=MAX_NAME_LENGTH,
                ),
                EXAMPLES[command],
            )
        problem: Sentence | str | None = None
    else:
        problem = check_person_name(name)
    if problem is not None:
        raise Refused(_full_sentence(say(problem)), EXAMPLES[command])
    return PersonRule((name,), categories)


def follow_parts(text: str) -> list[str]:
    """The names (or author ids) in a /subscribe or /unsubscribe, split as WATCH_AUTHORS is: on
    `;` and new lines, and on commas between full names (`_comma_names`). Quotes around a name
    are read by `person_rule` (`split_categories`)."""
    parts = [name for part in split_rules(text) for name in _comma_names(part)]
    if len(parts) > MAX_FOLLOWS_AT_ONCE:
        raise Refused(
            _(
                "{count} names in one message; at most {most}, separated by ; or new lines.",
                count=len(parts),
                most=MAX_FOLLOWS_AT_ONCE,
            ),
            "/subscribe Dezun Dong; Yemao Xu",
        )
    return parts


_IN = re.compile(r"\s+in\s+(?=\S+$)", re.IGNORECASE)


def _comma_names(part: str) -> list[str]:
    """`part` read as several names when commas separate full names (two words or more each):
    "Dezun Dong, Yemao Xu" is two, as if `;` were between them; "Dong, Dezun" (family name
    first), a part with aliases (`|`) or quotes stays one. A trailing `in CATEGORY` stays with
    the last name, as after `;`."""
    if "|" in part or '"' in part:
        return [part]
    found = _IN.search(part)
    names, where = (part[: found.start()], part[found.start() :]) if found else (part, "")
    pieces = [piece.strip() for piece in names.split(",")]
    if len(pieces) < 2 or any(len(piece.split()) < 2 for piece in pieces):
        return [part]
    return [*pieces[:-1], pieces[-1] + where]


def follow_request(part: str) -> Identity | PersonRule:
    """One name or author id of /subscribe: an identity if it is one, else a person rule."""
    words = part.split()
    found = identity(unquote(part).split())
    if found is not None:
        return found
    rule = person_rule(words, command="subscribe")
    assert rule is not None, "a part is never empty"
    return rule


def identity(args: Sequence[str]) -> Identity | None:
    """The arXiv author id or ORCID iD in `args`, or None when they hold no identity (a name,
    or nothing). A plainly meant but wrong one (a bad ORCID check digit) is a UsageError."""
    text = " ".join(args).strip()
    try:
        return parse_identity(text)
    except IdentityError as error:
        shown = ORCID_SHAPE if "ORCID iD:" in str(error) else EXAMPLE_ARXIV_PAGE
        raise Refused(say(error.sentence), f"/subscribe {shown}") from None


def count(args: Sequence[str], *, command: str = "recent") -> int:
    """The optional paper count N: DEFAULT_COUNT when absent, 1 to MAX_COUNT when given."""
    if not args:
        return DEFAULT_COUNT
    if len(args) > 1:
        raise Refused(_("One number at most."), EXAMPLES[command])
    return _count_word(args[0], command=command)


def _count_word(word: str, *, command: str) -> int:
    if not (word.isascii() and word.isdigit()):
        raise Refused(_("{typed} is not a number.", typed=repr(word[:20])), EXAMPLES[command])
    value = int(word)
    if not 1 <= value <= MAX_COUNT:
        raise Refused(_("N must be from 1 to {most}.", most=MAX_COUNT), EXAMPLES[command])
    return value


def subject(args: Sequence[str]) -> SubjectArguments:
    """`CATEGORY[,CATEGORY...] [N]`: up to MAX_RULE_CATEGORIES categories, separated by commas
    or spaces, each resolved case-insensitively against arXiv's taxonomy; then maybe a count."""
    terms = " ".join(args).replace(",", " ").split()
    number = DEFAULT_COUNT
    if len(terms) > 1 and terms[-1].isascii() and terms[-1].isdigit():
        number = _count_word(terms.pop(), command="subject")
    if not terms:
        raise Refused(_("No category given."), EXAMPLES["subject"])
    for term in terms:
        if term.isascii() and term.isdigit():
            raise Refused(_("A number comes last, once."), EXAMPLES["subject"])
    try:
        categories = parse_categories(terms)
    except UnknownCategory as error:
        raise Refused(unknown_category(error), EXAMPLES["subject"]) from None
    except BadRule as error:
        raise Refused(said(error), EXAMPLES["subject"]) from None
    return SubjectArguments(categories, number)


def paper(args: Sequence[str], *, command: str = "paper") -> PaperArguments:
    """One arXiv id, versioned id, or abs/pdf URL; "2611.10000 v2" and "arXiv: 2611.10000" are
    one paper too, as people copy them from references. `command`: /paper or /authors, whose
    example a refusal shows."""
    example = EXAMPLES[command]
    if not args:
        raise Refused(_("No paper given."), example)
    words = list(args)
    if len(words) == 2 and words[0].casefold() == "arxiv:":
        words = [words[0] + words[1]]
    if len(words) == 2 and _VERSION.fullmatch(words[1]) and not _VERSION.search(words[0]):
        words = [words[0] + words[1].casefold()]
    if len(words) > 1:
        raise Refused(_("One paper at a time."), example)
    try:
        arxiv_id, version = split_arxiv_id(words[0])
    except ValueError:
        raise Refused(
            _("{typed} is not an arXiv id.", typed=repr(words[0][:40])), example
        ) from None
    return PaperArguments(arxiv_id, version)


def looks_like_paper(text: str) -> PaperArguments | None:
    """The paper a plain message names, if that is all it is: an id or an arxiv.org link."""
    words = text.split()
    if not 1 <= len(words) <= 2:
        return None
    try:
        return paper(words)
    except UsageError:
        return None


def on_off(args: Sequence[str], *, command: str = "revisions") -> bool | None:
    """`on` or `off` (a few synonyms accepted); None when no argument was given."""
    if not args:
        return None
    if len(args) > 1:
        raise Refused(_("Just one word, on or off."), EXAMPLES[command])
    word = args[0].casefold()
    if word in _ON:
        return True
    if word in _OFF:
        return False
    raise Refused(_("{typed} is neither on nor off.", typed=repr(args[0][:20])), EXAMPLES[command])


@dataclass(frozen=True, slots=True)
class SuggestArguments:
    """/suggest on|off (`on`), or /suggest N (`count`): exactly one of them is set."""

    on: bool | None = None
    count: int | None = None


def suggest(args: Sequence[str]) -> SuggestArguments | None:
    """`on`, `off` or how many papers a batch brings at most (1 to 10); None when alone. A
    number is a count, even 1 and 0 (which `on_off` takes for on and off)."""
    if not args:
        return None
    example = EXAMPLES["suggest"]
    if len(args) > 1:
        raise Refused(_("Just one word: on, off, or how many papers a day."), example)
    word = args[0].casefold()
    if word.isascii() and word.isdigit():
        count = int(word[:6])
        if not MIN_SUGGESTED <= count <= MAX_SUGGESTED:
            raise Refused(
                _(
                    "{count} is not a number from {least} to {most}: that many papers a day at "
                    "most.",
                    count=word[:6],
                    least=MIN_SUGGESTED,
                    most=MAX_SUGGESTED,
                ),
                example,
            )
        return SuggestArguments(count=count)
    if word in _ON - {"1"}:
        return SuggestArguments(on=True)
    if word in _OFF - {"0"}:
        return SuggestArguments(on=False)
    raise Refused(
        _(
            "{typed} is neither on, off nor a number from {least} to {most}.",
            typed=repr(args[0][:20]),
            least=MIN_SUGGESTED,
            most=MAX_SUGGESTED,
        ),
        example,
    )


def quiet(args: Sequence[str]) -> QuietHours | None:
    """ "22:00-07:00" (spaces around the dash are fine) → the window; "off" → None."""
    text = " ".join(args).strip()
    if text.casefold() in _OFF:
        return None
    try:
        return parse_quiet(text)
    except BadSchedule as error:
        raise Refused(said(error), EXAMPLES["quiet"]) from None


def message_format(args: Sequence[str]) -> MessageFormat:
    """ "full" or "compact"."""
    word = " ".join(args).strip().casefold()
    try:
        return MessageFormat(word)
    except ValueError:
        raise Refused(
            _(
                "{typed} is not a format; use full (each paper in its own message) "
                "or compact (one line per paper).",
                typed=repr(" ".join(args)[:20]),
            ),
            EXAMPLES["format"],
        ) from None


@dataclass(frozen=True, slots=True)
class ListButton:
    """What a paging button of /recent or /subject asks for."""

    categories: tuple[str, ...] | None  # None for /recent
    per_page: int
    page: int


RECENT_PREFIX = "r"
SUBJECT_PREFIX = "s"
SEARCH_PREFIX = "f"


def list_prefix(categories: Sequence[str] | None, per_page: int) -> str:
    """The callback prefix of a list: the renderer appends `:PAGE`. Short, as data is 64 bytes:
    a category of the same archive as the one before it is written without the archive
    (`cond-mat.stat-mech,.soft`)."""
    if categories is None:
        return f"{RECENT_PREFIX}:{per_page}"
    written: list[str] = []
    archive = None
    for category in categories:
        head, dot, tail = category.partition(".")
        written.append(f".{tail}" if dot and head == archive else category)
        archive = head
    return f"{SUBJECT_PREFIX}:{','.join(written)}:{per_page}"


def list_button(data: str) -> ListButton | None:
    """Decode a paging button's callback data; None for anything else (old or forged data)."""
    parts = data.split(":")
    if parts[0] == RECENT_PREFIX and len(parts) == 3:
        written, per_page_text, page_text = None, parts[1], parts[2]
    elif parts[0] == SUBJECT_PREFIX and len(parts) == 4:
        written, per_page_text, page_text = parts[1], parts[2], parts[3]
    else:
        return None
    if not all(text.isascii() and text.isdigit() for text in (per_page_text, page_text)):
        return None
    per_page, page = int(per_page_text), int(page_text)
    if not 1 <= per_page <= MAX_COUNT or page > 10_000:
        return None
    if written is None:
        return ListButton(None, per_page, page)
    categories: list[str] = []
    archive = ""
    try:
        for term in written.split(","):
            category = resolve_category(archive + term if term.startswith(".") else term)
            archive = category.partition(".")[0]
            categories.append(category)
    except UnknownCategory:
        return None
    if not 1 <= len(categories) <= MAX_RULE_CATEGORIES:
        return None
    return ListButton(tuple(categories), per_page, page)


def search(args: Sequence[str]) -> SearchQuery:
    """/search's `WORDS [in CATEGORY]` (`watcher.follows.search_words.parse_search`)."""
    try:
        return parse_search(" ".join(args))
    except UnknownCategory as error:
        raise Refused(unknown_category(error), EXAMPLES["search"]) from None
    except SearchError as error:
        raise Refused(say(error.sentence), EXAMPLES["search"]) from None


def search_prefix(query: SearchQuery) -> str:
    """The callback prefix of a /search list (`f:CATEGORY:WORDS`): the renderer appends `:PAGE`.
    The words are letters and digits, so no ":" can be among them."""
    return f"{SEARCH_PREFIX}:{query.category or ''}:{query.text}"


def search_button(data: str) -> tuple[SearchQuery, int] | None:
    """A /search paging button's query and page; None for anything else (old or forged data)."""
    parts = data.split(":")
    if len(parts) != 4 or parts[0] != SEARCH_PREFIX:
        return None
    written, words, page_text = parts[1], parts[2], parts[3]
    if not (page_text.isascii() and page_text.isdigit()) or int(page_text) > 10_000:
        return None
    try:
        category = resolve_category(written) if written else None
        return SearchQuery(search_words(words), category), int(page_text)
    except (UnknownCategory, SearchError):
        return None


def digest_schedule(args: Sequence[str]) -> DigestSchedule | None:
    """/digest's arguments: "daily TIME", "weekdays TIME" (Monday to Friday), "weekly DAY[,DAY]
    TIME", or "off" (None). TIME is "08:00", "8am" or "8:30 pm" (`parse_wall_time`)."""
    words = [word.casefold() for word in args]
    try:
        if words == ["off"]:
            return None
        if len(words) >= 2 and words[0] == "daily":
            return DigestSchedule(parse_wall_time(" ".join(words[1:])))
        if len(words) >= 2 and words[0] == "weekdays":
            return DigestSchedule(parse_wall_time(" ".join(words[1:])), MONDAY_TO_FRIDAY)
        if len(words) >= 3 and words[0] == "weekly":
            return DigestSchedule(parse_wall_time(" ".join(words[2:])), parse_weekdays(words[1]))
    except BadSchedule as error:
        raise Refused(said(error), EXAMPLES["digest"]) from None
    raise Refused(
        _("A digest is daily TIME, weekdays TIME, weekly DAY TIME, or off."),
        "/digest weekdays 8am",
    )


def zone_name(args: Sequence[str]) -> str:
    """/timezone's argument: an IANA zone or a UTC offset, as stored (`canonical_zone`)."""
    text = " ".join(args)  # "UTC +8" is one offset, "New York" one city
    try:
        return canonical_zone(text)
    except BadSchedule as error:
        raise Refused(said(error), EXAMPLES["timezone"]) from None


def _sentence(text: str) -> str:
    return text[:1].upper() + text[1:]


def _full_sentence(text: str) -> str:
    """`text` as a sentence: capitalised, and ended with a full stop unless it has an end (in
    the language speaking now: `{problem}.` is in the catalog)."""
    text = _sentence(text.strip())
    return (
        text if text.endswith((".", "?", "!", "。", "？", "！")) else _("{problem}.", problem=text)
    )


def said(error: SaysSentence) -> str:
    """What a core error says (`error.sentence`), in the language speaking now, as a sentence."""
    return _full_sentence(say(error.sentence))
