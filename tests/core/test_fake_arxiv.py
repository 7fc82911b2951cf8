"""The fake arXiv API answers like arXiv: same XML, same query semantics, paging and faults.

The reference is the real answers recorded in `tests/data/arxiv-api/` (see SOURCES.md
there): the fake must write them back element for element.
"""

from __future__ import annotations

import io
import re
import socket
import subprocess
import sys
import xml.etree.ElementTree as ElementTree
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import feedparser
import httpx
import pytest

from tests.fakes.arxiv_api import FakeArxiv, Fault, FaultKind
from tests.fakes.arxiv_api.atom import render_entry
from tests.fakes.corpus import (
    LOOKALIKES_BY_THE_AUTHOR,
    dezun_dong_records,
    dezun_dong_revision,
    lookalike_records,
    make_record,
)
from tests.harness.paths import DATA, REPO
from watcher.arxiv.parse import Page, parse_feed
from watcher.arxiv.records import Author, Record
from watcher.errors import ArxivAPIError, ArxivBadFeed

REAL = DATA / "arxiv-api"
REAL_FEEDS = sorted(p for p in REAL.glob("*.xml") if "error" not in p.name)
ATOM = "{http://www.w3.org/2005/Atom}"


@pytest.fixture
def fake() -> Iterator[FakeArxiv]:
    with FakeArxiv(dezun_dong_records() + lookalike_records()) as server:
        yield server


def get(fake: FakeArxiv, **params: Any) -> httpx.Response:
    return httpx.get(fake.url, params=params, timeout=10)


def page(fake: FakeArxiv, **params: Any) -> Page:
    response = get(fake, **params)
    assert response.status_code == 200, response.text
    return parse_feed(response.content)


def ids(records: list[Record]) -> list[str]:
    return [r.arxiv_id for r in records]


def whitespace_folded(xml: str) -> str:
    return re.sub(r"\s*([<>])\s*", r"\1", re.sub(r"\s+", " ", xml))


def without_clock(xml: bytes) -> str:
    """The feed with its answer-time fields blanked: they differ between any two answers."""
    text = re.sub(r"<updated>[^<]*</updated>", "<updated/>", xml.decode(), count=1)
    return re.sub(r"<id>https://arxiv.org/api/[^<]*</id>", "<id/>", text, count=1)


# ---------------------------------------------------------------- the XML is arXiv's


@pytest.mark.parametrize("path", REAL_FEEDS, ids=lambda p: p.name)
def test_entries_are_written_back_element_for_element(path: Path) -> None:
    real = path.read_text(encoding="utf-8")
    real_entries = re.findall(r"  <entry>\n.*?  </entry>\n", real, re.DOTALL)
    records = parse_feed(path.read_bytes()).records
    assert len(records) == len(real_entries)
    for record, real_entry in zip(records, real_entries, strict=True):
        # The parser collapses runs of spaces in titles and abstracts; nothing else may differ.
        assert whitespace_folded(render_entry(record)) == whitespace_folded(real_entry)


def test_feed_opening_and_empty_answer_match_arxiv_byte_for_byte() -> None:
    with FakeArxiv() as fake:
        response = get(fake, search_query="", id_list="0000.0000", start=0, max_results=100)
    real = (REAL / "empty_idlist_0000.0000.xml").read_bytes()
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("application/atom+xml")
    assert without_clock(response.content) == without_clock(real)


def _folded(line: str) -> str:
    return re.sub(r">\s+", ">", " ".join(line.split()))


@pytest.mark.parametrize(
    ("name", "id_list", "differs"),
    [
        ("idlist_1707.08567_34-authors.xml", "1707.08567", 0),
        # The summary's leading spaces and runs of spaces, which the parser folds: the record
        # no longer has them.
        ("idlist_astro-ph_0601001_affiliations.xml", "astro-ph/0601001", 1),
    ],
)
def test_a_whole_real_answer_is_written_back_byte_for_byte(
    name: str, id_list: str, differs: int
) -> None:
    real = (REAL / name).read_bytes()
    with FakeArxiv(parse_feed(real).records) as fake:
        response = get(fake, id_list=id_list, max_results=100)
    clock = re.compile(r"<updated>[^<]*</updated>")
    ours = clock.sub("", response.text, count=1).splitlines()
    theirs = clock.sub("", real.decode(), count=1).splitlines()
    assert len(ours) == len(theirs)
    different = [(a, b) for a, b in zip(ours, theirs, strict=True) if a != b]
    assert len(different) == differs
    assert all(_folded(a) == _folded(b) for a, b in different)


