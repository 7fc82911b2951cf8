"""What a chat is shown of its suggestions: a stored paper and why it was suggested.

Shared by the store (which reads the queued suggestion messages and the digest's section) and
the core's face (`watcher.core.suggestions`); the front end words `reason`
(`scoring.Explanation`: "like: <title>" or the shared words) in the reader's language.
"""

from __future__ import annotations

from dataclasses import dataclass

from watcher.arxiv.records import Record
from watcher.suggestions.scoring import Explanation


@dataclass(frozen=True, slots=True)
class SuggestedPaper:
    """One suggestion: the paper as stored (title, link, authors, primary category), why it
    was suggested, and its score (the cosine to the chat's profile, at least
    `scoring.THRESHOLD`)."""

    record: Record
    reason: Explanation
    score: float
