"""The fake listing's page against arXiv's own: pages rendered from arxiv-browse's templates at
its newest commit (`tests/data/arxiv-listing/`, see SOURCES.md there) and the fake's page of the
same papers have the same outline (`tests.harness.listing_outline`): the same elements, classes
and headings in the same order. And the parser reads every rendered page, today's headings and
the older ones."""

from __future__ import annotations

from datetime import date
from pathlib import Path

import pytest

from tests.fakes.corpus import make_record
from tests.fakes.listing import FakeListing
from tests.harness.listing_outline import outline
from watcher.arxiv.listing_page import ListedItem, parse_listing_page
from watcher.arxiv.records import Record
from watcher.errors import ArxivBadListing

RENDERED = Path(__file__).parents[1] / "data" / "arxiv-listing"
MAILING = date(2026, 7, 1)
SKIPS = ["0", "25", "50"]
PAGED = [f"cs_new_paged_skip{skip}_show25.html" for skip in SKIPS]


def page_of(name: str) -> bytes:
    return (RENDERED / name).read_bytes()


def record(item: ListedItem) -> Record:
    return make_record(
        arxiv_id=item.arxiv_id,
        version=2 if item.section == "rep" else 1,
        title=item.title,
        authors=list(item.authors),
        primary_category=item.primary_category,
        categories=item.categories,
        abstract=item.abstract,
        comment=item.comment,
        journal_ref=item.journal_ref,
    )


def fake_showing(pages: list[str]) -> FakeListing:
    """A fake listing of the papers the rendered `pages` list, in their sections."""
    items = [i for name in pages for i in parse_listing_page(page_of(name), url=name).items]
    fake = FakeListing(date(2026, 6, 30))
    fake.announce(
        MAILING,
        new=[record(i) for i in items if i.section == "new"],
        crosses=[record(i) for i in items if i.section == "cross"],
        replaced=[record(i) for i in items if i.section == "rep"],
    )
    return fake


@pytest.mark.parametrize(
    ("rendered", "listing", "path", "params"),
    [
        ("cs_new_three_sections.html", ["cs_new_three_sections.html"], "cs", {}),
        *(
            (name, PAGED, "cs", {"skip": s, "show": "25"})
            for name, s in zip(PAGED, SKIPS, strict=True)
        ),
        ("q-fin_new_cross_only.html", ["q-fin_new_cross_only.html"], "q-fin", {}),
        ("nlin_new_no_updates.html", [], "nlin", {}),
    ],
)
def test_the_fake_page_has_the_outline_of_arxivs(
    rendered: str, listing: list[str], path: str, params: dict[str, str]
) -> None:
    fake = fake_showing(listing)
    answer = fake.answer(f"/list/{path}/new", params, {})
    assert answer.status == 200
    theirs = outline(page_of(rendered).decode("utf-8"))
    assert len(theirs) > 5
    assert outline(answer.body.decode("utf-8")) == theirs


def test_the_outline_sees_a_heading_change() -> None:
    """The comparison can fail: the older section heading is another outline."""
    today = outline(page_of("cs_new_three_sections.html").decode("utf-8"))
    older = [line.replace("New submissions (", "New submissions for Wednesday, 1 July 2026 (")
             for line in today]  # fmt: skip
    assert older != today


def test_todays_markup_is_read_whole() -> None:
    page = parse_listing_page(page_of("cs_new_three_sections.html"), url="cs")
    assert page.mailing == MAILING
    assert page.total == 14
    assert {s: (c.shown, c.total) for s, c in page.sections.items()} == {
        "new": (9, 9),
        "cross": (3, 3),
        "rep": (2, 2),
    }
    by_id = {i.arxiv_id: i for i in page.items}
    assert [i.section for i in page.items] == ["new"] * 9 + ["cross"] * 3 + ["rep"] * 2
    # TeX in titles stays as arXiv shows it (MathJax renders it), and UTF-8 is read as such
    assert by_id["2503.21779"].title.startswith("X$^{2}$-Gaussian: 4D Radiative")
    assert by_id["2504.01196"].title.startswith("$μ$KE: Matryoshka")
    assert by_id["2504.05732"].title.startswith("LLM$\\times$MapReduce-V2")
    # arXiv lists the first 100 of the 484 authors of a long list
    long_list = by_id["2601.03267"]
    assert (len(long_list.authors), long_list.authors[0]) == (100, "Aaditya Singh")
    cross = by_id["2606.13698"]
    assert (cross.primary_category, cross.categories[0]) == ("eess.SY", "eess.SY")
    assert set(cross.categories) == {"eess.SY", "cs.AI", "cs.LG", "cs.NI", "cs.PF"}
    first = page.items[0]
    assert first.comment == "12 pages, 6 figures; code at this https URL"
    assert page.items[1].journal_ref == "Proc. VLDB Endow. 19(4): 1-14, 2026"
    assert first.abstract.startswith("Autoregressive Transformers dominate high-quality mesh")
    assert "\n" not in first.abstract  # arXiv's stored line breaks are not the abstract's


def test_pages_cut_by_paging_add_up_to_the_listing() -> None:
    pages = [parse_listing_page(page_of(name), url=name) for name in PAGED]
    assert [p.sections["new"].shown for p in pages] == [25, 25, 10]
    assert {p.total for p in pages} == {69}
    ids = [i.arxiv_id for p in pages for i in p.items]
    assert len(ids) == len(set(ids)) == 69
    assert [(s, c.shown, c.total) for s, c in pages[2].sections.items()] == [
        ("new", 10, 60),
        ("cross", 5, 5),
        ("rep", 4, 4),
    ]


def test_a_day_of_cross_lists_only_and_a_day_of_nothing() -> None:
    crosses = parse_listing_page(page_of("q-fin_new_cross_only.html"), url="q-fin")
    assert [(i.section, i.primary_category[:3]) for i in crosses.items] == [("cross", "cs.")] * 3
    nothing = parse_listing_page(page_of("nlin_new_no_updates.html"), url="nlin")
    assert (nothing.mailing, nothing.items, nothing.total) == (MAILING, [], 0)


def test_the_older_headings_name_the_mailing_themselves() -> None:
    """Before arxiv-browse 1813b455 (2024-09-12) each section heading carried the date, and the
    page heading did not exist."""
    body = page_of("cs_new_before_2024-09-12.html")
    assert b"Showing new listings" not in body
    page = parse_listing_page(body, url="cs")
    assert page.mailing == MAILING
    assert [(i.section, i.arxiv_id) for i in page.items][-2:] == [
        ("cross", "2606.13698"),
        ("rep", "2605.00049"),
    ]


def test_headings_that_name_two_dates_are_refused() -> None:
    body = page_of("cs_new_before_2024-09-12.html").replace(
        b"Replacement submissions for Wednesday, 1", b"Replacement submissions for Thursday, 2"
    )
    with pytest.raises(ArxivBadListing, match="name different dates"):
        parse_listing_page(body, url="cs")
    undated = page_of("cs_new_before_2024-09-12.html").replace(b" for Wednesday, 1 July 2026", b"")
    with pytest.raises(ArxivBadListing, match="names no mailing date"):
        parse_listing_page(undated, url="cs")
