"""arXiv's query language as the fake understands it: `search_query` (fields `au ti abs co jr cat
id all`, quoted phrases, `AND`/`OR`/`ANDNOT`, parentheses, `submittedDate:[A TO B]`) parsed into
a predicate on records, the id formats `id_list` accepts, and the integer parameters. A query
arXiv would refuse raises `QueryError`, whose message goes into the error feed.

Titles and abstracts (`ti`, `abs`) are searched by word stems, as arXiv's search engine stems
English: `ti:"interconnection network"` finds "Interconnection Networks". The fake stems with
the classic Porter algorithm (what a search engine's English analyzer uses), not the Snowball
English stemmer the watcher matches with, so that a test shows the watcher's own check of the
answers holds when arXiv's stems and ours differ.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable

import Stemmer

from watcher.arxiv.records import Record

MAX_RESULTS_LIMIT = 2000


class QueryError(ValueError):
    """A query arXiv would refuse; the message goes into the error feed."""


def fold(text: str) -> str:
    """Case- and accent-fold, as arXiv's search does ("Dézun" → "dezun")."""
    decomposed = unicodedata.normalize("NFKD", text)
    return "".join(c for c in decomposed if not unicodedata.combining(c)).casefold()


def words(text: str | None) -> list[str]:
    return re.findall(r"\w+", fold(text or ""))


_PORTER = Stemmer.Stemmer("porter")
_STEMMED_FIELDS = frozenset({"ti", "abs"})


def _stems(text: str | None) -> list[str]:
    found: list[str] = _PORTER.stemWords(words(text))
    return found


def _contains_phrase(haystack: list[str], needle: list[str]) -> bool:
    if not needle:
        return False
    width = len(needle)
    return any(haystack[i : i + width] == needle for i in range(len(haystack) - width + 1))


Predicate = Callable[[Record], bool]

_TOKEN = re.compile(
    r"""\s*(?:
        (?P<open>\() | (?P<close>\)) |
        (?P<field>[A-Za-z]+):(?:"(?P<quoted>[^"]*)"|\[(?P<range>[^\]]*)\]|(?P<bare>[^\s()"\[]+)) |
        "(?P<phrase>[^"]*)" |
        (?P<word>[^\s()"]+) |
        (?P<bad>\S)
    )""",
    re.VERBOSE,
)
_OPERATORS = {"AND", "OR", "ANDNOT"}
_TEXT_FIELDS: dict[str, Callable[[Record], str]] = {
    "ti": lambda r: r.title,
    "abs": lambda r: r.abstract,
    "co": lambda r: r.comment or "",
    "jr": lambda r: r.journal_ref or "",
    "all": lambda r: " ".join(
        [r.title, r.abstract, r.comment or "", r.journal_ref or "", *r.author_names]
    ),
}


def _author_term(value: str) -> Predicate:
    # arXiv rewrites `au:Dong_D` to `au:"Dong D"`; every word must be in one author's name.
    wanted = set(words(value.replace("_", " ")))
    return lambda r: bool(wanted) and any(wanted <= set(words(n)) for n in r.author_names)


def _date_term(name: str, value: str) -> Predicate:
    match = re.fullmatch(r"\s*(\d{8,14})\s+TO\s+(\d{8,14})\s*", value)
    if not match:
        raise QueryError(f"malformed date range in {name}")
    low, high = (bound.ljust(14, "0") for bound in match.groups())

    def in_range(record: Record) -> bool:
        moment = record.published if name == "submittedDate" else record.updated
        return low <= moment.strftime("%Y%m%d%H%M%S") <= high

    return in_range


def _field_term(name: str, value: str, quoted: bool) -> Predicate:
    if name == "au":
        return _author_term(value)
    if name == "cat":
        if value.endswith("*"):
            return lambda r: any(c.startswith(value[:-1]) for c in r.categories)
        return lambda r: value in r.categories
    if name == "id":
        return lambda r: r.arxiv_id == re.sub(r"v\d+$", "", value)
    if name == "rn":
        return lambda r: False
    if name in _TEXT_FIELDS:
        text_of = _TEXT_FIELDS[name]
        split = _stems if name in _STEMMED_FIELDS else words
        needle = split(value)
        if quoted:
            return lambda r: _contains_phrase(split(text_of(r)), needle)
        return lambda r: bool(needle) and set(needle) <= set(split(text_of(r)))
    raise QueryError(f"unknown search field {name}")


class _QueryParser:
    """`expr := term ((AND | OR | ANDNOT)? term)*`, left to right; a missing operator means OR."""

    def __init__(self, query: str) -> None:
        self.tokens = [m for m in _TOKEN.finditer(query) if m.group(0).strip()]
        self.position = 0

    def parse(self) -> Predicate:
        predicate = self._expression()
        if self.position != len(self.tokens):
            raise QueryError("unbalanced parentheses in search_query")
        return predicate

    def _peek(self) -> re.Match[str] | None:
        return self.tokens[self.position] if self.position < len(self.tokens) else None

    def _expression(self) -> Predicate:
        left = self._term()
        while (token := self._peek()) is not None and not token.group("close"):
            operator = "OR"
            if token.group("word") in _OPERATORS:
                operator = token.group("word")
                self.position += 1
            right = self._term()
            left = _combine(operator, left, right)
        return left

    def _term(self) -> Predicate:
        token = self._peek()
        if token is None:
            raise QueryError("search_query ends where a term was expected")
        self.position += 1
        if token.group("open"):
            inner = self._expression()
            closing = self._peek()
            if closing is None or not closing.group("close"):
                raise QueryError("unbalanced parentheses in search_query")
            self.position += 1
            return inner
        if token.group("field"):
            name = token.group("field")
            if token.group("range") is not None:
                if name not in ("submittedDate", "lastUpdatedDate"):
                    raise QueryError(f"date range on non-date field {name}")
                return _date_term(name, token.group("range"))
            quoted = token.group("quoted") is not None
            return _field_term(name, token.group("quoted" if quoted else "bare"), quoted)
        if token.group("phrase") is not None:
            return _field_term("all", token.group("phrase"), True)
        if token.group("word") and token.group("word") not in _OPERATORS:
            return _field_term("all", token.group("word"), False)
        raise QueryError(f"unexpected {token.group(0).strip()!r} in search_query")


def _combine(operator: str, left: Predicate, right: Predicate) -> Predicate:
    if operator == "AND":
        return lambda r: left(r) and right(r)
    if operator == "ANDNOT":
        return lambda r: left(r) and not right(r)
    return lambda r: left(r) or right(r)


def parse_search_query(query: str) -> Predicate:
    """Turn a `search_query` into a predicate on records; `QueryError` if arXiv would refuse it."""
    return _QueryParser(query).parse()


ID_FORMAT = re.compile(r"(\d{4}\.\d{4,5}|[a-z-]+(\.[A-Z]{2})?/\d{7})(v\d+)?")


def integer(params: dict[str, str], name: str, default: int) -> int:
    text = params.get(name, "").strip()
    if not text:
        return default
    if not text.isdigit():
        raise QueryError(f"{name} must be a non-negative integer")
    return int(text)
