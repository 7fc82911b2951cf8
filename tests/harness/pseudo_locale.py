"""The pseudo-locale: a language in which every translated sentence is wrapped as ⟦…⟧ and its
letters accented, so that a sentence the bot says without `_()` stands out as plain English.

`install_pseudo()` makes it speakable as `PSEUDO` (a chat whose first writer's Telegram client
sends that `language_code` speaks it); `english_left(text)` is what remains of a message once
the wrapped sentences and what is never translated (commands, `<code>` examples, URLs, arXiv
ids and categories, and the `exempt` texts: paper titles, abstracts, names) are taken out:
any English word left (of three letters or more) is a sentence, or a part, that escaped the
catalog.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from bot.i18n import install
from watcher.arxiv.taxonomy import categories

PSEUDO = "x-pseudo"
OPEN, CLOSE = "⟦", "⟧"
_ACCENTED = str.maketrans("aeiouyAEIOUYcnsz", "áéíöüýÁÉÍÖÜÝçñšž")
# What a translation keeps as it is: placeholders, tags (and <code> with its content),
# entities, commands, URLs.
_KEPT = re.compile(
    r"\{[^{}]*\}|<code>.*?</code>|<pre>.*?</pre>|<[^>]*>|&[#a-zA-Z0-9]+;|/[a-z_]+|https?://\S+",
    re.DOTALL,
)


def pseudo(message: str) -> str:
    """`message` as the pseudo-locale says it: wrapped, accented outside what is kept."""
    out, last = [], 0
    for kept in _KEPT.finditer(message):
        out.append(message[last : kept.start()].translate(_ACCENTED))
        out.append(kept.group())
        last = kept.end()
    out.append(message[last:].translate(_ACCENTED))
    return OPEN + "".join(out) + CLOSE


class PseudoTranslations:
    """gettext's two lookups, answering every message in the pseudo-locale."""

    def gettext(self, message: str, /) -> str:
        return pseudo(message)

    def ngettext(self, singular: str, plural: str, n: int, /) -> str:
        return pseudo(singular if n == 1 else plural)


def install_pseudo() -> str:
    """Make the pseudo-locale speakable; its language tag."""
    install(PSEUDO, PseudoTranslations())
    return PSEUDO


_NEVER_TRANSLATED = re.compile(
    r"<code>.*?</code>|<pre>.*?</pre>|<[^>]*>|&[#a-zA-Z0-9]+;|https?://\S+|/[a-z_]+(@\w+)?"
    r"|\b\d{4}\.\d{4,5}(v\d+)?\b|\b[a-z-]+(\.[a-zA-Z-]+)?/\d{7}\b"
    r"|\b[a-z-]+\.[A-Za-z-]{2,}\b|\b[a-z]+\b(?=\.[A-Z])"  # categories: cs.DC, math.AG
    r"|\b[A-Z][A-Za-z_]+/[A-Za-z_/+-]+"  # IANA zones: Europe/Berlin
    r"|\b(arxiv|orcid):[\w./-]+"  # author ids: arxiv:dong_d_1
    r"|\b(arXiv|ORCID|OPML|BibTeX|PDF|HTML|DOI|Telegram)\b"  # names, not sentences
    r"|\b[A-Z]{2,5}\b"  # a zone's abbreviation (CST, CEST, UTC): the zone's, in every language
    # Dates are CLDR's, not the catalog's: the pseudo-locale writes them as English does.
    r"|\b(Mon|Tue|Wed|Thu|Fri|Sat|Sun|Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Sept|Oct|Nov|Dec)\b",
    re.DOTALL,
)
_WORD = re.compile(r"[A-Za-z][A-Za-z']{2,}")


def _without_wrapped(text: str) -> str:
    """`text` with every ⟦…⟧ taken out (they nest: a translated sentence fills another's
    placeholder)."""
    out, depth = [], 0
    for char in text:
        if char == OPEN:
            depth += 1
        elif char == CLOSE:
            depth = max(0, depth - 1)
        elif depth == 0:
            out.append(char)
    return "".join(out)


def english_left(text: str, exempt: Iterable[str] = ()) -> list[str]:
    """The English words (three letters or more) left in `text` once the translated sentences
    and what is never translated are taken out; `exempt`: texts that are the paper's or the
    person's own (titles, abstracts, names, the words of a topic). arXiv's names of its
    categories ("Distributed, Parallel, and Cluster Computing") are arXiv's, as its titles are."""
    exempt = [*exempt, *categories().values()]
    for own in sorted({e for e in exempt if e}, key=len, reverse=True):
        text = text.replace(own, " ")
    text = _without_wrapped(text)
    text = _NEVER_TRANSLATED.sub(" ", text)
    return _WORD.findall(text)
