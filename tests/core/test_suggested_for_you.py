""" "Suggested for you" through the store (issue 32), on real papers of the sample
(tests/data/suggestions): Leszek Sliwko's papers on cluster scheduling and load balancing are
announced to the chats following him, and a day of 17 candidates, two of them distributed-
computing papers (cs.DC) and fifteen vision or language papers, is read whole.

The document frequencies are seeded as those of the whole sample (31,097 papers), as a store
that has counted a few months of batches holds them; the rest is the real save, queue, batch
hook, outbox and digest on the test database."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Callable, Iterator
from dataclasses import replace
from datetime import UTC, date, datetime, time, timedelta

import pytest
from sqlalchemy import Engine, func
from sqlmodel import Session, col, select

from tests.fakes.arxiv_api import FakeArxiv
from tests.fakes.corpus import make_record
from tests.harness.core_face import core_on
from tests.harness.frequencies import seed_sample_frequencies
from tests.harness.paths import DATA
from watcher.arxiv.records import Author, Record
from watcher.calendars.schedule import DigestSchedule
from watcher.clock import SYSTEM_CLOCK
from watcher.core import Core
from watcher.follows.excluded_words import parse_excluded
from watcher.polling.suggested_batch import BatchSuggester
from watcher.store import MatchedRecord, paper_terms
from watcher.store.digests import DigestContent, RenderedPart
from watcher.store.exclusions import Exclusions
from watcher.store.profiles import current, read_profiles
from watcher.store.suggesting import Claim, SuggestionStore
from watcher.store.suggestion_outbox import SuggestionOutbox
from watcher.store.suggestion_tables import ProfilePaper, Suggestion, SuggestionStatus

PAPERS = [
    json.loads(line)
    for line in (DATA / "suggestions" / "sample-papers.jsonl").read_text("utf-8").splitlines()
]
SLIWKO = [p for p in PAPERS if "Leszek Sliwko" in p["authors"]]
DAY = [p for p in PAPERS if p not in SLIWKO]
DISTRIBUTED = {p["id"] for p in DAY if "cs.DC" in p["categories"]}  # 2605.15132, 2605.19593
WEAK_DAY = [p for p in DAY if p["id"] not in DISTRIBUTED]
# The one above the threshold for Sliwko's readers: "Towards Multi-Model LLM Schedulers:
# Empirical Insights into Offloading ...", by Mert Yildiz and others.
SCHEDULERS = "2605.19593"
MAILING = date(2026, 5, 21)
ON, OFF, FORUM, TOPIC = 10, 20, 30, 7


def record(paper: dict[str, object]) -> Record:
    published = datetime.fromisoformat(str(paper["published"])).replace(tzinfo=UTC)
    categories = tuple(str(c) for c in paper["categories"])  # type: ignore[attr-defined]
    return make_record(
        arxiv_id=paper["id"],
        title=paper["title"],
        abstract=paper["abstract"],
        authors=[Author(str(name)) for name in paper["authors"]],  # type: ignore[attr-defined]
        primary_category=categories[0],
        categories=categories,
        published=published,
    )


@pytest.fixture
def fake() -> Iterator[FakeArxiv]:
    with FakeArxiv([]) as server:
        yield server


@pytest.fixture
async def core(engine: Engine, fake: FakeArxiv) -> AsyncIterator[Core]:
    """Chats `ON`, `OFF` and `FORUM`'s topic `TOPIC` follow Leszek Sliwko; the document
    frequencies are the sample's."""
    async with core_on(engine, fake, SYSTEM_CLOCK) as core:
        followed, _ = core.store.follow(["Leszek Sliwko"])
        for chat_id, thread_id in ((ON, 0), (OFF, 0), (FORUM, TOPIC)):
            core.chats.seen(chat_id, kind="supergroup" if thread_id else "private")
            core.chats.subscribe(chat_id, followed.id, thread_id=thread_id)
        seed_sample_frequencies(engine)
        yield core


async def turn_on(core: Core, *destinations: tuple[int, int]) -> None:
    for chat_id, thread_id in destinations:
        assert not isinstance(await core.suggestions.turn_on(chat_id, thread_id), str)


def announce_sliwko(core: Core) -> None:
    """His papers, found by his follow and announced to the chats following him."""
    followed = core.store.followed(None)[0]
    ids = frozenset({followed.id})
    saved = core.store.save_records(
        [MatchedRecord(record(p), ids) for p in SLIWKO], announce_for=ids
    )
    assert len(saved.new) == len(SLIWKO)


