"""The fake arXiv's author feeds (`/a/<id>.atom`) in the shape arxiv-browse's newest code writes
them (26f634fb, `browse/controllers/list_page/author.py`; see tests/fakes/README.md), which is
not the API's Atom, and our parser reading that shape."""

from __future__ import annotations

import xml.etree.ElementTree as ElementTree
from dataclasses import replace
from datetime import UTC, datetime

import httpx

from tests.fakes.arxiv_api import FakeArxiv
from tests.fakes.arxiv_api.atom import render_author_feed
from tests.fakes.corpus import dezun_dong_records, make_record
from watcher.arxiv.parse import parse_feed
from watcher.arxiv.records import Author

ATOM = "{http://www.w3.org/2005/Atom}"
ARXIV = "{http://arxiv.org/schemas/atom}"
NOW = datetime(2026, 12, 3, 19, 30, tzinfo=UTC)
CLASSIFIED = make_record(
    arxiv_id="2611.00042",
    version=2,
    authors=[Author("Dezun Dong", ("NUDT",)), "Ziyu Wang"],
    categories=("cs.DC", "cs.NI"),
    comment="12 pages",
    journal_ref="J. Net. 1 (2026)",
    doi="10.1000/xyz",
    acm_class="C.2.1",
    msc_class="68M10",
    published=datetime(2026, 11, 2, 17, 3, 52, tzinfo=UTC),
    updated=datetime(2026, 11, 20, 9, 0, 1, tzinfo=UTC),
)


def _tag(element: ElementTree.Element) -> str:
    return element.tag.replace(ATOM, "").replace(ARXIV, "arxiv:")


def test_the_author_feed_has_arxiv_browses_shape_not_the_apis() -> None:
    body = render_author_feed("dong_d_1", [CLASSIFIED], now=NOW, display_name="Dezun Dong")
    assert body.startswith(b"<?xml version='1.0' encoding='utf-8'?>\n")
    assert b"opensearch" not in body
    feed = ElementTree.fromstring(body)
    assert [_tag(e) for e in feed] == ["title", "link", "updated", "id", "link", "link", "entry"]
    assert feed.findtext(f"{ATOM}title") == "Dezun Dong's articles on arXiv"
    assert feed.findtext(f"{ATOM}updated") == "2026-12-03T00:00:00+00:00"
    assert feed.findtext(f"{ATOM}id") == "https://arxiv.org/a/dong_d_1"
    entry = feed.find(f"{ATOM}entry")
    assert entry is not None
    assert [_tag(e) for e in entry] == [
        *["id", "updated", "published", "title", "summary", "author", "author"],
        *["arxiv:doi", "arxiv:comment", "arxiv:journal_ref", "link", "link"],
        *["arxiv:primary_category", "category", "category"],
    ]
    assert entry.findtext(f"{ATOM}id") == "https://arxiv.org/abs/2611.00042v2"
    assert entry.findtext(f"{ATOM}updated") == "2026-11-20T09:00:01+00:00"
    assert entry.findtext(f"{ATOM}published") == "2026-11-02T17:03:52+00:00"
    html, pdf = (link.attrib for link in entry.findall(f"{ATOM}link"))
    assert (html["rel"], pdf["rel"], pdf["title"]) == ("alternate", "alternate", "pdf")
    # No ACM or MSC class: only arXiv categories, each with its label.
    assert [(c.get("term"), c.get("label")) for c in entry.findall(f"{ATOM}category")] == [
        ("cs.DC", "Distributed, Parallel, and Cluster Computing (cs.DC)"),
        ("cs.NI", "Networking and Internet Architecture (cs.NI)"),
    ]


def test_our_parser_reads_the_author_feed_whole_except_the_classes_it_lacks() -> None:
    records = [CLASSIFIED, *dezun_dong_records()]
    page = parse_feed(render_author_feed("dong_d_1", records, now=NOW))
    assert page.records == [replace(r, acm_class=None, msc_class=None) for r in records]
    assert page.total_results is None


def test_an_unknown_id_answers_arxivs_400_page() -> None:
    with FakeArxiv([]) as fake:
        answer = httpx.get(fake.author_feed_url + "dong_d_9.atom", timeout=10)
    assert answer.status_code == 400
    assert answer.headers["content-type"].startswith("text/html")
    assert "Author dong_d_9 not found" in answer.text
