"""Which papers' suggestion terms are kept, and by whom (issue 32,
`watcher.store.paper_terms`): the save keeps none, a batch keeps its papers', and a revision
rewords only those kept. Real papers of the sample (`test_suggested_for_you`'s), through the
real save and batch hook."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from dataclasses import replace

import pytest
from sqlalchemy import Engine
from sqlmodel import Session

from tests.core.test_suggested_for_you import MAILING, SLIWKO, record
from tests.fakes.arxiv_api import FakeArxiv
from tests.harness.core_face import core_on
from watcher.arxiv.records import Record
from watcher.clock import SYSTEM_CLOCK
from watcher.core import Core
from watcher.store import MatchedRecord
from watcher.store.suggestion_tables import PaperTerms, TermFrequency


@pytest.fixture
async def core(engine: Engine) -> AsyncIterator[Core]:
    """Leszek Sliwko followed."""
    with FakeArxiv([]) as fake:
        async with core_on(engine, fake, SYSTEM_CLOCK) as core:
            core.store.follow(["Leszek Sliwko"])
            yield core


def kept_terms(engine: Engine, arxiv_id: str) -> dict[str, int] | None:
    with Session(engine) as session:
        row = session.get(PaperTerms, arxiv_id)
        return None if row is None else json.loads(row.counts)


def papers_with(engine: Engine, term: str) -> int:
    with Session(engine) as session:
        row = session.get(TermFrequency, term)
        return 0 if row is None else row.papers


async def test_the_save_keeps_no_terms_and_a_revision_rewords_those_a_batch_kept(
    core: Core, engine: Engine
) -> None:
    """A paper a follow brings is stored without terms: a service where no chat takes
    suggestions pays nothing for them. Once a batch has kept a paper's terms, a revision that
    changes its abstract replaces them and moves the frequencies; one never kept stays so."""
    followed = core.store.followed(None)[0]
    ids = frozenset({followed.id})
    kept, never = record(SLIWKO[0]), record(SLIWKO[1])
    core.store.save_records([MatchedRecord(kept, ids), MatchedRecord(never, ids)], announce_for=ids)
    assert kept_terms(engine, kept.arxiv_id) is None
    await core.poller.suggester.after_batch(MAILING, [kept], source="listing")
    read = kept_terms(engine, kept.arxiv_id)
    assert read is not None and "zebrafish" not in read
    zebrafish, papers = papers_with(engine, "zebrafish"), papers_with(engine, "")

    def revised(paper: Record) -> MatchedRecord:
        return MatchedRecord(
            replace(paper, version=2, abstract=paper.abstract + " Zebrafish."), ids
        )

    core.store.save_records([revised(kept), revised(never)], announce_for=ids)
    assert (kept_terms(engine, kept.arxiv_id) or {}).get("zebrafish") == 1
    assert kept_terms(engine, never.arxiv_id) is None
    assert (papers_with(engine, "zebrafish"), papers_with(engine, "")) == (zebrafish + 1, papers)
