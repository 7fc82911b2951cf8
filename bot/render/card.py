"""The compact card of one paper, as inline mode offers it to be posted in any chat: the title
linked to the abstract page, the authors, the primary category and the id, and the abstract's
first sentence; with Abstract and PDF buttons. Pure: a record in, a `Card` out, in the language
speaking now (only the buttons and the "and N others" are words of ours).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from bot.i18n import _, ngettext
from bot.render.styled import Button, Line, Message, Span, clip, message_of
from watcher.arxiv.latex import latex_to_text
from watcher.arxiv.records import Record

TITLE_LIMIT = 300
NAME_LIMIT = 60
AUTHORS_SHOWN = 3  # a longer list shows the first three and a count
SENTENCE_LIMIT = 400
DESCRIPTION_LIMIT = 120  # the line under the title in the list of results

# A sentence ends at ". ", "! " or "? " before a capital or a digit, but not after the
# abbreviations abstracts use ("e.g. ", "et al. ", "Fig. ").
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9(\[])")
_ABBREVIATIONS = ("e.g.", "i.e.", "al.", "Fig.", "Eq.", "vs.", "cf.", "Ref.", "Sec.", "approx.")


@dataclass(frozen=True, slots=True)
class Card:
    """One paper as an inline result: `title` and `description` are what the asker's list of
    results shows; `message` is what is posted when they pick it."""

    arxiv_id: str
    title: str
    description: str
    message: Message


def paper_card(record: Record) -> Card:
    """The card of `record`."""
    title = clip(" ".join(latex_to_text(record.title).split()) or "(no title)", TITLE_LIMIT)
    authors = authors_text(record)
    where = " · ".join(p for p in (record.primary_category, f"arXiv:{record.arxiv_id}") if p)
    lines = [Line((Span(title, tags=("b",), href=record.abs_url or None),))]
    if authors:
        lines.append(Line((Span(authors),)))
    lines.append(Line((Span(where, tags=("i",)),)))
    sentence = first_sentence(record.abstract)
    if sentence:
        lines.append(Line((Span(sentence),)))
    links = ((_("📄 Abstract"), record.abs_url), (_("📥 PDF"), record.pdf_url))
    row = tuple(Button(text, url=url) for text, url in links if url)
    description = clip(" · ".join(part for part in (authors, record.primary_category) if part),
                       DESCRIPTION_LIMIT)  # fmt: skip
    return Card(record.arxiv_id, title, description, message_of(lines, (row,) if row else ()))


def authors_text(record: Record) -> str:
    """ "A, B, C" for up to four authors; "A, B, C and 5 others" for more."""
    names = [clip(" ".join(a.name.split()), NAME_LIMIT) for a in record.authors if a.name.strip()]
    if len(names) <= AUTHORS_SHOWN + 1:
        return ", ".join(names)
    hidden = len(names) - AUTHORS_SHOWN
    return ngettext(
        "{names} and {n} other",
        "{names} and {n} others",
        hidden,
        names=", ".join(names[:AUTHORS_SHOWN]),
    )


def first_sentence(abstract: str) -> str:
    """The abstract's first sentence, as plain text, cut at `SENTENCE_LIMIT`."""
    text = " ".join(latex_to_text(abstract).split())
    for end in _SENTENCE_END.finditer(text):
        if not text[: end.start()].endswith(_ABBREVIATIONS):
            return clip(text[: end.start()], SENTENCE_LIMIT)
    return clip(text, SENTENCE_LIMIT)
