"""Suggestions benchmark (issue 32): is a chat's profile any good at finding its next paper, and
what does ranking a day's batch for every chat cost?

Quality, leave-one-out on the real sample (/work/shared/data/arxiv-cs-sample, see its
SOURCE.md): for each author with at least `--min-papers` papers (and at most `--max-papers`:
larger counts are mostly several people under one common name), the newest paper is held out
and the profile is built from all the others (`watcher.suggestions.profile.Profile.built`). The
held-out paper is ranked among 1,000 candidates: itself and 999 papers of its month (with the
nearest months when the month has too few), none by that author, drawn with a fixed seed. Term
document frequencies are counted over the whole sample, as the store counts every paper it holds.
Printed: recall@10 and MRR of the profile (TF-IDF cosine, `watcher.suggestions.scoring`) and of
three baselines, as exact expectations over their random tie order:
- random: every order equally likely;
- same category: the candidates whose primary category is the profile's commonest first;
- newest first: by date of announcement, newest first.
For the threshold (`watcher.suggestions.scoring.THRESHOLD`): how often the held-out paper
scores at or above it, how many of the 999 others do on average, and how many of those others
that are in none of the categories (primary or cross-list) of the profile's papers' primaries.

Cost (`--cost`): suggestions for `--chats` chats over a batch of the sample's newest `--batch`
papers. A first process builds one profile per chat (real authors' papers announced before the
batch, cycled when there are fewer authors than chats) and writes them, with the document
frequencies and the example papers, to files, as the store would hold them. A second process,
measured, reads the frequencies, reads and prepares the batch, then streams the chats' profiles
one at a time, ranks the batch for each (3 suggestions at most) and explains every suggestion
(the example papers read back from their file, as from the database, through a small cache).
Printed: its wall-clock seconds and its peak resident memory (ru_maxrss of that process).

    .venv/bin/python bench/suggestions.py [--authors N] [--min-papers 5] [--max-papers 60]
    .venv/bin/python bench/suggestions.py --cost [--chats 10000] [--batch 2000] [--folder DIR]

Through the real store (`--store`, `bench/suggestions_store.py`): the same chats and batch, the
profiles stored, the batch hook measured as the service runs it, on SQLite or PostgreSQL.

    .venv/bin/python bench/suggestions.py --store [--chats 10000] [--batch 2000]
        [--database-url postgresql+psycopg://postgres@127.0.0.1:5432/test]
"""

from __future__ import annotations

import argparse
import collections
import functools
import gzip
import json
import random
import resource
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SAMPLE = Path("/work/shared/data/arxiv-cs-sample/arxiv-cs-sample.jsonl.gz")
CANDIDATES = 1000
TOP = 10
SEED = 32
DC_NI_AR = frozenset({"cs.DC", "cs.NI", "cs.AR"})

from watcher.suggestions.frequencies import DocumentFrequencies  # noqa: E402
from watcher.suggestions.profile import Profile  # noqa: E402
from watcher.suggestions.scoring import (  # noqa: E402
    COMMON,
    THRESHOLD,
    Batch,
    Example,
    cosine,
    discriminating,
    explain,
    rank,
    weighted,
)
from watcher.suggestions.terms import Terms, paper_terms, term_frequencies  # noqa: E402


@dataclass(frozen=True, slots=True)
class Paper:
    id: str
    title: str
    authors: tuple[str, ...]
    categories: tuple[str, ...]
    primary: str
    published: str  # YYYY-MM-DD
    terms: Terms

    @property
    def at(self) -> datetime:
        return datetime.fromisoformat(self.published).replace(tzinfo=UTC)


def records(sample: Path) -> Iterator[dict[str, object]]:
    with gzip.open(sample, "rt", encoding="utf-8") as lines:
        for line in lines:
            yield json.loads(line)


def paper(record: dict[str, object]) -> Paper:
    title, abstract = str(record["title"]), str(record["abstract"])
    return Paper(
        id=str(record["id"]),
        title=title,
        authors=tuple(record["authors"]),  # type: ignore[arg-type]
        categories=tuple(record["categories"]),  # type: ignore[arg-type]
        primary=str(record["primary"]),
        published=str(record["published"])[:10],
        terms=paper_terms(title, abstract),
    )


