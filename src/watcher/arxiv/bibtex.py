"""A paper's BibTeX entry, built from our stored record alone (no request to arXiv): what the
"Cite" button under an announcement answers.

The entry follows arXiv's own "Export BibTeX citation": an `@misc` with title, authors, year,
`eprint`, `archivePrefix = {arXiv}`, `primaryClass` and the abstract page's URL, plus the DOI and
the journal reference (as `note`) when arXiv knows them. The key is in arXiv's style: the first
author's surname, the year of the current version, and the title's first four words that are
not stop words, letters and digits only, lower case ("dong2026adaptiveroutingdragonfly"). Unlike
arXiv's, the key leaves TeX commands out of the title words (`$\\alpha$` adds nothing) and is
folded to ASCII, since classic BibTeX chokes on other keys.

Titles and journal references come from arXiv as TeX: `$\\alpha$`, `\\emph{x}` and `{\\"o}` are
kept as they are. What would break a .bib file or a LaTeX run is escaped: a brace that pairs with
none (as `\\textbraceleft{}`: BibTeX counts braces whatever stands before them, so `\\}` would end
the field), a `%` (which starts a comment), `&`, `#` and `_` outside math, and a backslash that
starts no command. Each author is escaped alone and braced whole where BibTeX would read one
name as two. Accented letters stay UTF-8, which biber and `inputenc` read.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence

from watcher.arxiv.records import Record

__all__ = ["CITE_ROOM", "bibliography", "bibtex_entry", "bibtex_key", "escape_field"]

# Characters of BibTeX the "Cite" button's entry may take (one message, its markup aside);
# /saved bib's file holds the very same entries.
CITE_ROOM = 3800

# English words arXiv's key leaves out of the title part; the common ones, enough for titles.
_STOP_TEXT = (
    "a about above across after again against all also am among an and another any are around "
    "as at be because been before being below between both but by can cannot could do done "
    "down during each either else enough etc even ever every few first for from further get "
    "give go had has have he her here him his how however if in into is it its itself last "
    "least less many may me might more most much must my neither never next no none nor not "
    "nothing now of off often on once one only onto or other our out over own part per perhaps "
    "rather same see several she should since so some still such system than that the their "
    "them then there these they this those though through thus to together too toward towards "
    "under until up upon us very via was we well were what when where whether which while who "
    "whole whom whose why will with within without would yet you your "
)
_STOP_WORDS = frozenset(_STOP_TEXT.split())
_TITLE_WORDS = 4
_FEW_AUTHORS = 10  # the most a shortened author list keeps before "and others"
_SUFFIXES = frozenset({"jr", "jr.", "sr", "sr.", "ii", "iii", "iv"})

# A TeX command (a backslash and letters, or one non-letter: `\{`, `\"`, `\&`).
_COMMAND = re.compile(r"\\(?:[A-Za-z]+|[^A-Za-z\s])")
_SPECIAL_OUTSIDE_MATH = {"&": r"\&", "#": r"\#", "_": r"\_"}
_OPENING = frozenset({"{", "\\{"})
_CLOSING = frozenset({"}", "\\}"})
# An unpaired brace's spelling, by (opening, inside math).
_BRACE_AS_COMMAND = {
    (True, False): r"\textbraceleft{}",
    (False, False): r"\textbraceright{}",
    (True, True): r"\lbrace{}",
    (False, True): r"\rbrace{}",
}


def bibtex_entry(record: Record, *, limit: int | None = None) -> str:
    """The paper's BibTeX entry, one field a line, ending in a newline. With `limit`, an entry
    longer than that many characters lists its first authors and "and others" (BibTeX's own
    way to say so), as many as fit."""
    names = [_person(a.name) for a in record.authors if a.name.strip()]
    entry = _entry(record, names)
    shown = min(len(names), _FEW_AUTHORS)
    while limit is not None and len(entry) > limit and shown > 0:
        entry = _entry(record, [*names[:shown], "others"])
        shown -= 1
    return entry


def bibliography(records: Sequence[Record]) -> str:
    """A .bib file of `records`, in order: each entry as "Cite" makes it (`bibtex_entry` with
    `CITE_ROOM`), a blank line apart. BibTeX keeps only the first of two entries with one key, so
    a key met again gets a letter, as bibliography styles tell one author's papers of a year
    apart: the second `dong2026adaptiverouting` is written `dong2026adaptiveroutingb`, the third
    `...c`, skipping any key already taken."""
    taken: set[str] = set()
    entries = []
    for record in records:
        entry = bibtex_entry(record, limit=CITE_ROOM)
        key = bibtex_key(record)
        unique, n = key, 1
        while unique in taken:
            n += 1
            unique = key + _suffix(n)
        taken.add(unique)
        if unique != key:
            entry = entry.replace(f"{{{key},", f"{{{unique},", 1)
        entries.append(entry)
    return "\n".join(entries)


def _suffix(n: int) -> str:
    """b, c, ..., z, then ba, bb, ...: the letter(s) of the nth entry with one key (n >= 2)."""
    letters = ""
    n -= 1
    while n:
        n, rest = divmod(n, 26)
        letters = chr(ord("a") + rest) + letters
    return letters


def _entry(record: Record, names: list[str]) -> str:
    """The entry with `names` (each already TeX, as `_person` makes it) as its authors."""
    fields = [
        ("title", escape_field(_one_line(record.title))),
        ("author", " and ".join(names)),
        ("year", str(record.updated.year)),
        ("eprint", escape_field(record.arxiv_id)),
        ("archivePrefix", "arXiv"),
        ("primaryClass", escape_field(record.primary_category)),
    ]
    if record.doi and record.doi.strip():
        fields.append(("doi", escape_field(_one_line(record.doi))))
    if record.journal_ref and record.journal_ref.strip():
        fields.append(("note", escape_field(_one_line(record.journal_ref))))
    fields.append(("url", escape_field(f"https://arxiv.org/abs/{record.arxiv_id}")))
    body = ",\n".join(f"  {name} = {{{tex}}}" for name, tex in fields if tex)
    return f"@misc{{{bibtex_key(record)},\n{body}\n}}\n"


def _person(name: str) -> str:
    """One author as BibTeX reads one person. Escaped alone, so that a brace in one name never
    pairs with a brace in the next; and braced whole when BibTeX would split it ("ATLAS and CMS
    Collaborations" has a standalone "and") or refuse it (more than two commas), or take it for
    the "others" that ends a shortened list."""
    tex = escape_field(_one_line(name))
    outside = _outside_braces(tex)
    if (
        re.search(r"(?:^|\s)and(?:\s|$)", outside, re.IGNORECASE)
        or outside.count(",") > 2
        or tex.lower() == "others"
    ):
        return "{" + tex + "}"
    return tex


def bibtex_key(record: Record) -> str:
    """arXiv's style of key: surname, year, four title words; ASCII letters and digits only."""
    surname = _surname(record.authors[0].name if record.authors else "") or "unknown"
    words = [w for w in _plain(record.title).split() if w.lower() not in _STOP_WORDS]
    key = _ascii_alnum(surname + str(record.updated.year) + "".join(words[:_TITLE_WORDS]))
    return key.lower() or f"arxiv{_ascii_alnum(record.arxiv_id)}"


def escape_field(value: str) -> str:
    """`value` safe inside a braced BibTeX field, its TeX kept: a brace that pairs with none, `%`,
    a stray backslash, and `&`, `#`, `_` outside math escaped."""
    tokens: list[tuple[str, bool]] = []  # (TeX, inside math)
    in_math = False
    position = 0
    while position < len(value):
        char = value[position]
        command = _COMMAND.match(value, position) if char == "\\" else None
        if command is not None:
            tokens.append((command.group(), in_math))
            position = command.end()
            continue
        if char == "\\":
            tokens.append((r"\textbackslash{}", in_math))
        elif char == "%":
            tokens.append((r"\%", in_math))
        elif char in _SPECIAL_OUTSIDE_MATH and not in_math:
            tokens.append((_SPECIAL_OUTSIDE_MATH[char], in_math))
        else:
            if char == "$":
                in_math = not in_math
            tokens.append((char, in_math and char != "$"))
        position += 1
    if in_math:  # an unclosed $ would swallow the rest of the entry's output: no math at all
        tokens = [(r"\$" if tex == "$" else tex, False) for tex, _ in tokens]
    return "".join(_balance(tokens))


def _balance(tokens: list[tuple[str, bool]]) -> list[str]:
    """The tokens with every brace that pairs with none spelled as a command that holds no brace.

    BibTeX counts each `{` and `}` in a field, a backslash before it or not: `\\}` closes the
    field as surely as `}` does. So an unpaired `\\{` is as dangerous as a bare `{`, and neither
    can be escaped by a backslash. `\\textbraceleft{}` (in math `\\lbrace{}`) prints the brace
    and leaves BibTeX's count alone."""
    unmatched: set[int] = set()
    opened: list[int] = []
    for index, (tex, _) in enumerate(tokens):
        if tex in _OPENING:
            opened.append(index)
        elif tex in _CLOSING:
            if opened:
                opened.pop()
            else:
                unmatched.add(index)
    unmatched.update(opened)
    return [
        _BRACE_AS_COMMAND[tex in _OPENING, in_math] if index in unmatched else tex
        for index, (tex, in_math) in enumerate(tokens)
    ]


def _outside_braces(tex: str) -> str:
    """What BibTeX's name splitting sees of `tex` (balanced): the characters at brace depth 0."""
    depth = 0
    outside: list[str] = []
    for char in tex:
        depth += {"{": 1, "}": -1}.get(char, 0)
        outside.append(char if depth == 0 and char not in "{}" else "_")
    return "".join(outside)


def _one_line(text: str) -> str:
    return " ".join(text.split())


def _surname(name: str) -> str:
    words = [w for w in name.replace(",", " ").split() if w.lower() not in _SUFFIXES]
    return words[-1] if words else ""


def _plain(title: str) -> str:
    """The title's words without TeX commands, math markers and braces."""
    return _COMMAND.sub(" ", title).replace("$", " ").replace("{", "").replace("}", "")


def _ascii_alnum(text: str) -> str:
    folded = unicodedata.normalize("NFKD", text)
    return "".join(c for c in folded if c.isascii() and c.isalnum())
