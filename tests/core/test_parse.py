"""Tests for the parse step, on the real arXiv answers recorded in `tests/data/arxiv-api/`.

Every expected value below was read off the XML files themselves (see `tests/data/SOURCES.md`
for where they come from). Broken bodies are made by cutting or editing those real bytes.
"""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from tests.harness.paths import DATA
from watcher.arxiv.parse import Page, normalise_whitespace, parse_feed, split_arxiv_id
from watcher.arxiv.records import Author, Record
from watcher.errors import ArxivAPIError, ArxivBadFeed

API_DIR = DATA / "arxiv-api"

QUERY_TESTING = "query_all-testing_start0_max10.xml"
MANY_AUTHORS = "idlist_1707.08567_34-authors.xml"
AFFILIATIONS = "idlist_astro-ph_0601001_affiliations.xml"
ERROR = "error_idlist_abc_http-400.xml"
EMPTY = "empty_idlist_0000.0000.xml"


def read(name: str) -> bytes:
    return (API_DIR / name).read_bytes()


def parse(name: str) -> Page:
    return parse_feed(read(name), url=f"https://export.arxiv.org/api/query#{name}")


def by_id(page: Page) -> dict[str, Record]:
    return {record.arxiv_id: record for record in page.records}


def utc(text: str) -> datetime:
    return datetime.strptime(text, "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=UTC)


# --- every recorded file --------------------------------------------------------------------

OUTCOMES = {
    QUERY_TESTING: "records",
    MANY_AUTHORS: "records",
    AFFILIATIONS: "records",
    EMPTY: "empty",
    ERROR: "api-error",
}


def test_every_recorded_file_has_an_expected_outcome() -> None:
    """A new recording dropped into the folder must be given an expectation here."""
    assert sorted(path.name for path in API_DIR.glob("*.xml")) == sorted(OUTCOMES)


@pytest.mark.parametrize("name", sorted(OUTCOMES))
def test_every_recorded_file_parses_to_its_outcome(name: str) -> None:
    if OUTCOMES[name] == "api-error":
        with pytest.raises(ArxivAPIError):
            parse(name)
        return
    page = parse(name)
    assert (len(page.records) > 0) == (OUTCOMES[name] == "records")
    for record in page.records:
        assert record.published.tzinfo is UTC
        assert record.updated.tzinfo is UTC
        assert record.primary_category in record.categories
        assert record.abs_url == f"https://arxiv.org/abs/{record.versioned_id}"
        assert record.pdf_url == f"https://arxiv.org/pdf/{record.versioned_id}"
        assert record.title == normalise_whitespace(record.title)
        assert record.abstract == normalise_whitespace(record.abstract)
        assert record.authors


# --- query_all-testing ----------------------------------------------------------------------


def test_query_page_metadata_is_converted_to_ints() -> None:
    page = parse(QUERY_TESTING)
    assert page.total_results == 214881
    assert page.start_index == 0
    assert page.items_per_page == 10


def test_query_page_ids_and_versions_in_feed_order() -> None:
    page = parse(QUERY_TESTING)
    assert [(record.arxiv_id, record.version) for record in page.records] == [
        ("2202.12139", 1),
        ("2405.13786", 1),
        ("2005.14124", 2),
        ("2204.08348", 3),
        ("2302.03287", 3),
        ("1202.4527", 1),
        ("2503.05378", 2),
        ("1205.1866", 1),
        ("2502.07719", 2),
        ("1812.11470", 1),
    ]


def test_first_entry_has_every_field() -> None:
    record = parse(QUERY_TESTING).records[0]
    assert record == Record(
        arxiv_id="2202.12139",
        version=1,
        title=(
            "Testing Deep Learning Models: A First Comparative Study of Multiple Testing Techniques"
        ),
        abstract=record.abstract,  # checked below, it is long
        authors=(
            Author("Mohit Kumar Ahuja"),
            Author("Arnaud Gotlieb"),
            Author("Helge Spieker"),
        ),
        primary_category="cs.SE",
        categories=("cs.SE", "cs.LG"),
        published=datetime(2022, 2, 24, 15, 5, 19, tzinfo=UTC),
        updated=datetime(2022, 2, 24, 15, 5, 19, tzinfo=UTC),
        abs_url="https://arxiv.org/abs/2202.12139v1",
        pdf_url="https://arxiv.org/pdf/2202.12139v1",
        comment="Artificial Intelligence in Software Testing 2022 workshop @ ICST 2022",
        journal_ref=(
            "Artificial Intelligence in Software Testing @ 2022 IEEE International Conference "
            "on Software Testing, Verification and Validation Workshops (ICSTW)"
        ),
        doi="10.1109/ICSTW55395.2022.00035",
    )
    assert record.abstract.startswith(
        "Deep Learning (DL) has revolutionized the capabilities of vision-based systems (VBS)"
    )
    assert record.abstract.endswith("on a classical benchmark used in VBS and discuss its results.")
    assert record.published.utcoffset() is not None
    assert record.author_names == ["Mohit Kumar Ahuja", "Arnaud Gotlieb", "Helge Spieker"]


def test_replaced_paper_keeps_v1_date_as_published_and_current_as_updated() -> None:
    record = by_id(parse(QUERY_TESTING))["2005.14124"]
    assert record.version == 2
    assert record.published == utc("2020-05-28T16:19:50Z")
    assert record.updated == utc("2020-07-16T08:15:48Z")
    assert record.categories == ("cs.SE", "cs.CR", "cs.LG")
    assert record.primary_category == "cs.SE"
    assert record.doi == "10.1145/3395363.3397376"
    assert record.author_names == [
        "Yuqi Chen",
        "Bohan Xuan",
        "Christopher M. Poskitt",
        "Jun Sun",
        "Fan Zhang",
    ]


def test_non_ascii_author_names_are_intact() -> None:
    record = by_id(parse(QUERY_TESTING))["2405.13786"]
    assert record.author_names == [
        "Aurora Ramírez",
        "Mario Berrios",
        "José Raúl Romero",
        "Robert Feldt",
    ]
    assert record.categories == ("cs.SE", "cs.AI")


def test_entities_are_decoded_in_title_and_journal_ref() -> None:
    records = by_id(parse(QUERY_TESTING))
    assert (
        records["2302.03287"].title == "ChatGPT and Software Testing Education: Promises & Perils"
    )
    assert records["1202.4527"].journal_ref == (
        "International Journal of Software Engineering & Applications (IJSEA), "
        "Vol.3, No.1, January 2012"
    )


def test_absent_journal_ref_and_doi_are_none() -> None:
    record = by_id(parse(QUERY_TESTING))["2503.05378"]
    assert record.comment == "Web Testing, GUI Testing, front-end, survey, SBST, AI, fuzzing"
    assert record.journal_ref is None
    assert record.doi is None


def test_doi_without_journal_ref_and_another_primary_category() -> None:
    record = by_id(parse(QUERY_TESTING))["1205.1866"]
    assert record.primary_category == "cs.AR"
    assert record.categories == ("cs.AR",)
    assert record.doi == "10.5121/vlsic.2012.3205"
    assert record.journal_ref is None
    assert record.author_names == ["Amandeep Singh", "Balwinder Singh"]


def test_line_breaks_in_abstract_are_normalised() -> None:
    record = by_id(parse(QUERY_TESTING))["1812.11470"]
    assert "\n" not in record.abstract
    assert "  " not in record.abstract
    assert "and community as a whole. Objective. In this systematic review" in record.abstract
    assert record.author_names == ["Yauhen Leanidavich Arnatovich", "Lipo Wang"]


# --- 34 authors -------------------------------------------------------------------------------


def test_thirty_four_authors_in_order() -> None:
    page = parse(MANY_AUTHORS)
    assert page.total_results == 1
    (record,) = page.records
    names = record.author_names
    assert len(names) == 34
    assert names[0] == "Kees A. Schouhamer Immink"
    assert names[1] == "Stan Baggen"
    assert names[4] == "Peter H. N. de With"
    assert names[13] == "Ken-ichi Iwata"
    assert names[28] == "Joost van der Putten"
    assert names[32] == "Dirk Wübben"
    assert names[-1] == "Hirosuke Yamamoto"
    assert record.arxiv_id == "1707.08567"
    assert record.comment == (
        "44 pages, editors for the proceedings: Yanling Chen and A. J. Han Vinck"
    )
    assert record.categories == ("cs.IT",)
    assert record.journal_ref is None


# --- old-style id and affiliations ------------------------------------------------------------


def test_old_style_id_and_every_authors_affiliation() -> None:
    (record,) = parse(AFFILIATIONS).records
    assert record.arxiv_id == "astro-ph/0601001"
    assert record.version == 1
    assert record.versioned_id == "astro-ph/0601001v1"
    assert record.primary_category == "astro-ph"
    assert record.categories == ("astro-ph",)
    assert record.journal_ref == "ActaAstron.56:1-50,2006"
    assert record.published == utc("2006-01-02T14:57:58Z")
    assert record.abs_url == "https://arxiv.org/abs/astro-ph/0601001v1"
    assert record.pdf_url == "https://arxiv.org/pdf/astro-ph/0601001v1"
    assert record.authors == (
        Author("Andrew Gould", ("Ohio State",)),
        Author("Susan Dorsher", ("Ohio State",)),
        Author("B. Scott Gaudi", ("CfA",)),
        Author("Andrzej Udalski", ("Warsaw University Observatory",)),
    )
    # The summary starts with two spaces and holds escaped `&` and `<`.
    assert record.abstract.startswith("We derive the frequencies of hot Jupiters")
    assert "Gould & Morgan (2003)" in record.abstract
    assert "V_max<17.5" in record.abstract


def test_several_affiliations_per_author_and_authors_without_one() -> None:
    body = (
        read(AFFILIATIONS)
        .replace(
            b"<arxiv:affiliation>CfA</arxiv:affiliation>",
            b"<arxiv:affiliation>CfA</arxiv:affiliation>\n"
            b"      <arxiv:affiliation>Harvard\n   University</arxiv:affiliation>",
        )
        .replace(
            b"<name>Susan Dorsher</name>\n      <arxiv:affiliation>Ohio State</arxiv:affiliation>",
            b"<name>Susan Dorsher</name>",
        )
    )
    (record,) = parse_feed(body).records
    assert record.authors == (
        Author("Andrew Gould", ("Ohio State",)),
        Author("Susan Dorsher", ()),
        Author("B. Scott Gaudi", ("CfA", "Harvard University")),
        Author("Andrzej Udalski", ("Warsaw University Observatory",)),
    )


# --- error and empty answers ------------------------------------------------------------------


def test_error_feed_raises_with_arxivs_message() -> None:
    url = "https://export.arxiv.org/api/query?id_list=abc"
    with pytest.raises(ArxivAPIError) as caught:
        parse_feed(read(ERROR), url=url)
    assert caught.value.message == "incorrect id format for abc"
    assert str(caught.value) == "incorrect id format for abc"
    assert caught.value.url == url


def test_empty_answer_is_zero_records_and_total_zero() -> None:
    page = parse(EMPTY)
    assert page == Page(records=[], total_results=0, start_index=0, items_per_page=100)


def test_unparseable_total_results_is_none() -> None:
    body = read(EMPTY).replace(
        b"<opensearch:totalResults>0</opensearch:totalResults>",
        b"<opensearch:totalResults>many</opensearch:totalResults>",
    )
    assert parse_feed(body).total_results is None
    absent = read(EMPTY).replace(b"<opensearch:totalResults>0</opensearch:totalResults>", b"")
    assert parse_feed(absent).total_results is None


# --- bodies that are not a whole feed ---------------------------------------------------------


def _cut_in_middle_of_an_entry() -> bytes:
    body = read(QUERY_TESTING)
    fifth_entry = body.index(b"<entry>", body.index(b"2302.03287"))
    return body[: fifth_entry + 300]


def _cut_before_feed_end() -> bytes:
    body = read(QUERY_TESTING)
    return body[: body.rindex(b"</feed>")]


BAD_BODIES = {
    "empty": b"",
    "whitespace": b" \r\n\t ",
    "html": (
        b"<!DOCTYPE html>\n<html><head><title>503 Service Unavailable</title></head>"
        b"<body><h1>Service Unavailable</h1></body></html>"
    ),
    "garbage": b"\x00\x01not a feed at all\xff",
    "json": b'{"error": "rate limited"}',
    "plain text": b"Rate exceeded.",
    "rss listing": (DATA / "arxiv-rss" / "cs_weekend_no-items.xml").read_bytes(),
    "atom without namespace": b"<?xml version='1.0'?><feed><entry><id>x</id></entry></feed>",
    "cut in an entry": _cut_in_middle_of_an_entry(),
    "cut before </feed>": _cut_before_feed_end(),
    "cut inside </feed>": read(QUERY_TESTING)[:-3],
    "cut after the xml declaration": read(QUERY_TESTING)[:40],
    "cut in the one entry": read(AFFILIATIONS)[: read(AFFILIATIONS).index(b"</entry>")],
}


@pytest.mark.parametrize("body", BAD_BODIES.values(), ids=BAD_BODIES.keys())
def test_not_a_whole_feed_is_a_bad_feed(body: bytes) -> None:
    with pytest.raises(ArxivBadFeed) as caught:
        parse_feed(body, url="https://export.arxiv.org/api/query?x=1")
    assert caught.value.url == "https://export.arxiv.org/api/query?x=1"


def test_truncated_copies_still_hold_entries_so_the_check_matters() -> None:
    """Each cut body keeps whole entries that a lax parser would happily return."""
    assert _cut_in_middle_of_an_entry().count(b"</entry>") == 5
    assert _cut_before_feed_end().count(b"</entry>") == 10


def test_entry_without_id_is_a_bad_feed() -> None:
    body = read(QUERY_TESTING).replace(b"<id>http://arxiv.org/abs/2405.13786v1</id>", b"")
    with pytest.raises(ArxivBadFeed, match="no id"):
        parse_feed(body)


@pytest.mark.parametrize(
    "replacement",
    [b"", b"<title>   \n  </title>"],
    ids=["missing", "blank"],
)
def test_entry_without_title_is_a_bad_feed(replacement: bytes) -> None:
    title = b"<title>Microcontroller Based Testing of Digital IP-Core</title>"
    body = read(QUERY_TESTING).replace(title, replacement)
    with pytest.raises(ArxivBadFeed, match="no title"):
        parse_feed(body)


def test_entry_id_that_is_not_an_arxiv_id_is_a_bad_feed() -> None:
    body = read(AFFILIATIONS).replace(
        b"<id>http://arxiv.org/abs/astro-ph/0601001v1</id>", b"<id>urn:uuid:1234</id>"
    )
    with pytest.raises(ArxivBadFeed, match="not an arXiv id"):
        parse_feed(body)


# --- normalisation and derived fields -------------------------------------------------------


def test_title_line_breaks_and_space_runs_become_one_space() -> None:
    body = read(AFFILIATIONS).replace(
        b"<title>Frequency of Hot Jupiters and Very Hot Jupiters from",
        b"<title>\n   Frequency of Hot\tJupiters and Very Hot Jupiters\r\n      from",
    )
    (record,) = parse_feed(body).records
    assert record.title == (
        "Frequency of Hot Jupiters and Very Hot Jupiters from the OGLE-III Transit Surveys "
        "Toward the Galactic Bulge and Carina"
    )


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("  a  b  ", "a b"),
        ("line\n  break", "line break"),
        ("tab\tand\r\nCRLF", "tab and CRLF"),
        ("no\u00a0break", "no break"),
        ("", ""),
    ],
)
def test_normalise_whitespace(text: str, expected: str) -> None:
    assert normalise_whitespace(text) == expected