def frequencies_of(papers: Sequence[Paper]) -> DocumentFrequencies:
    counted = DocumentFrequencies()
    for one in papers:
        counted.add(one.terms.counts)
    return counted


# --- quality ---------------------------------------------------------------------------------


def expected_in_group(position: int, size: int) -> tuple[float, float]:
    """Recall@TOP and reciprocal rank, expected, of a paper placed uniformly at random among
    `size` tied papers that follow `position` better ones."""
    hits = max(0, min(size, TOP - position))
    rr = sum(1.0 / (position + r) for r in range(1, size + 1)) / size
    return hits / size, rr


def candidates_for(
    held: Paper, own: set[str], by_month: dict[str, list[Paper]], rng: random.Random
) -> list[Paper]:
    months = sorted(by_month)
    at = months.index(held.published[:7])
    pool: list[Paper] = []
    for distance in range(len(months)):
        for index in {at - distance, at + distance}:
            if 0 <= index < len(months):
                pool += [p for p in by_month[months[index]] if p.id not in own]
        if len(pool) >= CANDIDATES - 1:
            break
    return [held, *rng.sample(pool, CANDIDATES - 1)]


@dataclass
class Tally:
    cases: int = 0
    recall: float = 0.0
    rr: float = 0.0

    def add(self, recall: float, rr: float) -> None:
        self.cases += 1
        self.recall += recall
        self.rr += rr

    def row(self) -> tuple[str, str]:
        return f"{self.recall / self.cases:.3f}", f"{self.rr / self.cases:.3f}"


def quality(args: argparse.Namespace) -> None:
    started = time.perf_counter()
    papers = [paper(record) for record in records(args.sample)]
    frequencies = frequencies_of(papers)
    by_author: dict[str, list[Paper]] = collections.defaultdict(list)
    by_month: dict[str, list[Paper]] = collections.defaultdict(list)
    for one in papers:
        by_month[one.published[:7]].append(one)
        for name in set(one.authors):
            by_author[name].append(one)
    authors = sorted(
        name for name, own in by_author.items() if args.min_papers <= len(own) <= args.max_papers
    )
    rng = random.Random(SEED)
    if args.authors and args.authors < len(authors):
        authors = sorted(rng.sample(authors, args.authors))
    vector_of = {one.id: term_frequencies(one.terms) for one in papers}
    weighted_of = {
        one.id: discriminating(weighted(vector_of[one.id], frequencies), frequencies, args.common)
        for one in papers
    }
    held_scores: list[float] = []
    other_scores: list[float] = []
    far_scores: list[float] = []  # candidates in none of the categories of the profile's papers
    print(f"{len(papers):,} papers read and counted in {time.perf_counter() - started:.0f} s")
    methods = ("profile (TF-IDF cosine)", "random", "same category", "newest first")
    tallies = {group: {m: Tally() for m in methods} for group in ("all", "dc")}
    for name in authors:
        own = sorted(by_author[name], key=lambda p: (p.published, p.id))
        held, rest = own[-1], own[:-1]
        candidates = candidates_for(held, {p.id for p in own}, by_month, rng)
        profile = Profile.built(((p.id, vector_of[p.id], p.at) for p in rest), frequencies)
        vector = profile.vector(frequencies)
        scores = [cosine(vector, weighted_of[c.id]) for c in candidates]
        better = sum(1 for s in scores[1:] if s > scores[0])
        results = {methods[0]: (1.0 if better < TOP else 0.0, 1.0 / (better + 1))}
        results["random"] = expected_in_group(0, CANDIDATES)
        category = collections.Counter(p.primary for p in rest).most_common(1)[0][0]
        held_scores.append(scores[0])
        other_scores.extend(scores[1:])
        for c, s in zip(candidates[1:], scores[1:], strict=True):
            if c.primary != category and not set(c.categories) & {p.primary for p in rest}:
                far_scores.append(s)
        same = sum(1 for c in candidates if c.primary == category)
        if held.primary == category:
            results["same category"] = expected_in_group(0, same)
        else:
            results["same category"] = expected_in_group(same, CANDIDATES - same)
        newer = sum(1 for c in candidates if c.published > held.published)
        tied = sum(1 for c in candidates if c.published == held.published)
        results["newest first"] = expected_in_group(newer, tied)
        groups = ["all"] + (["dc"] if any(DC_NI_AR & set(p.categories) for p in own) else [])
        for group in groups:
            for method, (recall, rr) in results.items():
                tallies[group][method].add(recall, rr)
    print(
        f"{len(authors):,} authors ({args.min_papers} to {args.max_papers} papers each), "
        f"{CANDIDATES:,} candidates each, in {time.perf_counter() - started:.0f} s\n"
    )
    for group, label in (("all", "all authors"), ("dc", "authors with a cs.DC/NI/AR paper")):
        cases = tallies[group][methods[0]].cases
        print(f"{label} ({cases:,}):\n\n| method | recall@{TOP} | MRR |\n|---|---|---|")
        for method in methods:
            recall, mrr = tallies[group][method].row()
            print(f"| {method} | {recall} | {mrr} |")
        print()
    print(
        "| threshold | held-out papers at or above | others at or above, per 1,000 "
        "| others of other categories at or above, per 1,000 |"
    )
    print("|---|---|---|---|")
    for threshold in sorted({THRESHOLD, 0.04, 0.05, 0.06, 0.07, 0.08, 0.1, 0.12, 0.15}):
        held = sum(1 for s in held_scores if s >= threshold) / len(held_scores)
        others = sum(1 for s in other_scores if s >= threshold) / len(held_scores)
        far = sum(1 for s in far_scores if s >= threshold) / len(far_scores)
        mark = " (THRESHOLD)" if threshold == THRESHOLD else ""
        print(
            f"| {threshold}{mark} | {held:.1%} | {others * 1000 / (CANDIDATES - 1):.1f} "
            f"| {far * 1000:.1f} |"
        )


