"""Follow rules as people write them, checked: "Wei Wang in cs.DC,cs.NI" in `/subscribe`,
`arxiv-watcher follow` and `WATCH_AUTHORS`.

A rule here is what to follow, before the store keeps it (`followed_author`, whose `kind` says
which rule a row is). A person is a display name with aliases ("Dezun Dong|De-Zun Dong"), and may
be narrowed to at most `MAX_RULE_CATEGORIES` arXiv categories ("... in cs.DC,cs.NI"): then only
papers with one of them, primary or cross-list, are theirs. Matching lives in
`watcher.follows.match`.

Every refusal is a `BadRule` whose message says in one line what is wrong and what would be right.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable
from dataclasses import dataclass

from watcher.arxiv.taxonomy import is_category_id, resolve_category
from watcher.errors import UnknownCategory, WatcherError
from watcher.follows.identity import Identity, IdentityError, parse_identity
from watcher.follows.names import check_person_name, name_key, unquote
from watcher.sentences import SaysSentence, sentence

MAX_RULE_CATEGORIES = 3
# Characters of a rule key's aliases part kept as they are; a longer one is kept as its digest.
_MAX_ALIAS_KEYS = 80
# "<rule> in cs.DC,cs.NI": the last " in " followed by nothing but category-shaped words. A name
# with the word "In" in it ("In Kim") stays a name, as its tail is not a list of categories.
_IN_CATEGORIES = re.compile(
    r"^(?P<rule>(?:.*?\s)?)in\s+(?P<categories>[^\s,]+(?:\s*,\s*[^\s,]+)*)\s*$",
    re.IGNORECASE | re.DOTALL,
)


# Between rules written together: WATCH_AUTHORS, and several names in one /subscribe.
_RULE_SEPARATOR = re.compile(r"[;\n]")


def split_rules(text: str) -> list[str]:
    """The rules in `text`, separated by `;` or new lines, each stripped; empty ones dropped."""
    return [part.strip() for part in _RULE_SEPARATOR.split(text) if part.strip()]


class BadRule(SaysSentence, WatcherError):
    """A follow rule that cannot be followed; the message is the one-line answer to give (a
    `watcher.sentences.Sentence`, `error.sentence`)."""


@dataclass(frozen=True, slots=True)
class PersonRule:
    """A person by name and aliases (display name first), maybe only in some categories."""

    names: tuple[str, ...]
    categories: tuple[str, ...] = ()

    @property
    def display(self) -> str:
        return self.names[0]

    @property
    def key(self) -> str:
        return rule_key(self.display, self.categories, self.names[1:])

    def __str__(self) -> str:
        return with_categories(self.display, self.categories)


def rule_key(name: str, categories: Iterable[str] = (), aliases: Iterable[str] = ()) -> str:
    """A person rule's unique key: "Dong, Dezun" and "Dezun Dong" are one person. The aliases
    are part of it ("dezun dong|wang wei"), sorted after the display name's key: a rule with
    other aliases matches other papers, so it is another follow, never the same one widened
    (what a chat adds must not change what another chat receives)."""
    key = " ".join(name_key(name))
    extra = sorted({" ".join(name_key(alias)) for alias in aliases} - {key, ""})
    if extra:
        listed = "|".join(extra)
        if len(listed) > _MAX_ALIAS_KEYS:  # the column holds 255 characters
            listed = "#" + hashlib.sha256(listed.encode()).hexdigest()[:24]
        key = f"{key}|{listed}"
    return with_categories(key, sorted(categories))


def with_categories(text: str, categories: Iterable[str]) -> str:
    """ "Wei Wang in cs.DC,cs.NI", or the text alone without categories."""
    listed = ",".join(categories)
    return f"{text} in {listed}" if listed else text


def split_categories(text: str) -> tuple[str, tuple[str, ...]]:
    """`text` without its " in cs.DC,cs.NI" tail, and the tail's categories (checked).

    Raises BadRule (or UnknownCategory, with suggestions) for a tail that names categories
    wrongly: too many, or unknown ones.
    Quotes around the whole text or around the rule before " in " are dropped (`unquote`).
    """
    text = unquote(text)
    found = _IN_CATEGORIES.match(text)
    if found is None:
        return text, ()
    terms = [term.strip() for term in found["categories"].split(",") if term.strip()]
    if not all(is_category_id(term) or "." in term for term in terms):
        return text, ()  # "... in Kim": a name, not categories
    return unquote(found["rule"]), parse_categories(terms)


def parse_categories(terms: Iterable[str]) -> tuple[str, ...]:
    """Canonical, distinct category ids, in the order given; at most MAX_RULE_CATEGORIES."""
    categories: list[str] = []
    for term in terms:
        category = resolve_category(term)
        if category not in categories:
            categories.append(category)
    if len(categories) > MAX_RULE_CATEGORIES:
        raise BadRule(
            sentence(
                "{count} categories given; at most {most}",
                count=len(categories),
                most=MAX_RULE_CATEGORIES,
            )
        )
    return tuple(categories)


def parse_person(text: str) -> PersonRule:
    """A person rule from "Name|Alias in cat,cat" (the aliases and categories are optional)."""
    rest, categories = split_categories(text)
    names = [" ".join(unquote(name).split()) for name in rest.split("|") if unquote(name)]
    if not names:
        raise BadRule(
            sentence(
                "{text} has no name in it; write a given and a family name, e.g. Dezun Dong",
                text=repr(text[:40]),
            )
        )
    for name in names:
        problem = check_person_name(name)
        if problem is not None:
            shown = name if len(name) <= 40 else f"{name[:40]}..."
            raise BadRule(sentence("{name}: {problem}", name=repr(shown), problem=problem))
    return PersonRule(tuple(names), categories)


# What the operator may watch (WATCH_AUTHORS): a person by name, or by arXiv author id or ORCID iD.
WatchedRule = PersonRule | Identity


def parse_watched(text: str) -> WatchedRule:
    """A WATCH_AUTHORS entry: an identity ("arxiv:dong_d_1", an author page's address, an ORCID
    iD) or else a person rule (`parse_person`). Raises BadRule with the one-line reason."""
    try:
        identity = parse_identity(text)
    except IdentityError as error:
        raise BadRule(error.sentence) from None
    return identity if identity is not None else parse_person(text)


__all__ = [
    "MAX_RULE_CATEGORIES",
    "BadRule",
    "PersonRule",
    "UnknownCategory",
    "WatchedRule",
    "parse_categories",
    "parse_person",
    "parse_watched",
    "rule_key",
    "split_categories",
    "split_rules",
    "with_categories",
]
