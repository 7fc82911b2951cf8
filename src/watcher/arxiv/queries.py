"""The arXiv API's search queries for followed people: a person's query, and followed people
packed into OR-ed groups whose query fits a request.

arXiv's own author search is only a first sieve (it lets "D. Dong", "Daoyi Dong" and papers that
merely mention the name through), so every record it returns is checked again by
`watcher.follows.match`.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterator, Sequence
from urllib.parse import quote

_QUERY_OR = " OR "


def author_query(names: Sequence[str]) -> str:
    """The arXiv `search_query` finding papers by any of `names`: 'au:"A B" OR au:"C D"'.

    Names are always quoted whole: unquoted names turn into `all:` searches and underscore forms
    into initials on arXiv's side. Characters that could end the quote or change the query's
    meaning are dropped. Raises ValueError when no usable name is left.
    """
    cleaned: list[str] = []
    seen: set[str] = set()
    for name in names:
        clean = _query_safe(name)
        if clean and clean.casefold() not in seen:
            seen.add(clean.casefold())
            cleaned.append(clean)
    if not cleaned:
        raise ValueError(f"no usable author name in {list(names)!r}")
    return _QUERY_OR.join(f'au:"{name}"' for name in cleaned)


def person_query(names: Sequence[str], categories: Sequence[str] = ()) -> str:
    """`author_query`, narrowed to papers in one of `categories` when there are some:
    '(au:"A B") AND (cat:cs.DC OR cat:cs.NI)'."""
    query = author_query(names)
    if not categories:
        return query
    return f"({query}) AND ({_QUERY_OR.join(f'cat:{c}' for c in categories)})"


def group_queries(
    name_lists: Sequence[Sequence[str]],
    *,
    max_query_length: int = 1000,
    max_authors: int | None = None,
) -> list[list[int]]:
    """Pack followed authors (by index) into groups whose OR-ed query fits `max_query_length`
    (`query_groups`, all of them)."""
    return list(
        query_groups(name_lists, max_query_length=max_query_length, max_authors=max_authors)
    )


def query_groups(
    name_lists: Sequence[Sequence[str]],
    *,
    max_query_length: int = 1000,
    max_authors: int | None = None,
) -> Iterator[list[int]]:
    """Pack followed authors (by index) into groups whose OR-ed query fits `max_query_length`,
    and of at most `max_authors` authors when given, each group as soon as it is complete.

    The length is measured URL-encoded with spaces as %20, the longest encoding a client may
    use, so the query fits however it is sent. Authors keep their order; an author whose own
    query is already too long goes alone. Raises ValueError for an author without usable names.

    The group's length is kept as it grows (each distinct name's term once, a separator between
    two), so packing 100,000 authors reads each name once; building each candidate's query
    took seconds, at every poll tick of `auto` mode.
    """
    separator = _encoded_length(_QUERY_OR)
    current: list[int] = []
    seen: set[str] = set()  # the group's names, casefolded, as `author_query` drops repeats
    count = total = 0  # the group's terms, and their encoded lengths added up
    for index, names in enumerate(name_lists):
        own = _terms(names)
        if not own:
            raise ValueError(f"followed author #{index}: no usable author name in {list(names)!r}")
        added = {name: size for name, size in own.items() if name not in seen}
        joined = total + sum(added.values()) + separator * (count + len(added) - 1)
        full = max_authors is not None and len(current) >= max_authors
        if current and (joined > max_query_length or full):
            yield current
            current, seen, count, total = [], set(), 0, 0
            added = own
        current.append(index)
        seen.update(added)
        count, total = count + len(added), total + sum(added.values())
    if current:
        yield current


def _terms(names: Sequence[str]) -> dict[str, int]:
    """The distinct names (casefolded) `author_query` keeps of `names`, and the encoded length
    of each one's term."""
    terms: dict[str, int] = {}
    for name in names:
        clean = _query_safe(name)
        if clean and clean.casefold() not in terms:
            terms[clean.casefold()] = _encoded_length(f'au:"{clean}"')
    return terms


def _query_safe(name: str) -> str:
    """Keep letters, digits and the punctuation real names use; everything else becomes a space."""
    kept = [
        character if unicodedata.category(character)[0] in "LMN" or character in "-'’." else " "
        for character in name
    ]
    return " ".join("".join(kept).split())


def _encoded_length(query: str) -> int:
    return len(quote(query, safe=""))
