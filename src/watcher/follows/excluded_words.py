"""Words a chat never wants to see (/exclude): parsing one, and matching a paper against a
chat's list.

An excluded entry is one word or one "quoted phrase", read and matched exactly as a topic's
terms are (`watcher.follows.topics`: folded, whole words, compared stem by stem, a phrase its
words one after the other), so `survey` holds back "Surveys" and `"large language model"` holds
back "Large Language Models". It is stored as typed, folded (`ExcludedWord.text`, the phrase's
words joined by spaces). At most `MAX_EXCLUDED` a chat, each at most `MAX_TOPIC_LENGTH`
characters, as a topic's text. `parse_excluded` refuses anything else with an `ExcludedError`
whose message says what is wrong and what would do.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from watcher.follows.topic_syntax import Phrase, words_of
from watcher.follows.topics import MAX_TOPIC_LENGTH, RecordText, TopicError, strip_markup
from watcher.sentences import sentence

__all__ = [
    "MAX_EXCLUDED",
    "MAX_EXCLUDED_LENGTH",
    "ExcludedError",
    "ExcludedWord",
    "RecordText",
    "holds_any",
    "parse_excluded",
]

MAX_EXCLUDED = 20  # entries a chat
MAX_EXCLUDED_LENGTH = MAX_TOPIC_LENGTH  # characters an entry, as a topic's

_QUOTES = str.maketrans({"“": '"', "”": '"', "„": '"', "«": '"', "»": '"'})


class ExcludedError(TopicError):
    """An entry that cannot be excluded; the message says why and what would do."""


@dataclass(frozen=True, slots=True)
class ExcludedWord:
    """One excluded word or phrase: its folded words, and their stems for matching."""

    phrase: Phrase
    stems: Phrase = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "stems", RecordText.phrase_stems(self.phrase))

    @property
    def text(self) -> str:
        """As stored and shown: the words, space-separated (a phrase is shown in quotes)."""
        return " ".join(self.phrase)

    @property
    def shown(self) -> str:
        return self.text if len(self.phrase) == 1 else f'"{self.text}"'

    @classmethod
    def stored(cls, text: str) -> ExcludedWord:
        return cls(tuple(text.split()))


def parse_excluded(text: str) -> ExcludedWord:
    """The entry `text` asks for: `survey`, `"large language model"` (quotes optional: every
    word given is one phrase). Raises ExcludedError when it is empty or too long."""
    text = strip_markup(text).translate(_QUOTES).strip()
    if len(text) > MAX_EXCLUDED_LENGTH:
        raise ExcludedError(
            sentence(
                "that is too long ({count} characters; at most {most})",
                count=len(text),
                most=MAX_EXCLUDED_LENGTH,
            )
        )
    words = words_of(text)
    if not words:
        raise ExcludedError(sentence('give a word or a "quoted phrase" to hold back'))
    return ExcludedWord(tuple(words))


def holds_any(record: RecordText, excluded: Iterable[ExcludedWord]) -> bool:
    """Whether a paper (its title and abstract as `RecordText`, built once a paper) holds one of
    the excluded words or phrases, as a topic would find them (`RecordText.has`)."""
    return any(record.has(entry.stems) for entry in excluded)
