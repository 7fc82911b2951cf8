"""Test records: the default followed author's papers, their look-alikes, and a record factory.

`dezun_dong_records()` holds the 15 papers of Dezun Dong listed in
`tests/data/followed-author-records.json` (origin: the author's public record listing, see
`tests/data/SOURCES.md`). Titles, abstracts, primary categories, years and the co-authors
known are real. The JSON carries no arXiv ids, dates, versions or cross-lists, so those are
SYNTHETIC: new-style ids matching the year (`2604.03117` for a 2026 paper), a v1 date within the
year, version 1, and the primary category plus a plausible cross-list for some papers.

One paper was revised: `dezun_dong_revision()` gives its v1 (the earlier abstract, as it appears in
`dezun_dong_records()`) and its v2 (the current abstract, a later `updated` date).

`lookalike_records()` are INVENTED papers (titles, abstracts, ids and all) whose authors look like
the followed author; arXiv's `au:"Dezun Dong"` search returns some of them, and the matcher decides.
"""

from __future__ import annotations

import json
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from watcher.arxiv.records import Author, Record

_JSON_NAME = "followed-author-records.json"
_REPO = Path(__file__).resolve().parents[2]
SHARED_RECORDS_JSON = _REPO / "tests" / "data" / _JSON_NAME

# Synthetic id, v1 date and cross-lists per paper, in the order of the shared JSON.
_SYNTHETIC: list[tuple[str, str, tuple[str, ...]]] = [
    ("2604.03117", "2026-04-03T17:42:09", ("cs.LG",)),
    ("2603.22815", "2026-03-24T09:15:31", ("cs.DC",)),
    ("2603.10492", "2026-03-11T13:08:57", ("cs.DC",)),
    ("2602.19368", "2026-02-21T06:30:12", ("cs.NI", "cs.LG")),
    ("2601.08254", "2026-01-13T11:51:40", ("cs.SE",)),
    ("2601.05531", "2026-01-09T15:22:03", ("cs.DC",)),
    ("2601.01873", "2026-01-05T02:47:26", ("cs.AR",)),
    ("2510.14207", "2025-10-16T08:03:44", ("cs.PF",)),
    ("2503.11752", "2025-03-14T16:39:18", ("cs.RO",)),
    ("2409.07628", "2024-09-11T19:12:55", ()),
    ("2304.08592", "2023-04-17T03:26:09", ()),
    ("2106.10796", "2021-06-20T10:44:37", ("cs.DC",)),
    ("2102.04812", "2021-02-09T12:05:21", ("cs.LG",)),
    ("2005.06728", "2020-05-14T07:58:02", ("cs.LG",)),
    ("2001.05983", "2020-01-16T14:31:49", ("cs.DC",)),
]
# The revised paper (index 4 above) got its v2 on this date.
_REVISION_DATE = "2026-03-02T09:40:18"

# The ids of the look-alikes that really are the followed author (name written surname first).
LOOKALIKES_BY_THE_AUTHOR = frozenset({"2604.07764"})


def _utc(text: str) -> datetime:
    return datetime.fromisoformat(text).replace(tzinfo=UTC)


def _links(arxiv_id: str, version: int) -> dict[str, str]:
    return {
        "abs_url": f"https://arxiv.org/abs/{arxiv_id}v{version}",
        "pdf_url": f"https://arxiv.org/pdf/{arxiv_id}v{version}",
    }


def _recent() -> datetime:
    return datetime.now(UTC).replace(minute=0, second=0, microsecond=0) - timedelta(hours=1)


def make_record(**overrides: Any) -> Record:
    """A plausible record for tests; any field can be overridden.

    `authors` may be given as plain names. Unless overridden, the links follow the id and version,
    `updated` follows `published`, and `published` is an hour before the current hour: a paper
    just out. Whether it is new to a follow is its id's to say (one arXiv announced before the
    follow began never is: `watcher.store.papers`), so give one newer than those stored.
    """
    arxiv_id = overrides.get("arxiv_id", "2604.00001")
    version = overrides.get("version", 1)
    published = overrides.get("published", _recent())
    authors = tuple(
        Author(a) if isinstance(a, str) else a for a in overrides.pop("authors", ["Dezun Dong"])
    )
    primary = overrides.get("primary_category", "cs.DC")
    fields: dict[str, Any] = {
        "arxiv_id": arxiv_id,
        "version": version,
        "title": "A Test Paper on Interconnection Networks",
        "abstract": "We study something carefully and report what we found.",
        "authors": authors,
        "primary_category": primary,
        "categories": (primary,),
        "published": published,
        "updated": published,
        **_links(arxiv_id, version),
    }
    fields.update(overrides)
    return Record(**fields)


def _shared_json() -> list[dict[str, Any]]:
    data: list[dict[str, Any]] = json.loads(SHARED_RECORDS_JSON.read_text(encoding="utf-8"))
    if len(data) != len(_SYNTHETIC):
        raise RuntimeError(f"{SHARED_RECORDS_JSON} changed: expected {len(_SYNTHETIC)} records")
    return data


