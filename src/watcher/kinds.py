"""The kinds the whole service speaks of, as `StrEnum`s: which rule a follow is, what a piece
of news about a paper is, and how a chat's announcements look; and the languages a chat may
choose (`LANGUAGES`, BCP 47 tags; the first, English, is the source every sentence is written in).

They are plain strings in the database (`followed_author.kind`, `delivery.kind`) and compare
equal to them, so a row read back is its kind without conversion.
"""

from __future__ import annotations

from enum import StrEnum


class FollowKind(StrEnum):
    """Which rule a follow is."""

    PERSON = "person"  # a name and its aliases, matched against each paper's authors
    IDENTITY = "identity"  # an arXiv author id or ORCID iD, polled through its feed
    TOPIC = "topic"  # phrases and words in a title or abstract, in some categories


class NewsKind(StrEnum):
    """What an announcement tells a chat about a paper."""

    NEW = "new"  # a paper the chat has not heard of
    REVISION = "revision"  # a newer version of a paper it was told of

    @classmethod
    def of(cls, kind: str) -> NewsKind:
        """The kind a stored string names; anything but "revision" is news of a new paper."""
        return cls.REVISION if kind == cls.REVISION else cls.NEW


class MessageFormat(StrEnum):
    """How a chat's (or topic's) announcements look (`destination_setting.format`)."""

    FULL = "full"  # one message per paper, with its abstract
    COMPACT = "compact"  # one line per paper; several found together share one message


# The languages a chat may choose (/language, an import's `language:`), as BCP 47 tags. The
# first is the source language of every sentence, and the default.
LANGUAGES: tuple[str, ...] = ("en", "zh-Hans")
SOURCE_LANGUAGE = LANGUAGES[0]