def test_error_answer_matches_arxiv_byte_for_byte() -> None:
    with FakeArxiv() as fake:
        response = get(fake, id_list="abc")
    real = (REAL / "error_idlist_abc_http-400.xml").read_text(encoding="utf-8")
    assert response.status_code == 400
    clock = re.compile(r"<updated>[^<]*</updated>")
    assert clock.sub("", response.text) == clock.sub("", real)
    with pytest.raises(ArxivAPIError, match="incorrect id format for abc"):
        parse_feed(response.content)


def test_feedparser_reads_the_fake_exactly_as_it_reads_arxiv() -> None:
    real_body = (REAL / "query_all-testing_start0_max10.xml").read_bytes()
    real_records = parse_feed(real_body).records
    with FakeArxiv(real_records) as fake:
        response = get(fake, id_list=",".join(ids(real_records)), max_results=10)
    real_feed = feedparser.parse(io.BytesIO(real_body))
    fake_feed = feedparser.parse(io.BytesIO(response.content))
    assert not fake_feed.bozo
    assert fake_feed.version == real_feed.version == "atom10"
    assert set(fake_feed.feed.keys()) == set(real_feed.feed.keys())
    assert fake_feed.namespaces == real_feed.namespaces
    assert len(fake_feed.entries) == len(real_feed.entries) == 10
    for fake_entry, real_entry in zip(fake_feed.entries, real_feed.entries, strict=True):
        assert set(fake_entry.keys()) == set(real_entry.keys())
        for key in ("id", "links", "tags", "authors", "published", "updated", "arxiv_doi"):
            assert fake_entry.get(key) == real_entry.get(key), key
        for key in ("arxiv_primary_category", "arxiv_comment", "arxiv_journal_ref"):
            assert fake_entry.get(key) == real_entry.get(key), key


def test_element_tags_per_entry_match_a_real_entry_with_every_optional_field() -> None:
    def tags(xml: bytes) -> list[list[str]]:
        root = ElementTree.fromstring(xml)
        return [[child.tag for child in entry] for entry in root.iter(f"{ATOM}entry")]

    real = tags((REAL / "query_all-testing_start0_max10.xml").read_bytes())[0]
    record = make_record(
        categories=("cs.DC", "cs.LG"),
        authors=["A. One", "B. Two", "C. Three"],
        comment="10 pages",
        journal_ref="J. Tests 1 (2026)",
        doi="10.1000/test.1",
    )
    with FakeArxiv([record]) as fake:
        assert tags(get(fake, id_list=record.arxiv_id).content) == [real]


def test_text_with_markup_characters_is_escaped_and_round_trips() -> None:
    tricky = make_record(
        title="Latency < 200 µs & A&B tests for $\\ge$ 3 <b>nodes</b>",
        abstract="We show x < y && y > z, \"quoted\" and 'single' for $O(n \\log n)$ & more.",
        authors=[Author("Dézun Dong", ("NUDT <Changsha> & Co",)), Author("O'Brien")],
        comment="5 pages; <draft> & notes",
        journal_ref="Proc. A&B",
        doi="10.1000/a<b>&c",
    )
    with FakeArxiv([tricky]) as fake:
        response = get(fake, id_list=tricky.arxiv_id)
    assert "&lt;b&gt;nodes&lt;/b&gt;" in response.text
    assert parse_feed(response.content).records == [tricky]


def test_the_whole_corpus_round_trips_through_the_parser(fake: FakeArxiv) -> None:
    everything = dezun_dong_records() + lookalike_records()
    all_ids = ",".join(ids(everything))
    assert page(fake, id_list=all_ids, max_results=100).records == everything


# ---------------------------------------------------------------- query semantics


def test_author_search_matches_every_word_in_one_author_like_arxiv(fake: FakeArxiv) -> None:
    found = page(fake, search_query='au:"Dezun Dong"', max_results=100).records
    names = {name for record in found for name in record.author_names}
    assert ids(dezun_dong_records()) == ids(found)[:15]
    assert "Dong Dezun" in names
    assert "Dezun Dong Li" in names
    for stranger in ("Daoyi Dong", "D. Dong", "Dezhun Dong", "Wang Dezun", "Maria Rossi"):
        assert stranger not in names
    assert set(ids(found)) >= LOOKALIKES_BY_THE_AUTHOR
    assert len(found) == 17