def dezun_dong_records() -> list[Record]:
    """The followed author's 15 papers, newest first, each at version 1."""
    records = []
    for item, (arxiv_id, published, cross_lists) in zip(_shared_json(), _SYNTHETIC, strict=True):
        records.append(
            make_record(
                arxiv_id=arxiv_id,
                title=item["title"],
                abstract=item.get("abstract_earlier_version", item["abstract"]),
                authors=item["authors_known"],
                primary_category=item["primary_category"],
                categories=(item["primary_category"], *cross_lists),
                published=_utc(published),
            )
        )
    return records


def dezun_dong_revision() -> tuple[Record, Record]:
    """The one revised paper: (v1 with the earlier abstract, v2 with the current one)."""
    index = next(i for i, item in enumerate(_shared_json()) if "abstract_earlier_version" in item)
    v1 = dezun_dong_records()[index]
    links = _links(v1.arxiv_id, 2)
    v2 = replace(
        v1,
        version=2,
        abstract=_shared_json()[index]["abstract"],
        updated=_utc(_REVISION_DATE),
        abs_url=links["abs_url"],
        pdf_url=links["pdf_url"],
    )
    return v1, v2


def lookalike_records() -> list[Record]:
    """Invented papers whose authors resemble "Dezun Dong"; only `LOOKALIKES_BY_THE_AUTHOR` are his.

    arXiv's `au:"Dezun Dong"` returns "Dong Dezun" and "Dezun Dong Li" (every word in one name);
    "Daoyi Dong", "D. Dong", "Dezhun Dong", the "Wang Dezun" + "Li Dong" pair and the paper that
    only cites him in its abstract are found by looser queries (`all:`, `au:Dong_D`, ...).
    """
    return [
        make_record(
            arxiv_id="2604.07712",
            title="Robust Feedback Control of Open Quantum Systems under Markovian Noise",
            abstract="We design feedback laws that stabilise target states of open quantum "
            "systems when the noise strength satisfies $\\gamma < 0.1$ & the measurement "
            "efficiency is unknown.",
            authors=["Qi Yu", "Daoyi Dong", "Ian R. Petersen"],
            primary_category="quant-ph",
            categories=("quant-ph", "eess.SY"),
            published=_utc("2026-04-08T10:11:12"),
            comment="12 pages, 4 figures",
        ),
        make_record(
            arxiv_id="2604.07725",
            title="Thermal Transport in Layered Perovskites",
            abstract="Phonon thermal conductivity of layered perovskites is measured from 4 K "
            "to 300 K and compared with first-principles calculations.",
            authors=[Author("D. Dong", ("Peking University",)), Author("H. Liu")],
            primary_category="cond-mat.mtrl-sci",
            categories=("cond-mat.mtrl-sci",),
            published=_utc("2026-04-08T14:02:33"),
            journal_ref="Phys. Rev. B 113, 045301 (2026)",
            doi="10.1103/PhysRevB.113.045301",
        ),
        make_record(
            arxiv_id="2604.07738",
            title="Congestion-Aware Routing for Dragonfly Networks",
            abstract="We propose a congestion-aware adaptive routing scheme for Dragonfly "
            "topologies that lowers tail latency by 23% under adversarial traffic.",
            authors=["Dezhun Dong", "Min Zhao"],
            primary_category="cs.NI",
            categories=("cs.NI", "cs.DC"),
            published=_utc("2026-04-09T08:45:00"),
        ),
        make_record(
            arxiv_id="2604.07741",
            title="Lightweight Checkpointing for Elastic Training Jobs",
            abstract="Elastic training jobs lose progress when preempted; we checkpoint only "
            "optimizer deltas, cutting checkpoint size by 5x.",
            authors=["Wang Dezun", "Li Dong", "Chen Hao"],
            primary_category="cs.DC",
            categories=("cs.DC", "cs.LG"),
            published=_utc("2026-04-09T12:30:45"),
        ),
        make_record(
            arxiv_id="2604.07750",
            title="Revisiting Adaptive Routing in Low-Diameter Networks",
            abstract="Building on the adaptive routing work of Dezun Dong and colleagues, we "
            "evaluate low-diameter topologies at scale (latency < 2 us, A&B testing).",
            authors=["Maria Rossi", "Kenji Sato"],
            primary_category="cs.NI",
            categories=("cs.NI",),
            published=_utc("2026-04-10T09:00:01"),
        ),
        make_record(
            arxiv_id="2604.07764",
            title="Topology-Aware Collective Communication on Multi-Rail Clusters",
            abstract="We map collective operations onto multi-rail clusters using topology "
            "information, improving all-reduce bandwidth by 1.6x.",
            authors=["Ke Wu", "Dong Dezun"],
            primary_category="cs.DC",
            categories=("cs.DC", "cs.NI"),
            published=_utc("2026-04-10T15:20:10"),
            comment="Accepted at a workshop",
        ),
        make_record(
            arxiv_id="2604.07779",
            title="Energy-Efficient Scheduling of Inference Requests on Edge Devices",
            abstract="We schedule inference requests on heterogeneous edge devices to minimise "
            "energy under latency constraints.",
            authors=["Dezun Dong Li", "Yan Xu"],
            primary_category="cs.DC",
            categories=("cs.DC",),
            published=_utc("2026-04-11T07:07:07"),
        ),
    ]
