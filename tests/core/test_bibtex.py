"""`watcher.bibtex`: the entry the "Cite" button answers with, from a stored record alone; its
key in arXiv's style, the DOI and journal reference when known, and odd characters (braces,
backslashes, accents, TeX, `%`, `&`) escaped so that the entry still parses. Pure: no database."""

from __future__ import annotations

import re
from datetime import UTC, datetime

from tests.fakes.corpus import make_record
from watcher.bibtex import bibtex_entry, bibtex_key, escape_field
from watcher.records import Author

WHEN = datetime(2026, 3, 2, 12, tzinfo=UTC)


def fields_of(entry: str) -> dict[str, str]:
    """The entry's fields, read back as a BibTeX parser would: name = {balanced braces}."""
    assert entry.startswith("@misc{") and entry.endswith("}\n")
    fields: dict[str, str] = {}
    position = entry.index(",\n") + 2
    while True:
        match = re.compile(r"\s*(\w+) = \{").match(entry, position)
        if match is None:
            break
        depth, index = 1, match.end()
        while depth:
            char = entry[index]
            if char == "\\":
                index += 2
                continue
            depth += {"{": 1, "}": -1}.get(char, 0)
            index += 1
        fields[match.group(1)] = entry[match.end() : index - 1]
        position = index + (1 if entry[index] == "," else 0)
    assert entry[position:] == "\n}\n", entry[position:]
    return fields


def test_an_entry_has_arxivs_fields_and_key() -> None:
    record = make_record(
        arxiv_id="2603.01234",
        version=2,
        title="Adaptive   Routing in the\n Dragonfly Network for Exascale Systems",
        authors=["Dezun Dong", "Yemao Xu"],
        primary_category="cs.DC",
        published=datetime(2025, 12, 30, tzinfo=UTC),
        updated=WHEN,
    )

    entry = bibtex_entry(record)

    assert entry.splitlines()[0] == "@misc{dong2026adaptiveroutingdragonflynetwork,"
    assert fields_of(entry) == {
        "title": "Adaptive Routing in the Dragonfly Network for Exascale Systems",
        "author": "Dezun Dong and Yemao Xu",
        "year": "2026",
        "eprint": "2603.01234",
        "archivePrefix": "arXiv",
        "primaryClass": "cs.DC",
        "url": "https://arxiv.org/abs/2603.01234",
    }


def test_doi_and_journal_reference_when_known() -> None:
    record = make_record(doi="10.1145/3458817.3476181", journal_ref="Proc. SC '21, pp. 1-14")

    fields = fields_of(bibtex_entry(record))

    assert fields["doi"] == "10.1145/3458817.3476181"
    assert fields["note"] == "Proc. SC '21, pp. 1-14"
    assert list(fields)[-1] == "url"


def test_odd_characters_are_escaped_and_tex_kept() -> None:
    record = make_record(
        title=r"Braces {unbalanced and $\alpha$-stable \emph{laws}: 30% of A&B_c} } \ done",
        authors=[Author('Kurt G{\\"o}del'), Author("José Núñez-García"), Author("Ann O'Neil")],
        journal_ref="J. Phys. A 57 #3 (2026) 035201",
        updated=WHEN,
    )

    entry = bibtex_entry(record)
    fields = fields_of(entry)

    assert fields["title"] == (
        r"Braces {unbalanced and $\alpha$-stable \emph{laws}: 30\% of A\&B\_c} \} "
        r"\textbackslash{} done"
    )
    assert fields["author"] == "Kurt G{\\\"o}del and José Núñez-García and Ann O'Neil"
    assert fields["note"] == r"J. Phys. A 57 \#3 (2026) 035201"
    assert entry.splitlines()[0] == "@misc{godel2026bracesunbalancedstablelaws,"


def test_math_keeps_its_underscores_and_a_lone_dollar_is_escaped() -> None:
    assert escape_field(r"$x_1 + y^2$ and k_2") == r"$x_1 + y^2$ and k\_2"
    assert escape_field("costs $5 only") == r"costs \$5 only"
    assert escape_field(r"already \{escaped\} and \% fine") == r"already \{escaped\} and \% fine"


def test_the_key_is_ascii_and_never_empty() -> None:
    accented = make_record(authors=["Zoë Ångström Jr."], title="Über die Theorie", updated=WHEN)
    assert bibtex_key(accented) == "angstrom2026uberdietheorie"
    nothing = make_record(arxiv_id="hep-th/9901001", authors=[], title="$$", updated=WHEN)
    assert bibtex_key(nothing) == "unknown2026"
    assert fields_of(bibtex_entry(nothing))["eprint"] == "hep-th/9901001"
    assert "author" not in fields_of(bibtex_entry(nothing))


def test_a_long_author_list_ends_in_and_others_to_fit() -> None:
    record = make_record(authors=[f"Author Number{i}" for i in range(3000)], updated=WHEN)

    assert len(bibtex_entry(record)) > 40_000  # whole, as arXiv exports it
    entry = bibtex_entry(record, limit=3000)

    assert len(entry) <= 3000
    authors = fields_of(entry)["author"].split(" and ")
    assert authors[0] == "Author Number0" and authors[-1] == "others" and len(authors) == 11
