"""What /search looks for: `SearchQuery`, the words a stored paper's title or abstract must all
hold, and maybe one category (primary or cross-list), read from `WORDS [in CATEGORY]` by
`parse_search`, which refuses bad input with a `SearchError` of one sentence.

Words are found as topics find them (`watcher.follows.topics.words_of`: letters and digits, case and
accents folded); the database then matches them by stem with its own full-text index
(`watcher.store.search`). English stop words ("the", "of", "for") are dropped here, the same
list on both databases, so that a search means the same thing on SQLite as on PostgreSQL; a
search of stop words alone is refused. The folded words, space-joined, must fit in a paging
button's data with a category (`MAX_SEARCH_BYTES` bytes of UTF-8).

A search has no OR (issue 32 gave topics one): `OR` typed in capitals is refused, pointing at
/watch, rather than read as the stop word "or" and silently searching for both words. The
database's full-text query would need OR in two dialects (FTS5's and PostgreSQL's tsquery) kept
equal, for a search that reads the stored papers only.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from watcher.arxiv.taxonomy import resolve_category
from watcher.errors import UnknownCategory
from watcher.follows.topics import words_of
from watcher.sentences import SaysSentence, sentence

MAX_SEARCH_BYTES = 32
MAX_SEARCH_WORDS = 8
EXAMPLE = "/search allreduce in cs.DC"

_IN_CATEGORY = re.compile(r"^(?P<words>.*?)\s+in\s+(?P<category>\S+)\s*$", re.IGNORECASE)

# English function words: too common to find anything by. Written for this project; it covers
# PostgreSQL's own English list, so that neither database ever drops a word the other keeps.
STOP_WORDS = frozenset(
    """
    a about above after again against all am an and any are as at be because been before being
    below between both but by can did do does doing don down during each few for from further
    had has have having he her here hers herself him himself his how i if in into is it its
    itself just me more most my myself no nor not now of off on once only or other our ours
    ourselves out over own s same she should so some such t than that the their theirs them
    themselves then there these they this those through to too under until up very was we were
    what when where which while who whom why will with you your yours yourself yourselves
    """.split()  # noqa: SIM905
)


class SearchError(SaysSentence, ValueError):
    """A search that cannot be run; the message is one sentence saying why (a
    `watcher.sentences.Sentence`, `error.sentence`)."""


@dataclass(frozen=True, slots=True)
class SearchQuery:
    """Folded words, each of which a paper must hold, in the order given; one category or None."""

    words: tuple[str, ...]
    category: str | None

    @property
    def text(self) -> str:
        """The words, space-joined, as shown and as a paging button carries them."""
        return " ".join(self.words)

    def __str__(self) -> str:
        return self.text if self.category is None else f"{self.text} in {self.category}"


def parse_search(text: str) -> SearchQuery:
    """`WORDS [in CATEGORY]` → the query; SearchError (or UnknownCategory) when it is none."""
    if "OR" in text.split():
        raise SearchError(
            sentence(
                "/search finds the papers with every word, and has no OR; a topic has one, for "
                "new papers: /watch rdma OR infiniband in cs.DC."
            )
        )
    category = None
    found = _IN_CATEGORY.match(text.strip())
    if found is not None:
        try:
            category = resolve_category(found["category"])
            text = found["words"]
        except UnknownCategory:
            # "in cs.XX" or "in hep-xx" meant a category; "in practice" meant words.
            if any(mark in found["category"] for mark in ".-"):
                raise
    return SearchQuery(search_words(text), category)


def search_words(text: str) -> tuple[str, ...]:
    """The words to look for in `text`: folded, stop words dropped, each once, in order."""
    words = words_of(text)
    if not words:
        raise SearchError(sentence("Give at least one word to look for."))
    kept = tuple(dict.fromkeys(word for word in words if word not in STOP_WORDS))
    if not kept:
        raise SearchError(
            sentence("Those are all common words that every paper has; add a rarer one.")
        )
    if len(kept) > MAX_SEARCH_WORDS:
        raise SearchError(
            sentence("{count} words given; at most {most}.", count=len(kept), most=MAX_SEARCH_WORDS)
        )
    if len(" ".join(kept).encode()) > MAX_SEARCH_BYTES:
        raise SearchError(
            sentence("Too long: at most {most} letters of words in all.", most=MAX_SEARCH_BYTES)
        )
    return kept