async def read_day(core: Core, papers: list[dict[str, object]]) -> int:
    report = await core.poller.suggester.after_batch(
        MAILING, [record(p) for p in papers], source="listing"
    )
    return report.queued


def messages(engine: Engine) -> list[Suggestion]:
    with Session(engine) as session:
        return list(session.exec(select(Suggestion).order_by(col(Suggestion.chat_id))))


def suggested_to(engine: Engine, chat_id: int) -> list[str]:
    outbox = SuggestionOutbox(engine)
    due = outbox.due(limit=100, now=datetime.now(UTC) + timedelta(seconds=1))
    return [p.record.arxiv_id for one in due if one.chat_id == chat_id for p in one.papers]


# --- the profile ----------------------------------------------------------------------------


async def test_a_paper_announced_to_a_chat_with_suggestions_goes_into_its_profile(
    core: Core, engine: Engine
) -> None:
    await turn_on(core, (ON, 0))
    with Session(engine) as session:
        assert read_profiles(session, [ON])[ON].weights == {}  # told of nothing yet
    announce_sliwko(core)
    with Session(engine) as session:
        recorded = col(ProfilePaper.chat_id) == ON
        waiting = session.exec(select(func.count()).where(recorded, ~col(ProfilePaper.folded)))
        assert waiting.one() == len(SLIWKO)  # recorded by the save, folded in when next read
        profiles = current(session, [ON, OFF], now=datetime.now(UTC))
        session.commit()
        added = session.exec(select(func.count()).where(recorded, col(ProfilePaper.folded)))
        assert current(session, [ON], now=datetime.now(UTC)) == {ON: profiles[ON]}  # once
        added_count = added.one()
    assert OFF not in profiles  # never asked for suggestions: no profile kept
    profile = profiles[ON]
    assert added_count == len(SLIWKO) and len(profile.examples) == len(SLIWKO)
    assert {"cluster", "workload", "balanc"} <= set(profile.weights)


async def test_a_chat_told_of_nothing_yet_starts_from_its_follows_papers_of_the_year(
    core: Core, engine: Engine
) -> None:
    """A follow's history is saved but never announced (it is not new); a chat that has just
    subscribed still gets a profile from it, as far back as 365 days, so suggestions work from
    the first batch."""
    followed = core.store.followed(None)[0]
    now = datetime.now(UTC)
    recent = [replace(record(p), published=now - timedelta(days=30)) for p in SLIWKO[:-1]]
    old = replace(record(SLIWKO[-1]), published=now - timedelta(days=400))
    ids = frozenset({followed.id})
    saved = core.store.save_records(
        [MatchedRecord(r, ids) for r in [*recent, old]], announce_for=frozenset()
    )
    assert saved.new == []  # the history: nothing announced
    await turn_on(core, (ON, 0))
    with Session(engine) as session:
        profile = read_profiles(session, [ON])[ON]
    assert len(profile.examples) == len(recent)  # the one older than a year left out
    assert {"cluster", "workload"} <= set(profile.weights)
    assert await read_day(core, DAY) == 1  # ON alone: OFF and FORUM never turned them on
    assert set(suggested_to(engine, ON)) <= DISTRIBUTED


async def test_a_word_a_hundred_times_too_long_is_stored_and_left_out_of_the_terms(
    core: Core, engine: Engine
) -> None:
    """arXiv's text has no length limit (a run-together formula, a DNA sequence): the paper is
    stored, and the word is no term (a term is a key of 200 characters on PostgreSQL)."""
    followed = core.store.followed(None)[0]
    ids = frozenset({followed.id})
    long = replace(record(SLIWKO[0]), arxiv_id="2612.00001", abstract="x" * 4000 + " clusters")
    assert len(core.store.save_records([MatchedRecord(long, ids)], announce_for=ids).new) == 1
    counts = paper_terms.terms_of(long.title, long.abstract).counts
    assert "cluster" in counts and max(map(len, counts)) <= 40


# --- a batch --------------------------------------------------------------------------------


async def test_a_batch_brings_one_message_to_each_destination_with_suggestions_on(
    core: Core, engine: Engine
) -> None:
    await turn_on(core, (ON, 0), (FORUM, TOPIC), (OFF, 0))
    await core.suggestions.turn_off(OFF, 0)  # on, then off again: its profile stays, unused
    announce_sliwko(core)
    assert await read_day(core, DAY) == 2
    rows = messages(engine)
    assert [(r.chat_id, r.thread_id, r.mailing) for r in rows] == [
        (ON, 0, MAILING),
        (FORUM, TOPIC, MAILING),
    ]
    due = SuggestionOutbox(engine).due(limit=10, now=datetime.now(UTC) + timedelta(seconds=1))
    here = next(one for one in due if one.chat_id == ON)
    assert 1 <= len(here.papers) <= 3
    assert {p.record.arxiv_id for p in here.papers} <= DISTRIBUTED
    first = here.papers[0]
    assert first.record.title and first.record.authors and first.record.primary_category
    assert first.reason.like or first.reason.shared
    await core.suggestions.mark_sent([(one.id, 100 + one.id) for one in due])
    assert await core.suggestions.due(limit=10) == []