def test_author_search_folds_case_and_accents(fake: FakeArxiv) -> None:
    fake.add(make_record(arxiv_id="2604.09999", authors=["DÉZUN dong"]))
    found = page(fake, search_query='au:"dezun DONG"', max_results=100).records
    assert "2604.09999" in ids(found)
    assert page(fake, search_query='au:"Dézun Dong"', max_results=100).records == found


def test_author_terms_joined_by_or_and_parenthesised(fake: FakeArxiv) -> None:
    plain = page(fake, search_query='au:"Daoyi Dong" OR au:"Dezhun Dong"').records
    grouped = page(fake, search_query='(au:"Daoyi Dong" OR au:"Dezhun Dong")').records
    assert sorted(ids(plain)) == sorted(ids(grouped)) == ["2604.07712", "2604.07738"]


def test_underscore_form_finds_initials_only(fake: FakeArxiv) -> None:
    found = page(fake, search_query="au:Dong_D").records
    assert [r.author_names for r in found] == [["D. Dong", "H. Liu"]]


def test_unquoted_name_is_an_or_over_all_fields(fake: FakeArxiv) -> None:
    loose = page(fake, search_query="au:Dezun Dong", max_results=100).records
    # `au:Dezun OR all:Dong`: Wang Dezun and every Dong come back.
    assert {"2604.07741", "2604.07712", "2604.07725", "2604.07738"} <= set(ids(loose))


def test_all_field_finds_a_name_mentioned_in_an_abstract(fake: FakeArxiv) -> None:
    assert "2604.07750" in ids(page(fake, search_query='all:"Dezun Dong"', max_results=50).records)
    assert "2604.07750" not in ids(page(fake, search_query='au:"Dezun Dong"').records)


def test_and_andnot_and_categories(fake: FakeArxiv) -> None:
    in_lg = page(fake, search_query='au:"Dezun Dong" AND cat:cs.LG', max_results=100).records
    assert in_lg
    assert all("cs.LG" in r.categories for r in in_lg)
    not_dc = page(fake, search_query='au:"Dezun Dong" ANDNOT cat:cs.DC', max_results=100).records
    assert not_dc
    assert all("cs.DC" not in r.categories for r in not_dc)
    assert len(in_lg) < 17
    assert len(not_dc) < 17


def test_submitted_date_range(fake: FakeArxiv) -> None:
    query = 'au:"Dezun Dong" AND submittedDate:[202101010000 TO 202112312359]'
    assert ids(page(fake, search_query=query).records) == ["2106.10796", "2102.04812"]


def test_id_list_keeps_its_order_and_serves_earlier_versions(fake: FakeArxiv) -> None:
    v1, v2 = dezun_dong_revision()
    fake.replace(v2)
    found = page(fake, id_list=f"2001.05983,{v1.arxiv_id},{v1.versioned_id}").records
    assert [r.versioned_id for r in found] == ["2001.05983v1", v2.versioned_id, v1.versioned_id]
    assert found[1].abstract != found[2].abstract


def test_id_list_with_a_query_filters(fake: FakeArxiv) -> None:
    found = page(fake, id_list="2001.05983,2604.07712", search_query='au:"Dezun Dong"').records
    assert ids(found) == ["2001.05983"]


def test_unknown_id_answers_an_empty_page(fake: FakeArxiv) -> None:
    empty = page(fake, id_list="2604.55555")
    assert empty.records == []
    assert empty.total_results == 0


@pytest.mark.parametrize("order", ["ascending", "descending"])
def test_sort_by_submitted_date(fake: FakeArxiv, order: str) -> None:
    found = page(
        fake,
        search_query='au:"Dezun Dong"',
        sortBy="submittedDate",
        sortOrder=order,
        max_results=50,
    ).records
    dates = [r.published for r in found]
    assert dates == sorted(dates, reverse=order == "descending")
    assert len(set(dates)) == len(dates) == 17


