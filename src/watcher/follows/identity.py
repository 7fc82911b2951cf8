"""A person's arXiv identity: what `/subscribe` and `follow` accept as "exactly this person".

Two kinds, both served by arXiv as a per-person Atom feed (`polling.sources.author_feed`):
- an arXiv author id, the end of the person's arXiv author page's address: `dong_d_1`, given as
  `arxiv:dong_d_1` or `https://arxiv.org/a/dong_d_1` (also `.atom`, `.html`, a trailing slash);
- an ORCID iD, `0000-0002-1825-0097`, bare or as `https://orcid.org/0000-0002-1825-0097`. Its
  last character is an ISO 7064 mod 11-2 check digit (`X` for 10), verified here, so a typo is
  caught before arXiv is asked.

`parse_identity` answers None for text that is no identity at all (a person's name), the
`Identity` for a good one, and raises `IdentityError` (a one-line explanation) for text that is
plainly meant as one but is wrong. Pure: no I/O.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from watcher.sentences import SaysSentence, Sentence, sentence

IdentityKind = Literal["arxiv", "orcid"]

ARXIV_PREFIX = "arxiv:"
ORCID_PREFIX = "orcid:"
EXAMPLE_ARXIV_PAGE = "https://arxiv.org/a/dong_d_1"
EXAMPLE_ORCID = "0000-0002-1825-0097"
# How an ORCID iD is written, shown in refusals of a wrong one: a real iD there reads as a
# suggestion to follow it, and arXiv knows no author by the example one (issue 30, item 5).
ORCID_SHAPE = "NNNN-NNNN-NNNN-NNNN"
MAX_IDENTITY_LENGTH = 200

# arXiv's author ids: lower-case surname words and initials joined by "_", then a number.
_ARXIV_ID = re.compile(r"[a-z][a-z0-9-]*(?:_[a-z0-9-]+)*_\d+")
_ORCID = re.compile(r"(\d{4})-?(\d{4})-?(\d{4})-?(\d{3}[\dX])")
_ARXIV_PAGE = re.compile(r"(?:https?://)?(?:www\.)?arxiv\.org/a/(?P<id>[^/?#]*)/?", re.IGNORECASE)
_ORCID_PAGE = re.compile(r"(?:https?://)?(?:www\.)?orcid\.org/(?P<id>[^/?#]*)/?", re.IGNORECASE)
_PAGE_SUFFIXES = (".atom2", ".atom", ".html", ".rss")


class IdentityError(SaysSentence, ValueError):
    """Text meant as an identity that is not a valid one; the message is the one-line answer (a
    `watcher.sentences.Sentence`, `error.sentence`)."""


@dataclass(frozen=True, slots=True)
class Identity:
    """One person's identity on arXiv: `key` is how it is stored ("arxiv:dong_d_1",
    "orcid:0000-0002-1825-0097"), `feed_id` what arXiv's author feed address ends with."""

    kind: IdentityKind
    value: str

    @property
    def key(self) -> str:
        return f"{self.kind}:{self.value}"

    @property
    def feed_id(self) -> str:
        return self.value

    @property
    def shown(self) -> str:
        """How a person reads it: the arXiv id's page, or the ORCID iD."""
        return f"arxiv:{self.value}" if self.kind == "arxiv" else f"ORCID {self.value}"

    def __str__(self) -> str:
        return self.shown

    @property
    def unknown(self) -> Sentence:
        """Why it cannot be followed when arXiv has no feed for it: one answer, the same for
        /subscribe, /import, the CLI and a follow whose id arXiv stopped knowing."""
        if self.kind == "orcid":
            return sentence(
                "arXiv knows no author with ORCID iD {orcid} (only those their owners "
                "linked to arXiv), so try their arXiv author id",
                orcid=self.value,
            )
        return sentence(
            "arXiv knows no author id {author_id}; the id is the end of an arXiv author "
            "page's address",
            author_id=self.value,
        )

    @classmethod
    def from_key(cls, key: str) -> Identity:
        """The identity stored as `key`; ValueError for anything that is not a stored key."""
        found = parse_identity(key) if key.startswith((ARXIV_PREFIX, ORCID_PREFIX)) else None
        if found is None or found.key != key:
            raise ValueError(f"not an identity key: {key!r}")
        return found