async def test_a_weak_day_brings_nothing(core: Core, engine: Engine) -> None:
    await turn_on(core, (ON, 0))
    announce_sliwko(core)
    assert await read_day(core, WEAK_DAY) == 0
    assert messages(engine) == []


async def test_a_chat_that_excludes_a_word_is_not_suggested_a_paper_holding_it(
    core: Core, engine: Engine
) -> None:
    await turn_on(core, (ON, 0), (FORUM, TOPIC))
    Exclusions(engine).add(ON, parse_excluded("offloading"), now=datetime.now(UTC))
    announce_sliwko(core)
    await read_day(core, DAY)
    assert SCHEDULERS in suggested_to(engine, FORUM)
    assert SCHEDULERS not in suggested_to(engine, ON)


async def test_a_paper_the_chat_was_told_of_is_not_suggested(core: Core, engine: Engine) -> None:
    await turn_on(core, (ON, 0), (FORUM, TOPIC))
    announce_sliwko(core)
    rose, _ = core.store.follow(["Mert Yildiz"])
    core.chats.subscribe(ON, rose.id)
    ids = frozenset({rose.id})
    scheduling = next(p for p in DAY if p["id"] == SCHEDULERS)
    core.store.save_records([MatchedRecord(record(scheduling), ids)], announce_for=ids)
    await read_day(core, DAY)
    assert SCHEDULERS in suggested_to(engine, FORUM)
    assert SCHEDULERS not in suggested_to(engine, ON)


async def test_a_batch_ranked_twice_or_by_two_at_once_queues_each_message_once(
    core: Core, engine: Engine
) -> None:
    await turn_on(core, (ON, 0), (FORUM, TOPIC))
    announce_sliwko(core)
    batch = [record(p) for p in DAY]
    store = SuggestionStore(engine)
    # A first reader crashed after its claim: the batch is kept, nothing ranked yet.
    claim = store.begin_batch(
        MAILING,
        source="listing",
        candidates=[
            (r, paper_terms.counts_json(paper_terms.terms_of(r.title, r.abstract))) for r in batch
        ],
        now=datetime.now(UTC),
    )
    assert claim == Claim.NEW
    # Two more (the harvest, and a second process reading the listing) at once: resumed once.
    one, two = BatchSuggester(store, lambda: datetime.now(UTC)), core.poller.suggester
    reports = await asyncio.gather(
        one.after_batch(MAILING, batch, source="OAI"),
        two.after_batch(MAILING, batch, source="listing"),
    )
    assert {report.claim for report in reports} == {Claim.UNFINISHED}
    assert sum(report.queued for report in reports) == 2
    # And once more after it finished: nothing.
    again = await core.poller.suggester.after_batch(MAILING, batch, source="OAI")
    assert again.claim == Claim.FINISHED and again.queued == 0
    assert [(r.chat_id, r.thread_id) for r in messages(engine)] == [(ON, 0), (FORUM, TOPIC)]


async def test_a_group_that_becomes_a_supergroup_keeps_its_message_and_its_profile(
    core: Core, engine: Engine
) -> None:
    await turn_on(core, (ON, 0))
    announce_sliwko(core)
    assert await read_day(core, DAY) == 1
    with Session(engine) as session:
        profile = current(session, [ON], now=datetime.now(UTC))[ON]
        session.commit()
    core.chats.migrate(ON, -100_10)
    assert suggested_to(engine, -100_10) and suggested_to(engine, ON) == []
    with Session(engine) as session:
        moved = read_profiles(session, [-100_10])[-100_10]
        went_in = session.exec(
            select(func.count()).where(col(ProfilePaper.chat_id) == -100_10)
        ).one()
    assert moved.weights == profile.weights and went_in == len(SLIWKO)
    assert (await core.suggestions.state(-100_10, 0)).on


