"""The fake arXiv's OAI-PMH answers (tests/fakes/oai.py) against a real answer of arXiv's service
(`tests/data/arxiv-oai/real_ListRecords_arXiv_2026-01-05_plasm-ph.xml`) and the newest templates
of that service (arXiv/oaipmh 27ad99e3; see tests/fakes/README.md).
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ElementTree
from datetime import UTC, datetime

import httpx

from tests.fakes.arxiv_api import FakeArxiv
from tests.fakes.corpus import make_record
from tests.harness.paths import DATA
from watcher.arxiv.oai import OaiRecord, parse_list_records
from watcher.arxiv.records import Record

REAL = DATA / "arxiv-oai" / "real_ListRecords_arXiv_2026-01-05_plasm-ph.xml"
REAL_QUERY = {
    "verb": "ListRecords",
    "metadataPrefix": "arXiv",
    "from": "2026-01-05",
    "until": "2026-01-05",
    "set": "physics:physics:plasm-ph",
}
# Texts that differ between any two answers, or that the fake does not keep per record.
_OAI = "{http://www.openarchives.org/OAI/2.0/}"
_UNKEPT = {"responseDate", "request", "license"}


def _as_record(oai: OaiRecord) -> Record:
    def day(value: object) -> datetime:
        assert value is not None
        return datetime.fromisoformat(f"{value}T00:00:00").replace(tzinfo=UTC)

    return make_record(
        arxiv_id=oai.arxiv_id,
        version=2,  # every record of the real answer is a replacement: it has <updated>
        title=oai.title,
        abstract=oai.abstract,
        authors=list(oai.authors),
        primary_category=oai.categories[0],
        categories=oai.categories,
        published=day(oai.created),
        updated=day(oai.updated),
        comment=oai.comments,
        journal_ref=oai.journal_ref,
        doi=oai.doi,
    )


def _outline(body: bytes) -> list[tuple[str, dict[str, str], str]]:
    """Every element in document order: tag, attributes, and its text with whitespace folded."""
    outline = []
    for element in ElementTree.fromstring(body).iter():
        tag = element.tag.rpartition("}")[2]
        text = " ".join((element.text or "").split())
        outline.append((tag, dict(element.attrib), "" if tag in _UNKEPT else text))
    return outline


def test_the_fake_writes_back_a_real_answer_element_for_element() -> None:
    real = REAL.read_bytes()
    records = [_as_record(r) for r in parse_list_records(real).records]
    with FakeArxiv(records) as fake:
        answer = httpx.get(fake.oai_url, params=REAL_QUERY, timeout=10)
    assert answer.status_code == 200
    assert _outline(answer.content) == _outline(real)
    # As arXiv's templates escape: quotes as numeric references, no padding around the text.
    assert b"<keyname>O&#39;Donnell</keyname>" in answer.content
    assert re.search(rb"<abstract>Mendeleev&#39;s periodic table", answer.content)
    assert b"https://oaipmh.arxiv.org/OAI/arXiv.xsd" in answer.content


def test_a_list_cut_into_pages_ends_with_an_empty_token() -> None:
    real = REAL.read_bytes()
    records = [_as_record(r) for r in parse_list_records(real).records]
    with FakeArxiv(records) as fake:
        fake.oai_page_size = 2
        first = httpx.get(fake.oai_url, params=REAL_QUERY, timeout=10)
        token = parse_list_records(first.content).resumption_token
        assert token is not None
        last = httpx.get(
            fake.oai_url, params={"verb": "ListRecords", "resumptionToken": token}, timeout=10
        )
    # token.xml: the token's expiry is `expirationDate`, single-quoted, at the next midnight.
    assert re.search(rb"<resumptionToken expirationDate='[-0-9]+T00:00:00Z'>", first.content)
    assert b"<resumptionToken/>" in last.content
    # macros.xml: a resumption's request element names the verb and the token alone.
    request = ElementTree.fromstring(last.content).find(f"{_OAI}request")
    assert request is not None
    assert request.attrib == {"verb": "ListRecords", "resumptionToken": token}
    assert [r.arxiv_id for r in parse_list_records(last.content).records] == ["2510.07502"]


def _error(body: bytes) -> tuple[dict[str, str], dict[str, str], str]:
    """The request element's attributes, the error's attributes and its text."""
    root = ElementTree.fromstring(body)
    request = root.find(f"{_OAI}request")
    error = root.find(f"{_OAI}error")
    assert request is not None and error is not None
    return dict(request.attrib), dict(error.attrib), error.text or ""


def test_errors_carry_the_services_descriptions_reasons_and_request() -> None:
    empty_day = {**REAL_QUERY, "from": "2026-01-06", "until": "2026-01-06"}
    with FakeArxiv([]) as fake:
        nothing = httpx.get(fake.oai_url, params=empty_day, timeout=10)
        bad_token = httpx.get(
            fake.oai_url, params={"verb": "ListRecords", "resumptionToken": "x"}, timeout=10
        )
    # errors.xml: noRecordsMatch keeps the request's arguments; its text is the description.
    assert _error(nothing.content) == (
        empty_day,
        {"code": "noRecordsMatch"},
        "The combination of the values of the from, until, set and metadataPrefix arguments "
        "results in an empty list.",
    )
    assert parse_list_records(nothing.content).records == []
    # A token that does not decode: the description, then the reason resume.py gives.
    assert _error(bad_token.content) == (
        {},
        {"code": "badResumptionToken"},
        "The value of the resumptionToken argument is invalid or expired. "
        "Reason: Token decoding failed or format is invalid.",
    )
