"""`watcher.arxiv.bibtex`: the entry the "Cite" button answers with, from a stored record alone; its
key in arXiv's style, the DOI and journal reference when known, and odd characters (braces,
backslashes, accents, TeX, `%`, `&`) escaped so that the entry still parses. Pure: no database."""

from __future__ import annotations

import random
from datetime import UTC, datetime

from tests.fakes.corpus import make_record
from tests.harness.bibtex_reader import people, read_entry
from watcher.arxiv.bibtex import bibtex_entry, bibtex_key, escape_field
from watcher.arxiv.records import Author

WHEN = datetime(2026, 3, 2, 12, tzinfo=UTC)


def fields_of(entry: str) -> dict[str, str]:
    """The entry's fields as a real BibTeX parser reads them (one entry, one field a line)."""
    assert entry.startswith("@misc{") and entry.endswith("\n}\n")
    return read_entry(entry)[1]


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
        r"Braces {unbalanced and $\alpha$-stable \emph{laws}: 30\% of A\&B\_c} "
        r"\textbraceright{} \textbackslash{} done"
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


def test_a_crafted_title_writes_no_field_of_its_own() -> None:
    # BibTeX counts `\}` as a closing brace: escaping it with a backslash ended the title there,
    # and the rest of the title became a field of its own.
    record = make_record(
        title=r"Surprising Results\}, howpublished = {Nature}, title = {Other",
        authors=["Dezun Dong"],
        doi="10.1/x}, publisher = {Evil",
        journal_ref="J. Phys. \\}",
        updated=WHEN,
    )

    fields = fields_of(bibtex_entry(record))

    assert list(fields) == [
        "title", "author", "year", "eprint", "archivePrefix", "primaryClass", "doi", "note", "url",
    ]  # fmt: skip
    assert fields["title"] == (
        r"Surprising Results\textbraceright{}, howpublished = {Nature}, title = "
        r"\textbraceleft{}Other"
    )
    assert fields["doi"] == r"10.1/x\textbraceright{}, publisher = \textbraceleft{}Evil"
    assert fields["note"] == r"J. Phys. \textbraceright{}"


def test_an_unpaired_brace_is_spelled_as_a_command_in_text_and_in_math() -> None:
    assert escape_field(r"a \{ b") == r"a \textbraceleft{} b"
    assert escape_field(r"\{a\} b}") == r"\{a\} b\textbraceright{}"
    assert escape_field(r"$\{x$ and {y") == r"$\lbrace{}x$ and \textbraceleft{}y"
    # An unclosed $ turns math off: its `\$` command is kept, the lone $ escaped once.
    assert escape_field(r"\$5 and $x") == r"\$5 and \$x"


def test_each_author_stays_one_person() -> None:
    record = make_record(
        authors=["ATLAS and CMS Collaborations", "A {B", "C} D", "others", "Smith, Jr., John"],
        updated=WHEN,
    )

    author = fields_of(bibtex_entry(record))["author"]

    assert people(author) == [
        "{ATLAS and CMS Collaborations}",
        r"A \textbraceleft{}B",
        r"C\textbraceright{} D",
        "{others}",
        "Smith, Jr., John",
    ]
    shortened = fields_of(bibtex_entry(record, limit=len(bibtex_entry(record)) - 1))
    assert people(shortened["author"])[-1] == "others"


# Pieces of adversarial titles, names and journal references: braces (paired, unpaired,
# backslashed), backslashes, BibTeX's own syntax (`@`, `#`, `=`, `,`, `"`, "and"), TeX's
# specials (`%`, `$`, `&`, `_`, `~`, `^`) and TeX commands, unbalanced or not.
_PIECES = [
    "{", "}", "\\", "\\{", "\\}", "\\\\", "{}", "}{", "@", "@misc{x,", "@comment{", "%", "\\%",
    "#", "\\#", '"', "'", "$", "\\$", "&", "_", "~", "^", ",", "=", "and", " and ", "others",
    "\\emph{", "\\alpha", '{\\"o}', '\\"o', "\\textbf", "}, howpublished = {Nature}",
    "Results\\}, note = {x", "}}}", "{{{", "\\ ", "\n", "\t", "é", "Ω", "Dezun", "Dong", "x_1",
    "$x^2$", "Routing", "1-14",
]  # fmt: skip


def _adversarial(rng: random.Random, most: int) -> str:
    return "".join(rng.choice(_PIECES) + rng.choice(["", " "]) for _ in range(rng.randint(1, most)))


def _visible(tex: str) -> str:
    """What a field says once our escapes are read back, without braces, backslashes and
    spaces: the same as the original's, if escaping lost and added nothing."""
    for escaped, char in _READ_BACK:
        tex = tex.replace(escaped, char)
    return "".join(c for c in tex if c not in "\\{}" and not c.isspace())


_READ_BACK = [
    (r"\textbraceleft{}", ""), (r"\textbraceright{}", ""), (r"\lbrace{}", ""),
    (r"\rbrace{}", ""), (r"\textbackslash{}", ""),
]  # fmt: skip


def test_3000_adversarial_entries_parse_to_exactly_the_fields_written() -> None:
    rng = random.Random(29)
    for number in range(3000):
        names = [_adversarial(rng, 4) for _ in range(rng.randint(0, 4))]
        record = make_record(
            arxiv_id=f"2601.{number:05d}",
            title=_adversarial(rng, 12),
            authors=names,
            doi=_adversarial(rng, 3) if rng.random() < 0.3 else None,
            journal_ref=_adversarial(rng, 6) if rng.random() < 0.3 else None,
            updated=WHEN,
        )
        entry = bibtex_entry(record)

        key, fields = read_entry(entry)

        shown = [n for n in names if n.strip()]
        written = ["title"] if record.title.strip() else []
        written += ["author"] if shown else []
        written += ["year", "eprint", "archivePrefix", "primaryClass"]
        written += ["doi"] if record.doi and record.doi.strip() else []
        written += ["note"] if record.journal_ref and record.journal_ref.strip() else []
        assert (key, list(fields)) == (bibtex_key(record), [*written, "url"]), entry
        assert fields["eprint"] == record.arxiv_id and fields["year"] == "2026"
        assert fields["url"] == f"https://arxiv.org/abs/{record.arxiv_id}"
        assert _visible(fields.get("title", "")) == _visible(record.title), entry
        if shown:
            assert len(people(fields["author"])) == len(shown), entry
            assert _visible(fields["author"]) == _visible("and".join(shown)), entry
        if "note" in fields:
            assert _visible(fields["note"]) == _visible(record.journal_ref or ""), entry
