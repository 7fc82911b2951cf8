"""Make the LaTeX that arXiv authors put in titles and abstracts readable as plain Unicode.

`latex_to_text("Mixtral-8$\\times$7B, 32~GB")` gives "Mixtral-8×7B, 32 GB". The conversion is
pylatexenc's; this module only prepares the text for it (the characters that mean one thing in an
abstract and another in LaTeX) and falls back to the original text whenever the LaTeX is
malformed, so a notification is never lost to a stray `$` or a cut-off `\\frac{`.
"""

from __future__ import annotations

import re
from functools import cache
from typing import Any

__all__ = ["latex_to_text"]

# Text without any of these has nothing for LaTeX to change, so it skips the (slow) parser.
_LATEX_TRIGGER = re.compile(r"[\\$~{}]|--|``|''")

# In an abstract a bare % is a percent sign ("improves by 30% over"), never a LaTeX comment, and a
# bare & is an ampersand ("A&B"), never a table column separator: escape both for the parser.
_BARE_PERCENT_OR_AMPERSAND = re.compile(r"(?<!\\)([%&])")

# Spans the parser must not touch: URLs (their ~, %, _ and # are literal), and a tilde that does
# not sit between two words. "32~GB" is LaTeX's non-breaking space, but "a ~2.88x speedup" means
# "about", as the abstract's author typed it.
_VERBATIM = re.compile(r"https?://[^\s{}]+|(?<!\S)~|~(?!\S)")

# Each span set aside is replaced by one character of Unicode's Private Use Area, which the parser
# passes through as an ordinary letter (so a macro may even take it as its argument) and which
# marks where the span goes back after the conversion.
_FIRST_MARK, _LAST_MARK = 0xE000, 0xF8FF
_MARK = re.compile("[\ue000-\uf8ff]")

# pylatexenc reads plain text one character per token, which made a 1,600-character abstract cost
# about 6 ms. Runs of characters that LaTeX leaves alone are set aside like the verbatim spans, so
# the parser only walks the LaTeX itself. A run never starts with a space, because LaTeX eats the
# space after a macro name ("\\times 7B"), and never includes a character that could begin or
# continue LaTeX syntax (braces, brackets, dashes, quotes, ...). Macros are matched first so that
# the letters of their names are never taken for a run.
_MACRO_OR_PLAIN_RUN = re.compile(
    r"\\(?:[A-Za-z]+|.)"
    r"|[^\s\\{}$%&~#^_`'!?\-\[\]*\ue000-\uf8ff][^\\{}$%&~#^_`'!?\-\[\]*\ue000-\uf8ff]{3,}"
)

_INLINE_MATH = re.compile(r"(?<![\\$])\$((?:[^$\\]|\\.)+)\$")
_DEGREES = re.compile(r"\^\s*(?:\\circ\b|\{\s*\\circ\s*\})")
_SUPERSCRIPT = re.compile(r"\^(?:\{([^{}]*)\}|([0-9a-z]))")
_SUBSCRIPT = re.compile(r"_(?:\{([^{}]*)\}|([0-9a-z]))")

_SUPERSCRIPTS = dict(
    zip(
        "0123456789+-=()abcdefghijklmnoprstuvwxyz",
        "⁰¹²³⁴⁵⁶⁷⁸⁹⁺⁻⁼⁽⁾ᵃᵇᶜᵈᵉᶠᵍʰⁱʲᵏˡᵐⁿᵒᵖʳˢᵗᵘᵛʷˣʸᶻ",
        strict=True,
    )
)
_SUBSCRIPTS = dict(
    zip("0123456789+-=()aehijklmnoprstuvx", "₀₁₂₃₄₅₆₇₈₉₊₋₌₍₎ₐₑₕᵢⱼₖₗₘₙₒₚᵣₛₜᵤᵥₓ", strict=True)
)


@cache
def _pylatexenc() -> tuple[Any, Any, Any]:
    """pylatexenc's walker class, its macro table and a converter, made at the first text that
    has LaTeX in it: pylatexenc and its tables are about 2 MB resident, which a service whose
    papers hold no LaTeX never needs (bench/README.md). Built once: pylatexenc would otherwise
    rebuild its macro table for every abstract."""
    from pylatexenc.latex2text import LatexNodes2Text
    from pylatexenc.latexwalker import LatexWalker, get_default_latex_context_db

    return LatexWalker, get_default_latex_context_db(), LatexNodes2Text()


def latex_to_text(text: str) -> str:
    """Return `text` with its LaTeX turned into Unicode and its whitespace collapsed.

    Never raises: malformed LaTeX comes back as the original text (whitespace collapsed).
    """
    plain = " ".join(text.split())
    if not _LATEX_TRIGGER.search(plain) or _MARK.search(plain):
        return plain
    set_aside: list[str] = []

    def mark(match: re.Match[str]) -> str:
        if _FIRST_MARK + len(set_aside) > _LAST_MARK:
            raise _OutOfMarks
        set_aside.append(match.group())
        return chr(_FIRST_MARK + len(set_aside) - 1)

    try:
        prepared = _VERBATIM.sub(mark, plain)
        prepared = _BARE_PERCENT_OR_AMPERSAND.sub(r"\\\1", prepared)
        prepared = _INLINE_MATH.sub(_scripts_to_unicode, prepared)
        prepared = _MACRO_OR_PLAIN_RUN.sub(
            lambda match: match.group() if match.group().startswith("\\") else mark(match),
            prepared,
        )
    except _OutOfMarks:  # far longer than any abstract arXiv accepts: not worth converting
        return plain
    walker, latex_context, converter = _pylatexenc()
    try:
        # Strict parsing makes an unbalanced $ or brace an error instead of a silent loss of text.
        nodes = walker(
            prepared, latex_context=latex_context, tolerant_parsing=False
        ).get_latex_nodes()[0]
        converted: str = converter.nodelist_to_text(nodes)
    except Exception:  # third-party code on untrusted text: any failure means "keep the original"
        return plain
    restored = _MARK.sub(lambda match: set_aside[ord(match.group()) - _FIRST_MARK], converted)
    return " ".join(restored.split())


class _OutOfMarks(Exception):
    """More spans to set aside than the Private Use Area has characters."""


def _scripts_to_unicode(math: re.Match[str]) -> str:
    """Write `n^2`, `10^{-3}`, `x_i`, `90^\\circ` in Unicode where every character has a form."""
    body = _DEGREES.sub("°", math.group(1))
    body = _SUPERSCRIPT.sub(lambda m: _script(m, _SUPERSCRIPTS), body)
    body = _SUBSCRIPT.sub(lambda m: _script(m, _SUBSCRIPTS), body)
    return f"${body}$"


def _script(match: re.Match[str], table: dict[str, str]) -> str:
    content = (match.group(1) if match.group(1) is not None else match.group(2)).replace(" ", "")
    if content and all(char in table for char in content):
        return "".join(table[char] for char in content)
    return match.group()
