"""Suggestions (`watcher.suggestions`) on real papers of the sample (tests/data/suggestions): a
profile of Leszek Sliwko's papers on cluster scheduling and load balancing, and a day of
candidates from May 2026, two of them distributed-computing papers (cs.DC) and fifteen vision or
language papers."""

from __future__ import annotations

import json
import re
from datetime import UTC, datetime

import pytest

from tests.harness.paths import DATA
from watcher.suggestions.frequencies import DocumentFrequencies
from watcher.suggestions.profile import HALF_LIFE, Profile, Reading, growth
from watcher.suggestions.scoring import THRESHOLD, Batch, Example, explain, rank, scored
from watcher.suggestions.terms import Terms, paper_terms, term_frequencies

PAPERS = [
    json.loads(line)
    for line in (DATA / "suggestions" / "sample-papers.jsonl").read_text("utf-8").splitlines()
]
SLIWKO = [p for p in PAPERS if "Leszek Sliwko" in p["authors"]]
READ, NEWEST = SLIWKO[:-1], SLIWKO[-1]  # NEWEST: 2601.09282, cluster workload allocation
DAY = [p for p in PAPERS if p not in SLIWKO]
DISTRIBUTED = {p["id"] for p in DAY if "cs.DC" in p["categories"]}
WEAK_DAY = [p for p in DAY if p["id"] not in DISTRIBUTED]
NOW = datetime(2026, 5, 30, tzinfo=UTC)


def terms(paper: dict[str, str]) -> Terms:
    return paper_terms(paper["title"], paper["abstract"])


def weights(paper: dict[str, str]) -> dict[str, float]:
    return term_frequencies(terms(paper))


def read_at(paper: dict[str, str]) -> datetime:
    return datetime.fromisoformat(paper["published"]).replace(tzinfo=UTC)


@pytest.fixture(scope="module")
def frequencies() -> DocumentFrequencies:
    """The document frequencies of the whole sample (31,097 papers), of these papers' terms."""
    stored = json.loads((DATA / "suggestions" / "frequencies.json").read_text("utf-8"))
    return DocumentFrequencies.from_counts(stored["papers"], stored["counts"])


def sliwko_profile(frequencies: DocumentFrequencies) -> Profile:
    return Profile.built(
        ((p["id"], term_frequencies(terms(p)), read_at(p)) for p in READ), frequencies
    )


def test_the_day_and_the_profile_are_as_the_tests_say() -> None:
    assert len(READ) == 8 and NEWEST["id"] == "2601.09282"
    assert len(DISTRIBUTED) == 2 and len(WEAK_DAY) == 15


def test_the_best_candidate_for_distributed_computing_papers_is_one(
    frequencies: DocumentFrequencies,
) -> None:
    vector = sliwko_profile(frequencies).vector(frequencies)
    batch = Batch([weights(p) for p in DAY], frequencies)
    best = rank(vector, batch, limit=len(DAY), threshold=-1.0)
    assert DAY[best[0].index]["id"] in DISTRIBUTED
    assert [s.score for s in best] == sorted((s.score for s in best), reverse=True)


def test_the_threshold_holds_back_a_weak_day_and_lets_a_close_paper_through(
    frequencies: DocumentFrequencies,
) -> None:
    vector = sliwko_profile(frequencies).vector(frequencies)
    weak = Batch([weights(p) for p in WEAK_DAY], frequencies)
    assert rank(vector, weak, limit=3) == []
    assert len(rank(vector, weak, limit=3, threshold=0.0)) == 3  # they do score, below it
    with_newest = Batch([weights(p) for p in [*WEAK_DAY, NEWEST]], frequencies)
    shown = rank(vector, with_newest, limit=3)
    assert [s.index for s in shown] == [len(WEAK_DAY)]
    assert shown[0].score >= THRESHOLD


def test_a_paper_like_one_read_is_explained_by_its_title(
    frequencies: DocumentFrequencies,
) -> None:
    profile = sliwko_profile(frequencies)
    examples = [Example.of(p["title"], weights(p), frequencies) for p in READ]
    why = explain(terms(NEWEST), profile.vector(frequencies), examples, frequencies)
    # The closest of the eight: both are on scheduling a cluster's workload.
    assert why.like == (
        "Enhancing Cluster Scheduling in HPC: A Continuous Transfer Learning for Real-Time "
        "Optimization"
    )
    assert why.text() == f"like: {why.like}"