def test_missing_links_are_derived_from_the_versioned_id() -> None:
    body = read(AFFILIATIONS)
    for line in body.splitlines(keepends=True):
        if b'<link href="https://arxiv.org/' in line and b"/0601001v1" in line:
            body = body.replace(line, b"")
    assert b"/pdf/astro-ph" not in body
    (record,) = parse_feed(body).records
    assert record.abs_url == "https://arxiv.org/abs/astro-ph/0601001v1"
    assert record.pdf_url == "https://arxiv.org/pdf/astro-ph/0601001v1"


def test_links_are_taken_from_the_feed_when_present() -> None:
    body = read(AFFILIATIONS).replace(
        b'href="https://arxiv.org/pdf/astro-ph/0601001v1"',
        b'href="https://export.arxiv.org/pdf/astro-ph/0601001v1"',
    )
    (record,) = parse_feed(body).records
    assert record.pdf_url == "https://export.arxiv.org/pdf/astro-ph/0601001v1"


def test_duplicate_categories_are_dropped_keeping_feed_order() -> None:
    cs_lg = b'<category term="cs.LG" scheme="http://arxiv.org/schemas/atom"/>'
    body = read(QUERY_TESTING).replace(cs_lg, cs_lg + b"\n    " + cs_lg, 1)
    assert body.count(cs_lg) == read(QUERY_TESTING).count(cs_lg) + 1
    assert parse_feed(body).records[0].categories == ("cs.SE", "cs.LG")