def daily_digest(
    core: Core, chat_id: int
) -> tuple[list[DigestContent], Callable[[DigestContent], list[RenderedPart]]]:
    """The chat takes a digest at 08:00; what each rendered digest held is kept in the list."""
    seen: list[DigestContent] = []

    def render(content: DigestContent) -> list[RenderedPart]:
        seen.append(content)
        return [RenderedPart("digest", "digest", tuple(range(len(content.items))))]

    core.chats.digests.set_schedule(chat_id, DigestSchedule(time(8, 0)), render=render)
    return seen, render


async def test_a_destination_taking_digests_gets_its_suggestions_in_the_digest(
    core: Core, engine: Engine
) -> None:
    await turn_on(core, (ON, 0))
    seen, render = daily_digest(core, ON)
    announce_sliwko(core)  # held for the digest
    await read_day(core, DAY)
    assert [r.status for r in messages(engine)] == [SuggestionStatus.HELD]
    assert await core.suggestions.due(limit=10) == []  # not a message of its own
    core.chats.digests.claim(ON, render=render, now=datetime.now(UTC) + timedelta(days=2))
    assert {p.record.arxiv_id for p in seen[-1].suggestions} <= DISTRIBUTED
    assert seen[-1].suggestions and len(seen[-1].items) == len(SLIWKO)
    assert [r.status for r in messages(engine)] == [SuggestionStatus.SENT]


async def test_a_digest_carries_the_newest_batchs_suggestions_only(
    core: Core, engine: Engine
) -> None:
    await turn_on(core, (ON, 0))
    seen, render = daily_digest(core, ON)
    announce_sliwko(core)
    await read_day(core, DAY)
    await core.poller.suggester.after_batch(MAILING + timedelta(days=1), twin_day(), source="OAI")
    core.chats.digests.claim(ON, render=render, now=datetime.now(UTC) + timedelta(days=2))
    assert [p.record.arxiv_id for p in seen[-1].suggestions] == ["2605.29999"]
    statuses = [(r.mailing, r.status) for r in messages(engine)]
    assert sorted(statuses) == [
        (MAILING, SuggestionStatus.DROPPED),  # replaced by the newer batch's, never sent
        (MAILING + timedelta(days=1), SuggestionStatus.SENT),
    ]


# --- 👍 and 👎, /suggest's top now -------------------------------------------------------------


def twin_day() -> list[Record]:
    """The next day: a paper like the schedulers one (its abstract, another title)."""
    schedulers = next(p for p in DAY if p["id"] == SCHEDULERS)
    twin = record({**schedulers, "id": "2605.29999", "title": "Serving Many Models at Once"})
    return [twin, *(record(p) for p in WEAK_DAY)]


async def twin_score(core: Core) -> float | None:
    top = await core.suggestions.top_now(ON, 0)
    assert top.mailing == MAILING + timedelta(days=1)
    return next((p.score for p in top.papers if p.record.arxiv_id == "2605.29999"), None)


async def test_thumbs_up_raises_similar_papers_and_thumbs_down_lowers_them(
    core: Core, engine: Engine
) -> None:
    await turn_on(core, (ON, 0))
    announce_sliwko(core)
    await read_day(core, DAY)  # SCHEDULERS is shown, and stored
    await core.poller.suggester.after_batch(MAILING + timedelta(days=1), twin_day(), source="OAI")
    plain = await twin_score(core)
    assert plain is not None

    liked = await core.suggestions.react(ON, 0, f"{SCHEDULERS}v1", liked=True)
    assert liked.changed  # type: ignore[union-attr]
    raised = await twin_score(core)
    assert raised is not None and raised > plain
    again = await core.suggestions.react(ON, 0, SCHEDULERS, liked=True)
    assert not again.changed  # type: ignore[union-attr]
    assert await twin_score(core) == raised  # pressed twice, counted once

    disliked = await core.suggestions.react(ON, 0, SCHEDULERS, liked=False)
    assert disliked.changed  # type: ignore[union-attr]
    lowered = await twin_score(core)
    assert lowered is None or lowered < plain  # 👎 replaced the 👍, and pushes it down
    with Session(engine) as session:
        readings = session.exec(
            select(ProfilePaper.reading).where(
                col(ProfilePaper.chat_id) == ON, col(ProfilePaper.reading) != "announced"
            )
        ).all()
    assert readings == ["disliked"]
    unknown = await core.suggestions.react(ON, 0, "2605.00000", liked=True)
    assert unknown.arxiv_id == "2605.00000" and not hasattr(unknown, "changed")