def test_a_paper_like_none_in_particular_is_explained_by_the_words_it_shares(
    frequencies: DocumentFrequencies,
) -> None:
    profile = sliwko_profile(frequencies)
    scheduler = next(p for p in DAY if p["id"] == "2605.19593")
    examples = [Example.of(p["title"], weights(p), frequencies) for p in READ]
    why = explain(terms(scheduler), profile.vector(frequencies), examples, frequencies)
    assert why.like is None
    assert len(why.shared) == 3
    written = set(re.findall(r"[^\W_]+", f"{scheduler['title']} {scheduler['abstract']}".lower()))
    assert set(why.shared) <= written  # whole words, as the candidate writes them
    assert "scheduling" in why.shared or "schedulers" in why.shared
    assert why.text() == "shared: " + ", ".join(why.shared)


def test_thumbs_down_lowers_similar_papers_and_thumbs_up_raises_them(
    frequencies: DocumentFrequencies,
) -> None:
    scheduler = next(p for p in DAY if p["id"] == "2605.19593")
    batch = Batch([weights(p) for p in DAY], frequencies)
    index = DAY.index(scheduler)

    def score(profile: Profile) -> float:
        return scored(profile.vector(frequencies), batch)[index]

    before = score(sliwko_profile(frequencies))
    announced, liked, disliked = (sliwko_profile(frequencies) for _ in range(3))
    read = weights(scheduler)
    for profile in (announced, liked, disliked):
        profile.add(read, at=NOW, paper_id=scheduler["id"])
    liked.add(read, at=NOW, reading=Reading.LIKED, paper_id=scheduler["id"])
    disliked.add(read, at=NOW, reading=Reading.DISLIKED, paper_id=scheduler["id"])
    assert score(liked) > score(announced) > before > score(disliked)
    assert scheduler["id"] in liked.examples and scheduler["id"] not in disliked.examples


def test_a_paper_read_later_weighs_more_and_one_taken_out_leaves_no_trace(
    frequencies: DocumentFrequencies,
) -> None:
    one, other = (term_frequencies(terms(p)) for p in READ[:2])
    profile = Profile()
    profile.add(one, at=NOW - HALF_LIFE)
    profile.add(other, at=NOW)
    shared = set(one) & set(other)
    only_one, only_other = next(iter(set(one) - shared)), next(iter(set(other) - shared))
    assert profile.weights[only_other] / other[only_other] == pytest.approx(
        2 * profile.weights[only_one] / one[only_one]
    )
    profile.remove(other, at=NOW)
    assert profile.weights == pytest.approx(
        {term: weight * growth(NOW - HALF_LIFE) for term, weight in one.items()}
    )


def test_document_frequencies_grow_paper_by_paper() -> None:
    counted = DocumentFrequencies()
    counted.add(["rdma", "network"])
    counted.add(["network"])
    assert counted.papers == 2 and counted.counts == {"rdma": 1, "network": 2}
    assert counted.idf("rdma") > counted.idf("network") > 0
    assert counted.idf("never") > counted.idf("rdma")
    assert DocumentFrequencies.from_counts(2, counted.counts) == counted
    rdma = counted.idf("rdma")
    counted.add(["network"])
    assert counted.idf("rdma") > rdma  # rarer among more papers: not the idf it had before


def test_a_profile_keeps_its_most_telling_terms(frequencies: DocumentFrequencies) -> None:
    profile = sliwko_profile(frequencies)
    kept = dict(profile.weights)
    profile.prune(frequencies, keep=20)
    assert len(profile.weights) == 20
    telling = sorted(kept, key=lambda t: abs(kept[t]) * frequencies.idf(t), reverse=True)[:20]
    assert set(profile.weights) == set(telling)


def test_terms_are_stems_of_title_twice_and_abstract_once_without_function_words() -> None:
    found = paper_terms("Load Balancing in Clouds", "The load balancer balances 42 clouds.")
    assert found.counts == {"load": 3, "balanc": 4, "cloud": 3}
    assert found.words["balanc"] == "balancing"


def test_a_term_in_most_papers_is_left_out_of_the_comparison() -> None:
    counted = DocumentFrequencies.from_counts(100, {"model": 60, "rdma": 2})
    profile = {"model": 0.6, "rdma": 0.8}
    candidates = [{"model": 1.0}, {"rdma": 1.0}]
    assert scored(profile, Batch(candidates, counted)) == [0.0, pytest.approx(0.8)]
    assert scored(profile, Batch(candidates, counted, common=1.0)) == pytest.approx([0.6, 0.8])