# --- split_arxiv_id -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("http://arxiv.org/abs/2202.12139v1", ("2202.12139", 1)),
        ("https://arxiv.org/abs/2202.12139", ("2202.12139", None)),
        ("https://export.arxiv.org/abs/2604.01234v12", ("2604.01234", 12)),
        ("https://arxiv.org/pdf/2604.01234v2", ("2604.01234", 2)),
        ("https://arxiv.org/pdf/2604.01234v2.pdf", ("2604.01234", 2)),
        ("https://www.arxiv.org/pdf/2604.01234", ("2604.01234", None)),
        ("arxiv.org/abs/1202.4527", ("1202.4527", None)),
        ("astro-ph/0601001v2", ("astro-ph/0601001", 2)),
        ("http://arxiv.org/abs/astro-ph/0601001v1", ("astro-ph/0601001", 1)),
        ("https://arxiv.org/pdf/hep-th/9901001v3", ("hep-th/9901001", 3)),
        ("math.GT/0309136", ("math.GT/0309136", None)),
        ("arXiv:2604.01234", ("2604.01234", None)),
        ("ARXIV:2604.01234v3", ("2604.01234", 3)),
        ("2604.01234", ("2604.01234", None)),
        ("  1707.08567v1 \n", ("1707.08567", 1)),
    ],
)
def test_split_arxiv_id_accepts(text: str, expected: tuple[str, int | None]) -> None:
    assert split_arxiv_id(text) == expected


@pytest.mark.parametrize(
    "text",
    [
        "",
        "abc",
        "2604.123",  # too few digits
        "2604.123456",  # too many digits
        "2613.01234",  # month 13
        "2604.01234v0",  # versions start at 1
        "2604.01234v",
        "2604.01234.pdf",  # the .pdf suffix belongs to pdf URLs only
        "https://arxiv.org/list/2604.01234",
        "https://example.org/abs/2604.01234",
        "https://arxiv.org/api/errors#incorrect_id_format_for_abc",
        "10.1109/ICSTW55395.2022.00035",
        "astro-ph/060100",
        "ASTRO-PH/0601001",
        "doi:2604.01234",
    ],
)
def test_split_arxiv_id_rejects(text: str) -> None:
    with pytest.raises(ValueError, match="not an arXiv id"):
        split_arxiv_id(text)