def test_sort_by_last_updated_puts_a_revision_first(fake: FakeArxiv) -> None:
    v1, v2 = dezun_dong_revision()
    query = 'au:"Dezun Dong" AND submittedDate:[202001010000 TO 202602282359]'
    before = page(fake, search_query=query, sortBy="lastUpdatedDate").records
    assert before[0].arxiv_id != v1.arxiv_id
    fake.replace(v2)
    after = page(fake, search_query=query, sortBy="lastUpdatedDate").records
    assert after[0] == v2


def test_relevance_order_is_the_order_the_fake_holds(fake: FakeArxiv) -> None:
    found = page(fake, search_query='au:"Dezun Dong"', sortBy="relevance", max_results=50)
    assert ids(found.records) == [*ids(dezun_dong_records()), "2604.07764", "2604.07779"]


def test_paging_gives_every_record_once_with_right_totals(fake: FakeArxiv) -> None:
    seen: list[str] = []
    for start in range(0, 17, 5):
        result = page(fake, search_query='au:"Dezun Dong"', start=start, max_results=5)
        assert (result.total_results, result.start_index, result.items_per_page) == (17, start, 5)
        assert len(result.records) == min(5, 17 - start)
        seen += ids(result.records)
    assert seen == ids(page(fake, search_query='au:"Dezun Dong"', max_results=100).records)
    beyond = page(fake, search_query='au:"Dezun Dong"', start=40, max_results=5)
    assert beyond.records == []
    assert beyond.total_results == 17


def test_default_page_size_is_ten(fake: FakeArxiv) -> None:
    result = page(fake, search_query='au:"Dezun Dong"')
    assert len(result.records) == 10
    assert result.items_per_page == 10


@pytest.mark.parametrize(
    ("params", "message"),
    [
        ({"search_query": '(au:"Dezun Dong"'}, "unbalanced parentheses"),
        ({"search_query": 'au:"Dezun Dong")'}, "unbalanced parentheses"),
        ({"search_query": 'au:"Dezun Dong" OR'}, "ends where a term was expected"),
        ({"search_query": 'au:"Dezun Dong'}, "unexpected"),
        ({"search_query": "xx:nothing"}, "unknown search field xx"),
        ({"search_query": "au:x", "start": "-1"}, "start must be"),
        ({"search_query": "au:x", "max_results": "2001"}, "max_results must be at most 2000"),
        ({"search_query": "au:x", "sortBy": "date"}, "unknown sortBy"),
        ({"id_list": "2604.01234,nonsense"}, "incorrect id format for nonsense"),
    ],
)
def test_malformed_queries_answer_400_with_the_error_feed(
    fake: FakeArxiv, params: dict[str, str], message: str
) -> None:
    response = get(fake, **params)
    assert response.status_code == 400
    with pytest.raises(ArxivAPIError, match=message):
        parse_feed(response.content)


def test_post_works_like_get(fake: FakeArxiv) -> None:
    response = httpx.post(fake.url, data={"search_query": 'au:"Daoyi Dong"'}, timeout=10)
    assert ids(parse_feed(response.content).records) == ["2604.07712"]


def test_old_address_redirects(fake: FakeArxiv) -> None:
    response = httpx.get(fake.redirecting_url, params={"search_query": "au:x y"}, timeout=10)
    assert response.status_code == 301
    target = httpx.URL(fake.url).join(response.headers["location"])
    assert target.path == "/api/query"
    assert target.params["search_query"] == "au:x y"


def test_other_paths_are_not_found(fake: FakeArxiv) -> None:
    assert httpx.get(fake.url.replace("/api/query", "/nothing"), timeout=10).status_code == 404


# ---------------------------------------------------------------- faults


@pytest.mark.parametrize("status", ["429", "500", "503"])
def test_status_faults_with_and_without_retry_after(fake: FakeArxiv, status: FaultKind) -> None:
    fake.faults.extend([Fault(status, retry_after="7"), status])
    first, second, third = (get(fake, search_query="au:x") for _ in range(3))
    assert (first.status_code, first.headers.get("retry-after")) == (int(status), "7")
    assert (second.status_code, second.headers.get("retry-after")) == (int(status), None)
    assert third.status_code == 200
    assert [r.fault for r in fake.requests] == [status, status, None]