# --- cost ------------------------------------------------------------------------------------


def cost_build(args: argparse.Namespace) -> None:
    """First process: the profiles, frequencies and example papers, written as stored."""
    everything = sorted(records(args.sample), key=lambda r: (str(r["published"]), str(r["id"])))
    batch_ids = [str(r["id"]) for r in everything[-args.batch :]]
    papers = [paper(record) for record in everything]
    texts = {str(r["id"]): (str(r["title"]), str(r["abstract"])) for r in everything}
    del everything
    frequencies = frequencies_of(papers)
    before = papers[: -args.batch]
    by_author: dict[str, list[Paper]] = collections.defaultdict(list)
    for one in before:
        for name in set(one.authors):
            by_author[name].append(one)
    authors = sorted(name for name, own in by_author.items() if 3 <= len(own) <= 60)
    folder = Path(args.folder)
    (folder / "frequencies.json").write_text(
        json.dumps({"papers": frequencies.papers, "counts": frequencies.counts})
    )
    (folder / "batch.json").write_text(json.dumps(batch_ids))
    examples: set[str] = set()
    with (folder / "profiles.jsonl").open("w") as out:
        for chat in range(args.chats):
            own = by_author[authors[chat % len(authors)]]
            profile = Profile.built(
                ((p.id, term_frequencies(p.terms), p.at) for p in own), frequencies
            )
            examples.update(profile.examples)
            out.write(json.dumps({"weights": profile.weights, "examples": profile.examples}))
            out.write("\n")
    with (folder / "examples.jsonl").open("w") as out:
        for paper_id in sorted(examples):
            title, abstract = texts[paper_id]
            weights = term_frequencies(paper_terms(title, abstract))
            out.write(json.dumps([paper_id, title, weights]) + "\n")


