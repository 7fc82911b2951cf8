"""Word stems: what makes "network" and "networks" one word when a topic is matched.

Topics (`watcher.follows.topics`) compare folded words (`watcher.follows.folding`) by their stems,
as arXiv's own search does: "networks" and "network" share the stem "network", "routing" and "route"
the stem "rout". The stems are the English Snowball stemmer's (Porter2), in PyStemmer's C
implementation; no suffix list of ours decides. A stem is of one whole word: "rdmax" keeps its "x",
so a word never matches the start of a longer one.

A PyStemmer object is not to be shared between threads, so each thread that stems gets its own,
without PyStemmer's cache of stemmed words: by default 10,000 words a thread, 1.6 MB held after
one 2,000-paper batch, for no speed, as the C stemmer is as fast as the cache's lookup
(`bench/stemmer_cache.py`, issue 32).
"""

from __future__ import annotations

import threading
from collections.abc import Sequence

import Stemmer

LANGUAGE = "english"

_local = threading.local()


def _stemmer() -> Stemmer.Stemmer:
    try:
        stemmer: Stemmer.Stemmer = _local.stemmer
    except AttributeError:
        stemmer = _local.stemmer = Stemmer.Stemmer(LANGUAGE, maxCacheSize=0)
    return stemmer


def stems(words: Sequence[str]) -> list[str]:
    """The stem of each of `words` (folded words: lower case, letters and digits), in order."""
    found: list[str] = _stemmer().stemWords(words)
    return found


def stem(word: str) -> str:
    """The stem of one folded word: "networks" → "network"."""
    found: str = _stemmer().stemWord(word)
    return found
