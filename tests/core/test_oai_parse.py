"""The OAI-PMH parser on every sample of arXiv's layout in tests/data/arxiv-oai/, and on garbage."""

from __future__ import annotations

from datetime import date

import pytest

from tests.harness.paths import DATA
from watcher.arxiv.oai import OaiPage, parse_list_records
from watcher.errors import ArxivBadFeed, ArxivOAIError
from watcher.follows.match import FollowRules

OAI_DATA = DATA / "arxiv-oai"
REAL_PAGE = "real_ListRecords_arXiv_2026-01-05_plasm-ph.xml"


def parse(name: str) -> OaiPage:
    return parse_list_records((OAI_DATA / name).read_bytes())


def test_every_sample_file_is_covered_here() -> None:
    assert {path.name for path in OAI_DATA.glob("*.xml")} == {
        "ListRecords_arXiv_page1.xml",
        "ListRecords_arXiv_page2_last.xml",
        "error_noRecordsMatch.xml",
        "error_badResumptionToken.xml",
        "GetRecord_arXivRaw_versions.xml",
        REAL_PAGE,
    }


def test_a_page_with_a_token_gives_structured_names_and_every_field() -> None:
    page = parse("ListRecords_arXiv_page1.xml")
    assert page.resumption_token == "metadataPrefix%3DarXiv%26from%3D2026-04-21%26skip%3D3"
    assert [r.arxiv_id for r in page.records] == ["2604.20008", "2604.20011", "2604.20013"]
    followed, collaboration, lookalike = page.records
    assert followed.authors == ("Yuxuan Li", "Dezun Dong", "Wei Zhang")
    assert followed.datestamp == date(2026, 4, 22)
    assert followed.created == date(2026, 4, 21) and followed.updated is None
    assert followed.sets == ("cs:cs:DC", "cs:cs:LG")
    assert followed.categories == ("cs.DC", "cs.LG")
    assert followed.title == (
        "Physically Partitioned KVCache Format for CPU--GPU Load Balancing in MoE Inference"
    )
    assert followed.abstract.startswith("Single-GPU long-context inference")
    assert followed.comments == "14 pages, 9 figures"
    # A collaboration as keyname alone, a suffix, a particle, "for the X" in forenames.
    assert collaboration.authors == (
        "ATLAS Collaboration",
        "Waldyr A. Rodrigues Jr",
        "Roldão da Rocha",
        "for the DES Collaboration",
    )
    assert collaboration.abstract == "We report $\\sigma < 2$ pb at 95% CL & more."
    assert collaboration.journal_ref == "Phys. Rev. D 113 (2026) 012001"
    assert collaboration.doi == "10.1103/PhysRevD.113.012001"
    assert collaboration.report_no == "CERN-EP-2026-001"
    assert lookalike.authors == ("Daoyi Dong",)


def test_the_last_page_has_no_token_and_a_revised_record_its_updated_day() -> None:
    page = parse("ListRecords_arXiv_page2_last.xml")
    assert page.resumption_token is None
    (revised,) = page.records
    assert revised.arxiv_id == "2403.10007"
    assert (revised.created, revised.updated) == (date(2024, 3, 15), date(2026, 4, 21))


def test_a_real_answer_of_one_page_has_no_token_and_reads_whole() -> None:
    page = parse(REAL_PAGE)
    assert page.resumption_token is None  # a list of one page carries no token element at all
    assert [r.arxiv_id for r in page.records] == ["2504.11237", "2508.21012", "2510.07502"]
    periodic, turing, reconnection = page.records
    assert periodic.authors == ("Chunhai Lyu", "Christoph H. Keitel", "Zoltán Harman")
    assert periodic.abstract.startswith("Mendeleev's periodic table successfully groups")
    assert (periodic.journal_ref, periodic.doi) == (
        "Phys. Rev. Research 7, L042071 (2025)",
        "10.1103/bppp-53g1",
    )
    assert "D. O'Donnell" in reconnection.authors
    assert turing.sets[-1] == "physics:physics:plasm-ph"
    # `created` is no v1 date: later than the id's own month (see the field notes).
    assert (turing.created, turing.updated) == (date(2025, 12, 16), date(2026, 1, 5))
    assert {r.datestamp for r in page.records} == {date(2026, 1, 5)}