def cost_run(args: argparse.Namespace) -> None:
    """Second process, measured: read, prepare the batch, rank and explain for every chat."""
    started = time.perf_counter()
    folder = Path(args.folder)
    stored = json.loads((folder / "frequencies.json").read_text())
    frequencies = DocumentFrequencies.from_counts(stored["papers"], stored["counts"])
    del stored
    wanted = set(json.loads((folder / "batch.json").read_text()))
    texts = [
        (str(r["title"]), str(r["abstract"])) for r in records(args.sample) if r["id"] in wanted
    ]
    batch = Batch(
        [term_frequencies(paper_terms(*text)) for text in texts], frequencies, common=args.common
    )
    prepared = time.perf_counter()
    offsets: dict[str, int] = {}
    examples_file = (folder / "examples.jsonl").open("rb")
    while line := examples_file.readline():
        offsets[json.loads(line)[0]] = examples_file.tell() - len(line)

    @functools.lru_cache(maxsize=1024)
    def example(paper_id: str) -> Example:
        """A paper read back as the store keeps it: its title and its term weights."""
        examples_file.seek(offsets[paper_id])
        _, title, weights = json.loads(examples_file.readline())
        return Example.of(title, weights, frequencies)

    @functools.lru_cache(maxsize=2048)
    def candidate(index: int) -> Terms:
        return paper_terms(*texts[index])

    chats = suggested = liked = 0
    with (folder / "profiles.jsonl").open() as profiles:
        for line in profiles:
            stored_profile = json.loads(line)
            profile = Profile(
                weights=stored_profile["weights"], examples=stored_profile["examples"]
            )
            vector = profile.vector(frequencies)
            chats += 1
            best = rank(vector, batch, limit=3)
            if not best:
                continue
            shown = [example(paper_id) for paper_id in profile.examples]
            for one in best:
                why = explain(candidate(one.index), vector, shown, frequencies)
                suggested += 1
                liked += why.like is not None
    finished = time.perf_counter()
    usage = resource.getrusage(resource.RUSAGE_SELF)
    print(
        json.dumps(
            {
                "cpu_s": usage.ru_utime + usage.ru_stime,
                "chats": chats,
                "suggestions": suggested,
                "like_explanations": liked,
                "prepare_s": prepared - started,
                "rank_explain_s": finished - prepared,
                "total_s": finished - started,
                "peak_rss_mb": usage.ru_maxrss / 1024,
            }
        )
    )


def cost(args: argparse.Namespace) -> None:
    with tempfile.TemporaryDirectory(prefix="suggestions-bench-") as temporary:
        folder = args.folder or temporary
        passed = [
            f"--chats={args.chats}",
            f"--batch={args.batch}",
            f"--folder={folder}",
            f"--sample={args.sample}",
            f"--common={args.common}",
        ]
        started = time.perf_counter()
        if not (Path(folder) / "examples.jsonl").exists():
            subprocess.run([sys.executable, __file__, "--cost-build", *passed], check=True)
            print(
                f"profiles of {args.chats:,} chats built and written in "
                f"{time.perf_counter() - started:.0f} s (not measured)"
            )
        out = subprocess.run(
            [sys.executable, __file__, "--cost-run", *passed],
            check=True,
            capture_output=True,
            text=True,
        ).stdout
        found = json.loads(out)
        print(
            f"{found['chats']:,} chats x {args.batch:,} papers: "
            f"{found['total_s']:.1f} s in all ({found['prepare_s']:.1f} s to read the "
            f"frequencies and prepare the batch, {found['rank_explain_s']:.1f} s to rank and "
            f"explain; {found['cpu_s']:.1f} CPU seconds), peak RSS "
            f"{found['peak_rss_mb']:.0f} MB; {found['suggestions']:,} "
            f'suggestions, {found["like_explanations"]:,} of them "like: <title>"'
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sample", type=Path, default=SAMPLE)
    parser.add_argument("--authors", type=int, default=0, help="a random subset (0: all)")
    parser.add_argument("--min-papers", type=int, default=5)
    parser.add_argument("--max-papers", type=int, default=60)
    parser.add_argument("--common", type=float, default=COMMON, help="scoring.COMMON")
    parser.add_argument("--cost", action="store_true")
    parser.add_argument("--chats", type=int, default=10_000)
    parser.add_argument("--batch", type=int, default=2_000)
    parser.add_argument("--cost-build", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--cost-run", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument(
        "--folder", help="--cost: keep the stored profiles here, and reuse them when there"
    )
    parser.add_argument("--store", action="store_true", help="through the real store")
    parser.add_argument("--database-url", default="", help="--store: PostgreSQL's URL")
    args = parser.parse_args()
    if args.store:
        subprocess.run(
            [
                sys.executable, str(REPO / "bench" / "suggestions_store.py"),
                f"--chats={args.chats}", f"--batch={args.batch}", f"--sample={args.sample}",
                f"--database-url={args.database_url}",
            ],
            check=True,
        )  # fmt: skip
    elif args.cost_build:
        cost_build(args)
    elif args.cost_run:
        cost_run(args)
    elif args.cost:
        cost(args)
    else:
        quality(args)


if __name__ == "__main__":
    main()
