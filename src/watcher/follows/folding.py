"""Folding text for matching: what makes "Dézun", "DEZUN" and "Dezun" one word.

Names (`watcher.follows.match.name_key`) and topics (`watcher.follows.topics`) are compared after
the same fold: case folded, compatibility-decomposed (NFKD), accents dropped, and the few letters
NFKD does not decompose replaced by their plain spelling, as arXiv's own search folds them.
"""

from __future__ import annotations

import unicodedata

# Letters NFKD does not decompose into a base letter plus accent; arXiv's search folds them too.
UNDECOMPOSED_LETTERS = str.maketrans(
    {"ø": "o", "ł": "l", "đ": "d", "ð": "d", "þ": "th", "æ": "ae", "œ": "oe", "ı": "i"}
)


def fold(text: str) -> str:
    """`text` case-folded, decomposed, with its accents (combining marks) dropped."""
    if text.isascii():  # most titles and abstracts: nothing to decompose, no accent to drop
        return text.lower()
    decomposed = unicodedata.normalize("NFKD", text.casefold()).translate(UNDECOMPOSED_LETTERS)
    return "".join(c for c in decomposed if not unicodedata.combining(c))
