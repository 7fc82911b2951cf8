"""Names of people: the one normalisation every match and every rule key uses, and the one
check of a name anyone asks to follow.

Two names are the same person when they have the same `name_key`: equal up to case, accents,
punctuation and word order. Nothing fuzzier: an extra or missing name word ("Dezun Dong Li",
"D. Dong") is a different person, because announcing a stranger's paper is worse than asking the
user to add an alias.

`check_person_name` is the one rule for a name anyone asks to follow (bot, CLI, WATCH_AUTHORS):
a given name and a family name, so that both arXiv's search and `name_key` can find the person.

`likely_name` is the name a list of papers (an author feed, all of one person's) is about: shown
to people, never used to match.
"""

from __future__ import annotations

import unicodedata
from collections import Counter
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING

from watcher.arxiv.queries import author_query
from watcher.follows.folding import UNDECOMPOSED_LETTERS
from watcher.sentences import Sentence, sentence

if TYPE_CHECKING:
    from watcher.arxiv.records import Record

# Joined rather than split, so "De-Zun" and "Dezun", "O'Brien" and "OBrien" agree.
_JOINING_MARKS = frozenset("'’ʼ`´")
MAX_NAME_LENGTH = 100
# Besides letters and accents, what real author names carry: "J. R. R. Tolkien", "Jean-Luc",
# "O'Brien", "Dong, Dezun". Anything else ("|", quotes, digits, brackets) is a typo or an attack
# on the arXiv query, so it is refused with an explanation rather than silently dropped.
_NAME_PUNCTUATION = frozenset(" .-'’,")
# Quotes a name may be wrapped in: straight, and the typographic ones phones and keyboards type.
_QUOTES = "\"'“”„‟«»‘’‚‛「」"


def unquote(text: str) -> str:
    """`text` without the quotes wrapped around it: `"Dezun Dong"`, `“Dezun Dong”`, `'X Y'`.

    Only a pair around the whole text is dropped (of any kinds, as phones mix them), so the
    apostrophe inside "O'Brien" stays.
    """
    text = text.strip()
    while len(text) >= 2 and text[0] in _QUOTES and text[-1] in _QUOTES:
        text = text[1:-1].strip()
    return text


def check_person_name(name: str) -> Sentence | None:
    """What is wrong with following `name`, in a few words (a `watcher.sentences.Sentence`, to be
    said in the reader's language); None when it can be followed.

    A followed name needs a given name and a family name: a single word ("Li") makes arXiv's
    search return a good part of arXiv, page after page, and matches nobody's whole name. At most
    MAX_NAME_LENGTH characters, only letters and the punctuation names use, and it must make an
    arXiv query.
    """
    name = " ".join(name.split())
    if not name:
        return sentence("no name given")
    if len(name) > MAX_NAME_LENGTH:
        return sentence("that name is too long (at most {most} characters)", most=MAX_NAME_LENGTH)
    for character in name:
        category = unicodedata.category(character)
        if character not in _NAME_PUNCTUATION and category[0] not in "LM":
            return sentence("an author name has only letters, spaces and . - ' , in it")
    words = [word for word in name_key(name) if any(c.isalpha() for c in word)]
    if not words:
        return sentence("that does not look like a name")
    if len(words) < 2:
        return sentence("a name needs a given name and a family name, as arXiv lists the author")
    try:
        author_query([name])
    except ValueError:
        return sentence("that name cannot be searched for on arXiv")
    return None


def name_key(name: str) -> tuple[str, ...]:
    """A normalised, order-independent key for a person's name.

    "Dézun Dong", "Dong, Dezun", "DEZUN DONG" and "De-Zun Dong" all give ("dezun", "dong").
    """
    if name.isascii():
        return _ascii_name_key(name)
    return _general_name_key(name)


def _ascii_name_key(name: str) -> tuple[str, ...]:
    """`name_key` of a plain-ASCII name (most names), by one `str.translate`: the same key as
    `_general_name_key`, whose per-character loop costs about ten times as much. The table is
    built from `_general_name_key` itself, character by character."""
    return tuple(sorted(name.lower().translate(_ASCII_NAME_FOLD).split()))


def _general_name_key(name: str) -> tuple[str, ...]:
    """`name_key` of any name: fold (case, NFKD, accents), join on hyphens and apostrophes,
    split on other punctuation, symbols and spaces."""
    folded = unicodedata.normalize("NFKD", name.casefold()).translate(UNDECOMPOSED_LETTERS)
    characters: list[str] = []
    for character in folded:
        category = unicodedata.category(character)
        if category == "Mn" or category == "Pd" or character in _JOINING_MARKS:
            continue  # accents dropped; hyphens and apostrophes join their neighbours
        if category[0] in "PSZC":
            characters.append(" ")  # other punctuation, symbols and spaces separate words
        else:
            characters.append(character)
    return tuple(sorted("".join(characters).split()))


def _ascii_name_fold() -> dict[int, str]:
    """What `_general_name_key` does to each ASCII character, as a `str.translate` table:
    letters and digits kept (lower-cased beforehand), joining marks dropped, the rest a space."""
    table: dict[int, str] = {}
    for code in range(128):
        character = chr(code)
        # A character alone between two letters: kept, dropped (joins) or a separator.
        between = _general_name_key(f"a{character}b")
        if between == ("a" + character.lower() + "b",):
            continue  # kept as it is (lower-cased by the caller)
        table[code] = "" if between == ("ab",) else " "
    return table


_ASCII_NAME_FOLD = _ascii_name_fold()


def is_same_person(author_name: str, names: Sequence[str]) -> bool:
    """True when `author_name` is one of `names` (a followed author's name and aliases)."""
    return matches_any(author_name, name_keys(names))


def name_keys(names: Iterable[str]) -> frozenset[tuple[str, ...]]:
    """The distinct, non-empty keys of `names`."""
    return frozenset(key for key in map(name_key, names) if key)


def matches_any(author_name: str, keys: frozenset[tuple[str, ...]]) -> bool:
    """Whether `author_name` has one of the `keys`."""
    key = name_key(author_name)
    return bool(key) and key in keys


def likely_name(records: Sequence[Record]) -> str | None:
    """The person a list of papers (an author feed) is about, by name: the author on most of
    its papers (their spelling most used), or None for no papers. Shown to people; never used
    to match."""
    keys: Counter[tuple[str, ...]] = Counter()
    spellings: dict[tuple[str, ...], Counter[str]] = {}
    for record in records:
        for key, name in {name_key(a.name): a.name for a in record.authors}.items():
            keys[key] += 1
            spellings.setdefault(key, Counter())[name] += 1
    if not keys:
        return None
    top = max(keys, key=lambda key: (keys[key], key))
    return spellings[top].most_common(1)[0][0]