def _with_classes(classes: str) -> bytes:
    """The real answer with `classes` (elements) after the first record's comments."""
    body = (OAI_DATA / REAL_PAGE).read_text(encoding="utf-8")
    body = body.replace("<comments>5 pages</comments>", f"<comments>5 pages</comments>{classes}")
    return body.encode()


@pytest.mark.parametrize(
    ("classes", "acm", "msc"),
    [
        # arXiv's template writes the MSC class into <acm-class>, and "None" without one.
        ("<msc-class>81V45</msc-class><acm-class>81V45</acm-class>", None, "81V45"),
        ("<acm-class>None</acm-class>", None, None),
        ("<acm-class>H.3.3</acm-class>", "H.3.3", None),
    ],
)
def test_an_acm_class_copied_from_the_msc_class_is_not_taken_for_one(
    classes: str, acm: str | None, msc: str | None
) -> None:
    record = parse_list_records(_with_classes(classes)).records[0]
    assert (record.acm_class, record.msc_class) == (acm, msc)


def test_no_records_match_is_an_empty_last_page_not_an_error() -> None:
    assert parse("error_noRecordsMatch.xml") == OaiPage(records=[], resumption_token=None)


def test_an_expired_token_raises_its_code() -> None:
    with pytest.raises(ArxivOAIError) as raised:
        parse("error_badResumptionToken.xml")
    assert raised.value.code == "badResumptionToken"
    assert "invalid or expired" in str(raised.value)


def test_another_verb_or_format_is_refused_clearly() -> None:
    with pytest.raises(ArxivBadFeed, match="no ListRecords"):
        parse("GetRecord_arXivRaw_versions.xml")


def test_the_follow_rules_find_the_followed_author_and_not_the_lookalike() -> None:
    rules = FollowRules([(1, ["Dezun Dong"]), (2, ["Roldao da Rocha"]), (3, ["W. Zhang"])])
    pages = [parse("ListRecords_arXiv_page1.xml"), parse("ListRecords_arXiv_page2_last.xml")]
    found = {r.arxiv_id: rules.match_authors(r.authors) for p in pages for r in p.records}
    assert found == {
        "2604.20008": {1},
        "2604.20011": {2},  # accents folded, as for the API
        "2604.20013": set(),  # Daoyi Dong
        "2403.10007": {1},
    }


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        (b"", "empty body"),
        (b"<!DOCTYPE html><html><body>Maintenance</body></html>", "HTML"),
        (b"\x00\x01garbage", "malformed"),
        (b"<feed xmlns='http://www.w3.org/2005/Atom'/>", "expected an OAI-PMH answer"),
        (
            b'<?xml version="1.0"?><!DOCTYPE r [<!ENTITY a "aaaaaaaaaa">'
            b'<!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;">]><r>&b;</r>',
            "refused",
        ),
    ],
)
def test_garbage_is_a_bad_feed_with_a_reason(body: bytes, expected: str) -> None:
    with pytest.raises(ArxivBadFeed, match=expected):
        parse_list_records(body)


def test_a_truncated_page_is_refused_whole() -> None:
    body = (OAI_DATA / "ListRecords_arXiv_page1.xml").read_bytes()
    with pytest.raises(ArxivBadFeed, match="malformed"):
        parse_list_records(body[: len(body) * 2 // 3])


def test_a_record_without_a_datestamp_spoils_the_page() -> None:
    body = (OAI_DATA / "ListRecords_arXiv_page1.xml").read_bytes()
    broken = body.replace(b"<datestamp>2026-04-22</datestamp>", b"", 1)
    with pytest.raises(ArxivBadFeed, match="no identifier or no datestamp"):
        parse_list_records(broken)