def orcid_check_digit(base_digits: str) -> str:
    """The ISO 7064 mod 11-2 check character of an ORCID iD's first 15 digits."""
    total = 0
    for digit in base_digits:
        total = (total + int(digit)) * 2
    result = (12 - total % 11) % 11
    return "X" if result == 10 else str(result)


def looks_like_identity(text: str) -> bool:
    """Whether `text` is meant as an identity rather than a name: names hold no digit, colon
    or slash (`watcher.follows.names.check_person_name`), and identities always hold one of them."""
    text = text.strip()
    return any(c.isdigit() or c in ":/_" for c in text)


def parse_identity(text: str) -> Identity | None:
    """The identity `text` names; None when it is no identity (a name); IdentityError when it
    is plainly meant as one but is wrong."""
    text = text.strip()
    if not text or not looks_like_identity(text):
        return None
    if len(text) > MAX_IDENTITY_LENGTH:
        raise IdentityError(
            sentence(
                "That is too long for an arXiv author id or ORCID iD; {forms}.", forms=_forms()
            )
        )
    lowered = text.lower()
    if page := _ARXIV_PAGE.fullmatch(text):
        candidate = page.group("id")
        for suffix in _PAGE_SUFFIXES:
            if candidate.lower().endswith(suffix):
                candidate = candidate[: -len(suffix)]
                break
        # arXiv serves an ORCID iD's feed at the same address.
        if _ORCID.fullmatch(candidate.upper()):
            return _orcid(candidate)
        return _arxiv(candidate, text)
    if page := _ORCID_PAGE.fullmatch(text):
        return _orcid(page.group("id"))
    if lowered.startswith(ARXIV_PREFIX):
        return _arxiv(text[len(ARXIV_PREFIX) :].strip(), text)
    if lowered.startswith(ORCID_PREFIX):
        return _orcid(text[len(ORCID_PREFIX) :].strip())
    if re.fullmatch(r"[\dXx-]+", text) and sum(c.isdigit() for c in text) >= 8:
        return _orcid(text)
    if _ARXIV_ID.fullmatch(lowered):
        return Identity("arxiv", lowered)
    raise IdentityError(
        sentence(
            "{text} is neither a name nor an author id; {forms}.", text=_clip(text), forms=_forms()
        )
    )


def _forms() -> Sentence:
    """The two forms of an identity, with an example of each."""
    return sentence(
        "an author id is the end of an arXiv author page's address, like {page}, "
        "and an ORCID iD looks like {orcid}",
        page=EXAMPLE_ARXIV_PAGE,
        orcid=EXAMPLE_ORCID,
    )


def _arxiv(candidate: str, text: str) -> Identity:
    value = candidate.lower()
    if not _ARXIV_ID.fullmatch(value):
        raise IdentityError(
            sentence(
                "{text} is not an arXiv author id: it is the end of your arXiv author "
                "page's address, like {page} (surname, initial, number).",
                text=_clip(text),
                page=EXAMPLE_ARXIV_PAGE,
            )
        )
    return Identity("arxiv", value)


def _orcid(candidate: str) -> Identity:
    match = _ORCID.fullmatch(candidate.strip().upper())
    if match is None:
        raise IdentityError(
            sentence(
                "{text} is not an ORCID iD: that is 16 digits in four groups of four, "
                "the last one may be X: {shape}.",
                text=_clip(candidate),
                shape=ORCID_SHAPE,
            )
        )
    digits = "".join(match.groups())
    expected = orcid_check_digit(digits[:15])
    value = "-".join(match.groups())
    if digits[15] != expected:
        raise IdentityError(
            sentence(
                "{orcid} is not a valid ORCID iD: its check digit (the last character) does not "
                "fit the other digits, so copy it from your ORCID record.",
                orcid=value,
            )
        )
    return Identity("orcid", value)


def _clip(text: str) -> str:
    return text if len(text) <= 60 else text[:59] + "…"