def test_html_fault_is_a_200_page_the_parser_refuses(fake: FakeArxiv) -> None:
    fake.inject("html")
    response = get(fake, search_query='au:"Dezun Dong"')
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/html")
    with pytest.raises(ArxivBadFeed):
        parse_feed(response.content)


def test_truncated_fault_is_a_real_feed_cut_mid_entry(fake: FakeArxiv) -> None:
    fake.inject("truncated")
    cut = get(fake, search_query='au:"Dezun Dong"')
    whole = get(fake, search_query='au:"Dezun Dong"')
    assert cut.status_code == 200
    assert b"<entry>" in cut.content
    assert b"</entry>" not in cut.content
    assert without_clock(whole.content).startswith(without_clock(cut.content))
    with pytest.raises(ArxivBadFeed):
        parse_feed(cut.content)


def test_empty_fault_is_a_valid_feed_that_claims_no_results(fake: FakeArxiv) -> None:
    fake.inject("empty")
    empty = page(fake, search_query='au:"Dezun Dong"')
    assert empty.records == []
    assert empty.total_results == 0
    assert page(fake, search_query='au:"Dezun Dong"').total_results == 17


def test_reset_fault_closes_without_an_answer(fake: FakeArxiv) -> None:
    fake.inject("reset")
    with pytest.raises(httpx.RemoteProtocolError):
        get(fake, search_query="au:x")
    assert get(fake, search_query="au:x").status_code == 200


def test_timeout_fault_holds_the_request_past_the_client_timeout(fake: FakeArxiv) -> None:
    fake.inject("timeout")
    with pytest.raises(httpx.ReadTimeout):
        httpx.get(fake.url, params={"search_query": "au:x"}, timeout=0.3)
    assert get(fake, search_query="au:x").status_code == 200
    assert [r.fault for r in fake.api_requests()] == ["timeout", None]


def test_faults_are_used_one_per_request_in_order(fake: FakeArxiv) -> None:
    fake.faults.extend(["503", "empty", "429"])
    statuses = [get(fake, search_query="au:x").status_code for _ in range(4)]
    assert statuses == [503, 200, 429, 200]
    assert not fake.faults


# ---------------------------------------------------------------- bookkeeping


def test_requests_are_recorded_with_params_and_headers(fake: FakeArxiv) -> None:
    httpx.get(
        fake.url,
        params={"search_query": 'au:"Dezun Dong"', "start": 5},
        headers={"User-Agent": "probe/1.0"},
        timeout=10,
    )
    (seen,) = fake.requests
    assert seen.method == "GET"
    assert seen.path == "/api/query"
    assert seen.params == {"search_query": 'au:"Dezun Dong"', "start": "5"}
    assert seen.headers["User-Agent"] == "probe/1.0"
    assert seen.wall <= datetime.now(UTC).timestamp()


def test_concurrent_connections_are_counted(fake: FakeArxiv) -> None:
    host, port = httpx.URL(fake.url).host, httpx.URL(fake.url).port
    assert port is not None
    with socket.create_connection((host, port)), socket.create_connection((host, port)):
        # Each connection is counted once its handler thread has started.
        get(fake, search_query="au:x")
    assert fake.max_concurrent_connections >= 2


@pytest.mark.slow
def test_runs_standalone_for_a_manual_demo() -> None:
    command = [sys.executable, "-m", "tests.fakes.arxiv_api", "--port", "0"]
    with subprocess.Popen(command, cwd=REPO, stdout=subprocess.PIPE, text=True) as process:
        try:
            assert process.stdout is not None
            banner = process.stdout.readline()
            url = re.search(r"http://\S+", banner)
            assert url is not None, banner
            response = httpx.get(url.group(0), params={"search_query": 'au:"Dezun Dong"'})
            assert parse_feed(response.content).total_results == 15
        finally:
            process.terminate()
            process.wait(timeout=10)


def test_requests_through_a_named_url_are_recorded_as_that_clients(fake: FakeArxiv) -> None:
    named = httpx.get(fake.url_for("b"), params={"search_query": 'au:"Dezun Dong"'}, timeout=10)
    plain = get(fake, search_query='au:"Dezun Dong"')
    assert named.status_code == plain.status_code == 200
    assert without_clock(named.content) == without_clock(plain.content)
    assert [r.client for r in fake.api_requests()] == ["b", ""]
    assert len(fake.api_requests("b")) == 1
    assert fake.api_requests("a") == []
