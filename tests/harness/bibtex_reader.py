"""A BibTeX entry read back by a real BibTeX parser (pybtex, a test dependency), for the tests of
the "Cite" button: the key, and each field's raw value in the order written.

pybtex counts braces as BibTeX does, whatever stands before them (`\\}` closes a field), and
raises on what BibTeX refuses. bibtexparser 2.1 takes `\\}` for an escaped brace, which BibTeX
does not, so it would pass entries that break a real .bib file.
"""

from __future__ import annotations

from pybtex.bibtex.utils import split_name_list
from pybtex.database.input.bibtex import Parser

__all__ = ["people", "read_entry"]


def read_entry(text: str) -> tuple[str, dict[str, str]]:
    """The one entry in `text`: its key and its fields (authors kept as one raw field)."""
    data = Parser(person_fields=[], macros={}).parse_string(text)
    ((key, entry),) = data.entries.items()
    assert entry.type == "misc"
    return key, {name: str(value) for name, value in entry.fields.items()}


def people(author_field: str) -> list[str]:
    """The persons BibTeX reads in an `author` field, each as written."""
    return [str(name) for name in split_name_list(author_field)]
