"""The fake listing server (`tests/fakes/listing`) against arXiv's markup as arxiv-browse fills
it (its outline against pages rendered from arXiv's templates: `test_fake_listing_markup.py`):
the headings, the sections and their counts when paged, 304s, the broken switch. Read back with
the real parser, over real HTTP."""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import UTC, date, datetime, timedelta
from email.utils import format_datetime

import httpx
import pytest

from tests.fakes.corpus import make_record
from tests.fakes.listing import FakeListing
from watcher.arxiv.listing_page import parse_listing_page
from watcher.errors import ArxivBadListing

MAILING = date(2026, 12, 1)
NEW = [make_record(arxiv_id=f"2612.0000{n}", authors=[f"Author {n}"]) for n in range(3)]
CROSS = make_record(
    arxiv_id="2612.00009", primary_category="math.OC", categories=("math.OC", "cs.DC")
)
REPLACED = make_record(arxiv_id="2611.00001", categories=("cs.DC",))


@pytest.fixture
def listing() -> Iterator[FakeListing]:
    with FakeListing(date(2026, 11, 30)) as fake:
        fake.announce(MAILING, new=[*NEW, CROSS], replaced=[REPLACED])
        yield fake


def get(listing: FakeListing, path: str, **headers: str) -> httpx.Response:
    return httpx.get(listing.url + path, headers=headers, timeout=10)


def headings(body: str) -> list[str]:
    return [" ".join(h.split()) for h in re.findall(r"<h3>(.*?)</h3>", body, re.DOTALL)]


def test_a_whole_listing_has_the_day_heading_and_three_sections(listing: FakeListing) -> None:
    answer = get(listing, "cs/new?skip=0&show=2000")
    assert answer.status_code == 200
    assert headings(answer.text) == [
        "Showing new listings for Tuesday, 1 December 2026",
        "New submissions (showing 3 of 3 entries)",
        "Cross submissions (showing 1 of 1 entries)",
        "Replacement submissions (showing 1 of 1 entries)",
    ]
    page = parse_listing_page(answer.content, url="cs")
    assert [(i.arxiv_id, i.section) for i in page.items] == [
        *((r.arxiv_id, "new") for r in NEW),
        (CROSS.arxiv_id, "cross"),
        (REPLACED.arxiv_id, "rep"),
    ]
    assert page.total == 5
    assert "(cross-list from math.OC)" in answer.text


def test_paging_cuts_sections_as_arxiv_heads_them(listing: FakeListing) -> None:
    first = headings(get(listing, "cs/new?skip=0&show=2").text)[1:]
    assert first == ["New submissions (showing first 2 of 3 entries)"]
    second = headings(get(listing, "cs/new?skip=2&show=2").text)[1:]
    assert second == [
        "New submissions (continued, showing last 1 of 3 entries)",
        # arXiv's controller calls a whole section "first" when a replacement section follows
        # beyond this page; the fake says what arXiv says.
        "Cross submissions (showing first 1 of 1 entries)",
    ]


def test_unchanged_pages_answer_304(listing: FakeListing) -> None:
    first = get(listing, "cs/new")
    assert get(listing, "cs/new", **{"If-None-Match": first.headers["ETag"]}).status_code == 304
    later = format_datetime(datetime.now(UTC) + timedelta(minutes=1), usegmt=True)
    assert get(listing, "cs/new", **{"If-Modified-Since": later}).status_code == 304
    earlier = format_datetime(datetime.now(UTC) - timedelta(hours=1), usegmt=True)
    assert get(listing, "cs/new", **{"If-Modified-Since": earlier}).status_code == 200
    assert get(listing, "cs/old").status_code == 404


def test_before_its_flip_the_page_shows_the_previous_mailing() -> None:
    with FakeListing(date(2026, 11, 30)) as fake:
        fake.announce(MAILING, new=NEW, flip_at=datetime.now(UTC) + timedelta(hours=1))
        page = parse_listing_page(get(fake, "cs/new").content, url="cs")
        assert (page.mailing, page.items) == (date(2026, 11, 30), [])


@pytest.mark.parametrize("broken", ["markup", "counts"])
def test_the_broken_switch_makes_the_parser_refuse(listing: FakeListing, broken: str) -> None:
    listing.broken = broken  # type: ignore[assignment]
    with pytest.raises(ArxivBadListing, match="where its heading says"):
        parse_listing_page(get(listing, "cs/new").content, url="cs")