async def test_what_went_into_a_profile_comes_out_after_365_days(
    core: Core, engine: Engine
) -> None:
    await turn_on(core, (ON, 0))
    announce_sliwko(core)
    await read_day(core, DAY)
    await core.suggestions.react(ON, 0, SCHEDULERS, liked=True)
    outbox = SuggestionOutbox(engine)
    now = datetime.now(UTC)
    assert outbox.prune(now=now + timedelta(days=364), older_than=now - timedelta(days=30)) == 0
    with Session(engine) as session:
        assert read_profiles(session, [ON])[ON].weights
    taken = outbox.prune(now=now + timedelta(days=366), older_than=now - timedelta(days=30))
    assert taken == len(SLIWKO) + 1
    with Session(engine) as session:
        profile = read_profiles(session, [ON])[ON]
        left = session.exec(select(func.count()).select_from(ProfilePaper)).one()
    assert profile.weights == {} and profile.examples == [] and left == 0


async def test_top_now_is_the_newest_batch_ranked_for_the_destination(core: Core) -> None:
    assert (await core.suggestions.top_now(ON, 0)).mailing is None  # no batch read yet
    announce_sliwko(core)  # ON has no profile yet: built from what it was told, when asked
    await core.poller.suggester.after_batch(MAILING, [record(p) for p in DAY], source="listing")
    top = await core.suggestions.top_now(ON, 0)
    assert top.mailing == MAILING
    assert [p.record.arxiv_id for p in top.papers] == [SCHEDULERS]
    assert top.papers[0].record.authors[0].name == "Mert Yildiz"
    assert core.store.paper(SCHEDULERS) is not None  # shown: stored, for /paper and 👍


# --- the setting ----------------------------------------------------------------------------


async def test_a_destination_turns_suggestions_on_and_off_and_sets_how_many(core: Core) -> None:
    state = await core.suggestions.state(ON, 0)
    assert (state.on, state.count, state.readable, state.digest) == (False, 3, True, False)
    assert (await core.suggestions.set_count(ON, 0, 5)).count == 5  # type: ignore[union-attr]
    for wrong in (0, 11):
        refused = await core.suggestions.set_count(ON, 0, wrong)
        assert "from 1 to 10" in str(refused)
    assert (await core.suggestions.turn_on(ON, 0)).on  # type: ignore[union-attr]
    assert not (await core.suggestions.state(FORUM, TOPIC)).on  # each destination its own
    assert not (await core.suggestions.turn_off(ON, 0)).on
    assert (await core.suggestions.state(ON, 0)).count == 5


async def test_api_only_mode_refuses_suggestions_saying_what_they_need(
    engine: Engine, fake: FakeArxiv
) -> None:
    from watcher.settings import Settings

    settings = Settings(_env_file=None, watch_source="api", early_listings=False)
    async with core_on(engine, fake, SYSTEM_CLOCK, settings=settings) as core:
        core.chats.seen(ON, kind="private")
        refused = await core.suggestions.turn_on(ON, 0)
        assert "EARLY_LISTINGS" in str(refused) and "WATCH_SOURCE=harvest" in str(refused)
        state = await core.suggestions.state(ON, 0)
        assert not state.on and not state.readable


async def test_an_export_carries_suggest_and_an_import_sets_it(core: Core, engine: Engine) -> None:
    from watcher.store.exported_settings import SETTINGS, SettingRefused
    from watcher.store.profiles import read_profiles as profiles_of

    await turn_on(core, (ON, 0))
    await core.suggestions.set_count(ON, 0, 5)
    with Session(engine) as session:
        assert SETTINGS["suggest"].read(session, ON, 0) == "5"
        assert SETTINGS["suggest"].read(session, OFF, 0) == "off"
        SETTINGS["suggest"].write(session, OFF, 0, "7", datetime.now(UTC))
        with pytest.raises(SettingRefused, match="from 1 to 10"):
            SETTINGS["suggest"].write(session, OFF, 0, "11", datetime.now(UTC))
        session.commit()
        assert OFF in profiles_of(session, [OFF])  # on: its profile is kept from now on
    state = await core.suggestions.state(OFF, 0)
    assert (state.on, state.count) == (True, 7)


def test_a_stored_papers_terms_explain_it_as_its_text_does() -> None:
    """The batch explains a paper from its stored counts, finding the few words it names when
    asked (`ShownWords`): the same words as the terms of its whole text."""
    from watcher.suggestions.terms import ShownWords, Terms, paper_terms, term_frequencies

    for paper in PAPERS:
        whole = paper_terms(str(paper["title"]), str(paper["abstract"]))
        asked = ShownWords(str(paper["title"]), str(paper["abstract"]))
        assert {term: asked[term] for term in whole.counts} == whole.words
        stored = Terms(counts=whole.counts, words=asked)
        assert term_frequencies(stored) == term_frequencies(whole)
